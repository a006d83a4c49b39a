package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// exchange is one HTTP request of an MCP client and what it got.
type exchange struct {
	method, accept, rpc string // HTTP method, Accept, JSON-RPC method
	status              int
	allow, contentType  string
	body                []byte // error bodies only
}

// recorder is an http.RoundTripper that keeps every exchange.
type recorder struct {
	mu  sync.Mutex
	log []exchange
}

func (rc *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	ex := exchange{method: req.Method, accept: req.Header.Get("Accept")}
	if req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(b))
		var m struct{ Method string }
		json.Unmarshal(b, &m)
		ex.rpc = m.Method
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	ex.status, ex.allow, ex.contentType = resp.StatusCode, resp.Header.Get("Allow"), resp.Header.Get("Content-Type")
	if resp.StatusCode >= 400 {
		ex.body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(ex.body))
	}
	rc.mu.Lock()
	rc.log = append(rc.log, ex)
	rc.mu.Unlock()
	return resp, nil
}

// decodeRPCError reads a JSON-RPC error object; it fails the test when the
// body is anything else.
func decodeRPCError(t *testing.T, what string, body []byte) rpcError {
	t.Helper()
	var m map[string]json.RawMessage
	var e rpcError
	if err := json.Unmarshal(body, &m); err != nil || len(m) != 3 || m["id"] == nil || m["error"] == nil ||
		json.Unmarshal(body, &e) != nil || e.JSONRPC != "2.0" || e.Error.Code == 0 || e.Error.Message == "" {
		t.Fatalf("%s: not a JSON-RPC error object: %q", what, body)
	}
	return e
}

// TestMCPStreamableHTTPClient connects the official Go SDK's client over
// streamable HTTP with protocol 2025-11-25, the version the MCP Inspector
// speaks: initialize, the initialized notification, the GET stream probe,
// tools/list and tools/call, each checked on the wire.
func TestMCPStreamableHTTPClient(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	host := f.world.Stores[0].Host
	rec := &recorder{}
	client := mcp.NewClient(&mcp.Implementation{Name: "svc-test", Version: "1"}, nil)
	sess, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: ts.ts.URL + "/api/ask", HTTPClient: &http.Client{Transport: rec}, MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer sess.Close()
	list, err := sess.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 16 {
		t.Errorf("tools/list: %d tools, want the 16 of spec 4.3", len(list.Tools))
	}
	for name, args := range map[string]map[string]any{"dataset_info": {}, "precheck": {"url": "https://" + host + "/"}} {
		res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError || len(res.Content) == 0 {
			t.Fatalf("tools/call %s: %v %+v", name, err, res)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	// initialize, then the initialized notification and the stream probe
	// (the SDK sends them concurrently), then the calls.
	want := []string{"POST initialize 200", "GET  405", "POST notifications/initialized 202",
		"POST tools/list 200", "POST tools/call 200", "POST tools/call 200"}
	var got []string
	var probe exchange
	for _, ex := range rec.log {
		got = append(got, fmt.Sprintf("%s %s %d", ex.method, ex.rpc, ex.status))
		if ex.method == http.MethodGet {
			probe = ex
		}
	}
	if len(got) > 2 && got[1] > got[2] {
		got[1], got[2] = got[2], got[1]
	}
	if !slices.Equal(got, want) {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(probe.accept, "text/event-stream") || probe.allow != "POST" || !strings.HasPrefix(probe.contentType, "application/json") {
		t.Errorf("stream probe: Accept %q -> Allow %q, Content-Type %q", probe.accept, probe.allow, probe.contentType)
	}
	decodeRPCError(t, "stream probe", probe.body)
}

// TestMCPInspectorRequests replays, byte for byte, the requests the MCP
// Inspector CLI 2.12.0 (TypeScript SDK client) sent to this endpoint on
// loopback for `--method tools/list`, then the tools/call it sends.
func TestMCPInspectorRequests(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	post := `application/json, text/event-stream`
	steps := []struct {
		method, accept, version, body string
		status                        int
	}{
		{"POST", post, "", `{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"extensions":{"io.modelcontextprotocol/tasks":{},"io.modelcontextprotocol/skills":{}}},"clientInfo":{"name":"inspector-cli","version":"2.12.0"}},"jsonrpc":"2.0","id":0}`, 200},
		{"POST", post, "2025-11-25", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202},
		{"GET", "text/event-stream", "2025-11-25", "", 405},
		{"POST", post, "2025-11-25", `{"method":"logging/setLevel","params":{"level":"debug"},"jsonrpc":"2.0","id":1}`, 200},
		{"POST", post, "2025-11-25", `{"method":"tools/list","jsonrpc":"2.0","id":2}`, 200},
		{"POST", post, "2025-11-25", `{"method":"tools/call","params":{"name":"dataset_info","arguments":{}},"jsonrpc":"2.0","id":3}`, 200},
	}
	for i, st := range steps {
		req, _ := http.NewRequest(st.method, ts.ts.URL+"/api/ask", strings.NewReader(st.body))
		if st.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("Accept", st.accept)
		if st.version != "" {
			req.Header.Set("Mcp-Protocol-Version", st.version)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != st.status {
			t.Fatalf("step %d (%s %.40s): %d %s, want %d", i, st.method, st.body, resp.StatusCode, b, st.status)
		}
		switch {
		case st.status == 405:
			if resp.Header.Get("Allow") != "POST" {
				t.Errorf("stream probe: Allow %q", resp.Header.Get("Allow"))
			}
			decodeRPCError(t, "stream probe", b)
		case strings.Contains(st.body, `"tools/list"`):
			var r struct {
				Result struct{ Tools []struct{ Name string } }
			}
			if json.Unmarshal(b, &r) != nil || len(r.Result.Tools) != 16 {
				t.Errorf("tools/list: %.300s", b)
			}
		case strings.Contains(st.body, `"tools/call"`):
			var r struct {
				Result struct {
					IsError bool
					Content []struct{ Text string }
				}
			}
			if json.Unmarshal(b, &r) != nil || r.Result.IsError || len(r.Result.Content) != 1 || !strings.Contains(r.Result.Content[0].Text, `"sha256"`) {
				t.Errorf("tools/call dataset_info: %.300s", b)
			}
		}
	}
}

// TestAskGetStreamProbe: GET /api/ask is the REST Index answer unless it
// asks for an event stream, which this server does not offer (405).
func TestAskGetStreamProbe(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	q := "/api/ask?url=https://" + f.world.Stores[0].Host + "/"
	for _, c := range []struct {
		path, accept string
		status       int
	}{
		{"/api/ask", "text/event-stream", 405},
		{q, "text/event-stream", 405},
		{q, "application/json, text/event-stream", 405},
		{q, "text/html, text/event-stream;q=0.5", 405},
		{q, "", 200},
		{q, "*/*", 200},
		{q, "application/json", 200},
		{q, "text/event-stream;q=0, application/json", 200},
		{"/api/ask", "application/json", 400},
	} {
		resp, body := ts.get(t, c.path, "Accept", c.accept)
		if resp.StatusCode != c.status {
			t.Errorf("GET %s Accept %q: %d %.200s, want %d", c.path, c.accept, resp.StatusCode, body, c.status)
			continue
		}
		switch c.status {
		case 405:
			if resp.Header.Get("Allow") != "POST" {
				t.Errorf("Accept %q: Allow %q", c.accept, resp.Header.Get("Allow"))
			}
			if e := decodeRPCError(t, "stream probe", []byte(body)); e.Error.Code != rpcInvalidRequest || string(e.ID) != "null" {
				t.Errorf("stream probe error: %+v", e)
			}
		case 400:
			errorCode(t, body) // the REST answer keeps the API's error shape
		case 200:
			hasKeys(t, "ask", body, "score", "buy")
		}
	}
}

// postMCP sends one POST to the MCP endpoint through the handler, with a
// body reader that counts what was read.
func postMCP(h http.Handler, body io.Reader, hdr ...string) (*httptest.ResponseRecorder, *countingReader) {
	cr := &countingReader{r: body}
	req := httptest.NewRequest(http.MethodPost, "/api/ask", cr)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec, cr
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestMCPBatchRefused: a JSON-RPC batch, of any size, is refused with one
// JSON-RPC error before the server reads past its first byte; no call in
// it runs (issue 17: 40,000 calls in 4 MB drove the server past 3 GB).
func TestMCPBatchRefused(t *testing.T) {
	ts := newTestServer(t, Config{})
	h := ts.Server.Handler()
	big := mcpBatch(40000)
	for name, body := range map[string][]byte{
		"40,000 calls":  big,
		"2 calls":       mcpBatch(2),
		"leading space": append([]byte(" \n\t"), mcpBatch(3)...),
		// JSON-RPC 2.0 specification, section 7 (Examples): an empty
		// array, an invalid batch, and a batch that is not valid JSON; the
		// last is a parse error (-32700) to JSON-RPC, here a refused batch
		// (-32600), decided by its first byte.
		"empty":      []byte(`[]`),
		"invalid":    []byte(`[1,2,3]`),
		"unparsable": []byte(`[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method"]`),
	} {
		rec, cr := postMCP(h, bytes.NewReader(body))
		e := decodeRPCError(t, name, rec.Body.Bytes())
		if rec.Code != 400 || e.Error.Code != rpcInvalidRequest || string(e.ID) != "null" || !strings.Contains(e.Error.Message, "batch") {
			t.Errorf("%s: %d %s", name, rec.Code, rec.Body)
		}
		if cr.n >= 64<<10 && cr.n < len(body) {
			t.Errorf("%s: read %d of %d bytes before refusing", name, cr.n, len(body))
		}
	}
	if n := ts.Server.mcpCalls.Load(); n != 0 {
		t.Errorf("%d tool calls ran from refused batches", n)
	}
	// The counter does count: one single call runs once.
	rec, _ := postMCP(h, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dataset_info","arguments":{}}}`))
	if rec.Code != 200 || ts.Server.mcpCalls.Load() != 1 {
		t.Errorf("single call: %d %s, %d calls", rec.Code, rec.Body, ts.Server.mcpCalls.Load())
	}
}

// TestMCPTransportErrors: every error of the MCP endpoint is a JSON-RPC
// error object with a fitting status, never plain text, and no tool runs.
func TestMCPTransportErrors(t *testing.T) {
	ts := newTestServer(t, Config{})
	h := ts.Server.Handler()
	huge := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"validate_ucp_profile","arguments":{"profile":"` +
		strings.Repeat("a", mcpMaxBody) + `"}}}`
	for _, c := range []struct {
		name, body string
		hdr        []string
		status     int
		code       int
		id         string
	}{
		// JSON-RPC 2.0 specification, section 7 (Examples).
		{"spec: invalid JSON", `{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`, nil, 400, rpcParseError, "null"},
		{"spec: invalid request object", `{"jsonrpc": "2.0", "method": 1, "params": "bar"}`, nil, 400, rpcInvalidRequest, "null"},
		{"spec: non-existent method", `{"jsonrpc": "2.0", "method": "foobar", "id": "1"}`, nil, 400, rpcMethodNotFound, `"1"`},
		// The endpoint's own.
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"tools/li`, nil, 400, rpcParseError, "null"},
		{"trailing data", `{"jsonrpc":"2.0","id":1,"method":"tools/list"} {}`, nil, 400, rpcParseError, "null"},
		{"not an object", `"tools/list"`, nil, 400, rpcInvalidRequest, "null"},
		{"null", `null`, nil, 400, rpcInvalidRequest, "null"},
		{"empty body", ``, nil, 400, rpcInvalidRequest, "null"},
		{"only spaces", "  \n ", nil, 400, rpcInvalidRequest, "null"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"tools/list"}`, nil, 400, rpcInvalidRequest, "1"},
		{"no jsonrpc", `{"id":1,"method":"tools/list"}`, nil, 400, rpcInvalidRequest, "1"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, nil, 400, rpcInvalidRequest, "null"},
		{"string params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}`, nil, 400, rpcInvalidRequest, "1"},
		{"no method", `{"jsonrpc":"2.0","id":1}`, nil, 400, rpcInvalidRequest, "1"},
		{"call without id", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"dataset_info"}}`, nil, 400, rpcInvalidRequest, "null"},
		{"too large", huge, nil, 413, rpcInvalidRequest, "null"},
		{"text/plain", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, []string{"Content-Type", "text/plain"}, 415, rpcInvalidRequest, "null"},
		{"no Content-Type", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, []string{"Content-Type", ""}, 415, rpcInvalidRequest, "null"},
		{"form", `a=b`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, rpcInvalidRequest, "null"},
		{"unknown protocol version", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, []string{"Mcp-Protocol-Version", "1999-01-01"}, 400, rpcInvalidRequest, "1"},
	} {
		rec, _ := postMCP(h, strings.NewReader(c.body), c.hdr...)
		if !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			t.Errorf("%s: Content-Type %q: %.200s", c.name, rec.Header().Get("Content-Type"), rec.Body)
			continue
		}
		e := decodeRPCError(t, c.name, rec.Body.Bytes())
		if rec.Code != c.status || e.Error.Code != c.code || string(e.ID) != c.id {
			t.Errorf("%s: %d %s, want %d code %d id %s", c.name, rec.Code, rec.Body, c.status, c.code, c.id)
		}
		if strings.Contains(e.Error.Message, "JSON RPC") || strings.Contains(e.Error.Message, "\n") {
			t.Errorf("%s: message %q", c.name, e.Error.Message)
		}
	}
	if n := ts.Server.mcpCalls.Load(); n != 0 {
		t.Errorf("%d tool calls ran from refused messages", n)
	}
	// A client that accepts only an event stream gets one.
	rec, _ := postMCP(h, strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`), "Accept", "text/event-stream")
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") || !strings.Contains(rec.Body.String(), `"id":5`) {
		t.Errorf("event-stream client: %d %q %.200s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
}
