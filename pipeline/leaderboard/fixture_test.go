package leaderboard

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/datasets/runs"
	"svc/datasets/svc100"
	"svc/fixtures"
)

var update = flag.Bool("update", false, "rewrite the fixture world's browser runs in datasets/runs/fixture")

// fixtureRunsDir is where the generator writes, relative to this package.
const fixtureRunsDir = "../../datasets/runs/fixture"

// shopperOutcome is the rule the fixture world's browser shoppers follow:
// it derives each shopper's outcome at a store from the store's known
// answers. It is fixture data, not a browser session; the shoppers differ
// so that the board shows different rates:
//
//   - every shopper: a store behind a wall is blocked; a store that is
//     down is an error; a store with an empty catalog is no_cart;
//   - A reaches checkout everywhere else;
//   - B reaches checkout on Shopify and WooCommerce stores, adds to the
//     cart elsewhere;
//   - C adds to the cart, but gets nothing from single-page apps (no_cart)
//     and is turned away by throttled catalogs (blocked);
//   - D reaches checkout where product pages carry product data (JSON-LD
//     or the public products.json), else no_cart;
//   - E adds to the cart only where a WebMCP adapter shows in the HTML,
//     else no_cart, and skips every tenth store (not_attempted).
func shopperOutcome(shopper byte, st *fixtures.Store, i int) string {
	e := st.Expect
	has := func(t string) bool { return slices.Contains(st.Traits, t) }
	switch {
	case e.BlockStatus.Blocked != nil && *e.BlockStatus.Blocked:
		return OutcomeBlocked
	case e.Platform == nil:
		return OutcomeError
	case has("catalog:empty"):
		return OutcomeNoCart
	}
	switch shopper {
	case 'A':
		return OutcomeCheckoutReached
	case 'B':
		if *e.Platform == "shopify" || *e.Platform == "woocommerce" {
			return OutcomeCheckoutReached
		}
		return OutcomeAddedToCart
	case 'C':
		switch {
		case has("soft404:spa"):
			return OutcomeNoCart
		case has("catalog:throttled"):
			return OutcomeBlocked
		}
		return OutcomeAddedToCart
	case 'D':
		if e.ProductData != nil && e.ProductData.Source != nil {
			return OutcomeCheckoutReached
		}
		return OutcomeNoCart
	case 'E':
		switch {
		case i%10 == 9:
			return OutcomeNotAttempted
		case e.WebMCP != nil && *e.WebMCP:
			return OutcomeAddedToCart
		}
		return OutcomeNoCart
	}
	panic("no shopper " + string(shopper))
}

const fixtureNotes = "FIXTURE DATA, not a browser session: every outcome is derived from the fixture world's known answers " +
	"by the generator in pipeline/leaderboard (TestFixtureBrowserRuns). Stopped before payment."

// fixtureRun builds the run of one shopper over SVC-100 v1.
func fixtureRun(t testing.TB, w *fixtures.World, shopper byte) *Submission {
	t.Helper()
	k := int(shopper - 'A')
	start := time.Date(2026, 11, 16, 9+2*k, 0, 0, 0, time.UTC)
	s := &Submission{
		Spec: svc100.Spec, TestSet: svc100.TestSet,
		Agent: Agent{Name: Paths[k].Agent, Version: "fixture", Builder: MeasuredBy, Path: "browser"},
		Run:   Run{StoppedBeforePayment: true, Notes: fixtureNotes},
	}
	at := start
	for i, st := range svc100.Stores() {
		fs, ok := w.Lookup(st.Host)
		if !ok {
			t.Fatalf("%s is not a fixture store", st.Host)
		}
		steps, secs := float64(6+(i*5+k)%9), float64(20+(i*37+k*11)%70)
		s.Results = append(s.Results, Result{ID: st.ID, Outcome: shopperOutcome(shopper, fs, i),
			At: at.Format(time.RFC3339), Steps: &steps, Seconds: &secs})
		at = at.Add(time.Duration(secs+10) * time.Second)
	}
	s.Run.StartedAt, s.Run.FinishedAt = start.Format(time.RFC3339), at.Format(time.RFC3339)
	return s
}

func fixtureFile(t testing.TB, s *Submission) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestFixtureBrowserRuns is the generator of datasets/runs/fixture: go test
// ./pipeline/leaderboard -run TestFixtureBrowserRuns -update rewrites the
// files; without -update it fails when a committed file drifts from the
// rule or is not a valid submission.
func TestFixtureBrowserRuns(t *testing.T) {
	w := fixtures.Generate(1, fixtures.DefaultStores)
	committed, err := runs.Fixture()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range "ABCDE" {
		name := "browser-" + string(l+'a'-'A') + ".json"
		names = append(names, name)
		want := fixtureFile(t, fixtureRun(t, w, byte(l)))
		if len(want) >= 100<<10 {
			t.Errorf("%s is %d bytes, over 100 KB", name, len(want))
		}
		if *update {
			if err := os.WriteFile(filepath.Join(fixtureRunsDir, name), want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if !bytes.Equal(committed[name], want) {
			t.Errorf("%s drifted from the rule; run go test ./pipeline/leaderboard -run TestFixtureBrowserRuns -update (-committed +rule):\n%s",
				name, cmp.Diff(string(committed[name]), string(want)))
		}
		s, err := Parse(committed[name])
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if s.Contact != "" || len(s.Results) != svc100.Size {
			t.Errorf("%s: contact %q, %d results", name, s.Contact, len(s.Results))
		}
	}
	if *update {
		return
	}
	if diff := cmp.Diff(names, sortedKeys(committed)); diff != "" {
		t.Errorf("datasets/runs/fixture holds other files (-want +got):\n%s", diff)
	}
}
