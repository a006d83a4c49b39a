package serve

import (
	"strings"
	"sync/atomic"
	"testing"
)

// TestPendingNotice: while Config.Pending gives a notice for the version
// served, the home page and the leaderboard pages carry it once, escaped,
// inside <main>, and are sent no-store; other pages are as published; when
// it gives "" every page is as published again, with its own ETag.
func TestPendingNotice(t *testing.T) {
	dir := t.TempDir()
	page := func(h string) string {
		return `<!doctype html><html><body><main id="main" class="wrap"><h1>` + h + `</h1></main></body></html>`
	}
	writeTree(t, dir, "2026-11-16", map[string]string{
		"index.html":             page("home"),
		"leaderboard/index.html": page("leaderboard"),
		"directory/index.html":   page("directory"),
	})
	var note atomic.Value
	note.Store("browser lane: 3 of 500 runs <soon>")
	var asked atomic.Value
	ts := newTestServer(t, Config{DataDir: dir, Pending: func(v string) string { asked.Store(v); return note.Load().(string) }})
	const want = `<main id="main" class="wrap">` + "\n" + `<p class="note" role="status">browser lane: 3 of 500 runs &lt;soon&gt;</p><h1>`
	plain := map[string]string{}
	for _, p := range []string{"/", "/leaderboard/", "/directory/"} {
		resp, body := ts.get(t, p)
		cc, pending := resp.Header.Get("Cache-Control"), p != "/directory/"
		if pending != (strings.Count(body, want) == 1) || pending != (cc == "no-store") || strings.Count(body, "role=\"status\"") > 1 {
			t.Errorf("%s pending: Cache-Control %q, body %s", p, cc, body)
		}
		plain[p] = resp.Header.Get("Etag")
	}
	if asked.Load() != "2026-11-16" {
		t.Errorf("Pending was asked about version %v", asked.Load())
	}
	note.Store("")
	for _, p := range []string{"/", "/leaderboard/"} {
		resp, body := ts.get(t, p)
		if strings.Contains(body, "role=\"status\"") || resp.Header.Get("Cache-Control") != cachePage || resp.Header.Get("Etag") == plain[p] {
			t.Errorf("%s after: Cache-Control %q, ETag %s (pending %s), body %s", p, resp.Header.Get("Cache-Control"), resp.Header.Get("Etag"), plain[p], body)
		}
	}
}
