package serve

// The load side of the hardening tests (issue 17): logs that never hold up
// a request, precomputed files served as the files they are, and the
// heavy-work slots for large bodies.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"svc/publish"
)

// blockingWriter, once armed, blocks every write until released.
type blockingWriter struct {
	armed   *atomic.Bool
	release chan struct{}
}

func (b blockingWriter) Write(p []byte) (int, error) {
	if b.armed.Load() {
		<-b.release
	}
	return len(p), nil
}

// TestLogsAtLoad (issue 17.9): no line per request unless asked (a share of
// them), one line of aggregate counts per interval, and a log that cannot
// be written never holds up a request.
func TestLogsAtLoad(t *testing.T) {
	run := func(cfg Config, n int) string {
		var logs logBuffer
		cfg.Log = slog.New(slog.NewJSONHandler(&logs, nil))
		ts := newTestServer(t, cfg)
		for i := range n {
			path := "/api/precheck/stats"
			if i%4 == 3 {
				path = "/api/no-such-thing"
			}
			ts.get(t, path)
		}
		ts.ts.Close()
		ts.Close()
		return logs.String()
	}
	out := run(Config{}, 40)
	if c := strings.Count(out, `"msg":"request"`); c != 0 {
		t.Errorf("by default %d access-log lines, want none:\n%s", c, out)
	}
	out = run(Config{AccessLog: 1}, 40)
	if c := strings.Count(out, `"msg":"request"`); c != 40 {
		t.Errorf("AccessLog 1: %d access-log lines, want 40", c)
	}
	out = run(Config{StatsEvery: time.Hour}, 40) // the last interval is logged at Close
	var line map[string]any
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, `"msg":"requests"`) {
			json.Unmarshal([]byte(l), &line)
		}
	}
	if line["total"] != 40.0 || line["2xx"] != 30.0 || line["4xx"] != 10.0 || line["p99_ms"] == nil || line["p50_ms"] == nil {
		t.Errorf("stats line %v, want 40 requests: 30 2xx, 10 4xx, with p50 and p99", line)
	}

	// A log writer that never returns: requests are answered all the same.
	w := blockingWriter{armed: new(atomic.Bool), release: make(chan struct{})}
	ts := newTestServer(t, Config{AccessLog: 1, Log: slog.New(slog.NewJSONHandler(w, nil))})
	t.Cleanup(func() { close(w.release) }) // before the server's Close
	w.armed.Store(true)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 2 * logQueueLen / 100 {
			resp, err := http.Get(ts.ts.URL + "/api/precheck/stats")
			if err == nil {
				resp.Body.Close()
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("requests are held up by a log writer that blocks")
	}
}

// TestPrecomputedFilesServedAsFiles (issue 17.11): every precomputed JSON
// document is served from memory as it is, with its ETag; the adoption
// answer no longer parses its document on each request to fill
// X-Svc-Data-As-Of, so it costs what any other precomputed file costs.
func TestPrecomputedFilesServedAsFiles(t *testing.T) {
	dir := t.TempDir()
	var series []string
	for i := range 2000 {
		series = append(series, `{"week":"w`+strconv.Itoa(i)+`","valid":`+strconv.Itoa(i)+`}`)
	}
	adoption := `{"asOf":"2026-11-16T03:04:05Z","series":[` + strings.Join(series, ",") + `]}`
	protocols := `{"rows":[` + strings.Join(series, ",") + `]}`
	writeTree(t, dir, "2026-11-16", map[string]string{publish.AdoptionPath: adoption, publish.ProtocolsPath: protocols})
	ts := newTestServer(t, Config{DataDir: dir})
	h := ts.Handler()
	allocs := func(path string) float64 {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		return testing.AllocsPerRun(50, func() { h.ServeHTTP(httptest.NewRecorder(), req) })
	}
	a, p := allocs("/api/agent-checkout/adoption"), allocs("/api/protocols")
	if a > p+4 {
		t.Errorf("adoption costs %.0f allocations a request, protocols %.0f: adoption is not served as a file", a, p)
	}
	resp, body := ts.get(t, "/api/agent-checkout/adoption")
	if body != adoption || resp.Header.Get("ETag") != sha(adoption) || resp.Header.Get("X-Svc-Data-As-Of") != "2026-11-16T03:04:05Z" {
		t.Errorf("adoption: %d ETag %s as-of %q", resp.StatusCode, resp.Header.Get("ETag"), resp.Header.Get("X-Svc-Data-As-Of"))
	}
	// The version's manifest too: from memory, with the sha256 of its body.
	resp, body = ts.get(t, "/data/latest/manifest.json")
	if resp.StatusCode != 200 || resp.Header.Get("ETag") != sha(body) {
		t.Errorf("manifest: %d ETag %q, want the sha256 of the body %s", resp.StatusCode, resp.Header.Get("ETag"), sha(body))
	}
	req, _ := http.NewRequest(http.MethodGet, ts.ts.URL+"/data/latest/manifest.json", nil)
	req.Header.Set("If-None-Match", sha(body))
	if r2, err := http.DefaultClient.Do(req); err != nil || r2.StatusCode != 304 {
		t.Errorf("manifest If-None-Match: %v %v", r2, err)
	}
}

// TestLargeBodiesTakeHeavySlots (issue 17, load target): a request with a
// body over 32 KB takes one of a few heavy-work slots, so large bodies
// cannot take every CPU from the reads; a network gets one such request at
// a time (429), and when every slot stays busy a request waits, then gets a
// 503 with Retry-After. Small bodies are never held.
func TestLargeBodiesTakeHeavySlots(t *testing.T) {
	defer func(d time.Duration) { heavyWait = d }(heavyWait)
	heavyWait = 300 * time.Millisecond
	ts := newTestServer(t, Config{TrustProxy: true})
	big := `{"profile":{"ucp":{"version":"2026-08-25","pad":"` + strings.Repeat("a", 40<<10) + `"}}}`
	from := func(ip string) string {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = "127.0.0.1:1"
		req.Header.Set("X-Forwarded-For", ip)
		return ts.caller(req)
	}
	// Network A has a large request in flight: its next one is refused.
	release, err := ts.heavy.acquire(context.Background(), from("198.51.100.1"))
	if err != nil {
		t.Fatal(err)
	}
	code, body := ts.post(t, "/api/ucp/validate", big, "X-Forwarded-For", "198.51.100.1")
	if code != 429 || errorCode(t, body) != "rate_limited" {
		t.Errorf("a second large request of one network: %d %s", code, body)
	}
	// On the MCP endpoint the refusal is a JSON-RPC error object.
	bigCall := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"validate_ucp_profile","arguments":` + big + `}}`
	code, body = ts.post(t, "/api/ask", bigCall, "X-Forwarded-For", "198.51.100.1")
	if e := decodeRPCError(t, "a second large MCP call of one network", []byte(body)); code != 429 ||
		e.Error.Code != rpcServerBusy || !strings.Contains(e.Error.Message, "rate_limited") {
		t.Errorf("a second large MCP call of one network: %d %s", code, body)
	}
	// Small bodies are not held, even with every slot taken.
	var held []func()
	for i := 2; ; i++ {
		r, err := ts.heavy.acquire(context.Background(), from(fmt.Sprintf("198.51.100.%d", i)))
		if err != nil {
			break
		}
		held = append(held, r)
	}
	if code, body := ts.post(t, "/api/ucp/validate", `{}`, "X-Forwarded-For", "203.0.113.5"); code != 400 || strings.Contains(body, "busy") {
		t.Errorf("a small body while the slots are busy: %d %s", code, body)
	}
	// A large body from another network waits for a slot, then gives up.
	req, _ := http.NewRequest(http.MethodPost, ts.ts.URL+"/api/ucp/validate", strings.NewReader(big))
	req.Header.Set("X-Forwarded-For", "203.0.113.5")
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r2.Body)
	r2.Body.Close()
	if r2.StatusCode != 503 || r2.Header.Get("Retry-After") == "" || !strings.Contains(string(b), "busy") ||
		r2.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("a large body with every slot busy: %d %s", r2.StatusCode, b)
	}
	release()
	for _, r := range held {
		r()
	}
	// With a slot free, the large request is answered.
	if code, body := ts.post(t, "/api/ucp/validate", big, "X-Forwarded-For", "198.51.100.1"); code == 429 || code == 503 && strings.Contains(body, "busy") {
		t.Errorf("a large request with a slot free: %d %.200s", code, body)
	}
}
