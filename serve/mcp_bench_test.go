package serve

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// mcpBatch is a JSON-RPC batch of n tools/call requests, the shape of the
// hostile-input audit of issue 17 (10,000 calls in 1 MB, 40,000 in 4 MB).
func mcpBatch(n int) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"agent_commerce_adoption","arguments":{}}}`, i)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// BenchmarkMCPBatch times one POST of a batch of tools/call requests, as
// the audit sent it: refused at once, whatever its size.
func BenchmarkMCPBatch(b *testing.B) {
	f := sharedReadFixture(b)
	dir := b.TempDir()
	f.writeTreeTo(b, dir)
	s, err := New(Config{DataDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	h := s.Handler()
	for _, n := range []int{1000, 40000} {
		body := mcpBatch(n)
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/api/ask", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
			}
		})
	}
}
