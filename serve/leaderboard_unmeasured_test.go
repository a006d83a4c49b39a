package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/datasets/duck"
	"svc/datasets/svc100"
	"svc/pipeline/inbox"
	"svc/pipeline/leaderboard"
	"svc/pipeline/pages"
	"svc/publish"
)

// unmeasuredRun is one of the service's own runs over all 100 stores: the
// first k reach checkout, the last len(skipped) are not_attempted with
// those reasons, the rest are no_cart.
func unmeasuredRun(t *testing.T, p leaderboard.PathInfo, k int, skipped []string) *leaderboard.AgentRun {
	t.Helper()
	sub := &leaderboard.Submission{Spec: svc100.Spec, TestSet: svc100.TestSet,
		Agent: leaderboard.Agent{Name: p.Agent, Version: leaderboard.MethodVersion, Builder: leaderboard.MeasuredBy, Path: p.Path},
		Run:   leaderboard.Run{StartedAt: "2026-11-23T03:00:00Z", FinishedAt: "2026-11-23T03:20:00Z", StoppedBeforePayment: true}}
	reasons := map[string]string{}
	for i := range svc100.Size {
		id, o := svc100.ID(i+1), leaderboard.OutcomeNoCart
		switch {
		case i < k:
			o = leaderboard.OutcomeCheckoutReached
		case i >= svc100.Size-len(skipped):
			o = leaderboard.OutcomeNotAttempted
			reasons[id] = skipped[i-(svc100.Size-len(skipped))]
		}
		sub.Results = append(sub.Results, leaderboard.Result{ID: id, Outcome: o, At: "2026-11-23T03:05:00Z"})
	}
	return &leaderboard.AgentRun{RunID: "svc-" + p.ID + "-r1", PathID: p.ID, MeasuredBy: leaderboard.MeasuredBy,
		Method: "test", Reasons: reasons, Submission: sub}
}

func repeat(reason string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = reason
	}
	return out
}

// wantFigures are a run's figures with its not_attempted results out.
type wantFigures struct {
	n, k, skipped int
	reasons       []publish.ReasonCount
}

func (w wantFigures) rate() *float64 {
	if w.n == 0 {
		return nil
	}
	r := math.Round(float64(w.k)/float64(w.n)*1000) / 1000
	return &r
}

func (w wantFigures) interval() *publish.Interval {
	lo, hi, ok := leaderboard.Wilson(w.k, w.n, leaderboard.Z95)
	if !ok {
		return nil
	}
	return &publish.Interval{Low: math.Round(lo*1000) / 1000, High: math.Round(hi*1000) / 1000}
}

// checkFigures compares a row of the JSON with w: n, successes, rate and
// interval without the not_attempted results, which are listed beside.
func checkFigures(t *testing.T, what string, got publish.RunStats, w wantFigures) {
	t.Helper()
	var k *int
	if w.n > 0 {
		k = &w.k
	}
	type figures struct {
		N            int
		K            *int
		Rate         *float64
		Wilson       *publish.Interval
		NotAttempted *publish.NotAttempted
	}
	want := figures{w.n, k, w.rate(), w.interval(), &publish.NotAttempted{Count: w.skipped, Reasons: w.reasons}}
	have := figures{got.N, got.CartSuccesses, got.Rate, got.Wilson95, got.NotAttempted}
	if d := cmp.Diff(want, have); d != "" {
		t.Errorf("%s figures (-want +got):\n%s", what, d)
	}
	if got.Outcomes == nil || got.Outcomes.NotAttempted != w.skipped {
		t.Errorf("%s outcomes %+v: not_attempted is not %d", what, got.Outcomes, w.skipped)
	}
}

// TestLeaderboardUnmeasuredOutOfRates is issue 35.2: a not_attempted
// result is unmeasured. A path's n counts the stores where it ran; its
// not_attempted results are listed beside n (count and reasons) and enter
// neither n, the rate nor the Wilson interval: in the REST JSON, the CSV,
// the page, the MCP tool and the leaderboard_results table, for the
// service's own paths and for a submitted run alike. A path that
// attempted no store is Not measured, never 0 %.
func TestLeaderboardUnmeasuredOutOfRates(t *testing.T) {
	f := sharedReadFixture(t)
	dir := t.TempDir()
	f.writeTreeTo(t, dir)
	ctx := context.Background()

	// The snapshot's board: the UCP path attempted no store (57 profiles
	// it could not check, 43 not stores); the storefront MCP path
	// attempted 80, 30 of them to checkout.
	ucpInfo, mcpInfo := leaderboard.Paths[5], leaderboard.Paths[6]
	if ucpInfo.ID != leaderboard.PathUCP || mcpInfo.ID != leaderboard.PathMCP {
		t.Fatalf("paths are %s, %s", ucpInfo.ID, mcpInfo.ID)
	}
	ucpSkipped := append(repeat("ucp_binding_not_driven", 57), repeat("not_a_store", 43)...)
	mcpSkipped := append(repeat("not_a_store", 15), repeat("redirected_off_store", 5)...)
	runDir := t.TempDir()
	for _, r := range []*leaderboard.AgentRun{unmeasuredRun(t, ucpInfo, 0, ucpSkipped), unmeasuredRun(t, mcpInfo, 30, mcpSkipped)} {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(runDir, leaderboard.AgentRunsDir, r.PathID+".json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	aggregate := func(when time.Time) (*publish.Leaderboard, string) {
		t.Helper()
		out := t.TempDir()
		board, err := leaderboard.Aggregate(ctx, runDir, leaderboard.AggregateOptions{
			TablesDir: filepath.Join(out, "tables"), FilesDir: filepath.Join(out, "files"),
			Inbox: inbox.DirReader(filepath.Join(dir, "state")), Date: "2026-11-23", GeneratedAt: when,
		})
		if err != nil {
			t.Fatal(err)
		}
		return board, out
	}
	board, out := aggregate(time.Now().UTC())
	for _, name := range []string{publish.LeaderboardPath, publish.LeaderboardStoresPath, publish.LeaderboardCSVPath, publish.LeaderboardStoresCSVPath} {
		b, err := os.ReadFile(filepath.Join(out, "files", filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "public", filepath.FromSlash(name)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var page bytes.Buffer
	if err := pages.RenderLeaderboard(&page, &pages.Site{}, board, func(string) bool { return false }); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "public", filepath.FromSlash(pages.LeaderboardFile)), page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, Config{DataDir: dir, TrustProxy: true})

	// A submitted run of 20 results: 4 added to cart, 6 no cart, 10 not
	// attempted. Its 201 counts 10, not 20.
	body := run(t, 20)
	for i, r := range body["results"].([]any) {
		o := leaderboard.OutcomeNoCart
		switch {
		case i < 4:
			o = leaderboard.OutcomeAddedToCart
		case i >= 10:
			o = leaderboard.OutcomeNotAttempted
		}
		r.(map[string]any)["outcome"] = o
	}
	code, rcBody := ts.postJSON(t, "/api/leaderboard/submit", "198.51.100.30", mustJSON(t, body))
	if code != 201 {
		t.Fatalf("submit: %d %s", code, rcBody)
	}
	conforms(t, openapiSchema(t, "LeaderboardReceipt"), "the 201", rcBody)
	var rc LeaderboardReceipt
	if err := json.Unmarshal([]byte(rcBody), &rc); err != nil {
		t.Fatal(err)
	}
	if rc.N != 10 || rc.CartSuccesses != 4 || rc.NotAttempted != 10 {
		t.Errorf("201: n %d, cart_successes %d, not_attempted %d; want 10, 4, 10", rc.N, rc.CartSuccesses, rc.NotAttempted)
	}

	want := map[string]wantFigures{
		leaderboard.PathUCP: {n: 0, k: 0, skipped: 100, reasons: []publish.ReasonCount{{Reason: "ucp_binding_not_driven", Count: 57}, {Reason: "not_a_store", Count: 43}}},
		leaderboard.PathMCP: {n: 80, k: 30, skipped: 20, reasons: []publish.ReasonCount{{Reason: "not_a_store", Count: 15}, {Reason: "redirected_off_store", Count: 5}}},
		rc.ID:               {n: 10, k: 4, skipped: 10, reasons: []publish.ReasonCount{{Reason: publish.ReasonUnspecified, Count: 10}}},
	}
	checkBoard := func(what string, b *publish.Leaderboard) {
		t.Helper()
		for _, p := range b.Paths {
			w, ok := want[p.ID]
			if !ok {
				continue
			}
			checkFigures(t, what+" "+p.ID, p.RunStats, w)
			unmeasured := p.Status == leaderboard.StatusNotAttempted && p.Evidence == leaderboard.EvidenceNotMeasured && p.Rank == nil
			if (w.n == 0) != unmeasured {
				t.Errorf("%s %s: status %s, evidence %s, rank %v", what, p.ID, p.Status, p.Evidence, p.Rank)
			}
		}
		if len(b.Unverified.Runs) != 1 || b.Unverified.Runs[0].ID != rc.ID {
			t.Fatalf("%s: unverified runs %+v", what, b.Unverified.Runs)
		}
		checkFigures(t, what+" submitted run", b.Unverified.Runs[0].RunStats, want[rc.ID])
	}

	// The REST JSON, with and without the grid, and the MCP tool.
	boardSchema := openapiSchema(t, "Leaderboard")
	for _, p := range []string{"/api/leaderboard", "/api/leaderboard?stores=1"} {
		resp, body := ts.get(t, p)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", p, resp.StatusCode)
		}
		conforms(t, boardSchema, p, body)
		var b publish.Leaderboard
		if err := json.Unmarshal([]byte(body), &b); err != nil {
			t.Fatal(err)
		}
		checkBoard(p, &b)
	}
	var viaMCP publish.Leaderboard
	if err := json.Unmarshal([]byte(ts.mcpTool(t, "agent_leaderboard", map[string]any{})), &viaMCP); err != nil {
		t.Fatal(err)
	}
	checkBoard("agent_leaderboard", &viaMCP)

	// The CSV.
	_, csvBody := ts.get(t, "/api/leaderboard?format=csv")
	for id, w := range want {
		row := csvRow(t, csvBody, id)
		if row == nil {
			t.Fatalf("CSV has no row %s", id)
		}
		cell := func(v *float64) string {
			if v == nil {
				return ""
			}
			return strconv.FormatFloat(*v, 'f', -1, 64)
		}
		lo, hi := "", ""
		if iv := w.interval(); iv != nil {
			lo, hi = cell(&iv.Low), cell(&iv.High)
		}
		k := ""
		if w.n > 0 {
			k = strconv.Itoa(w.k)
		}
		var reasons []string
		for _, r := range w.reasons {
			reasons = append(reasons, fmt.Sprintf("%s %d", r.Reason, r.Count))
		}
		wantRow := map[string]string{"n": strconv.Itoa(w.n), "cart_successes": k, "rate": cell(w.rate()), "wilson95_low": lo, "wilson95_high": hi,
			"not_attempted": strconv.Itoa(w.skipped), "not_attempted_reasons": strings.Join(reasons, "; ")}
		for c, v := range wantRow {
			if row[c] != v {
				t.Errorf("CSV %s: %s %q, want %q", id, c, row[c], v)
			}
		}
	}

	// The page: the table's rows, the chart and its description.
	resp, html := ts.get(t, "/leaderboard/")
	if resp.StatusCode != 200 {
		t.Fatalf("page: %d", resp.StatusCode)
	}
	tableRow := func(head string) string {
		t.Helper()
		re := `(?s)<tr[^>]*>[^\n]*?` + regexp.QuoteMeta(head) + `.*?</tr>`
		if strings.HasPrefix(head, "<tr") {
			re = `(?s)` + regexp.QuoteMeta(head) + `.*?</tr>`
		}
		m := regexp.MustCompile(re).FindString(html)
		if m == "" {
			t.Fatalf("the page has no table row for %q", head)
		}
		return m
	}
	ucpRow := tableRow(`<th scope="row">UCP path`)
	for _, s := range []string{"Not measured", "<td>0</td>", "100 <span class=\"sub\">(ucp_binding_not_driven 57, not_a_store 43)</span>"} {
		if !strings.Contains(ucpRow, s) {
			t.Errorf("the page's UCP row lacks %q: %s", s, ucpRow)
		}
	}
	if strings.Contains(ucpRow, "%") {
		t.Errorf("the page gives the UCP path, which attempted no store, a rate: %s", ucpRow)
	}
	mcpRow := tableRow(`<th scope="row">Storefront MCP path`)
	for _, s := range []string{"37.5% <span class=\"sub\">(30 of 80)</span>", "<td>80</td>", "20 <span class=\"sub\">(not_a_store 15, redirected_off_store 5)</span>"} {
		if !strings.Contains(mcpRow, s) {
			t.Errorf("the page's MCP row lacks %q: %s", s, mcpRow)
		}
	}
	subRow := tableRow(`<tr id="` + rc.ID + `">`)
	for _, s := range []string{"40.0% <span class=\"sub\">(4 of 10)</span>", "10 <span class=\"sub\">(unspecified 10)</span>"} {
		if !strings.Contains(subRow, s) {
			t.Errorf("the page's submitted row lacks %q: %s", s, subRow)
		}
	}
	mcpIv := want[leaderboard.PathMCP].interval()
	for _, s := range []string{"UCP path: not measured",
		fmt.Sprintf("Storefront MCP path: 37.5%% (interval %.1f%% to %.1f%%, n 80; 20 not attempted, not counted)", mcpIv.Low*100, mcpIv.High*100)} {
		if !strings.Contains(html, s) {
			t.Errorf("the chart's description lacks %q", s)
		}
	}

	// The next snapshot's leaderboard_results table: the submitted run is
	// in it; count(cart_success) is each run's n and avg its rate.
	board, out = aggregate(time.Now().UTC().Add(time.Second))
	checkBoard("next snapshot", board)
	db, err := duck.Open("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `select run_id, count(cart_success), count(*) filter (where cart_success),
		avg(cart_success::int), count(*) filter (where outcome = 'not_attempted'),
		count(*) filter (where outcome = 'not_attempted' and cart_success is not null)
		from read_parquet(?) group by run_id`, filepath.Join(out, "tables", "leaderboard_results.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	byRun := map[string]string{"svc-ucp-r1": leaderboard.PathUCP, "svc-mcp-r1": leaderboard.PathMCP, rc.ID: rc.ID}
	seen := 0
	for rows.Next() {
		var id string
		var n, k, skipped, counted int
		var avg *float64
		if err := rows.Scan(&id, &n, &k, &avg, &skipped, &counted); err != nil {
			t.Fatal(err)
		}
		w, ok := want[byRun[id]]
		if !ok {
			continue
		}
		seen++
		if avg != nil {
			r := math.Round(*avg*1000) / 1000
			avg = &r
		}
		if n != w.n || k != w.k || skipped != w.skipped || counted != 0 || !cmp.Equal(avg, w.rate()) {
			t.Errorf("leaderboard_results %s: count(cart_success) %d, successes %d, avg %v, not_attempted %d (%d with a cart_success); want %d, %d, %v, %d (0)",
				id, n, k, avg, skipped, counted, w.n, w.k, w.rate(), w.skipped)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if seen != 3 {
		t.Errorf("leaderboard_results holds %d of the 3 runs", seen)
	}
}
