package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"svc/pipeline/check"
	"svc/pipeline/fetch"
	"svc/pipeline/inbox"
	"svc/pipeline/ucp"
)

// post sends a JSON body and returns the status and body.
func (ts *testServer) post(t *testing.T, path, body string, hdr ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, ts.ts.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// callTool makes one bare JSON-RPC tools/call and returns isError and the
// text of its answer.
func (ts *testServer) callTool(t *testing.T, name string, args map[string]any) (bool, string) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	code, body := ts.post(t, "/api/ask", string(b))
	var rpc struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &rpc) != nil {
		t.Fatalf("tools/call %s: %d %.300s", name, code, body)
	}
	if rpc.Error != nil {
		return true, rpc.Error.Message
	}
	text := ""
	if len(rpc.Result.Content) > 0 {
		text = rpc.Result.Content[0].Text
	}
	return rpc.Result.IsError, text
}

// stateHolds reports whether any file of the state log holds s.
func stateHolds(t *testing.T, dataDir, s string) bool {
	t.Helper()
	found := false
	filepath.WalkDir(filepath.Join(dataDir, "state"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(s)) {
				found = true
			}
		}
		return nil
	})
	return found
}

// TestUnicodePrivateAddressesRefused (issue 17.2): Unicode spellings of a
// private address (ideographic full stops, fullwidth digits) are refused
// by every endpoint that takes a store URL or host, REST and MCP, and
// nothing of them is saved. They used to pass the check on the endpoints
// that do not fetch, and be saved as 127.0.0.1.
func TestUnicodePrivateAddressesRefused(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	for _, spelled := range []string{"127。0。0。1", "１２７.０.０.１", "http://１０。０。０。１/", "0x7f｡1", "１９２.１６８.０.１"} {
		q := url.QueryEscape(spelled)
		for _, path := range []string{
			"/api/precheck?url=" + q,
			"/api/store?host=" + q,
			"/api/agent-facts?host=" + q,
			"/api/agent-checkout/product-data?host=" + q,
			"/api/ask?url=" + q,
			"/api/ucp/validate?url=" + q,
			"/api/agent-checkout?url=" + q,
		} {
			resp, body := ts.get(t, path, "X-Forwarded-For", "203.0.113.7")
			if resp.StatusCode != 400 || errorCode(t, body) != "invalid_request" {
				t.Errorf("GET %s: %d %.200s, want 400", path, resp.StatusCode, body)
			}
		}
		rep, _ := json.Marshal(map[string]string{"host": spelled, "outcome": "no_cart"})
		if code, body := ts.post(t, reportPath, string(rep)); code != 400 {
			t.Errorf("POST %s %s: %d %.200s, want 400", reportPath, spelled, code, body)
		}
		for _, tool := range []struct {
			name string
			args map[string]any
		}{
			{"precheck", map[string]any{"url": spelled}},
			{"store_card", map[string]any{"host": spelled}},
			{"get_agent_facts", map[string]any{"host": spelled}},
			{"product_data_check", map[string]any{"host": spelled}},
			{"vendor_checkout_readiness", map[string]any{"host": spelled}},
			{"ask_svc", map[string]any{"url": spelled}},
			{"can_agent_checkout", map[string]any{"url": spelled}},
		} {
			if isErr, text := ts.callTool(t, tool.name, tool.args); !isErr {
				t.Errorf("tool %s %q: answered %.200s, want an error", tool.name, spelled, text)
			}
		}
	}
	for _, addr := range []string{"127.0.0.1", "10.0.0.1", "192.168.0.1", "0x7f.1"} {
		if stateHolds(t, ts.dir, addr) {
			t.Errorf("the state log holds %s", addr)
		}
	}
}

// TestURLSchemesGetTrueMessages (issue 16.8): mailto:, javascript: and
// data: URLs are refused with a 400 that says what they are, on the live
// check, precheck and UCP validation alike.
func TestURLSchemesGetTrueMessages(t *testing.T) {
	ts := newTestServer(t, Config{})
	for in, want := range map[string]string{
		"mailto:orders@shop.example": "e-mail address",
		"javascript:alert(1)":        "script",
		"data:text/html,hello":       "inline",
		"http:/127.0.0.1/":           "missing the // after http:",
	} {
		for _, path := range []string{"/api/agent-checkout?url=", "/api/precheck?url=", "/api/ucp/validate?url="} {
			resp, body := ts.get(t, path+url.QueryEscape(in))
			if resp.StatusCode != 400 || !strings.Contains(body, want) ||
				strings.Contains(body, "user name or password") || strings.Contains(body, "invalid port") {
				t.Errorf("GET %s%s: %d %s, want 400 saying %q", path, in, resp.StatusCode, body, want)
			}
		}
	}
}

// TestLiveCheckSavesOnlyPublicStores (issue 17.7): a live check is saved as
// the public card of its host, so it takes only a homepage or product URL
// on the default port of a host that can be a public store; the rest is a
// 400 before anything is fetched or saved. The fixture world's *.test
// names stay checkable when the server runs on it.
func TestLiveCheckSavesOnlyPublicStores(t *testing.T) {
	world, eng, v := fixtureEngine(t)
	dir := t.TempDir()
	ts := newTestServer(t, Config{DataDir: dir, Engine: eng, UCP: v})
	host := world.Stores[0].Host
	for _, tc := range []struct{ url, want string }{
		{"https://" + host + ":8443/", "default port"},
		{"http://" + host + ":443/", "default port"},
		{"http:/127.0.0.1/", "missing the //"},
		{"https://shop/", "single-label"},
		{"https://93.184.215.14/", "not an IP address"},
		{"https://[2606:4700::1111]/", "not an IP address"},
		{"https://127.0.0.1.nip.io/", "nip.io"},
		{"https://app-10-0-0-1.sslip.io/", "sslip.io"},
		{"https://10.0.0.1.store-cdn.com/", "embeds the address 10.0.0.1"},
		{"https://printer-192-168-1-20.shopdomain.com/", "embeds the address 192.168.1.20"},
		{"https://shop.localhost/", "loopback"},
		{"https://printer.local/", ".local"},
		{"https://billing.internal/", ".internal"},
		{"https://nas.lan/", ".lan"},
		{"https://router.home.arpa/", ".home.arpa"},
		{"https://shop.example/", ".example"},
		{"https://www.example.com/", ".example.com"},
		{"https://x.onion/", ".onion"},
		{"https://shop.invalid/", ".invalid"},
	} {
		resp, body := ts.get(t, "/api/agent-checkout?url="+url.QueryEscape(tc.url))
		if resp.StatusCode != 400 || !strings.Contains(body, tc.want) {
			t.Errorf("live check of %s: %d %.300s, want 400 saying %q", tc.url, resp.StatusCode, body, tc.want)
		}
	}
	if stateHolds(t, dir, `"`+inbox.TypeCheck+`"`) {
		t.Error("a refused live check was saved")
	}
	// The default port spelled out is the store itself: checked and saved
	// under its host.
	resp, body := ts.get(t, "/api/agent-checkout?url="+url.QueryEscape("https://"+host+":443/"))
	var ans struct{ Host, ResultURL string }
	if json.Unmarshal([]byte(body), &ans); resp.StatusCode != 200 || ans.Host != host || ans.ResultURL != "/stores/"+host+"/" {
		t.Fatalf("live check on :443: %d %.300s", resp.StatusCode, body)
	}

	// Without the fixture world, *.test is a reserved name like the rest.
	plain, err := fetch.New(fetch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts2 := newTestServer(t, Config{Engine: check.New(check.Options{Client: plain})})
	resp, body = ts2.get(t, "/api/agent-checkout?url=https://"+host+"/")
	if resp.StatusCode != 400 || !strings.Contains(body, ".test") {
		t.Errorf("a *.test live check without the fixture world: %d %.300s", resp.StatusCode, body)
	}
}

// failingResolver fails every lookup the way a resolver does, naming the
// resolver's address.
type failingResolver struct{}

func (failingResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	return nil, &net.DNSError{Err: "no such host", Name: host, Server: "10.96.0.10:53", IsNotFound: true}
}

// logBuffer is a slog handler's output, safe to read while it is written.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestNetworkErrorsAnsweredByClass (issue 17.3): a UCP profile that cannot
// be fetched is reported by class ("DNS lookup failed"); the resolver's
// address stays out of the answer and the detail goes to the log.
func TestNetworkErrorsAnsweredByClass(t *testing.T) {
	client, err := fetch.New(fetch.Options{Resolver: failingResolver{}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ucp.New(context.Background(), ucp.Config{Client: client, CacheDir: t.TempDir(), Offline: true, Resolver: failingResolver{}})
	if err != nil {
		t.Fatal(err)
	}
	var logs logBuffer
	ts := newTestServer(t, Config{UCP: v, Client: client, Log: slog.New(slog.NewJSONHandler(&logs, nil))})
	resp, body := ts.get(t, "/api/ucp/validate?url=https://gone-store.com/")
	if resp.StatusCode != 200 || !strings.Contains(body, fetch.ClassDNS) {
		t.Fatalf("validate: %d %.500s", resp.StatusCode, body)
	}
	for _, leak := range []string{"10.96.0.10", ":53", "lookup gone-store", "no such host"} {
		if strings.Contains(body, leak) {
			t.Errorf("the answer holds %q: %.500s", leak, body)
		}
	}
	// Store submissions answer by class too.
	code, body := ts.post(t, "/api/stores/submit", `{"hosts":["gone-store.com"]}`)
	if code != 200 || !strings.Contains(body, fetch.ClassDNS) || strings.Contains(body, "10.96.0.10") {
		t.Errorf("submission: %d %.500s", code, body)
	}
	ts.flushLogs()
	if !strings.Contains(logs.String(), "no such host") {
		t.Errorf("the log lacks the detail: %s", logs.String())
	}
}

// TestScrubAddrs: every spelling of an IP address a log line can carry is
// removed; text that only looks a little like one is kept.
func TestScrubAddrs(t *testing.T) {
	for in, want := range map[string]string{
		"write tcp 127.0.0.1:8080->127.0.0.1:53412: write: connection reset by peer": "write tcp [addr]->[addr]: write: connection reset by peer",
		"http: TLS handshake error from [::1]:40522: EOF":                            "http: TLS handshake error from [addr]: EOF",
		"read tcp [2001:db8::7]:443->[2001:db8::9]:5555: i/o timeout":                "read tcp [addr]->[addr]: i/o timeout",
		"lookup gone.example on 10.96.0.10:53: no such host":                         "lookup gone.example on [addr]: no such host",
		"dial fe80::1%eth0 and 203.0.113.9 and ::ffff:192.0.2.1":                     "dial [addr] and [addr] and [addr]",
		"client 198.51.100.23 sent":                                                  "client [addr] sent",
		"at 12:34:56, v1.2.3, 3.14 ms, shop.example:8443, a.b.c.d, 2026-11-16":       "at 12:34:56, v1.2.3, 3.14 ms, shop.example:8443, a.b.c.d, 2026-11-16",
	} {
		if got := scrubAddrs(in); got != want {
			t.Errorf("scrubAddrs(%q)\n = %q\nwant %q", in, got, want)
		}
	}
}

// TestResetConnectionLeavesNoAddressInLog (issue 17.4): a client that
// resets the connection while its answer is written, and one that speaks
// garbage to the TLS listener, leave log lines without its address. Both
// paths are exercised: the handler's "error after write" and net/http's own
// error log.
func TestResetConnectionLeavesNoAddressInLog(t *testing.T) {
	var logs logBuffer
	s, err := New(Config{DataDir: t.TempDir(), Log: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hs := s.HTTPServer()
	// A handler that writes far more than socket buffers hold.
	hs.Handler = guard(s.adapt("GET /big", func(w http.ResponseWriter, r *http.Request) error {
		w.WriteHeader(http.StatusOK)
		chunk := make([]byte, 1<<20)
		for range 512 {
			if _, err := w.Write(chunk); err != nil {
				return err
			}
		}
		return nil
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go hs.Serve(ln)
	defer hs.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
	io.ReadFull(c, make([]byte, 4096))
	c.(*net.TCPConn).SetLinger(0) // close with a reset
	c.Close()

	ts := newTLSTestServer(t, s, hs)
	g, err := net.Dial("tcp", ts)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(g, "this is not TLS\r\n\r\n")
	io.ReadAll(g)
	g.Close()

	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		s.flushLogs()
		if out := logs.String(); strings.Contains(out, "error after write") && strings.Contains(out, "TLS handshake error") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	out := logs.String()
	if !strings.Contains(out, "error after write") || !strings.Contains(out, "TLS handshake error") {
		t.Fatalf("the failures were not logged: %s", out)
	}
	for _, addr := range []string{"127.0.0.1", ln.Addr().String()} {
		if strings.Contains(out, addr) {
			t.Errorf("the log holds %s: %s", addr, out)
		}
	}
}

// newTLSTestServer serves s over TLS with net/http's error log going to
// hs.ErrorLog, and returns its address.
func newTLSTestServer(t *testing.T, s *Server, hs *http.Server) string {
	t.Helper()
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.Config.ErrorLog = hs.ErrorLog
	ts.StartTLS()
	t.Cleanup(ts.Close)
	return ts.Listener.Addr().String()
}

// rawExchange writes req on a fresh TCP connection to addr, optionally
// half-closes it, and reads until the server closes or 10 s pass. It
// returns what was read and whether the server closed the connection.
func rawExchange(t *testing.T, addr, req string, halfClose bool) (string, bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	if halfClose {
		c.(*net.TCPConn).CloseWrite()
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := io.ReadAll(c)
	var ne net.Error
	closed := err == nil || !(errors.As(err, &ne) && ne.Timeout())
	return string(b), closed
}

// TestSmuggledRequestNotAnswered (issue 17.5): a request with both
// Content-Length and Transfer-Encoding: chunked is answered once and the
// connection closed (RFC 9112 section 6.1), so a request hidden after its
// chunked body is never answered.
func TestSmuggledRequestNotAnswered(t *testing.T) {
	ts := newTestServer(t, Config{})
	addr := strings.TrimPrefix(ts.ts.URL, "http://")
	smuggle := "POST /api/ucp/validate HTTP/1.1\r\nHost: svc\r\nContent-Type: application/json\r\n" +
		"Content-Length: 48\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"0\r\n\r\n" +
		"GET /api/precheck/stats HTTP/1.1\r\nHost: svc\r\n\r\n"
	got, closed := rawExchange(t, addr, smuggle, false)
	if n := strings.Count(got, "HTTP/1.1 "); n != 1 || !closed {
		t.Errorf("%d answers, connection closed %v, want 1 and closed:\n%s", n, closed, got)
	}
	if !strings.Contains(got, "Connection: close") {
		t.Errorf("the answer does not say Connection: close:\n%s", got)
	}
	// An ordinary keep-alive exchange still answers both pipelined requests.
	plain := "GET /api/precheck/stats HTTP/1.1\r\nHost: svc\r\n\r\nGET /api/precheck/stats HTTP/1.1\r\nHost: svc\r\nConnection: close\r\n\r\n"
	if got, _ := rawExchange(t, addr, plain, false); strings.Count(got, "HTTP/1.1 ") != 2 {
		t.Errorf("pipelined plain requests: %s", got)
	}
}

// TestHalfClosedRequestAnswered (issue 17.10): a client that sends its
// request and half-closes the connection (shutdown SHUT_WR) gets the
// answer; it used to get 503, its request cancelled by the half-close.
// The profile fetched is a fixture store that answers slowly, so the
// validation is still running when the server sees the half-close.
func TestHalfClosedRequestAnswered(t *testing.T) {
	world, eng, v, fc := fixtureEngineClient(t)
	var slow string
	for _, st := range world.Stores {
		for _, tr := range st.Traits {
			if tr == "unreachable:timeout" {
				slow = st.Host
			}
		}
	}
	if slow == "" {
		t.Fatal("no fixture store times out")
	}
	ts := newTestServer(t, Config{Engine: eng, UCP: v, Client: fc})
	addr := strings.TrimPrefix(ts.ts.URL, "http://")
	for _, req := range []string{
		"GET /api/ucp/validate?url=https://" + slow + "/ HTTP/1.1\r\nHost: svc\r\nConnection: close\r\n\r\n",
		"POST /api/ucp/validate HTTP/1.1\r\nHost: svc\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
			strconv.Itoa(len(`{"url":"https://`+slow+`/"}`)) + "\r\n\r\n" + `{"url":"https://` + slow + `/"}`,
	} {
		got, _ := rawExchange(t, addr, req, true)
		if !strings.HasPrefix(got, "HTTP/1.1 200 ") || !strings.Contains(got, `"valid":null`) {
			t.Errorf("half-closed %.40s: %.300s", req, got)
		}
	}
}
