package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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

// TestAggregateFiguresMatchTruth: adoption, the protocol matrix and the
// weekly figure equal the figures computed from the fixture truth.
func TestAggregateFiguresMatchTruth(t *testing.T) {
	w := sharedWorld(t)
	w.needSchema(t)
	lane := testLane(t, w.world)
	paths := testUCPPath(t, w.world)
	dir, _ := aggregateWorld(t, lane, AggregateOptions{UCPPath: func(string) (map[string]UCPPathResult, error) { return paths, nil }})
	rows := truthWorldPath(w.world, lowerLane(lane), paths)

	var ad publish.Adoption
	outJSON(t, dir, filepath.Join(OutFiles, publish.AdoptionPath), &ad)
	want := truthCounts(rows)
	want.UCPDirectory = ad.Now.UCPDirectory // the engine's lighter count: checked against checks below
	if diff := cmp.Diff(want, ad.Now); diff != "" {
		t.Errorf("adoption now (-truth +got):\n%s", diff)
	}
	var dirCount, dirN int64
	for _, r := range w.crawl {
		if st := r.Result.UCPProfile.Status; st == "valid" || st == "invalid" || st == "missing" {
			dirN++
			if isT(r.Result.UCPProfile.DirectoryCount) {
				dirCount++
			}
		}
	}
	if got := ad.Now.UCPDirectory; !cmp.Equal(got, share(dirCount, dirN)) {
		t.Errorf("ucpDirectoryCount = %s, want %d of %d", js(got), dirCount, dirN)
	}
	byCat, byPlat := map[string][]truthRow{}, map[string][]truthRow{}
	for _, r := range rows {
		byCat[r.Category] = append(byCat[r.Category], r)
		p := "<nil>"
		if r.Platform != nil {
			p = *r.Platform
		}
		byPlat[p] = append(byPlat[p], r)
	}
	if len(ad.Categories) != len(byCat) {
		t.Errorf("%d categories, want %d", len(ad.Categories), len(byCat))
	}
	for _, c := range ad.Categories {
		want := truthCounts(byCat[*c.Category])
		want.UCPDirectory = c.UCPDirectory
		if diff := cmp.Diff(want, c.AdoptionCounts); diff != "" {
			t.Errorf("adoption category %s (-truth +got):\n%s", *c.Category, diff)
		}
	}
	if len(ad.ByPlatform) != len(byPlat) {
		t.Errorf("%d platforms, want %d", len(ad.ByPlatform), len(byPlat))
	}
	var measured, hosted int64
	for _, p := range ad.ByPlatform {
		key := "<nil>"
		if p.Platform != nil {
			key = *p.Platform
			measured += int64(len(byPlat[key]))
			if key == "shopify" || key == "bigcommerce" {
				hosted += int64(len(byPlat[key]))
			}
		}
		want := truthCounts(byPlat[key])
		want.UCPDirectory = p.UCPDirectory
		if diff := cmp.Diff(want, p.AdoptionCounts); diff != "" {
			t.Errorf("adoption platform %s (-truth +got):\n%s", key, diff)
		}
	}
	if pc := ad.PlatformCoverage; !cmp.Equal(pc.Measured, share(measured, int64(len(rows)))) || !cmp.Equal(pc.HostedPlatform, share(hosted, measured)) ||
		pc.NotMeasured != int64(len(rows))-measured {
		t.Errorf("platform coverage %s: want %d of %d measured, %d hosted", js(pc), measured, len(rows), hosted)
	}
	if ad.Rechecks != nil || ad.Changes != nil {
		t.Errorf("rechecks %v, changes %v: want null without history", ad.Rechecks, ad.Changes)
	}
	if !ad.Available || ad.GeneratedAt != runTime(mustRun(t, dir).Started) || len(ad.Series) != 1 || ad.Series[0].Date != testDate {
		t.Errorf("available %v, generatedAt %v, series %+v", ad.Available, ad.GeneratedAt, ad.Series)
	}
	var latest time.Time
	for _, r := range w.crawl {
		if r.Result.CheckedAt.After(latest) {
			latest = r.Result.CheckedAt
		}
	}
	if !ad.AsOf.Equal(latest) {
		t.Errorf("asOf = %v, want the latest check %v", ad.AsOf, latest)
	}

	// The protocol matrix.
	var pm publish.ProtocolMatrix
	outJSON(t, dir, filepath.Join(OutFiles, publish.ProtocolsPath), &pm)
	tally := func(f func(truthRow) *bool) (int64, int64) {
		var k, n int64
		for _, r := range rows {
			if v := f(r); v != nil {
				n++
				if *v {
					k++
				}
			}
		}
		return k, n
	}
	shop := func(r truthRow, v bool) *bool {
		if r.Platform == nil {
			return nil
		}
		return &v
	}
	stage := func(ev string, k, n int64) publish.ProtocolStage {
		return publish.ProtocolStage{Percentage: Pct(k, n), Count: &k, N: &n, Evidence: ev}
	}
	type cell struct {
		row, stage string
		want       publish.ProtocolStage
	}
	k, n := tally(func(r truthRow) *bool {
		if r.UCPValid == nil {
			return nil
		}
		return bp(r.UCPStatus != "missing")
	})
	cells := []cell{{"ucp", "declare", stage(Measured, k, n)}}
	k, n = tally(func(r truthRow) *bool { return r.UCPValid })
	cells = append(cells, cell{"ucp", "validate", stage(Measured, k, n)})
	byHost := map[string]*fixtures.Store{}
	for i := range w.world.Stores {
		byHost[w.world.Stores[i].Host] = &w.world.Stores[i]
	}
	k, n = tally(func(r truthRow) *bool { return byHost[r.Host].Expect.ACP })
	cells = append(cells, cell{"acp", "declare", stage(Measured, k, n)})
	k, n = tally(func(r truthRow) *bool { return r.WebMCP })
	cells = append(cells, cell{"webmcp", "declare", stage(Measured, k, n)})
	k, n = tally(func(r truthRow) *bool {
		if r.CheckoutWebMCPStatus == nil {
			return nil
		}
		return bp(*r.CheckoutWebMCPStatus != "unknown")
	})
	cells = append(cells, cell{"webmcp", "transact", stage(Inferred, k, n)})
	k, n = tally(func(r truthRow) *bool { return shop(r, byHost[r.Host].Expect.MCPServerCard != nil) })
	cells = append(cells, cell{"mcp", "declare", stage(Measured, k, n)})
	k, n = tally(func(r truthRow) *bool { return r.StorefrontMCP })
	cells = append(cells, cell{"mcp", "answer", stage(Measured, k, n)})
	k, n = tally(func(r truthRow) *bool { return r.CartLink })
	cells = append(cells, cell{"mcp", "transact", stage(Measured, k, n)})
	got := map[string]publish.ProtocolStage{}
	var ids []string
	for _, row := range pm.Rows {
		ids = append(ids, row.ID)
		for name, s := range map[string]publish.ProtocolStage{"declare": row.Stages.Declare, "validate": row.Stages.Validate,
			"answer": row.Stages.Answer, "transact": row.Stages.Transact} {
			if s.Basis == "" {
				t.Errorf("%s.%s has no basis", row.ID, name)
			}
			s.Basis = ""
			got[row.ID+"."+name] = s
		}
	}
	if diff := cmp.Diff([]string{"ucp", "acp", "pap", "webmcp", "mcp", "payments"}, ids); diff != "" {
		t.Errorf("protocol rows (-want +got):\n%s", diff)
	}
	for _, c := range cells {
		key := c.row + "." + c.stage
		if diff := cmp.Diff(c.want, got[key]); diff != "" {
			t.Errorf("protocols %s (-truth +got):\n%s", key, diff)
		}
		delete(got, key)
	}
	for key, s := range got { // every other stage is not measured: null, never 0
		if s.Evidence != NotMeasured || s.Percentage != nil || s.Count != nil || s.N != nil {
			t.Errorf("protocols %s = %+v, want Not measured with a null percentage", key, s)
		}
	}
	var index int64
	for _, r := range rows {
		if r.Source == "seed" || r.Source == "submitted" {
			index++
		}
	}
	if pm.StoresChecked != int64(len(rows)) || pm.IndexStoresChecked != index || !pm.Available || pm.License != "CC-BY-4.0" {
		t.Errorf("storesChecked %d, indexStoresChecked %d (want %d, %d), available %v, license %s",
			pm.StoresChecked, pm.IndexStoresChecked, len(rows), index, pm.Available, pm.License)
	}

	// The weekly figure: US stores whose UCP path returned a checkout link.
	var wk WeeklyEdition
	outJSON(t, dir, filepath.Join(OutWeekly, testDate+".json"), &wk)
	us := func(r truthRow) bool { return r.Market != nil && *r.Market == "US" }
	k, n = tally(func(r truthRow) *bool {
		if !us(r) {
			return nil
		}
		return r.UCPCheckoutLink
	})
	var usStores int64
	for _, r := range rows {
		if us(r) {
			usStores++
		}
	}
	hostedRows := func(hosted bool) (int64, int64) {
		return tally(func(r truthRow) *bool {
			isHosted := r.Platform != nil && (*r.Platform == "shopify" || *r.Platform == "bigcommerce")
			if isHosted != hosted || !us(r) {
				return nil
			}
			return r.UCPCheckoutLink
		})
	}
	hk, hn := hostedRows(true)
	ok, on := hostedRows(false)
	if wk.Schema != WeeklySchema || wk.N != n || wk.Count != k || !cmp.Equal(wk.Pct, Pct(k, n)) ||
		wk.Market != "US" || wk.MarketStores != usStores || wk.NotMeasured != usStores-n {
		t.Errorf("weekly %s market %s of %d (%d not measured): n %d count %d pct %s; want US of %d (%d), n %d count %d pct %s",
			wk.Schema, wk.Market, wk.MarketStores, wk.NotMeasured, wk.N, wk.Count, fmtPct(wk.Pct), usStores, usStores-n, n, k, fmtPct(Pct(k, n)))
	}
	if k != 1 || n == 0 || usStores == n {
		t.Errorf("the test world gives %d of %d US stores (of %d) a UCP checkout link: want one, and some not measured", k, n, usStores)
	}
	for _, s := range []string{wk.Headline, wk.Scope, wk.AltText} {
		if !strings.Contains(s, "US") {
			t.Errorf("%q does not say the figure is of US stores", s)
		}
	}
	if !strings.Contains(wk.Scope, "currency") || !strings.Contains(wk.AltText, "declares") || !strings.Contains(wk.Headline, "UCP checkout link") {
		t.Errorf("the figure does not say how US was decided or what it counts: %q / %q / %q", wk.Headline, wk.Scope, wk.AltText)
	}
	wantSeg := []WeeklySegment{
		{ID: "hosted_platform", N: hn, Count: hk, Pct: Pct(hk, hn)},
		{ID: "not_detected", N: on, Count: ok, Pct: Pct(ok, on)},
	}
	for i := range wk.Segments {
		wk.Segments[i].Label = ""
	}
	if diff := cmp.Diff(wantSeg, wk.Segments); diff != "" {
		t.Errorf("weekly segments (-truth +got):\n%s", diff)
	}
	if wk.SnapshotDate != testDate || wk.DatasetVersion != testDate || wk.CCBY != datasets.Attribution ||
		wk.AltText == "" || wk.Citation == "" || wk.Headline == "" || wk.Comparison.Previous != nil {
		t.Errorf("weekly edition fields: %+v", wk)
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func mustRun(t testing.TB, dir string) RunInfo {
	t.Helper()
	ri, err := ReadRun(filepath.Dir(filepath.Dir(dir)), filepath.Base(dir))
	if err != nil {
		t.Fatal(err)
	}
	return ri
}

// TestAggregateTablesMatchTruth checks the other store tables against the
// fixture truth.
func TestAggregateTablesMatchTruth(t *testing.T) {
	w := sharedWorld(t)
	dir, res := aggregateWorld(t, nil, AggregateOptions{
		SVC100IDs: func(string) (map[string]string, error) {
			return map[string]string{w.world.Stores[0].Host: "svc100-v1-001"}, nil
		},
	})
	byHost := map[string]*fixtures.Store{}
	for i := range w.world.Stores {
		byHost[w.world.Stores[i].Host] = &w.world.Stores[i]
	}
	counts := map[string]int{}
	for _, tc := range res.Tables {
		counts[tc.Name] = tc.Rows
	}
	n := len(w.world.Stores)
	if diff := cmp.Diff(map[string]int{"store_answers": n, "stores": n, "checks": n, "ucp_validations": n,
		"agent_facts": 5 * n, "product_data": n, "policies": 4 * n, "changes": 0}, counts); diff != "" {
		t.Errorf("row counts (-want +got):\n%s", diff)
	}

	day, _ := time.Parse(time.DateOnly, testDate)
	for _, m := range outRows(t, dir, datasets.Stores) {
		st := byHost[m["host"].(string)]
		var id any
		if st.Host == w.world.Stores[0].Host {
			id = "svc100-v1-001"
		}
		var country any
		if st.Expect.Market != nil {
			country = *st.Expect.Market
		}
		want := map[string]any{"host": st.Host, "name": st.Name, "category": st.Category, "source": st.Source,
			"country": country, "svc100_id": id, "added_on": day}
		if diff := cmp.Diff(want, m); diff != "" {
			t.Errorf("stores %s (-want +got):\n%s", st.Host, diff)
		}
	}

	for _, m := range outRows(t, dir, datasets.ProductData) {
		pd := byHost[m["host"].(string)].Expect.ProductData
		var want any
		switch {
		case pd == nil:
		case pd.Source == nil:
			want = "not_ready"
		case *productComplete(pd):
			want = "ready"
		default:
			want = "partial"
		}
		if m["vendor_readiness_status"] != want {
			t.Errorf("%s vendor_readiness_status = %v, want %v", m["host"], m["vendor_readiness_status"], want)
		}
		if (pd == nil) != (m["vendor_readiness"] == nil) || (pd == nil) != (m["product_data"] == nil) {
			t.Errorf("%s: product data measured %v, but product_data %v, vendor_readiness %v", m["host"], pd != nil, m["product_data"], m["vendor_readiness"])
		}
		if pd != nil && !cmp.Equal(strp(m["source"]), pd.Source) {
			t.Errorf("%s source = %v, want %v", m["host"], m["source"], pd.Source)
		}
		if v, _ := m["vendor_readiness"].(string); strings.Contains(strings.ToLower(v), "approved") {
			t.Errorf("%s vendor_readiness claims approval: %s", m["host"], v)
		}
	}

	for _, m := range outRows(t, dir, datasets.Policies) {
		p := byHost[m["host"].(string)].Expect.Policies
		var want any
		if p != nil {
			want = map[string]bool{"returns": p.Returns, "shipping": p.Shipping, "privacy": p.Privacy, "terms": p.Terms}[m["policy"].(string)]
		}
		if m["found"] != want {
			t.Errorf("%s policy %s found = %v, want %v", m["host"], m["policy"], m["found"], want)
		}
	}

	scores := map[string]any{}
	for _, m := range outRows(t, dir, datasets.StoreAnswers) {
		scores[m["host"].(string)] = m["score"]
	}
	for _, m := range outRows(t, dir, datasets.AgentFacts) {
		host, fact := m["host"].(string), m["fact"].(string)
		if ev, ok := m["evidence"].(string); ok {
			sum := sha256.Sum256([]byte(ev))
			if m["evidence_sha256"] != hex.EncodeToString(sum[:]) {
				t.Errorf("%s %s: evidence_sha256 %v is not the sha256 of the evidence", host, fact, m["evidence_sha256"])
			}
		} else if m["evidence_sha256"] != nil || m["value"] != nil || m["confidence"] != nil {
			t.Errorf("%s %s: a decision without evidence: %v", host, fact, m)
		}
		if m["note"] == nil {
			t.Errorf("%s %s has no note", host, fact)
		}
		switch fact {
		case "use_case_mention", "agent_friendly_description":
			e := byHost[host].Expect
			want, key := e.UseCaseMention, "mentioned"
			if fact == "agent_friendly_description" {
				want, key = e.AgentFriendlyDescription, "friendly"
			}
			if (want == nil) != (m["value"] == nil) || (m["value"] == nil) != (m["confidence"] == nil) || (m["value"] == nil) != (m["source_url"] == nil) {
				t.Errorf("%s %s = %v (confidence %v, source %v), want %v", host, fact, m["value"], m["confidence"], m["source_url"], want)
				continue
			}
			if want == nil {
				continue
			}
			var v map[string]any
			if err := json.Unmarshal([]byte(m["value"].(string)), &v); err != nil || v[key] != *want {
				t.Errorf("%s %s = %v, want %s %v", host, fact, m["value"], key, *want)
			}
			var ev map[string]any
			if err := json.Unmarshal([]byte(m["evidence"].(string)), &ev); err != nil || ev["description_text"] == "" || ev["description_source"] == nil {
				t.Errorf("%s %s: evidence %v lacks the judged text", host, fact, m["evidence"])
			}
		case "price_clarity":
			pd := byHost[host].Expect.ProductData
			var want any
			switch {
			case pd == nil:
			case pd.Source == nil:
				want = `"no_product"`
			case !pd.Price:
				want = `"no_price"`
			case !pd.Currency:
				want = `"price_without_currency"`
			default:
				want = `"clear"`
			}
			if m["value"] != want {
				t.Errorf("%s price_clarity = %v, want %v", host, m["value"], want)
			}
		case "readiness_score":
			var want any
			if s := scores[host]; s != nil {
				b, _ := json.Marshal(s)
				want = string(b)
			}
			if m["value"] != want {
				t.Errorf("%s readiness_score = %v, want the store_answers score %v", host, m["value"], want)
			}
		case "cart_blocker_suspicion":
			e := byHost[host].Expect
			if (e.Platform == nil && !isT(e.BlockStatus.Blocked)) != (m["value"] == nil) {
				t.Errorf("%s cart_blocker_suspicion = %v: measured when the store was checked as a shop or blocked", host, m["value"])
			}
			if m["value"] != nil {
				var v struct {
					Suspected bool     `json:"suspected"`
					Reasons   []string `json:"reasons"`
				}
				json.Unmarshal([]byte(m["value"].(string)), &v)
				wantBlock := isT(e.BlockStatus.Blocked)
				if slices.Contains(v.Reasons, "edge_block") != wantBlock || slices.Contains(v.Reasons, "robots_disallows_user_agents") != !*userAgentsAllowed(e) ||
					v.Suspected != (len(v.Reasons) > 0) {
					t.Errorf("%s cart_blocker_suspicion = %+v; blocked %v, user agents allowed %v", host, v, wantBlock, *userAgentsAllowed(e))
				}
			}
		default:
			t.Errorf("unknown fact %s", fact)
		}
	}

	if w.schemaDir == "" {
		return // the UCP verdicts need the schema
	}
	for _, m := range outRows(t, dir, datasets.UCPValidations) {
		e := byHost[m["host"].(string)].Expect
		if m["status"] != e.UCPProfile.Status {
			t.Errorf("%s ucp_validations.status = %v, want %s", m["host"], m["status"], e.UCPProfile.Status)
		}
		if !cmp.Equal(strp(m["declared_version"]), e.UCPProfile.Version) {
			t.Errorf("%s declared_version = %v, want %v", m["host"], m["declared_version"], e.UCPProfile.Version)
		}
	}
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

// dropHost rewrites a run's checks and ucp_validations without host.
func dropHost(t *testing.T, dir, host string) {
	t.Helper()
	for _, f := range []struct {
		name string
		tb   *datasets.Table
	}{{ChecksFile, datasets.Checks}, {UCPFile, datasets.UCPValidations}} {
		cols, err := ReadTableFile(filepath.Join(dir, f.name), f.tb)
		if err != nil {
			t.Fatal(err)
		}
		var rows []datasets.Row
		for _, r := range cols.Rows() {
			if r[0] != host {
				rows = append(rows, r)
			}
		}
		c, err := datasets.FromRows(f.tb, rows)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := datasets.WriteParquet(&buf, c); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAggregateHistory runs three weekly runs: week 2 drops a store and
// adds a browser run that changes one store's answer; week 3 repeats week
// 2. Changes, added_on, rechecks, the adoption series and the weekly
// comparison follow.
func TestAggregateHistory(t *testing.T) {
	w := sharedWorld(t)
	data := t.TempDir()
	ctx := context.Background()
	rows := truthWorld(w.world, nil)
	var gone, rescued string
	for _, r := range rows {
		if gone == "" && r.Verdict == "catalog_only" {
			gone = r.Host
		} else if rescued == "" && r.Verdict == "no_agent_catalog" && r.AgentsCanBuy != nil {
			rescued = r.Host
		}
	}
	lane := func(string) (map[string]*bool, error) { return map[string]*bool{rescued: bp(true)}, nil }

	d1 := w.newRun(t, data, "w1", "2026-05-04")
	if _, err := Aggregate(ctx, AggregateOptions{Dir: d1}); err != nil {
		t.Fatal(err)
	}
	d2 := w.newRun(t, data, "w2", "2026-05-11")
	dropHost(t, d2, gone)
	res2, err := Aggregate(ctx, AggregateOptions{Dir: d2, BrowserLane: lane})
	if err != nil {
		t.Fatal(err)
	}
	d3 := w.newRun(t, data, "w3", "2026-05-18")
	dropHost(t, d3, gone)
	res3, err := Aggregate(ctx, AggregateOptions{Dir: d3, BrowserLane: lane})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Previous != "w1" || res3.Previous != "w2" {
		t.Errorf("previous runs %q, %q; want w1, w2", res2.Previous, res3.Previous)
	}

	jsv := func(v any) any {
		if v == nil {
			return nil
		}
		return js(v)
	}
	var before truthRow
	for _, r := range rows {
		if r.Host == rescued {
			before = r
		}
	}
	after := truthAnswer(func() *fixtures.Store { s, _ := w.world.Lookup(rescued); return s }(), bp(true))
	type change struct{ Host, Week, Field, Previous, Current any }
	want := []change{{gone, "2026-05-11", "listed", "true", "false"}}
	if w.schemaDir != "" { // the rescued store's answers depend on UCP verdicts
		want = append(want,
			change{rescued, "2026-05-11", "agents_can_buy", jsv(before.AgentsCanBuy), "true"},
			change{rescued, "2026-05-11", "buy_browser", nil, "true"},
			change{rescued, "2026-05-11", "verdict", jsv(before.Verdict), jsv(after.Verdict)},
		)
	}
	slices.SortFunc(want, func(a, b change) int {
		return strings.Compare(a.Host.(string)+a.Field.(string), b.Host.(string)+b.Field.(string))
	})
	for _, d := range []string{d2, d3} {
		var got []change
		for _, m := range outRows(t, d, datasets.Changes) {
			got = append(got, change{m["host"], m["week"].(time.Time).Format(time.DateOnly), m["field"], m["previous"], m["current"]})
		}
		if w.schemaDir == "" {
			got = slices.DeleteFunc(got, func(c change) bool { return c.Host == rescued })
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s changes (-want +got):\n%s", filepath.Base(d), diff)
		}
	}

	for _, m := range outRows(t, d3, datasets.Stores) {
		if m["added_on"].(time.Time).Format(time.DateOnly) != "2026-05-04" {
			t.Errorf("%s added_on = %v, want the first run's date", m["host"], m["added_on"])
		}
	}
	var ad2, ad3 publish.Adoption
	outJSON(t, d2, filepath.Join(OutFiles, publish.AdoptionPath), &ad2)
	outJSON(t, d3, filepath.Join(OutFiles, publish.AdoptionPath), &ad3)
	n := int64(len(rows) - 1)
	if ad2.Rechecks == nil || *ad2.Rechecks != n || ad3.Rechecks == nil || *ad3.Rechecks != n {
		t.Errorf("rechecks %v, %v; want %d", ad2.Rechecks, ad3.Rechecks, n)
	}
	var dates []string
	for _, p := range ad3.Series {
		dates = append(dates, p.Date)
	}
	if diff := cmp.Diff([]string{"2026-05-04", "2026-05-11", "2026-05-18"}, dates); diff != "" {
		t.Errorf("series dates (-want +got):\n%s", diff)
	}
	if c := ad2.Changes; c == nil || c.Since != "2026-05-04" || c.Week != "2026-05-11" || len(c.Fields) != len(changeFields) {
		t.Fatalf("adoption changes %+v", c)
	}
	for _, f := range ad2.Changes.Fields {
		want := publish.FieldChange{Field: f.Field}
		switch f.Field {
		case "listed":
			want.Lost = 1
		case "agents_can_buy":
			if w.schemaDir != "" && !isT(before.AgentsCanBuy) {
				want.Gained = 1
			}
		}
		if w.schemaDir != "" && f != want {
			t.Errorf("adoption change %+v, want %+v", f, want)
		}
	}
	for _, c := range ad3.Changes.Fields {
		if c.Gained != 0 || c.Lost != 0 {
			t.Errorf("week 3 repeats week 2 but adoption counts a change: %+v", c)
		}
	}
	var wk1, wk3 WeeklyEdition
	outJSON(t, d1, filepath.Join(OutWeekly, "2026-05-04.json"), &wk1)
	outJSON(t, d3, filepath.Join(OutWeekly, "2026-05-18.json"), &wk3)
	if p := wk3.Comparison.Previous; p == nil || p.Date != "2026-05-11" {
		t.Errorf("week 3 compares with %+v, want the 2026-05-11 edition", p)
	}
	if wk1.Comparison.Previous != nil {
		t.Errorf("week 1 has a previous edition: %+v", wk1.Comparison.Previous)
	}

	// Without history: no changes, null rechecks, one series point.
	res, err := Aggregate(ctx, AggregateOptions{Dir: d3, NoHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	var ad publish.Adoption
	outJSON(t, d3, filepath.Join(OutFiles, publish.AdoptionPath), &ad)
	if res.Previous != "" || ad.Rechecks != nil || ad.Changes != nil || len(ad.Series) != 1 || len(outRows(t, d3, datasets.Changes)) != 0 {
		t.Errorf("--no-history: previous %q, rechecks %v, changes %v, %d series points", res.Previous, ad.Rechecks, ad.Changes, len(ad.Series))
	}
	// An explicit previous run, and one that is not earlier.
	if res, err := Aggregate(ctx, AggregateOptions{Dir: d3, Previous: d1}); err != nil || res.Previous != "w1" {
		t.Errorf("explicit previous: %v, %v", res, err)
	}
	if _, err := Aggregate(ctx, AggregateOptions{Dir: d1, Previous: d3}); err == nil || !strings.Contains(err.Error(), "not before") {
		t.Errorf("a later previous run: err = %v", err)
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

func TestPct(t *testing.T) {
	for _, tc := range []struct {
		count, n int64
		want     any
	}{
		{0, 0, nil}, {0, 5, 0.0}, {1, 3, 33.3}, {2, 3, 66.7}, {1, 8, 12.5}, {1, 16, 6.3}, {3, 16, 18.8},
		{40, 129, 31.0}, {5, 5, 100.0}, {1, 2000, 0.1}, {1, 2001, 0.0},
	} {
		got := Pct(tc.count, tc.n)
		if (got == nil) != (tc.want == nil) || got != nil && *got != tc.want.(float64) {
			t.Errorf("Pct(%d, %d) = %v, want %v", tc.count, tc.n, got, tc.want)
		}
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
	var wk WeeklyEdition
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
