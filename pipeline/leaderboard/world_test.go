package leaderboard

import (
	"bytes"
	"context"
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
	ucp    *ucp.Validator // nil when ../shared/ucp/schema is absent
}

func startWorld(t *testing.T) *world {
	t.Helper()
	w := fixtures.Generate(1, fixtures.DefaultStores)
	srv, err := fixtures.NewServer(w, fixtures.ServerOptions{Slow: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM(), Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	wd := &world{w: w, client: client}
	if dir := fixtures.UCPSchemaDir(); dir != "" {
		v, err := ucp.New(context.Background(), ucp.Config{SchemaDir: dir, Client: client, CacheDir: t.TempDir(), Offline: true})
		if err != nil {
			t.Fatal(err)
		}
		wd.ucp = v
	} else {
		t.Log("../shared/ucp/schema not found: the UCP path is not run")
	}
	return wd
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
	if err := ImportBrowserRuns(runDir, ImportOptions{Fixture: true}); err != nil {
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
// (fixtures.Store.UCPPath documents it).
func ucpTruth(st *fixtures.Store) (outcome, reason string) {
	t := st.UCPPath("")
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
	wd := startWorld(t)
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
		if info.ID == PathUCP && wd.ucp == nil {
			if p.Status != "not_run" || p.Rate != nil || p.Evidence != EvidenceNotMeasured {
				t.Errorf("ucp without a validator: %+v", p)
			}
			continue
		}
		k, n := 0, len(want[p.ID])
		var counts publish.OutcomeCounts
		for _, o := range want[p.ID] {
			if CartSuccess(o) {
				k++
			}
			counts = addOutcome(counts, o)
		}
		lo, hi, _ := Wilson(k, n, Z95)
		wantStats := publish.RunStats{N: n, CartSuccesses: k, Rate: ptr(round3(float64(k) / float64(n))),
			Wilson95: &publish.Interval{Low: round3(lo), High: round3(hi)}, Outcomes: counts}
		got := p.RunStats
		got.FirstAt, got.LastAt = nil, nil
		if diff := cmp.Diff(wantStats, got); diff != "" {
			t.Errorf("%s figures (-truth +board):\n%s", p.ID, diff)
		}
		if browser := info.Path == "browser"; p.FixtureData != browser {
			t.Errorf("%s fixtureData = %v, want %v", p.ID, p.FixtureData, browser)
		}
		// The fixture world's browser runs are generated, not measured
		// (issue 16.8): never labelled Measured or verified.
		if p.FixtureData {
			if p.Status != StatusFixture || p.Verified || p.Evidence != EvidenceFixture || p.MeasuredBy != nil {
				t.Errorf("%s fixture labels: %+v", p.ID, p)
			}
		} else if p.Status != "measured" || !p.Verified || p.Evidence != EvidenceMeasured || p.MeasuredBy == nil || *p.MeasuredBy != MeasuredBy {
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
	if got := board.Paths[6].CartSuccesses; got != cartLinks {
		t.Errorf("mcp cart successes = %d, want %d stores with cartLink", got, cartLinks)
	}
	if wd.ucp != nil {
		sessions := 0
		for _, st := range stores {
			if o, _ := ucpTruth(fixtureStore(st)); o == OutcomeCheckoutReached {
				sessions++
			}
		}
		if got := board.Paths[5].CartSuccesses; got != sessions || sessions == 0 {
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
		r[1].CartSuccesses != subs[0].CartSuccesses() || r[1].N != 30 {
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
		for _, v := range row {
			if str, ok := v.(string); ok && strings.Contains(str, "private-contact") {
				t.Fatalf("row %d holds a private contact", i)
			}
		}
		verified, fixture, evidence := row[col("verified")].(bool), row[col("fixture_data")].(bool), row[col("evidence")]
		if (evidence == EvidenceMeasured) != verified || (row[col("submitted_at")] != nil) != (evidence == EvidenceSelfReported) ||
			(evidence == EvidenceFixture) != fixture || (fixture && verified) {
			t.Fatalf("row %d labels: %v", i, row)
		}
	}
	for _, p := range board.Paths {
		if p.RunID != nil && successes[*p.RunID] != p.CartSuccesses {
			t.Errorf("table: %s has %d successes, board %d", *p.RunID, successes[*p.RunID], p.CartSuccesses)
		}
	}

	// The contact of a submission is in no file of the run folder.
	noContact(t, runDir)

	// buy.browser per host, from the same runs.
	lane, err := BrowserLaneByHost(runDir)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range stores {
		covered, success := false, false
		for k := range 5 {
			o := want[Paths[k].ID][i]
			covered = covered || o != OutcomeNotAttempted
			success = success || CartSuccess(o)
		}
		got, ok := lane[st.Host]
		if ok != covered || got != success {
			t.Errorf("buy_browser %s = %v (covered %v), truth %v (covered %v)", st.Host, got, ok, success, covered)
		}
	}
	if len(lane) > svc100.Size {
		t.Errorf("buy_browser covers %d hosts", len(lane))
	}
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

// TestImportBrowserRuns checks the import from a runs folder: the latest
// run of each shopper wins, other agents are refused, a missing shopper
// leaves no file.
func TestImportBrowserRuns(t *testing.T) {
	runDir, dir := t.TempDir(), t.TempDir()
	put := func(name, agent, finished string, outcome string) {
		m := validBody(100)
		m["agent"].(map[string]any)["name"] = agent
		m["run"].(map[string]any)["finished_at"] = finished
		for _, r := range m["results"].([]any) {
			r.(map[string]any)["outcome"] = outcome
		}
		if err := os.WriteFile(filepath.Join(dir, name), encode(t, m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("browser-a-2026-11-09.json", "svc browser shopper A", "2026-11-20T11:00:00Z", OutcomeNoCart)
	put("browser-a-2026-11-16.json", "svc browser shopper A", "2026-11-20T12:00:00Z", OutcomeAddedToCart)
	put("browser-c-2026-11-16.json", "svc browser shopper C", "2026-11-20T12:00:00Z", OutcomeNotAttempted)
	if err := ImportBrowserRuns(runDir, ImportOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAgentRuns(runDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["browser-a"].RunID != "browser-a-2026-11-16" || got["browser-a"].FixtureData || got["browser-c"] == nil {
		t.Fatalf("imported %+v", got)
	}
	lane, err := BrowserLaneByHost(runDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(lane) != svc100.Size || !lane[svc100.Stores()[0].Host] {
		t.Errorf("lane = %d hosts, first %v", len(lane), lane[svc100.Stores()[0].Host])
	}
	// A re-import without shopper C removes its file.
	os.Remove(filepath.Join(dir, "browser-c-2026-11-16.json"))
	if err := ImportBrowserRuns(runDir, ImportOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if got, _ := ReadAgentRuns(runDir); got["browser-c"] != nil {
		t.Error("shopper C's run survived a re-import without it")
	}
	// An outside agent's file is refused, naming the file.
	put("someone.json", "Acme Shopper", "2026-11-20T12:00:00Z", OutcomeNoCart)
	if err := ImportBrowserRuns(runDir, ImportOptions{Dir: dir}); err == nil || !strings.Contains(err.Error(), "someone.json") {
		t.Errorf("err = %v, want a refusal naming someone.json", err)
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
		if p.Status != "not_run" || p.Rate != nil || p.Wilson95 != nil || p.RunID != nil || p.Evidence != EvidenceNotMeasured {
			t.Errorf("%s: %+v", p.ID, p)
		}
	}
	if len(b.Stores) != svc100.Size || b.Stores[0].Outcomes["mcp"] != nil {
		t.Errorf("grid: %d rows", len(b.Stores))
	}
	raw, _ := os.ReadFile(filepath.Join(runDir, "f", filepath.FromSlash(publish.LeaderboardPath)))
	if !bytes.Contains(raw, []byte(`"rate": null`)) || !bytes.Contains(raw, []byte(`"wilson95": null`)) {
		t.Errorf("unmeasured figures are not null:\n%s", raw)
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
