package shop

import (
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"svc/datasets/svc100"
)

// TestShoppersOverTheSVC100StandIns runs every browser shopper the
// generator knows an outcome for (A, B, C, E) on each of the 100 fixture
// stores that stand in for SVC-100 v1, and holds each run to the world's
// truth (fixtures.World.ShopTruths): the outcome, shopper A's reason, no
// checkout address in the report, and no trap touched anywhere.
func TestShoppersOverTheSVC100StandIns(t *testing.T) {
	if testing.Short() {
		t.Skip("400 browser runs: not under -short")
	}
	if !svc100.FixtureStandIn() {
		t.Skip("SVC-100 v1 is not the fixture stand-in set: its stores are not in the fixture world")
	}
	srv, b := shared(t)
	opts := runOptions(t, srv, b)
	w := srv.World()
	only := os.Getenv("SVC_SHOP_ONLY")
	// Bounded like the stage: a few pages at a time in the one browser.
	sem := make(chan struct{}, 3)
	var mu sync.Mutex
	traits := map[string]int{}
	start := time.Now()
	runs := 0
	t.Run("runs", func(t *testing.T) {
		for _, st := range svc100.Stores() {
			truth, ok := w.ShopTruth(st.Host)
			if !ok {
				t.Errorf("%s (%s) is not a store of the fixture world", st.Host, st.ID)
				continue
			}
			traits[truth.Trait]++
			for _, sh := range []Shopper{Semantic, Accessibility, WebMCP, Mobile} {
				want := truth.Want[string(sh)]
				if only != "" && !strings.Contains(truth.Host+"/"+string(sh)+"/"+truth.Trait, only) {
					continue
				}
				if want == "" {
					t.Errorf("%s has no outcome for shopper %s", truth.Host, sh)
					continue
				}
				runs++
				t.Run(truth.Host+"/"+string(sh), func(t *testing.T) {
					t.Parallel()
					sem <- struct{}{}
					defer func() { <-sem }()
					rep, err := Run(t.Context(), opts, sh, "https://"+truth.Host+"/")
					if err != nil && rep == nil {
						t.Fatalf("run: %v", err)
					}
					if rep.Outcome != want {
						t.Errorf("outcome %s (%s), want %s (trait %s)", rep.Outcome, rep.Reason, want, truth.Trait)
					}
					if sh == Semantic && rep.Reason != truth.Reason {
						t.Errorf("reason %s, want %s (trait %s)", rep.Reason, truth.Reason, truth.Trait)
					}
					if l := leaked(rep); len(l) > 0 {
						t.Errorf("the report reveals a checkout address: %v", l)
					}
					if rep.Steps != len(rep.Log) || !rep.StoppedBeforePayment {
						t.Errorf("steps %d, log %d, stoppedBeforePayment %v", rep.Steps, len(rep.Log), rep.StoppedBeforePayment)
					}
					if t.Failed() {
						mu.Lock()
						defer mu.Unlock()
						for _, st := range rep.Log {
							t.Logf("%d %s %s %q — %s [%s] %s", st.N, st.Action, st.Role, st.Name, st.Note, st.Title, st.URL)
						}
						t.Logf("refused: %+v", rep.Refused)
					}
				})
			}
		}
	})
	if traps := srv.Shops().Traps(); len(traps) > 0 {
		t.Errorf("traps were touched: %v", traps)
	}
	t.Logf("%d runs over %d stand-ins in %s; traits: %v", runs, len(svc100.Stores()), time.Since(start).Round(time.Second), traits)
}
