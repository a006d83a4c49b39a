package pipeline

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"svc/datasets"
	"svc/fixtures"
	"svc/publish"
)

const testDate = "2026-05-04"

// testLane is a browser lane over a few stores chosen by their
// plain-HTTP verdict, so agents_can_buy meets every case: a lane that
// rescues a store, one that agrees, one that fails, and one covered but
// unmeasured.
func testLane(t testing.TB, w *fixtures.World) map[string]*bool {
	t.Helper()
	want := map[string]*bool{"no_agent_catalog": bp(true), "blocked": bp(true), "catalog_only": bp(false),
		"agents_can_buy": bp(false), "not_a_store": nil}
	lane := map[string]*bool{}
	for _, r := range truthWorld(w, nil) {
		if v, ok := want[r.Verdict]; ok {
			lane[strings.ToUpper(r.Host)] = v // hosts are matched case-insensitively
			delete(want, r.Verdict)
		}
	}
	if len(want) > 0 {
		t.Fatalf("the fixture world has no store with verdicts %v", want)
	}
	return lane
}

// testUCPPath is a UCP agent path over a few US stores with a valid
// profile, one per way the path can end: a checkout (which today's path
// cannot reach yet, so only the join point can show it), a cart without
// one, a profile the path could not read, and a cart it did not drive.
func testUCPPath(t testing.TB, w *fixtures.World) map[string]UCPPathResult {
	t.Helper()
	ends := []UCPPathResult{{"checkout_reached", "checkout_returned"}, {"added_to_cart", "cart_created"},
		{"no_cart", "ucp_profile_unreachable"}, {"not_attempted", "ucp_cart_not_driven"}}
	out := map[string]UCPPathResult{}
	for _, r := range truthWorld(w, nil) {
		if len(out) == len(ends) {
			break
		}
		if r.Market != nil && *r.Market == "US" && r.UCPStatus == "valid" {
			out[r.Host] = ends[len(out)]
		}
	}
	if len(out) < len(ends) {
		t.Fatalf("the fixture world has %d US stores with a valid profile, want %d", len(out), len(ends))
	}
	return out
}

func lowerLane(lane map[string]*bool) map[string]*bool {
	out := map[string]*bool{}
	for h, v := range lane {
		out[strings.ToLower(h)] = v
	}
	return out
}

// aggregateWorld aggregates a fresh copy of the shared world run.
func aggregateWorld(t *testing.T, lane map[string]*bool, opts AggregateOptions) (string, *AggregateResult) {
	t.Helper()
	w := sharedWorld(t)
	dir := w.newRun(t, t.TempDir(), "r1", testDate)
	opts.Dir = dir
	if lane != nil {
		opts.BrowserLane = func(runDir string) (map[string]*bool, error) {
			if runDir != dir {
				t.Errorf("browser lane asked for %s, want %s", runDir, dir)
			}
			return lane, nil
		}
	}
	res, err := Aggregate(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return dir, res
}

// outRows reads out/tables/<t>.parquet as one map per row.
func outRows(t testing.TB, dir string, tb *datasets.Table) []map[string]any {
	t.Helper()
	cols, err := ReadTableFile(filepath.Join(dir, OutTables, tb.Name+".parquet"), tb)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for i := range cols.Len() {
		m := map[string]any{}
		for j, c := range tb.Columns {
			m[c.Name] = cols.Value(i, j)
		}
		out = append(out, m)
	}
	return out
}

func outJSON(t testing.TB, dir, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func boolp(v any) *bool {
	if v == nil {
		return nil
	}
	b := v.(bool)
	return &b
}

func strp(v any) *string {
	if v == nil {
		return nil
	}
	s := v.(string)
	return &s
}

func int64p(v any) *int64 {
	if v == nil {
		return nil
	}
	n := v.(int64)
	return &n
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return v.(string)
}

// TestAggregateStoreAnswersMatchTruth: every store_answers row equals the
// row computed straight from the fixture world's known answers.
func TestAggregateStoreAnswersMatchTruth(t *testing.T) {
	w := sharedWorld(t)
	w.needSchema(t)
	lane := testLane(t, w.world)
	dir, _ := aggregateWorld(t, lane, AggregateOptions{BaseURL: "https://svc.example/"})
	want := truthWorld(w.world, lowerLane(lane))
	var got []truthRow
	for _, m := range outRows(t, dir, datasets.StoreAnswers) {
		got = append(got, truthRow{
			Host: m["host"].(string), Name: str(m["name"]), Category: str(m["category"]), Source: m["source"].(string),
			Platform: strp(m["platform"]), AgentsCanBuy: boolp(m["agents_can_buy"]),
			BuyAgentCatalog: boolp(m["buy_agent_catalog"]), BuyBrowser: boolp(m["buy_browser"]),
			Score: int64p(m["score"]), CartLink: boolp(m["cart_link"]), UCPValid: boolp(m["ucp_valid"]),
			WebMCP: boolp(m["webmcp"]), Blocked: boolp(m["blocked"]), Verdict: str(m["verdict"]),
			FixCode: str(m["fix_code"]), CatalogAnswered: boolp(m["catalog_answered"]),
			ProductFound: boolp(m["product_found"]), StorefrontMCP: boolp(m["storefront_mcp"]),
			UCPStatus: str(m["ucp_status"]), CheckoutWebMCPStatus: strp(m["checkout_webmcp_status"]),
			ScoreInputs: *int64p(m["score_inputs"]), Market: strp(m["market"]), UCPCheckoutLink: boolp(m["ucp_checkout_link"]),
		})
		if (m["market"] == nil) != (m["market_basis"] == nil) {
			t.Errorf("%s market %v with basis %v", m["host"], m["market"], m["market_basis"])
		}
		if u, want := m["svc_url"], "https://svc.example/stores/"+m["host"].(string)+"/"; u != want {
			t.Errorf("%s svc_url = %v, want %s", m["host"], u, want)
		}
		if m["fix"] == nil || m["checked_at"] == nil {
			t.Errorf("%s: fix %v, checked_at %v: want both", m["host"], m["fix"], m["checked_at"])
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("store_answers differs from the fixture truth (-want +got):\n%s", diff)
	}
	verdicts := map[string]int{}
	for _, r := range got {
		verdicts[r.Verdict]++
	}
	for _, v := range []string{"agents_can_buy", "cart_without_valid_ucp", "catalog_throttled", "catalog_only",
		"no_agent_catalog", "blocked", "not_a_store", "unreachable"} {
		if verdicts[v] == 0 {
			t.Errorf("no store with verdict %s: the test does not cover it", v)
		}
	}
}

func mustRun(t testing.TB, dir string) RunInfo {
	t.Helper()
	ri, err := ReadRun(filepath.Dir(filepath.Dir(dir)), filepath.Base(dir))
	if err != nil {
		t.Fatal(err)
	}
	return ri
}

// TestAggregateDeterministic: the same inputs give the same bytes, twice
// in one folder and once in another.
func TestAggregateDeterministic(t *testing.T) {
	w := sharedWorld(t)
	read := func(dir string, res *AggregateResult) map[string]string {
		out := map[string]string{}
		for _, f := range res.Files {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			out[f] = string(b)
		}
		return out
	}
	dir, res := aggregateWorld(t, nil, AggregateOptions{})
	first := read(dir, res)
	res2, err := Aggregate(context.Background(), AggregateOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	other := w.newRun(t, t.TempDir(), "r1", testDate)
	res3, err := Aggregate(context.Background(), AggregateOptions{Dir: other})
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]map[string]string{"again": read(dir, res2), "elsewhere": read(other, res3)} {
		if len(got) != len(first) {
			t.Errorf("%s: %d files, want %d", name, len(got), len(first))
		}
		for f, b := range first {
			if got[f] != b {
				t.Errorf("%s: %s differs between two aggregates of the same inputs", name, f)
			}
		}
	}
	want := []string{"out/files/api/agent-checkout/adoption.json", "out/files/api/protocols.json"}
	for _, tb := range StoreTables {
		want = append(want, "out/tables/"+tb.Name+".parquet")
	}
	want = append(want, "out/weekly/"+testDate+".json")
	slices.Sort(want)
	if diff := cmp.Diff(want, res.Files); diff != "" {
		t.Errorf("files written (-want +got):\n%s", diff)
	}
}

// TestAggregateDuckDBReadsEveryTable reads every table aggregate wrote
// through the analyst views (sql/view.sql), whole, with the row counts the
// stage reported, and checks the JSON files are JSON.
func TestAggregateDuckDBReadsEveryTable(t *testing.T) {
	dir, res := aggregateWorld(t, nil, AggregateOptions{})
	db, err := sql.Open("duckdb", duckDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	views, err := datasets.ViewsSQL(filepath.Join(dir, OutTables), StoreTables)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(views); err != nil {
		t.Fatal(err)
	}
	for _, tc := range res.Tables {
		tb := StoreTables[tableOrder(tc.Name)]
		rows, err := db.Query("SELECT * FROM " + sqlIdent(tc.Name))
		if err != nil {
			t.Fatalf("%s: %v", tc.Name, err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		n := 0
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatalf("%s: %v", tc.Name, err)
			}
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", tc.Name, err)
		}
		rows.Close()
		if n != tc.Rows || !slices.Equal(cols, tb.ColumnNames()) {
			t.Errorf("%s: DuckDB read %d rows of %v, want %d of %v", tc.Name, n, cols, tc.Rows, tb.ColumnNames())
		}
	}
	for _, f := range res.Files {
		if filepath.Ext(f) != ".json" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(b) || !bytes.HasSuffix(b, []byte("}\n")) {
			t.Errorf("%s is not one JSON object and a newline", f)
		}
	}
}

// TestAggregateMissingInputs: a missing stage input names the command to
// run first.
func TestAggregateMissingInputs(t *testing.T) {
	data := t.TempDir()
	ctx := context.Background()
	_, err := Aggregate(ctx, AggregateOptions{Dir: RunDir(data, "nope")})
	if err == nil || !strings.Contains(err.Error(), "svc crawl --run nope") {
		t.Errorf("no run: %v", err)
	}
	if _, err := OpenRun(data, "x", testStarted); err != nil {
		t.Fatal(err)
	}
	dir := RunDir(data, "x")
	_, err = Aggregate(ctx, AggregateOptions{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "svc crawl --run x") {
		t.Errorf("no checks: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ChecksFile), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Aggregate(ctx, AggregateOptions{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "svc validate --run x") {
		t.Errorf("no ucp validations: %v", err)
	}
	_, err = Aggregate(ctx, AggregateOptions{Dir: dir, BrowserLane: func(string) (map[string]*bool, error) {
		return nil, os.ErrPermission
	}})
	if err == nil {
		t.Error("a failing browser lane did not fail the stage")
	}
}

// TestBoolRunsReadableByDuckDB guards every stage file against a Parquet
// writer bug: parquet-go's RLE boolean encoder writes a run of trues with
// the run value 0xFF where the format (bit width 1) wants 1, and DuckDB
// refuses such a page ("Payload value bigger than allowed"). A nullable
// boolean column with eight trues in a row is enough, and every crawl of
// more than a few stores has one. datasets must write booleans PLAIN.
func TestBoolRunsReadableByDuckDB(t *testing.T) {
	tb := &datasets.Table{Name: "t", Description: "d", Key: []string{"k"}, Columns: []datasets.Column{
		{Name: "k", Type: datasets.Int64, Description: "k"},
		{Name: "b", Type: datasets.Bool, Nullable: true, Description: "b"},
	}}
	var rows []datasets.Row
	for i := range 17 {
		var v any = true
		if i == 16 {
			v = nil
		}
		rows = append(rows, datasets.Row{int64(i), v})
	}
	c, err := datasets.FromRows(tb, rows)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := datasets.WriteParquet(&buf, c); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "t.parquet")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", duckDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FILTER (WHERE b) FROM read_parquet(" + sqlLiteral(p) + ")").Scan(&n); err != nil || n != 16 {
		t.Fatalf("DuckDB reads %d trues of 16 (%v): datasets/parquet.go must not RLE-encode booleans", n, err)
	}
}

// TestAggregateEmptyRun: a run that checked no store still publishes every
// table (empty) and figures that say nothing is available, dated by the run.
func TestAggregateEmptyRun(t *testing.T) {
	data := t.TempDir()
	ri, err := OpenRun(data, "empty", testStarted)
	if err != nil {
		t.Fatal(err)
	}
	dir := RunDir(data, "empty")
	if err := os.WriteFile(filepath.Join(dir, JournalName), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteChecks(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := Validate(context.Background(), ValidateOptions{Dir: dir, Validator: &fakeValidator{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteUCPValidations(dir); err != nil {
		t.Fatal(err)
	}
	res, err := Aggregate(context.Background(), AggregateOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range res.Tables {
		if tc.Rows != 0 {
			t.Errorf("%s has %d rows", tc.Name, tc.Rows)
		}
	}
	var ad publish.Adoption
	outJSON(t, dir, filepath.Join(OutFiles, publish.AdoptionPath), &ad)
	if ad.Available || !ad.AsOf.Equal(ri.Started) || ad.Now.ValidUCP.Pct != nil {
		t.Errorf("empty adoption: available %v, asOf %v (want %v), validUcp %s", ad.Available, ad.AsOf, ri.Started, js(ad.Now.ValidUCP))
	}
	var wk publish.WeeklyEdition
	outJSON(t, dir, filepath.Join(OutWeekly, ri.Date+".json"), &wk)
	if wk.Pct != nil || wk.N != 0 || wk.MarketStores != 0 || !strings.Contains(wk.Headline, "no checked store") {
		t.Errorf("empty weekly: %s", js(wk))
	}
	var pm publish.ProtocolMatrix
	outJSON(t, dir, filepath.Join(OutFiles, publish.ProtocolsPath), &pm)
	if pm.Available || pm.Rows[0].Stages.Declare.Evidence != NotMeasured {
		t.Errorf("empty protocols: %s", js(pm.Rows[0]))
	}
}
