package pipeline

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/datasets"
	"svc/fixtures"
	"svc/publish"
)

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
	// The UCP path's created checkout sessions (issue 21), every market.
	k, n = tally(func(r truthRow) *bool { return r.UCPCheckoutLink })
	cells = append(cells, cell{"ucp", "transact", stage(Measured, k, n)})
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
	var wk publish.WeeklyEdition
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
	wantSeg := []publish.WeeklySegment{
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
