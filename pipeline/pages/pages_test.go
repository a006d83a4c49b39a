package pages

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/datasets"
	"svc/publish"
)

// tableRow builds a table row from column values by name; the others are null.
func tableRow(t *testing.T, tb *datasets.Table, vals map[string]any) datasets.Row {
	t.Helper()
	r := make(datasets.Row, len(tb.Columns))
	for k, v := range vals {
		j := tb.ColumnIndex(k)
		if j < 0 {
			t.Fatalf("%s has no column %s", tb.Name, k)
		}
		r[j] = v
	}
	return r
}

var checkedAt = time.Date(2026, 11, 16, 9, 30, 0, 0, time.UTC)

// testStore is one synthetic store of the test snapshot.
type testStore struct {
	host, name, category, source, verdict string
	canBuy, cart, catalog, blocked        *bool
	ucpStatus                             string
	robotsUser                            string // ChatGPT-User's verdict
}

func bp(b bool) *bool { return &b }

var testStores = []testStore{
	{"buyhere.test", "Buy Here", "footwear", "seed", "agents_can_buy", bp(true), bp(true), bp(true), bp(false), "valid", "allowed"},
	{"walled.test", "Walled Garden", "footwear", "seed", "blocked", bp(false), nil, nil, bp(true), "unreachable", ""},
	{"quiet.test", "Quiet Shop", "beauty", "seed", "no_agent_catalog", bp(false), bp(false), bp(false), bp(false), "missing", "disallowed"},
	{"mapped.test", "Mapped Store", "home", "map-derived", "catalog_only", nil, bp(false), bp(true), bp(false), "invalid", "no_rule"},
	{"gone.test", "Gone Away", "home", "opted-out", "agents_can_buy", bp(true), bp(true), bp(true), bp(false), "valid", "allowed"},
	{"nocat.test", "", "", "submitted", "", nil, nil, nil, nil, "not_checked", ""},
}

// testInput is a small snapshot with every kind of store, a leaderboard
// with an unverified submission, and a weekly edition.
func testInput(t *testing.T) Input {
	t.Helper()
	var sa, ck, uv, st, pd []datasets.Row
	for _, s := range testStores {
		var name, cat any
		if s.name != "" {
			name = s.name
		}
		if s.category != "" {
			cat = s.category
		}
		ptr := func(b *bool) any {
			if b == nil {
				return nil
			}
			return *b
		}
		var verdict any
		if s.verdict != "" {
			verdict = s.verdict
		}
		sa = append(sa, tableRow(t, datasets.StoreAnswers, map[string]any{
			"host": s.host, "name": name, "category": cat, "source": s.source, "verdict": verdict,
			"agents_can_buy": ptr(s.canBuy), "buy_agent_catalog": ptr(s.canBuy), "cart_link": ptr(s.cart),
			"catalog_answered": ptr(s.catalog), "product_found": ptr(s.catalog), "blocked": ptr(s.blocked),
			"ucp_status": s.ucpStatus, "checked_at": checkedAt, "score": int64(60), "score_inputs": int64(6),
			"fix": "Publish a UCP profile.", "fix_code": "publish_ucp_profile", "svc_url": "/stores/" + s.host + "/",
		}))
		res := map[string]any{"checkoutWebmcp": map[string]any{"status": "unknown", "detected": nil, "tools": []string{}, "reason": "Not measurable from outside."}}
		rj, _ := json.Marshal(res)
		var robots any
		if s.robotsUser != "" {
			robots = s.robotsUser
		}
		ck = append(ck, tableRow(t, datasets.Checks, map[string]any{
			"host": s.host, "source": s.source, "checked_at": checkedAt, "robots_status": "ok",
			"robots_chatgpt_user": robots, "webmcp_tools": `["search_products"]`, "result_json": string(rj),
			"block_reason": map[bool]any{true: "cloudflare", false: nil}[s.blocked != nil && *s.blocked],
		}))
		rep := map[string]any{"valid": s.ucpStatus == "valid", "summary": "Not a valid UCP business profile: 1 error.",
			"counts": map[string]int{"errors": 1}, "errors": []map[string]any{{"path": "/ucp/services", "rule": "ucp.service.shopping_present", "message": "no shopping service", "specUrl": "https://ucp.dev/spec", "hint": true}},
			"warnings": []any{}, "info": []any{}, "httpChecks": []map[string]any{{"rule": "ucp.http.status", "status": "pass", "detail": "HTTP 200"}},
			"source": map[string]any{"type": "url"}, "schema": map[string]any{"release": "2026-08-25"}}
		rb, _ := json.Marshal(rep)
		uv = append(uv, tableRow(t, datasets.UCPValidations, map[string]any{"host": s.host, "status": s.ucpStatus, "report": string(rb), "errors": int64(1), "warnings": int64(0)}))
		st = append(st, tableRow(t, datasets.Stores, map[string]any{"host": s.host, "source": s.source, "name": name, "category": cat}))
		pd = append(pd, tableRow(t, datasets.ProductData, map[string]any{"host": s.host, "vendor_readiness_status": "partial"}))
	}
	var tables []*datasets.Columns
	for _, x := range []struct {
		t    *datasets.Table
		rows []datasets.Row
	}{{datasets.Stores, st}, {datasets.StoreAnswers, sa}, {datasets.Checks, ck}, {datasets.UCPValidations, uv}, {datasets.ProductData, pd}} {
		c, err := datasets.FromRows(x.t, x.rows)
		if err != nil {
			t.Fatal(err)
		}
		tables = append(tables, c)
	}
	rate, lo, hi := 0.5, 0.3, 0.7
	ok := "checkout_reached"
	board := publish.Leaderboard{TestSet: "SVC-100 v1", TestSetSize: 100, TestSetURL: "/data/svc-100/v1/svc-100.csv",
		SubmissionSchemaURL: "/data/svc-100/v1/submission.schema.json", SnapshotDate: "2026-11-16",
		Methodology: "Cart success.", Attribution: datasets.Attribution,
		Paths: []publish.AgentPathRow{
			{ID: "browser-a", Label: "Browser shopper A", Path: "browser", Status: "measured", Verified: true, Evidence: "Measured",
				RunStats: publish.RunStats{N: 20, CartSuccesses: ptrTo(10), Rate: &rate, Wilson95: &publish.Interval{Low: lo, High: hi}}},
			{ID: "ucp", Label: "UCP path", Path: "ucp", Status: "not_run", Verified: true, Evidence: "Measured"},
		},
		Unverified: publish.UnverifiedRuns{Note: "Self-reported.", Count: 1, Runs: []publish.SubmissionRow{{ID: "sub-1", Status: "unverified",
			Evidence: "Self-reported", Agent: publish.PublicAgent{Name: "Outside <Agent>"}, Path: "browser",
			RunStats: publish.RunStats{N: 10, CartSuccesses: ptrTo(9), Rate: &rate, Wilson95: &publish.Interval{Low: lo, High: hi}}, SubmittedAt: checkedAt}}},
		Stores: []publish.GridRow{
			{ID: "svc100-v1-001", Host: "buyhere.test", Name: "Buy Here", Category: "footwear", Outcomes: map[string]*string{"browser-a": &ok}},
			{ID: "svc100-v1-002", Host: "elsewhere.test", Name: "Elsewhere", Category: "home", Outcomes: map[string]*string{}},
		},
	}
	bb, err := json.Marshal(board)
	if err != nil {
		t.Fatal(err)
	}
	pct := 33.3
	ed := map[string]any{"schema": "svc-weekly-agent-checkout/1", "date": "2026-11-16", "headline": "33.3% of 3 checked stores returned a checkout link.",
		"segments": []map[string]any{{"id": "hosted_platform", "label": "Hosted platform detected", "n": 1, "count": 1, "pct": 100.0},
			{"id": "not_detected", "label": "No hosted platform detected", "n": 2, "count": 0, "pct": 0.0}},
		"comparison": map[string]any{"text": "Hosted: 100%. Not detected: 0%.", "difference_pct_points": 100.0, "previous": nil},
		"alt_text":   "Bar chart: hosted platform 100% of 1; not detected 0% of 2.", "citation": "svc, weekly figure 2026-11-16.",
		"n": 3, "count": 1, "pct": pct, "snapshot_date": "2026-11-16", "dataset_version": "2026-11-16", "license": "CC-BY-4.0",
		"cc_by": datasets.Attribution, "metric": "Share of stores.", "scope": "Every store.", "source": "/data/2026-11-16/store_answers.csv"}
	eb, _ := json.Marshal(ed)
	adoption := `{"now": {"stores": 6, "checked": 5, "agentsCanBuy": {"count": 2, "n": 4, "pct": 50}, "validUcp": {"count": 2, "n": 5, "pct": 40},
		"checkoutLinks": {"count": 2, "n": 4, "pct": 50}, "blocked": {"count": 1, "n": 5, "pct": 20}}, "available": true}`
	return Input{
		Version: "2026-11-16", MethodVersion: "svc-method/1 (check/1)", Tables: tables,
		Files: []publish.File{
			{Path: publish.LeaderboardStoresPath, Data: bb},
			{Path: publish.AdoptionPath, Data: []byte(adoption)},
		},
		Weekly:    &publish.Edition{Date: "2026-11-16", Body: eb},
		Changelog: []publish.ChangelogEntry{{MethodVersion: "svc-method/1", Date: "2026-11-01", Changes: []string{"First."}}},
	}
}

// build renders the snapshot's pages as the snapshot stage publishes
// them: Build's, and the dataset page from the tables' entries.
func build(t *testing.T, in Input) map[string][]byte {
	t.Helper()
	files, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := DatasetsPage(context.Background(), in, tableEntries(t, in.Tables))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, ds...)
	out := map[string][]byte{}
	for _, f := range files {
		if _, dup := out[f.Path]; dup {
			t.Fatalf("%s built twice", f.Path)
		}
		out[f.Path] = f.Data
	}
	return out
}

func TestBuildPages(t *testing.T) {
	got := build(t, testInput(t))
	var names []string
	for p := range got {
		if !strings.HasPrefix(p, "assets/") {
			names = append(names, p)
		}
	}
	slices.Sort(names)
	want := []string{
		"api/weekly/agent-checkout/2026-11-16.svg",
		"datasets/index.html",
		"directory/beauty/index.html", "directory/footwear/index.html", "directory/index.html", "directory/uncategorized/index.html",
		"index.html", "leaderboard/index.html",
		"validate/index.html", "weekly/2026-11-16/index.html", "weekly/index.html",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("published pages (-want +got):\n%s", diff)
	}
	// The store pages are the server's; no page for the opted-out store.
	stores := storePages(t, testInput(t))
	wantStores := []string{"stores/buyhere.test/", "stores/mapped.test/", "stores/nocat.test/", "stores/quiet.test/", "stores/walled.test/"}
	if diff := cmp.Diff(wantStores, slices.Sorted(maps.Keys(stores))); diff != "" {
		t.Errorf("store pages (-want +got):\n%s", diff)
	}
	dir := string(got["directory/index.html"])
	if strings.Contains(dir, "mapped.test") || strings.Contains(dir, "gone.test") {
		t.Error("the directory lists a store from a source it does not vouch for")
	}
	if !strings.Contains(dir, `href="/stores/buyhere.test/"`) {
		t.Error("the directory does not link the store page")
	}
	mapped := string(stores["stores/mapped.test/"])
	if !strings.Contains(mapped, "known: false") {
		t.Error("the page of a map-derived store does not say known false")
	}
	if strings.Contains(mapped, `href="/directory/home/"`) {
		t.Error("an unlisted store links a directory category")
	}
}

// tableEntries encodes the tables as the publisher does and returns their
// manifest entries, store_answers first.
func tableEntries(t *testing.T, tables []*datasets.Columns) []publish.TableEntry {
	t.Helper()
	var out []publish.TableEntry
	for _, c := range tables {
		tb := c.Table()
		e := publish.TableEntry{Name: tb.Name, Title: tb.Title, Description: tb.Description, Rows: int64(c.Len()), Key: tb.Key}
		for _, col := range tb.Columns {
			e.Columns = append(e.Columns, publish.ColumnEntry{Name: col.Name, Type: col.Type.String(), Nullable: col.Nullable, Description: col.Description})
		}
		var csv, pq bytes.Buffer
		if err := datasets.WriteCSV(&csv, c); err != nil {
			t.Fatal(err)
		}
		if err := datasets.WriteParquet(&pq, c); err != nil {
			t.Fatal(err)
		}
		file := func(name string, b []byte) publish.FileEntry {
			sum := sha256.Sum256(b)
			return publish.FileEntry{Path: name, Bytes: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}
		}
		e.CSV, e.Parquet = file(tb.Name+".csv", csv.Bytes()), file(tb.Name+".parquet", pq.Bytes())
		if tb.Name == datasets.StoreAnswers.Name {
			out = append([]publish.TableEntry{e}, out...)
		} else {
			out = append(out, e)
		}
	}
	return out
}

// storePages renders the page of every store that has one, as the server
// does (from the same tables, with the same template), keyed by its
// address without the leading slash: stores/<host>/.
func storePages(t *testing.T, in Input) map[string][]byte {
	t.Helper()
	site, err := NewSite(in.BaseURL, in.Version)
	if err != nil {
		t.Fatal(err)
	}
	b := &builder{in: in, site: site}
	if err := b.stores(context.Background()); err != nil {
		t.Fatal(err)
	}
	tabs := b.storeTables()
	out := map[string][]byte{}
	for host := range b.pages {
		s, err := tabs.store(host)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := RenderStore(&buf, site, s); err != nil {
			t.Fatal(err)
		}
		out[strings.TrimPrefix(StoreURL(host), "/")] = buf.Bytes()
	}
	return out
}

// TestBuildByteIdentical: the same inputs give the same bytes.
func TestBuildByteIdentical(t *testing.T) {
	a, b := build(t, testInput(t)), build(t, testInput(t))
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for p, v := range a {
		if !bytes.Equal(v, b[p]) {
			t.Errorf("%s differs between two builds of the same inputs", p)
		}
	}
}

// TestBuildStoreAnswersInParts: store_answers read a part at a time, in
// any order, gives the pages of the table in memory.
func TestBuildStoreAnswersInParts(t *testing.T) {
	in := testInput(t)
	want := build(t, in)
	var answers *datasets.Columns
	for _, c := range in.Tables {
		if c.Table().Name == datasets.StoreAnswers.Name {
			answers = c
		}
	}
	rows := answers.Rows()
	in.StoreAnswers = func(ctx context.Context, fn func(*datasets.Columns) error) error {
		for _, part := range [][]datasets.Row{rows[len(rows)/2:], rows[:len(rows)/2]} {
			c, err := datasets.FromRows(datasets.StoreAnswers, part)
			if err != nil {
				return err
			}
			if err := fn(c); err != nil {
				return err
			}
		}
		return nil
	}
	in.Tables = slices.DeleteFunc(slices.Clone(in.Tables), func(c *datasets.Columns) bool { return c == answers })
	got, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range got {
		if !bytes.Equal(f.Data, want[f.Path]) {
			t.Errorf("%s differs when store_answers is read in parts", f.Path)
		}
	}
	if len(got) != len(want)-1 { // want holds the dataset page too
		t.Errorf("%d pages, want %d", len(got), len(want)-1)
	}
}

// BenchmarkBuild renders the pages of a snapshot of 10,000 stores: the
// cost the snapshot stage adds per store (the directory's rows; the store
// pages are the server's), plus the other pages.
func BenchmarkBuild(b *testing.B) {
	t := &testing.T{}
	in := testInput(t)
	const n = 10000
	var grown []*datasets.Columns
	for _, c := range in.Tables {
		tb := c.Table()
		hostCol := tb.ColumnIndex("host")
		var rows []datasets.Row
		for i := range n {
			r := c.Row(i % c.Len())
			r[hostCol] = fmt.Sprintf("s%05d-%s", i, r[hostCol])
			if j := tb.ColumnIndex("source"); j >= 0 {
				r[j] = "seed"
			}
			rows = append(rows, r)
		}
		g, err := datasets.FromRows(tb, rows)
		if err != nil {
			b.Fatal(err)
		}
		grown = append(grown, g)
	}
	in.Tables = grown
	b.ResetTimer()
	for b.Loop() {
		files, err := Build(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		var size int
		for _, f := range files {
			size += len(f.Data)
		}
		b.ReportMetric(float64(size)/n, "bytes/store")
	}
}
func ptrTo[T any](v T) *T { return &v }
