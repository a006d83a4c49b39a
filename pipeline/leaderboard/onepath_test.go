package leaderboard

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"svc/datasets/svc100"
	"svc/pipeline/check"
)

// TestRunPathMatchesTheBoardRuns runs every SVC-100 store through RunPath,
// the one-store entry of svc shop, and through RunAgentPaths, the board's
// own run: the same path must give the same outcome and reason.
func TestRunPathMatchesTheBoardRuns(t *testing.T) {
	wd := startWorld(t)
	dir := t.TempDir()
	opts := RunOptions{RunDir: dir, RunID: "r1", Client: wd.client, UCP: wd.ucp, Concurrency: 4}
	if err := RunAgentPaths(t.Context(), opts); err != nil {
		t.Fatal(err)
	}
	runs, err := ReadAgentRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{PathMCP}
	if wd.ucp != nil {
		paths = append(paths, PathUCP)
	}
	for _, path := range paths {
		board := runs[path]
		if board == nil {
			t.Fatalf("no %s run written", path)
		}
		outcomes := map[string]string{}
		for _, r := range board.Submission.Results {
			outcomes[r.ID] = r.Outcome
		}
		seen := map[string]bool{}
		for _, st := range svc100.Stores() {
			o, r, err := RunPath(t.Context(), opts, path, "https://"+st.Host)
			if err != nil {
				t.Fatalf("%s %s: %v", path, st.Host, err)
			}
			if o != outcomes[st.ID] || r != board.Reasons[st.ID] {
				t.Errorf("%s %s: RunPath gives %s/%s, the board run %s/%s", path, st.Host, o, r, outcomes[st.ID], board.Reasons[st.ID])
			}
			seen[o] = true
		}
		if len(seen) < 3 {
			t.Errorf("%s: only outcomes %v over SVC-100: the comparison shows too little", path, seen)
		}
	}
	if _, _, err := RunPath(t.Context(), opts, "browser", "https://x.test"); err == nil {
		t.Error("an unknown path is not an error")
	}
}

// TestPathsDoNotNeedTheHomepage: the MCP path starts at its endpoint, so
// a homepage in a redirect loop does not stop it (a storefront MCP whose
// catalog search fails is no_cart catalog_search_failed, not an
// unreachable store); only when the endpoint is not there either does the
// homepage explain the outcome (error unreachable_*), after the path's
// own steps.
func TestPathsDoNotNeedTheHomepage(t *testing.T) {
	rpc := func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		out := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		switch req.Method {
		case "initialize":
			out["result"] = map[string]any{"protocolVersion": "2025-06-18", "serverInfo": map[string]any{"name": "store"}, "capabilities": map[string]any{}}
		case "tools/list":
			out["result"] = map[string]any{"tools": []any{map[string]any{"name": "search_catalog", "inputSchema": map[string]any{"type": "object"}}}}
		default:
			out["error"] = map[string]any{"code": -32603, "message": "internal error"}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}
	for _, c := range []struct {
		name    string
		mcp     bool
		outcome string
		reason  string
	}{
		{"endpoint served", true, OutcomeNoCart, "catalog_search_failed"},
		{"no endpoint", false, OutcomeError, ""},
	} {
		mux := http.NewServeMux()
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/", http.StatusFound) })
		if c.mcp {
			mux.HandleFunc("/api/mcp", rpc)
		}
		sw := startSample(t, mux)
		res, err := RunPathLog(t.Context(), sw.opts(), PathMCP, "https://ucp-sample.test")
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != c.outcome || (c.reason != "" && res.Reason != c.reason) || (c.reason == "" && !strings.HasPrefix(res.Reason, "unreachable_")) {
			t.Errorf("%s: got %s [%s], want %s [%s]\nlog: %+v", c.name, res.Outcome, res.Reason, c.outcome, c.reason, res.Log)
		}
		if len(res.Log) == 0 || res.Log[0].Action == "homepage" {
			t.Errorf("%s: the path did not start at its endpoint: %+v", c.name, res.Log)
		}
	}
}

// TestBothPathsReadTheHomepageOnce: at a store that has neither a
// storefront MCP endpoint nor a UCP profile, both paths explain their
// outcome from the homepage, which RunAgentPaths reads once for both (a
// store that never answers would otherwise cost its timeout twice); each
// path's log still ends with the homepage step, and RunPath, which runs
// one path alone, reads it itself.
func TestBothPathsReadTheHomepageOnce(t *testing.T) {
	var homes atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		homes.Add(1)
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	})
	sw := startSample(t, mux)
	opts := sw.opts()
	eng := check.New(check.Options{Client: opts.Client, UCP: opts.UCP})
	home := &homeReading{}
	for _, path := range []string{PathMCP, PathUCP} {
		res, err := runOne(t.Context(), eng, opts, path, "https://ucp-sample.test", home)
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != OutcomeError || !strings.HasPrefix(res.Reason, "unreachable_") {
			t.Errorf("%s: %s [%s], want error [unreachable_*]", path, res.Outcome, res.Reason)
		}
		if n := len(res.Log); n == 0 || res.Log[n-1].Action != "homepage" {
			t.Errorf("%s: the log does not end with the homepage: %+v", path, res.Log)
		}
	}
	if n := homes.Load(); n != 1 {
		t.Errorf("the homepage was requested %d times for the two paths, want once", n)
	}
	if _, _, err := RunPath(t.Context(), opts, PathUCP, "https://ucp-sample.test"); err != nil {
		t.Fatal(err)
	}
	if n := homes.Load(); n != 2 {
		t.Errorf("RunPath alone: the homepage was requested %d times in all, want 2", n)
	}
}
