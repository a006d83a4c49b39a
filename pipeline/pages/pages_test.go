package pages

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

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
				RunStats: publish.RunStats{N: 20, CartSuccesses: 10, Rate: &rate, Wilson95: &publish.Interval{Low: lo, High: hi}}},
			{ID: "ucp", Label: "UCP path", Path: "ucp", Status: "not_run", Verified: true, Evidence: "Measured"},
		},
		Unverified: publish.UnverifiedRuns{Note: "Self-reported.", Count: 1, Runs: []publish.SubmissionRow{{ID: "sub-1", Status: "unverified",
			Evidence: "Self-reported", Agent: publish.PublicAgent{Name: "Outside <Agent>"}, Path: "browser",
			RunStats: publish.RunStats{N: 10, CartSuccesses: 9, Rate: &rate, Wilson95: &publish.Interval{Low: lo, High: hi}}, SubmittedAt: checkedAt}}},
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

// TestPagesWellFormed parses every page: landmarks, one h1, headings in
// order, labelled fields, no script, no outside resource, and every link
// of the site pointing at a page that exists or a route of the server.
func TestPagesWellFormed(t *testing.T) {
	got := build(t, testInput(t))
	maps.Copy(got, storePages(t, testInput(t)))
	for name, body := range got {
		if !strings.HasSuffix(name, ".html") && !strings.HasPrefix(name, "stores/") {
			continue
		}
		doc, err := html.Parse(bytes.NewReader(body))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, p := range wellFormed(doc) {
			t.Errorf("%s: %s", name, p)
		}
		for _, link := range links(doc) {
			if !linkResolves(got, link) {
				t.Errorf("%s: link %s leads nowhere", name, link)
			}
		}
	}
}

func wellFormed(doc *html.Node) []string {
	var out []string
	count := map[atom.Atom]int{}
	labels := map[string]bool{}
	var fields []string
	prev := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			count[n.DataAtom]++
			switch n.DataAtom {
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				l := int(n.Data[1] - '0')
				if prev != 0 && l > prev+1 {
					out = append(out, fmt.Sprintf("heading jumps from h%d to h%d", prev, l))
				}
				prev = l
			case atom.Label:
				labels[attr(n, "for")] = true
			case atom.Input, atom.Textarea, atom.Select:
				if attr(n, "type") != "hidden" {
					fields = append(fields, attr(n, "id"))
				}
			case atom.Link, atom.Img:
				for _, a := range []string{"href", "src"} {
					if v := attr(n, a); strings.HasPrefix(v, "http") || strings.HasPrefix(v, "//") {
						out = append(out, "an outside resource: "+v)
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	for _, a := range []atom.Atom{atom.Header, atom.Nav, atom.Main, atom.Footer} {
		if count[a] == 0 {
			out = append(out, "no <"+a.String()+">")
		}
	}
	if count[atom.H1] != 1 {
		out = append(out, fmt.Sprintf("%d h1", count[atom.H1]))
	}
	if count[atom.Script] != 0 {
		out = append(out, "a script")
	}
	for _, id := range fields {
		if id == "" || !labels[id] {
			out = append(out, "a field without a label: "+id)
		}
	}
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// links returns every root-relative href, src and form action.
func links(doc *html.Node) []string {
	var out []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, k := range []string{"href", "src", "action"} {
				if v := attr(n, k); strings.HasPrefix(v, "/") {
					out = append(out, v)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

// serverRoutes are paths the server answers without a published page.
var serverRoutes = regexp.MustCompile(`^/(api/(store|precheck|agent-checkout|agent-checkout/product-data|leaderboard|weekly/agent-checkout\.json|weekly/agent-checkout/\d{4}-\d{2}-\d{2}\.json)|validate/|data/(latest|svc-100|\d{4}-\d{2}-\d{2})/|data/$)`)

func linkResolves(files map[string][]byte, link string) bool {
	p, _, _ := strings.Cut(link, "?")
	p, _, _ = strings.Cut(p, "#")
	switch {
	case strings.HasPrefix(p, "/stores/") && strings.HasSuffix(p, "/"+BadgeFile):
		// The badge of a store that has a page: drawn by the server.
		return files[strings.TrimPrefix(strings.TrimSuffix(p, BadgeFile), "/")] != nil
	case strings.HasPrefix(p, "/stores/"):
		return files[strings.TrimPrefix(p, "/")] != nil // rendered by the server
	case strings.HasSuffix(p, "/"):
		if files[strings.TrimPrefix(p, "/")+"index.html"] != nil {
			return true
		}
	default:
		if files[strings.TrimPrefix(p, "/")] != nil {
			return true
		}
	}
	return serverRoutes.MatchString(p)
}

// TestDatasetPageMatchesManifest publishes the pages with their snapshot:
// the sizes and sha256 the dataset page shows are the manifest's.
func TestDatasetPageMatchesManifest(t *testing.T) {
	in := testInput(t)
	st, err := publish.NewDirStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	in.Published = st
	files, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	res, err := publish.Publish(context.Background(), st, &publish.Snapshot{Version: in.Version, MethodVersion: in.MethodVersion,
		Tables: in.Tables, Files: append(slices.Clone(in.Files), files...), Weekly: in.Weekly, Changelog: in.Changelog,
		TablePages: func(ctx context.Context, tables []publish.TableEntry) ([]publish.File, error) {
			return DatasetsPage(ctx, in, tables)
		}})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(st.Root(), filepath.FromSlash(DatasetsFile)))
	if err != nil {
		t.Fatal(err)
	}
	// The page the publisher wrote is the page of the tables' own sums.
	if want := build(t, in)[DatasetsFile]; !bytes.Equal(page, want) {
		t.Error("the published dataset page is not the page of the tables' sums")
	}
	for _, tb := range res.Manifest.Tables {
		for _, f := range []publish.FileEntry{tb.CSV, tb.Parquet} {
			if !bytes.Contains(page, []byte(f.SHA256)) || !bytes.Contains(page, []byte(comma(f.Bytes)+" bytes")) {
				t.Errorf("the dataset page does not show %s with %d bytes and sha256 %s", f.Path, f.Bytes, f.SHA256)
			}
		}
	}
	// A second snapshot reads the first from the tree: both versions are
	// listed, and the edition's chart, already published, is not rebuilt.
	in.Version = "2026-11-23"
	in.Weekly = nil
	again := build(t, in)
	if !bytes.Contains(again[DatasetsFile], []byte(">2026-11-16</a>")) {
		t.Error("the dataset page of the next version does not list the earlier one")
	}
	if _, ok := again[WeeklySVGFile("2026-11-16")]; ok {
		t.Error("the chart of a published edition was built again")
	}
	if again["weekly/2026-11-16/index.html"] == nil {
		t.Error("no page for the published edition")
	}
}

func TestStoreRailsAndBlockers(t *testing.T) {
	in := testInput(t)
	b := &builder{in: in}
	tabs := b.storeTables()
	cases := []struct {
		host     string
		rails    map[string]string
		blockers []string
	}{
		{"buyhere.test", map[string]string{"catalog": "product_found", "checkout_link": "returned", "ucp": "valid", "webmcp": "not_measured", "checkout_webmcp": "not_measured", "acp": "not_measured"}, nil},
		{"walled.test", map[string]string{"catalog": "not_measured", "checkout_link": "not_measured", "ucp": "unreachable"}, []string{"edge_block"}},
		{"quiet.test", map[string]string{"catalog": "no_catalog", "checkout_link": "not_returned", "ucp": "missing"}, []string{"robots_disallows_agents", "no_catalog"}},
		{"nocat.test", map[string]string{"catalog": "not_measured", "ucp": "not_measured"}, nil},
	}
	for _, c := range cases {
		s, err := tabs.store(c.host)
		if err != nil {
			t.Fatal(err)
		}
		rails := s.Rails()
		if names := RailNames(); len(rails) != len(names) {
			t.Fatalf("%d rails, want %d", len(rails), len(names))
		}
		for _, r := range rails {
			if want, ok := c.rails[r.Name]; ok && r.Status != want {
				t.Errorf("%s: rail %s is %s, want %s", c.host, r.Name, r.Status, want)
			}
			if !strings.HasSuffix(r.NotProves, notProved) {
				t.Errorf("%s: rail %s does not say %q", c.host, r.Name, notProved)
			}
		}
		var codes []string
		for _, bl := range s.Blockers() {
			codes = append(codes, bl.Code)
		}
		if diff := cmp.Diff(c.blockers, codes); diff != "" {
			t.Errorf("%s: blockers (-want +got):\n%s", c.host, diff)
		}
	}
}

// TestStorePageSaysUnmeasured: what was not measured reads "Not
// measured", never no.
func TestStorePageSaysUnmeasured(t *testing.T) {
	got := string(storePages(t, testInput(t))["stores/nocat.test/"])
	for _, want := range []string{"Not measured", "Validation is not certification", "Brand claims never change scores", "stops before payment"} {
		if !strings.Contains(got, want) {
			t.Errorf("the page of an unmeasured store does not say %q", want)
		}
	}
	if strings.Contains(got, "No: no buy lane") {
		t.Error("an unmeasured store is answered no")
	}
}

// TestWeeklyChart: the standalone SVG parses, carries the edition's
// headline as its title, its alt_text as its description and the CC-BY
// line, and is published frozen beside the JSON.
func TestWeeklyChart(t *testing.T) {
	in := testInput(t)
	files, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	var chart *publish.File
	for i := range files {
		if files[i].Path == WeeklySVGFile("2026-11-16") {
			chart = &files[i]
		}
	}
	if chart == nil || !chart.Frozen {
		t.Fatalf("no frozen chart beside the edition: %+v", chart)
	}
	var doc struct {
		Title string   `xml:"title"`
		Desc  string   `xml:"desc"`
		Texts []string `xml:"text"`
	}
	if err := xml.Unmarshal(chart.Data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Title != "33.3% of 3 checked stores returned a checkout link." || doc.Desc != "Bar chart: hosted platform 100% of 1; not detected 0% of 2." {
		t.Errorf("title %q, desc %q", doc.Title, doc.Desc)
	}
	if !slices.Contains(doc.Texts, datasets.Attribution) || !slices.Contains(doc.Texts, "33.3%") {
		t.Errorf("the chart's texts: %q", doc.Texts)
	}
	page := string(build(t, in)["weekly/2026-11-16/index.html"])
	if !strings.Contains(page, `alt="Bar chart: hosted platform 100% of 1; not detected 0% of 2."`) {
		t.Error("the edition page does not use the alt_text")
	}
}

func TestLeaderboardChart(t *testing.T) {
	page := string(build(t, testInput(t))["leaderboard/index.html"])
	for _, want := range []string{
		`class="whisker"`, "Browser shopper A: 50.0% (interval 30.0% to 70.0%, n 20)", "UCP path: not run",
		"Unverified outside submissions", "Outside &lt;Agent&gt;", // escaped
		`href="/stores/buyhere.test/"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the leaderboard does not hold %q", want)
		}
	}
	if strings.Contains(page, `href="/stores/elsewhere.test/"`) {
		t.Error("the grid links a store without a page")
	}
	if n := strings.Count(page, `class="whisker"`); n != 3 {
		t.Errorf("%d whisker lines, want 3 (one path measured)", n)
	}
}

// TestLeaderboardLabels is issue 16.8 on the page: over the fixture
// world's stand-in test set the page says so and never "real stores";
// fixture runs read as fixture data, not measured; ranks are shown; an
// outside run has an anchor (the 201's url) and says when it was listed
// since the snapshot. RenderLeaderboard, the server's renderer, gives the
// published page byte for byte.
func TestLeaderboardLabels(t *testing.T) {
	in := testInput(t)
	var board publish.Leaderboard
	if err := json.Unmarshal(in.Files[0].Data, &board); err != nil {
		t.Fatal(err)
	}
	one, two := 1, 2
	board.Paths[0].Rank = &one
	board.Unverified.Runs[0].Rank = &one
	standIn := board
	standIn.FixtureStandIn, standIn.TestSetNote = true, "Fixture stand-in: synthetic stores."
	standIn.Paths = append([]publish.AgentPathRow{}, board.Paths...)
	fixture := standIn.Paths[0]
	fixture.ID, fixture.Label, fixture.Status, fixture.Verified, fixture.Evidence, fixture.FixtureData, fixture.MeasuredBy, fixture.Rank =
		"browser-b", "Browser shopper B", "fixture", false, "Fixture data", true, nil, &two
	standIn.Paths = append(standIn.Paths, fixture)
	standIn.Unverified.Runs = []publish.SubmissionRow{board.Unverified.Runs[0]}
	standIn.Unverified.Runs[0].InDataset = false

	for _, tc := range []struct {
		name      string
		board     publish.Leaderboard
		want, not []string
	}{
		{"real", board, []string{"(100 real stores)", `<tr id="sub-1"><td>1</td>`, "listed since the snapshot"},
			[]string{"Fixture stand-in", "fixture data"}},
		{"stand-in", standIn, []string{"Fixture stand-in: synthetic stores.", "100 synthetic stores, not real ones",
			"Browser shopper B (fixture data, not measured): 50.0%", "<td>Fixture data <span class=\"tag\">not measured</span></td>",
			"<td>2</td><th scope=\"row\">Browser shopper B", `<tr id="sub-1">`, "listed since the snapshot"},
			[]string{"real stores", "Measured by", "fixture data</span>"}},
	} {
		b, err := json.Marshal(tc.board)
		if err != nil {
			t.Fatal(err)
		}
		in.Files[0].Data = b
		page := string(build(t, in)["leaderboard/index.html"])
		for _, w := range tc.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: the page lacks %q", tc.name, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(page, w) {
				t.Errorf("%s: the page holds %q", tc.name, w)
			}
		}
		site, _ := NewSite("", in.Version)
		var buf bytes.Buffer
		if err := RenderLeaderboard(&buf, site, &tc.board, func(h string) bool { return h == "buyhere.test" }); err != nil {
			t.Fatal(err)
		}
		if buf.String() != page {
			t.Errorf("%s: RenderLeaderboard differs from the published page", tc.name)
		}
	}
}

// TestRenderForServer renders the pages the server makes: a store's live
// check, the unknown host and the validator with an error, under a base
// path.
func TestRenderForServer(t *testing.T) {
	site, err := NewSite("https://svc.example/x/", "2026-11-16")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	yes := true
	if err := RenderStore(&buf, site, &Store{Host: "live.test", Live: true, AgentsCanBuy: &yes, CartLink: &yes}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "this page shows its live check") || !strings.Contains(buf.String(), `href="/x/directory/"`) {
		t.Error("the live page does not say it is a live check, or ignores the base path")
	}
	// A snapshot's page with a newer live check beside it, the brand's
	// section and the badge.
	buf.Reset()
	verdict, no := "agents_can_buy", false
	at := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	if err := RenderStore(&buf, site, &Store{Host: "shop.test", Verdict: &verdict, AgentsCanBuy: &yes, CartLink: &yes,
		LiveCheck: &LiveCheck{CheckedAt: at, Reachable: &yes, CartLink: &no}}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{`id="live-check"`, `datetime="2026-11-20T09:30:00Z"`, "Not returned", `id="claim"`,
		`src="/x/stores/shop.test/badge.svg"`, "no way to submit a statement yet", "this page shows its live check"} {
		if want == "this page shows its live check" {
			if strings.Contains(page, want) {
				t.Error("a snapshot's page says it is a live check's")
			}
			continue
		}
		if !strings.Contains(page, want) {
			t.Errorf("the store page with a newer live check lacks %q", want)
		}
	}
	buf.Reset()
	if err := RenderUnknownStore(&buf, site, UnknownStore{Host: "new.test"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `action="/x/api/agent-checkout"`) || !strings.Contains(buf.String(), `value="https://new.test/"`) {
		t.Error("the unknown-host page does not point at the live check")
	}
	buf.Reset()
	if err := RenderValidate(&buf, site, &Validation{Profile: "{<not json>", Error: "The profile is larger than the limit."}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Validation could not run", "{&lt;not json&gt;</textarea>"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the validator page does not hold %q", want)
		}
	}
	if _, ok := Asset(StyleFile()); !ok {
		t.Error("the style sheet is not embedded under its published name")
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
