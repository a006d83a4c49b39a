package leaderboard

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/datasets"
	"svc/datasets/svc100"
	"svc/fixtures"
	"svc/pipeline/fetch"
	"svc/pipeline/inbox"
	"svc/pipeline/ucp"
	"svc/publish"
)

// The clock of the world tests: the pipeline run's start.
var runStart = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

const secretContact = "private-contact-7f3a9@example.com"

// world is one fixture world served on loopback, with a client and a UCP
// validator that reach it.
type world struct {
	w      *fixtures.World
	client *fetch.Client
	ucp    *ucp.Validator // with ../shared/ucp/schema when present, else without schema files
}

func startWorld(t *testing.T) *world {
	return startWorldWith(t, fixtures.UCPSchemaDir())
}

// startWorldWith serves the world with a UCP validator over schemaDir;
// "" gives one without schema files that never fetches ucp.dev, as a fresh
// clone's offline run has: the UCP path is measured all the same.
func startWorldWith(t *testing.T, schemaDir string) *world {
	t.Helper()
	w := fixtures.Generate(1, fixtures.DefaultStores)
	srv, err := fixtures.NewServer(w, fixtures.ServerOptions{Slow: 8 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ucp.New(context.Background(), ucp.Config{SchemaDir: schemaDir, Client: client, CacheDir: t.TempDir(), Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	return &world{w: w, client: client, ucp: v}
}

// pipelineRun measures, imports and aggregates one run into a fresh run
// folder, as `svc run` does over the fixture world, and returns the folder.
func (wd *world) pipelineRun(t *testing.T, stateDir string) (string, *publish.Leaderboard) {
	t.Helper()
	runDir := t.TempDir()
	ctx := context.Background()
	if err := RunAgentPaths(ctx, RunOptions{RunDir: runDir, RunID: "r1", Client: wd.client, UCP: wd.ucp,
		Now: func() time.Time { return runStart }, Concurrency: 16}); err != nil {
		t.Fatal(err)
	}
	if err := WriteBrowserRuns(runDir, "r1", scriptedBrowserResults(t, wd.w)); err != nil {
		t.Fatal(err)
	}
	b, err := Aggregate(context.Background(), runDir, AggregateOptions{
		TablesDir: filepath.Join(runDir, "out", "tables"), FilesDir: filepath.Join(runDir, "out", "files"),
		Inbox: inbox.DirReader(stateDir), Date: "2026-11-21", GeneratedAt: runStart,
	})
	if err != nil {
		t.Fatal(err)
	}
	return runDir, b
}

// writeSubmissions fills an inbox with outside submissions: two runs,
// a duplicate of the first, one received after the run started, and a
// record that does not parse.
func writeSubmissions(t *testing.T) (string, []*Submission) {
	t.Helper()
	dir := t.TempDir()
	l, err := inbox.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	mk := func(name, path string, n int, edit func(m map[string]any)) *Submission {
		m := validBody(n)
		m["agent"].(map[string]any)["name"] = name
		m["agent"].(map[string]any)["path"] = path
		m["contact"] = secretContact
		if edit != nil {
			edit(m)
		}
		s, err := Parse(encode(t, m))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := mk("Acme Shopper", "browser", 30, nil)
	second := mk("Bolt Agent", "mcp", 12, func(m map[string]any) {
		for _, r := range m["results"].([]any) {
			r.(map[string]any)["outcome"] = OutcomeCheckoutReached
		}
	})
	dup := mk("ACME  shopper", "browser", 30, func(m map[string]any) { m["run"].(map[string]any)["notes"] = "sent again" })
	late := mk("Late Agent", "api", 10, nil)
	for _, r := range []struct {
		s  *Submission
		at time.Time
	}{{first, runStart.Add(-48 * time.Hour)}, {second, runStart.Add(-time.Hour)}, {dup, runStart.Add(-time.Minute)}, {late, runStart.Add(time.Minute)}} {
		if err := l.Append(context.Background(), inbox.TypeLeaderboardSubmission, r.at, r.s.Record()); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Append(context.Background(), inbox.TypeLeaderboardSubmission, runStart.Add(-time.Hour), map[string]any{"id": "sub-x", "body": "{oops"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(context.Background(), "live_check", runStart.Add(-time.Hour), map[string]any{"host": "x.test"}); err != nil {
		t.Fatal(err)
	}
	return dir, []*Submission{first, second}
}

// mcpTruth is the storefront MCP path's outcome at a store, from the
// fixture world's known answers (RunAgentPaths documents the mapping).
func mcpTruth(e fixtures.Expect) string {
	switch {
	case e.BlockStatus.Blocked != nil && *e.BlockStatus.Blocked:
		return OutcomeBlocked
	case e.Platform == nil:
		return OutcomeError
	case !*e.StorefrontMCP:
		return OutcomeNoCart
	case e.CartLink == nil: // storefront MCP with a throttled catalog
		return OutcomeBlocked
	case *e.CartLink:
		return OutcomeCheckoutReached
	}
	return OutcomeNoCart
}

// ucpTruth is the UCP path's outcome at a store: the fixture world's
// known answer over the first binding the store's profile declares
// (fixtures.Store.UCPPathAs documents it), for the path of pipelineRun,
// which has no signing key.
func ucpTruth(st *fixtures.Store) (outcome, reason string) {
	t := st.UCPPathAs("", fixtures.UCPAgentUnsigned)
	if t.Outcome == OutcomeBlocked || t.Outcome == OutcomeError && t.Reason == "" {
		return t.Outcome, ""
	}
	return t.Outcome, t.Reason
}

// TestWorldLeaderboard runs the leaderboard part of the pipeline over the
// fixture world and holds every published figure to the one computed from
// the world's known answers.
func TestWorldLeaderboard(t *testing.T) {
	if testing.Short() {
		t.Skip("serves the fixture world")
	}
	testWorldLeaderboard(t, startWorld(t))
}

// TestWorldLeaderboardWithoutSchemaFiles (issue 35.3) is TestWorldLeaderboard
// over a validator without the UCP schema files, as a clone from GitHub
// runs: the UCP path is measured at SVC-100 as with them, held to the
// same truth, and only stores that are no shop are not_attempted. Without
// ../shared, TestWorldLeaderboard is this test already.
func TestWorldLeaderboardWithoutSchemaFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("serves the fixture world")
	}
	if fixtures.UCPSchemaDir() == "" {
		t.Skip("no ../shared: TestWorldLeaderboard runs without the schema files")
	}
	board := testWorldLeaderboard(t, startWorldWith(t, ""))
	p := board.Paths[5]
	if p.ID != PathUCP || p.Status != StatusMeasured || p.N == 0 || p.NotAttempted == nil {
		t.Fatalf("ucp path without the schema files: %+v", p)
	}
	for _, r := range p.NotAttempted.Reasons {
		if r.Reason != "not_a_store" {
			t.Errorf("ucp not_attempted [%s] x%d without the schema files", r.Reason, r.Count)
		}
	}
}

// testWorldLeaderboard runs the leaderboard over wd and holds it to truth.
func testWorldLeaderboard(t *testing.T, wd *world) *publish.Leaderboard {
	t.Helper()
	stateDir, subs := writeSubmissions(t)
	runDir, board := wd.pipelineRun(t, stateDir)
	stores := svc100.Stores()
	fixtureStore := func(st svc100.Store) *fixtures.Store {
		fs, ok := wd.w.Lookup(st.Host)
		if !ok {
			t.Fatalf("%s is not a fixture store", st.Host)
		}
		return fs
	}

	// Expected outcomes per path and store, from fixture truth.
	want := map[string][]string{}
	for i, st := range stores {
		fs := fixtureStore(st)
		for k, l := range "ABCDE" {
			want[Paths[k].ID] = append(want[Paths[k].ID], shopperOutcome(byte(l), fs, i))
		}
		want[PathMCP] = append(want[PathMCP], mcpTruth(fs.Expect))
		o, _ := ucpTruth(fs)
		want[PathUCP] = append(want[PathUCP], o)
	}
	agentRuns, err := ReadAgentRuns(runDir)
	if err != nil {
		t.Fatal(err)
	}

	// The board: every own path, in order, with figures from truth.
	if len(board.Paths) != len(Paths) {
		t.Fatalf("%d paths, want %d", len(board.Paths), len(Paths))
	}
	for k, p := range board.Paths {
		info := Paths[k]
		if p.ID != info.ID {
			t.Fatalf("path %d is %s, want %s", k, p.ID, info.ID)
		}
		// n and the rate leave the not_attempted results out (issue 35.2).
		k, n := 0, 0
		var counts publish.OutcomeCounts
		for _, o := range want[p.ID] {
			if CartSuccess(o) {
				k++
			}
			if o != OutcomeNotAttempted {
				n++
			}
			counts = addOutcome(counts, o)
		}
		wantStats := publish.RunStats{N: n, Outcomes: &counts}
		if lo, hi, ok := Wilson(k, n, Z95); ok {
			wantStats.CartSuccesses, wantStats.Rate = &k, ptr(round3(float64(k)/float64(n)))
			wantStats.Wilson95 = &publish.Interval{Low: round3(lo), High: round3(hi)}
		}
		got := p.RunStats
		got.FirstAt, got.LastAt = nil, nil
		if got.NotAttempted == nil || got.NotAttempted.Count != counts.NotAttempted {
			t.Errorf("%s notAttempted %+v, want count %d", p.ID, got.NotAttempted, counts.NotAttempted)
		}
		got.NotAttempted = nil
		if diff := cmp.Diff(wantStats, got); diff != "" {
			t.Errorf("%s figures (-truth +board):\n%s", p.ID, diff)
		}
		if p.FixtureData {
			t.Errorf("%s fixtureData true: no fixture run is imported any more", p.ID)
		}
		wantStatus, wantEvidence := StatusMeasured, EvidenceMeasured
		if n == 0 {
			wantStatus, wantEvidence = StatusNotAttempted, EvidenceNotMeasured
		}
		if p.Status != wantStatus || !p.Verified || p.Evidence != wantEvidence || p.MeasuredBy == nil || *p.MeasuredBy != MeasuredBy {
			t.Errorf("%s labels: %+v", p.ID, p)
		}
		// Per store, the grid and the run agree with truth.
		for i, st := range stores {
			g := board.Stores[i]
			if g.ID != st.ID || g.Outcomes[p.ID] == nil || *g.Outcomes[p.ID] != want[p.ID][i] {
				fs := fixtureStore(st)
				t.Errorf("%s %s (%s %v): grid %v, truth %s (reason %q)", p.ID, st.ID, st.Host, fs.Traits,
					deref(g.Outcomes[p.ID]), want[p.ID][i], agentRuns[p.ID].Reasons[st.ID])
			}
		}
	}
	// The storefront MCP path's cart successes are exactly the stores
	// whose truth is cartLink true; the UCP path's are the stores where
	// it creates a checkout session.
	cartLinks := 0
	for _, st := range stores {
		if cl := fixtureStore(st).Expect.CartLink; cl != nil && *cl {
			cartLinks++
		}
	}
	if got := board.Paths[6].Successes(); got != cartLinks {
		t.Errorf("mcp cart successes = %d, want %d stores with cartLink", got, cartLinks)
	}
	{
		sessions := 0
		for _, st := range stores {
			if o, _ := ucpTruth(fixtureStore(st)); o == OutcomeCheckoutReached {
				sessions++
			}
		}
		if got := board.Paths[5].Successes(); got != sessions || sessions == 0 {
			t.Errorf("ucp cart successes = %d, want %d stores where a checkout session is created (and more than 0)", got, sessions)
		}
		for _, st := range stores {
			_, reason := ucpTruth(fixtureStore(st))
			if got := agentRuns[PathUCP].Reasons[st.ID]; reason != "" && got != reason {
				t.Errorf("ucp %s reason = %s, want %s", st.ID, got, reason)
			}
		}
	}

	// The grid: exactly 100 rows, one per store, in id order.
	if len(board.Stores) != svc100.Size {
		t.Fatalf("grid has %d rows", len(board.Stores))
	}
	for i, g := range board.Stores {
		if g.ID != stores[i].ID || g.Host != stores[i].Host || len(g.Outcomes) != len(Paths) {
			t.Errorf("grid row %d: %+v", i, g)
		}
	}

	// Outside submissions: apart, self-reported, no duplicate, none late.
	if board.Unverified.Count != 2 || len(board.Unverified.Runs) != 2 {
		t.Fatalf("unverified = %+v", board.Unverified)
	}
	for _, r := range board.Unverified.Runs {
		if r.Verified || r.Status != StatusUnverified || r.Evidence != EvidenceSelfReported {
			t.Errorf("submission %s labels: %+v", r.ID, r)
		}
	}
	// Ranked by the lower Wilson bound: 12/12 (Bolt) above 10/30 (Acme).
	if r := board.Unverified.Runs; r[0].ID != subs[1].ID() || r[1].ID != subs[0].ID() ||
		r[1].Successes() != subs[0].CartSuccesses() || r[1].N != 30 {
		t.Errorf("unverified runs = %+v", r)
	}

	// The files.
	files := filepath.Join(runDir, "out", "files")
	var onDisk publish.Leaderboard
	b, err := os.ReadFile(filepath.Join(files, filepath.FromSlash(publish.LeaderboardPath)))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &onDisk); err != nil {
		t.Fatal(err)
	}
	if onDisk.Stores != nil || len(onDisk.Paths) != len(Paths) {
		t.Errorf("leaderboard.json: stores %v, %d paths", onDisk.Stores != nil, len(onDisk.Paths))
	}
	b, _ = os.ReadFile(filepath.Join(files, filepath.FromSlash(publish.LeaderboardStoresPath)))
	if err := json.Unmarshal(b, &onDisk); err != nil || len(onDisk.Stores) != svc100.Size {
		t.Errorf("leaderboard-stores.json: %v, %d rows", err, len(onDisk.Stores))
	}
	csvRows := func(name string) []string {
		b, err := os.ReadFile(filepath.Join(files, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(b), "\r\n"), "\r\n")
	}
	if rows := csvRows(publish.LeaderboardStoresCSVPath); len(rows) != svc100.Size+1 {
		t.Errorf("leaderboard-stores.csv has %d lines", len(rows))
	}
	if rows := csvRows(publish.LeaderboardCSVPath); len(rows) != 1+len(Paths)+2 {
		t.Errorf("leaderboard.csv has %d lines", len(rows))
	}
	for _, name := range FrozenFiles {
		b, _ := os.ReadFile(filepath.Join(files, filepath.FromSlash(name)))
		if want := map[string][]byte{svc100.CSVPath: svc100.CSV(), svc100.SchemaPath: svc100.Schema()}[name]; !bytes.Equal(b, want) {
			t.Errorf("%s is not the embedded file", name)
		}
	}

	// The table: one row per run and store, read back.
	f, err := os.Open(filepath.Join(runDir, "out", "tables", "leaderboard_results.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	cols, err := datasets.ReadParquet(f, fi.Size(), datasets.LeaderboardResults)
	if err != nil {
		t.Fatal(err)
	}
	wantRows := len(agentRuns)*svc100.Size + len(subs[0].Results) + len(subs[1].Results)
	if cols.Len() != wantRows {
		t.Errorf("leaderboard_results has %d rows, want %d", cols.Len(), wantRows)
	}
	col := datasets.LeaderboardResults.ColumnIndex
	successes := map[string]int{}
	for i := range cols.Len() {
		row := cols.Row(i)
		if row[col("cart_success")] == true {
			successes[row[col("run_id")].(string)]++
		}
		if (row[col("cart_success")] == nil) != (row[col("outcome")] == OutcomeNotAttempted) {
			t.Errorf("row %d: cart_success %v for outcome %v: null exactly when not_attempted", i, row[col("cart_success")], row[col("outcome")])
		}
		for _, v := range row {
			if str, ok := v.(string); ok && strings.Contains(str, "private-contact") {
				t.Fatalf("row %d holds a private contact", i)
			}
		}
		verified, fixture, evidence := row[col("verified")].(bool), row[col("fixture_data")].(bool), row[col("evidence")]
		if (evidence == EvidenceMeasured) != verified || (row[col("submitted_at")] != nil) != (evidence == EvidenceSelfReported) || fixture {
			t.Fatalf("row %d labels: %v", i, row)
		}
	}
	for _, p := range board.Paths {
		if p.RunID != nil && successes[*p.RunID] != p.Successes() {
			t.Errorf("table: %s has %d successes, board %d", *p.RunID, successes[*p.RunID], p.Successes())
		}
	}

	// The contact of a submission is in no file of the run folder.
	noContact(t, runDir)
	return board
}

// TestWorldLeaderboardReproducible measures and aggregates twice over the
// same world: every file of the two run folders is byte for byte the same.
func TestWorldLeaderboardReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("serves the fixture world")
	}
	wd := startWorld(t)
	stateDir, _ := writeSubmissions(t)
	a, _ := wd.pipelineRun(t, stateDir)
	b, _ := wd.pipelineRun(t, stateDir)
	fa, fb := tree(t, a), tree(t, b)
	if len(fa) < 9 {
		t.Fatalf("only %d files written", len(fa))
	}
	if diff := cmp.Diff(sortedKeys(fa), sortedKeys(fb)); diff != "" {
		t.Fatalf("file lists differ:\n%s", diff)
	}
	for name := range fa {
		if !bytes.Equal(fa[name], fb[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
	// Aggregating the same run folder again rewrites the same bytes.
	if _, err := Aggregate(context.Background(), a, AggregateOptions{
		TablesDir: filepath.Join(a, "out", "tables"), FilesDir: filepath.Join(a, "out", "files"),
		Inbox: inbox.DirReader(stateDir), Date: "2026-11-21", GeneratedAt: runStart,
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fa, tree(t, a)); diff != "" {
		t.Errorf("re-aggregating changed files")
	}
}

// TestWriteBrowserRuns checks the browser runs the shop stage hands over:
// written as the service's measured runs with their dates and n; a
// shopper that attempted no store (D without a model) or covered fewer
// stores than a submission holds gets no file, and an old file of it is
// removed, so its path reads not measured.
func TestWriteBrowserRuns(t *testing.T) {
	runDir := t.TempDir()
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	mk := func(n int, outcome string) []BrowserResult {
		var out []BrowserResult
		for i, st := range svc100.Stores()[:n] {
			out = append(out, BrowserResult{ID: st.ID, Outcome: outcome, Reason: "r", At: t0.Add(time.Duration(i) * time.Minute),
				Seconds: 2.5, Steps: 4, EvidenceURL: "/data/shop/stores/" + st.Host + ".json"})
		}
		return out
	}
	in := map[string][]BrowserResult{"A": mk(100, OutcomeCheckoutReached), "B": mk(12, OutcomeNoCart), "D": mk(100, OutcomeNotAttempted)}
	in["A"][3].Outcome = OutcomeBlocked
	if err := WriteBrowserRuns(runDir, "r9", in); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAgentRuns(runDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["browser-a"] == nil || got["browser-b"] == nil {
		t.Fatalf("runs written: %v", sortedKeys(got))
	}
	a := got["browser-a"]
	if a.RunID != "svc-browser-a-r9" || a.MeasuredBy != MeasuredBy || a.Submission.Agent.Name != "svc browser shopper A" ||
		a.Submission.Agent.Version != BrowserMethodVersion || len(a.Submission.Results) != 100 || a.Reasons[svc100.ID(1)] != "r" {
		t.Errorf("browser-a: %+v", a)
	}
	if a.Submission.Run.StartedAt != "2026-11-20T12:00:00Z" || a.Submission.Run.FinishedAt != "2026-11-20T13:39:02.5Z" {
		t.Errorf("browser-a dates: %s to %s", a.Submission.Run.StartedAt, a.Submission.Run.FinishedAt)
	}
	if r := a.Submission.Results[3]; r.Outcome != OutcomeBlocked || *r.Steps != 4 || *r.Seconds != 2.5 || r.EvidenceURL == "" {
		t.Errorf("browser-a result 4: %+v", r)
	}
	// Fewer than 10 stores: no run; D's not_attempted rows: no run.
	in["B"] = in["B"][:9]
	if err := WriteBrowserRuns(runDir, "r9", in); err != nil {
		t.Fatal(err)
	}
	if got, _ := ReadAgentRuns(runDir); got["browser-b"] != nil || got["browser-d"] != nil || got["browser-a"] == nil {
		t.Errorf("after B fell to 9 stores: %v", sortedKeys(got))
	}
	b, err := Aggregate(context.Background(), runDir, AggregateOptions{
		TablesDir: filepath.Join(runDir, "t"), FilesDir: filepath.Join(runDir, "f"), Date: "2026-11-21", GeneratedAt: runStart,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range b.Paths {
		measured := p.ID == "browser-a"
		if measured != (p.Status == StatusMeasured) || measured != (p.Rate != nil) || (!measured && p.Evidence != EvidenceNotMeasured) {
			t.Errorf("%s: status %s, rate %v, evidence %s", p.ID, p.Status, p.Rate, p.Evidence)
		}
		if measured && (p.N != 100 || p.Successes() != 99 || p.StartedAt == nil || p.FinishedAt == nil) {
			t.Errorf("%s: n %d, successes %d, dates %v %v", p.ID, p.N, p.Successes(), p.StartedAt, p.FinishedAt)
		}
	}
}

// TestBrowserLane: reached when any shopper reached the cart; unmeasured
// (not tried) when every shopper was not_attempted, never false.
func TestBrowserLane(t *testing.T) {
	for _, tc := range []struct {
		in             []string
		reached, tried bool
	}{
		{nil, false, false},
		{[]string{OutcomeNotAttempted, OutcomeNotAttempted}, false, false},
		{[]string{OutcomeNotAttempted, OutcomeNoCart}, false, true},
		{[]string{OutcomeBlocked, OutcomeAddedToCart}, true, true},
		{[]string{OutcomeCheckoutReached}, true, true},
	} {
		if r, tr := BrowserLane(tc.in); r != tc.reached || tr != tc.tried {
			t.Errorf("%v: reached %v tried %v, want %v %v", tc.in, r, tr, tc.reached, tc.tried)
		}
	}
}

// TestAggregateWithoutRuns publishes a board whose paths are all not run:
// null figures, not zeros.
func TestAggregateWithoutRuns(t *testing.T) {
	runDir := t.TempDir()
	b, err := Aggregate(context.Background(), runDir, AggregateOptions{
		TablesDir: filepath.Join(runDir, "t"), FilesDir: filepath.Join(runDir, "f"), Date: "2026-11-21", GeneratedAt: runStart,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range b.Paths {
		if p.Status != "not_run" || p.Rate != nil || p.Wilson95 != nil || p.RunID != nil || p.Evidence != EvidenceNotMeasured ||
			p.N != 0 || p.CartSuccesses != nil || p.Outcomes != nil {
			t.Errorf("%s: %+v", p.ID, p)
		}
	}
	if len(b.Stores) != svc100.Size || b.Stores[0].Outcomes["mcp"] != nil {
		t.Errorf("grid: %d rows", len(b.Stores))
	}
	raw, _ := os.ReadFile(filepath.Join(runDir, "f", filepath.FromSlash(publish.LeaderboardPath)))
	for _, f := range []string{`"rate": null`, `"wilson95": null`, `"cartSuccesses": null`, `"outcomes": null`} {
		if !bytes.Contains(raw, []byte(f)) {
			t.Errorf("unmeasured figures are not null (no %s):\n%s", f, raw)
		}
	}
	if bytes.Contains(raw, []byte(`"cartSuccesses": 0`)) || bytes.Contains(raw, []byte(`"added_to_cart": 0`)) {
		t.Errorf("a path not run publishes a count of 0:\n%s", raw)
	}
	// The CSV: every path not run has n 0 and empty figures.
	csvRaw, err := os.ReadFile(filepath.Join(runDir, "f", filepath.FromSlash(publish.LeaderboardCSVPath)))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(csvRaw)).ReadAll()
	if err != nil || len(recs) != len(b.Paths)+1 {
		t.Fatalf("csv: %d records, %v", len(recs), err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, r := range recs[1:] {
		if r[col["n"]] != "0" {
			t.Errorf("csv %s: n %q, want 0", r[col["id"]], r[col["n"]])
		}
		for _, c := range []string{"cart_successes", "rate", "added_to_cart", "checkout_reached", "no_cart", "blocked", "error", "not_attempted"} {
			if r[col[c]] != "" {
				t.Errorf("csv %s: %s %q, want empty (not run)", r[col["id"]], c, r[col[c]])
			}
		}
	}
}

func addOutcome(c publish.OutcomeCounts, o string) publish.OutcomeCounts {
	switch o {
	case OutcomeAddedToCart:
		c.AddedToCart++
	case OutcomeCheckoutReached:
		c.CheckoutReached++
	case OutcomeNoCart:
		c.NoCart++
	case OutcomeBlocked:
		c.Blocked++
	case OutcomeError:
		c.Error++
	case OutcomeNotAttempted:
		c.NotAttempted++
	}
	return c
}

func ptr[T any](v T) *T { return &v }

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// tree reads every file under dir by relative path.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func noContact(t *testing.T, dir string) {
	t.Helper()
	for name, b := range tree(t, dir) {
		if bytes.Contains(b, []byte(secretContact)) || bytes.Contains(b, []byte("private-contact")) {
			t.Errorf("%s holds a submission's private contact", name)
		}
	}
}
