package serve

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"svc/pipeline/inbox"
	"svc/pipeline/leaderboard"
	"svc/pipeline/pages"
	"svc/publish"
)

// openapiSchema compiles one component schema of serve/openapi.json.
func openapiSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	const id = "https://svc.invalid/openapi.json"
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(openapiJSON))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id + "#/components/schemas/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// conforms checks an answer against its OpenAPI schema.
func conforms(t *testing.T, sch *jsonschema.Schema, what, body string) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(body))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s does not match the OpenAPI description: %v", what, err)
	}
}

// mcpTool calls one tool with a bare tools/call and returns its text.
func (ts *testServer) mcpTool(t *testing.T, name string, args map[string]any) string {
	t.Helper()
	body := mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	req, _ := http.NewRequest(http.MethodPost, ts.ts.URL+"/api/ask", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var rpc struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(b, &rpc) != nil || rpc.Result.IsError || len(rpc.Result.Content) == 0 {
		t.Fatalf("%s: %d %s", name, resp.StatusCode, b)
	}
	return rpc.Result.Content[0].Text
}

// unverifiedRuns returns the outside runs of a leaderboard JSON answer.
func unverifiedRuns(t *testing.T, body string) []publish.SubmissionRow {
	t.Helper()
	var b publish.Leaderboard
	if err := json.Unmarshal([]byte(body), &b); err != nil {
		t.Fatalf("%v: %.300s", err, body)
	}
	if b.Unverified.Count != len(b.Unverified.Runs) {
		t.Errorf("unverified count %d, %d runs", b.Unverified.Count, len(b.Unverified.Runs))
	}
	return b.Unverified.Runs
}

// csvRow returns the row of leaderboard.csv whose id is id, by header.
func csvRow(t *testing.T, body, id string) map[string]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("csv: %v", err)
	}
	for _, rec := range recs[1:] {
		row := map[string]string{}
		for i, h := range recs[0] {
			row[h] = rec[i]
		}
		if row["id"] == id {
			return row
		}
	}
	return nil
}

// TestLeaderboardListsRunsAtOnce is issue 16.3 (spec 3): a new run is
// listed publicly, as self-reported, when its 201 is sent — in the JSON
// (with and without the grid, and at its own path), the CSV, the page and
// the MCP tool — and the 201 says where. It is listed again after a
// restart, and once only when the next snapshot lists it too.
func TestLeaderboardListsRunsAtOnce(t *testing.T) {
	f := sharedReadFixture(t)
	dir := t.TempDir()
	f.writeTreeTo(t, dir)
	cfg := Config{DataDir: dir, TrustProxy: true}
	ts := newTestServer(t, cfg)

	_, before := ts.get(t, "/api/leaderboard")
	if runs := unverifiedRuns(t, before); len(runs) != 0 {
		t.Fatalf("the snapshot lists %d outside runs", len(runs))
	}
	publishedPage := string(f.public[pages.LeaderboardFile].data)

	start := time.Now().UTC()
	code, body := ts.postJSON(t, "/api/leaderboard/submit", "198.51.100.20", mustJSON(t, run(t, 12)))
	if code != 201 {
		t.Fatalf("submit: %d %s", code, body)
	}
	var rc LeaderboardReceipt
	if err := json.Unmarshal([]byte(body), &rc); err != nil {
		t.Fatal(err)
	}
	id := rc.ID
	if !rc.Listed || rc.ListedAt == nil || rc.ListedAt.Before(start.Add(-time.Second)) || rc.URL == nil ||
		*rc.URL != "/leaderboard/#"+id || rc.APIURL != "/api/leaderboard" || !strings.Contains(rc.Note, "Listed publicly now") {
		t.Errorf("201 does not say where the run is listed: %s", body)
	}
	conforms(t, openapiSchema(t, "LeaderboardReceipt"), "the 201", body)
	for _, k := range []string{`"listed":true`, `"listed_at":`, `"url":`} {
		if !strings.Contains(body, k) {
			t.Errorf("201 lacks %s: %s", k, body)
		}
	}

	boardSchema := openapiSchema(t, "Leaderboard")
	check := func(ts *testServer, when string) map[string]string {
		t.Helper()
		out := map[string]string{}
		for _, p := range []string{"/api/leaderboard", "/api/leaderboard?stores=1", "/api/leaderboard.json", "/api/leaderboard-stores.json"} {
			resp, body := ts.get(t, p)
			runs := unverifiedRuns(t, body)
			if resp.StatusCode != 200 || len(runs) != 1 || runs[0].ID != id || runs[0].InDataset || runs[0].Verified ||
				runs[0].Status != leaderboard.StatusUnverified || runs[0].Evidence != leaderboard.EvidenceSelfReported ||
				runs[0].Rank == nil || *runs[0].Rank != 1 || runs[0].N != 12 || !runs[0].SubmittedAt.Equal(*rc.ListedAt) {
				t.Errorf("%s %s: %d %+v", when, p, resp.StatusCode, runs)
			}
			if resp.Header.Get("ETag") != sha(body) || resp.Header.Get("Cache-Control") != cacheFiveMinutes {
				t.Errorf("%s %s: headers %v", when, p, resp.Header)
			}
			if strings.Contains(body, privateContact) {
				t.Errorf("%s %s shows the contact", when, p)
			}
			conforms(t, boardSchema, when+" "+p, body)
			out[p] = body
		}
		if _, body := ts.get(t, "/api/leaderboard?stores=1"); !strings.Contains(body, `"stores": [`) {
			t.Errorf("%s: stores=1 lost the grid", when)
		}
		_, body := ts.get(t, "/api/leaderboard?format=csv")
		if row := csvRow(t, body, id); row == nil || row["board"] != "unverified" || row["rank"] != "1" ||
			row["in_dataset"] != "false" || row["verified"] != "false" || row["evidence"] != "Self-reported" {
			t.Errorf("%s: CSV row %v", when, row)
		}
		out["csv"] = body
		resp, page := ts.get(t, "/leaderboard/")
		if resp.StatusCode != 200 || !strings.Contains(page, `<tr id="`+id+`">`) || !strings.Contains(page, "listed since the snapshot") ||
			strings.Contains(page, "No outside submissions yet") || resp.Header.Get("ETag") != sha(page) {
			t.Errorf("%s: the page does not list the run: %d", when, resp.StatusCode)
		}
		out["page"] = page
		text := ts.mcpTool(t, "agent_leaderboard", map[string]any{})
		if runs := unverifiedRuns(t, text); len(runs) != 1 || runs[0].ID != id {
			t.Errorf("%s: agent_leaderboard lists %+v", when, runs)
		}
		return out
	}
	first := check(ts, "after the 201")
	if first["/api/leaderboard"] == before {
		t.Error("the JSON did not change")
	}
	// Nothing but the new run changed on the page: the rest is the
	// snapshot's page, rendered again the same way.
	if !strings.Contains(first["page"], "Unverified submissions (1)") || len(first["page"]) <= len(publishedPage) {
		t.Error("the page was not rendered with the run")
	}

	// A duplicate is listed, with the first acceptance time.
	code, body = ts.postJSON(t, "/api/leaderboard/submit", "198.51.100.21", mustJSON(t, run(t, 12)))
	var dup LeaderboardReceipt
	json.Unmarshal([]byte(body), &dup)
	if code != 200 || !dup.Duplicate || !dup.Listed || dup.ID != id || !dup.ListedAt.Equal(*rc.ListedAt) {
		t.Errorf("duplicate: %d %s", code, body)
	}

	// After a restart the run is listed again, byte for byte the same.
	ts.ts.Close()
	ts.Close()
	ts = newTestServer(t, cfg)
	again := check(ts, "after a restart")
	for k, v := range first {
		if again[k] != v {
			t.Errorf("%s differs after a restart", k)
		}
	}

	// The next snapshot reads the same state log: its leaderboard lists the
	// run, and the server lists it once, from the snapshot.
	runDir := t.TempDir()
	board, err := leaderboard.Aggregate(context.Background(), runDir, leaderboard.AggregateOptions{
		TablesDir: filepath.Join(runDir, "tables"), FilesDir: filepath.Join(runDir, "files"),
		Inbox: inbox.DirReader(filepath.Join(dir, "state")), Date: "2026-11-30", GeneratedAt: time.Now().UTC(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if board.Unverified.Count != 1 || board.Unverified.Runs[0].ID != id || !board.Unverified.Runs[0].InDataset {
		t.Fatalf("the next snapshot's board: %+v", board.Unverified)
	}
	next := f.version + ".1"
	if err := copyTree(filepath.Join(dir, "public", "data", f.version), filepath.Join(dir, "public", "data", next)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{publish.LeaderboardPath, publish.LeaderboardStoresPath, publish.LeaderboardCSVPath, publish.LeaderboardStoresCSVPath} {
		b, err := os.ReadFile(filepath.Join(runDir, "files", filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "public", filepath.FromSlash(name)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	latest := filepath.Join(dir, "public", "data", "latest")
	os.Remove(latest)
	if err := os.Symlink(next, latest); err != nil {
		t.Fatal(err)
	}
	if err := ts.Reload(); err != nil {
		t.Fatal(err)
	}
	resp, body := ts.get(t, "/api/leaderboard")
	if runs := unverifiedRuns(t, body); resp.StatusCode != 200 || len(runs) != 1 || runs[0].ID != id || !runs[0].InDataset {
		t.Errorf("after the next snapshot: %+v", runs)
	}
	published, _ := os.ReadFile(filepath.Join(runDir, "files", filepath.FromSlash(publish.LeaderboardPath)))
	if body != string(published) {
		t.Error("with every run in the snapshot, the server does not serve the snapshot's file as is")
	}
	_, csvBody := ts.get(t, "/api/leaderboard?format=csv")
	if n := strings.Count(csvBody, id); n != 2 { // id and run_id
		t.Errorf("the CSV names the run %d times, want one row", n/2)
	}
}

// TestLeaderboardPageRenderedAsPublished renders the snapshot's board as
// the server does when it lists new runs: with no new run, the bytes are
// the published page's, so listing a run changes nothing else.
func TestLeaderboardPageRenderedAsPublished(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	var board publish.Leaderboard
	if err := json.Unmarshal(f.public[publish.LeaderboardStoresPath].data, &board); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := pages.RenderLeaderboard(&buf, ts.site(), &board, ts.storePageHosts(board.Stores)); err != nil {
		t.Fatal(err)
	}
	if want := f.public[pages.LeaderboardFile].data; !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("the server's render of the published board differs from the published page (%d vs %d bytes)", buf.Len(), len(want))
	}
	if !strings.Contains(buf.String(), `href="/stores/`) {
		t.Error("the grid links no store page")
	}
}

// TestLeaderboardNotListedWithoutBoard: before any snapshot, the 201 says
// the run is kept but not listed yet.
func TestLeaderboardNotListedWithoutBoard(t *testing.T) {
	ts := newTestServer(t, Config{TrustProxy: true})
	code, body := ts.postJSON(t, "/api/leaderboard/submit", "198.51.100.30", mustJSON(t, run(t, 10)))
	var rc LeaderboardReceipt
	if code != 201 || json.Unmarshal([]byte(body), &rc) != nil || rc.Listed || rc.ListedAt != nil || rc.URL != nil ||
		!strings.Contains(rc.Note, "not listed yet") {
		t.Errorf("201 without a leaderboard: %d %s", code, body)
	}
}

// TestLeaderboardListingConcurrent submits runs while others read the
// board: every read is a whole board, and at the end each run is listed
// once (run with -race).
func TestLeaderboardListingConcurrent(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{TrustProxy: true})
	const runs = 8
	done := make(chan string, runs)
	for i := range runs {
		go func() {
			m := run(t, 10+i)
			_, body := ts.postJSON(t, "/api/leaderboard/submit", fmt.Sprintf("198.51.100.%d", 40+i), mustJSON(t, m))
			done <- body
		}()
	}
	stop := make(chan struct{})
	readers := make(chan error, 4)
	for range 4 {
		go func() {
			for {
				select {
				case <-stop:
					readers <- nil
					return
				default:
				}
				for _, p := range []string{"/api/leaderboard", "/api/leaderboard?format=csv", "/leaderboard/"} {
					req, _ := http.NewRequest(http.MethodGet, ts.ts.URL+p, nil)
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						readers <- err
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}()
	}
	ids := map[string]bool{}
	for range runs {
		var rc LeaderboardReceipt
		if body := <-done; json.Unmarshal([]byte(body), &rc) != nil || !rc.Listed {
			t.Errorf("submit: %s", body)
		}
		ids[rc.ID] = true
	}
	close(stop)
	for range 4 {
		if err := <-readers; err != nil {
			t.Error(err)
		}
	}
	_, body := ts.get(t, "/api/leaderboard")
	listed := unverifiedRuns(t, body)
	if len(listed) != runs || len(ids) != runs {
		t.Fatalf("%d runs listed, %d accepted, want %d", len(listed), len(ids), runs)
	}
	for i, r := range listed {
		if !ids[r.ID] || (i > 0 && *r.Rank < *listed[i-1].Rank) {
			t.Errorf("run %d: %s rank %d", i, r.ID, *r.Rank)
		}
	}
}
