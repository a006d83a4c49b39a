package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// FuzzMCPEndpoint posts arbitrary bodies, single messages and batches, to
// the MCP endpoint of a server without a snapshot: it never panics or
// answers 5xx; every answer is one JSON-RPC object (an error object for
// every 4xx), or 202 with no body; a batch is refused and runs nothing.
func FuzzMCPEndpoint(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"dataset_info","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"precheck","arguments":{"url":"https://shop.test/"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"find_agent_ready_stores","arguments":{"limit":1e309}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_agent_facts","arguments":{"host":"a.test","slug":"price_clarity"}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"validate_ucp_profile","arguments":{"profile":"{\"ucp\":{}}"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"nope"}}`,
		`{"jsonrpc":"2.0","id":8,"result":{}}`,
		`{"jsonrpc":"2.0","id":9,"method":"ping"}`,
		// JSON-RPC 2.0 specification, section 7 (Examples).
		`{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`,
		`{"jsonrpc": "2.0", "method": 1, "params": "bar"}`,
		`[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method"]`,
		`[]`,
		`[1]`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dataset_info","arguments":{}}},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`,
		``, ` `, `null`, `{}`, `"x"`, `{"jsonrpc":"2.0","id":[],"method":"tools/list"}`,
	} {
		f.Add([]byte(seed))
	}
	s, err := New(Config{DataDir: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body []byte) {
		before := s.mcpCalls.Load()
		rec, _ := postMCP(h, bytes.NewReader(body))
		out := rec.Body.Bytes()
		if rec.Code >= 500 {
			t.Fatalf("%d for %q: %s", rec.Code, body, out)
		}
		if rec.Code == http.StatusAccepted {
			if len(out) != 0 {
				t.Fatalf("202 with a body for %q: %s", body, out)
			}
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(out, &m); err != nil || string(m["jsonrpc"]) != `"2.0"` || m["id"] == nil {
			t.Fatalf("%d for %q: not one JSON-RPC object: %q", rec.Code, body, out)
		}
		if rec.Code >= 400 {
			decodeRPCError(t, string(body), out)
		}
		if first := bytes.TrimLeft(body, " \t\r\n"); len(first) > 0 && first[0] == '[' {
			if rec.Code != http.StatusBadRequest || s.mcpCalls.Load() != before {
				t.Fatalf("batch %q: %d, %d calls ran", body, rec.Code, s.mcpCalls.Load()-before)
			}
		}
	})
}
