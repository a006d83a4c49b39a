package pipeline

import (
	"bytes"
	"context"
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
	var wk1, wk3 publish.WeeklyEdition
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
