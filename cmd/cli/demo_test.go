package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"svc/fixtures"
	"svc/pipeline"
	"svc/pipeline/leaderboard"
)

// TestDemoScoresEveryStore runs `svc demo --exit` as a new user would, once
// without UCP schemas (a fresh clone without ../shared, offline: TestMain
// sets SVC_UCP_OFFLINE) and once with the schema folder. Both must score
// every store right. Without schemas the demo says once why, the crawl
// reports profiles as unvalidated, and the strict answers still fail that
// crawl: the relaxed truth is used only for the run that had no schemas.
func TestDemoScoresEveryStore(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole pipeline twice")
	}
	for _, tc := range []struct {
		name string
		dir  string
	}{
		{"without schemas", ""},
		{"with schemas", fixtures.UCPSchemaDir()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "with schemas" && tc.dir == "" {
				t.Skip("no ../shared/ucp/schema")
			}
			data := t.TempDir()
			var out, errOut bytes.Buffer
			// The shop stage has its own tests (pipeline: TestShopStageBrowser,
			// TestShopLaneIntoStoreAnswers); here it would add minutes.
			code := Run(context.Background(), []string{"demo", "--exit", "--no-shop", "--data", data,
				"--fixtures-addr", "127.0.0.1:0", "--ucp-schema-dir", tc.dir}, &out, &errOut)
			text := out.String()
			if code != ExitOK {
				t.Fatalf("exit %d\n%s\n%s", code, text, errOut.String())
			}
			want := fmt.Sprintf("%d of %d stores got every field right.", fixtures.DefaultStores, fixtures.DefaultStores)
			if !strings.Contains(text, want) {
				t.Errorf("output lacks %q:\n%s", want, text)
			}
			notes := strings.Count(text, "note: no UCP schemas")
			unvalidated := 0
			err := pipeline.ReadJournal(filepath.Join(pipeline.RunDir(data, "demo"), pipeline.JournalName), func(r pipeline.CrawlRecord) {
				if r.Result != nil && r.Result.UCPProfile.Status == "unvalidated" {
					unvalidated++
					if r.Result.UCPProfile.Valid != nil {
						t.Errorf("%s: unvalidated with valid %v, want null", r.Store.Host, *r.Result.UCPProfile.Valid)
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if tc.dir != "" {
				if notes != 0 || unvalidated != 0 {
					t.Errorf("with schemas: %d notes, %d unvalidated profiles; want none", notes, unvalidated)
				}
				demoSigned(t, data)
				return
			}
			if notes != 1 {
				t.Errorf("the no-schema note is printed %d times, want once:\n%s", notes, text)
			}
			if unvalidated == 0 {
				t.Error("no profile was unvalidated without schemas")
			}
			// The strict answers do not fit a run without schemas.
			var strict bytes.Buffer
			g := &globals{context: context.Background(), out: &strict, errOut: &strict, data: data}
			o := &fixturesScoreOptions{globals: g, runID: "demo"}
			o.world.seed, o.world.stores = 1, fixtures.DefaultStores
			var ee *exitError
			if err := fixturesScoreRun(context.Background(), o); !errors.As(err, &ee) || ee.code != ExitFailed {
				t.Errorf("strict score of a no-schema run: %v, want exit %d\n%s", err, ExitFailed, strict.String())
			}
		})
	}
}

// demoSigned: in the demo the UCP path signs with the key kept in
// DATA/state, which the fixture world's copy of svc's profile publishes,
// so the stand-in store that demands signatures (svc100-v1-029,
// fallowivy.test, trait ucp_shop:signature_required) reaches a checkout,
// and the run's notes name that key.
func demoSigned(t *testing.T, data string) {
	t.Helper()
	key, err := leaderboard.LoadAgentKey(context.Background(), "", filepath.Join(data, "state"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(pipeline.RunDir(data, "demo"), leaderboard.AgentRunsDir, leaderboard.PathUCP+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var run leaderboard.AgentRun
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	const id = "svc100-v1-029"
	w := fixtures.Generate(1, fixtures.DefaultStores)
	st, ok := w.Lookup("fallowivy.test")
	if !ok || !slices.Contains(st.Traits, "ucp_shop:signature_required") {
		t.Fatalf("the stand-in %s is not the store that demands signatures", id)
	}
	want := st.UCPPath("")
	i := slices.IndexFunc(run.Submission.Results, func(r leaderboard.Result) bool { return r.ID == id })
	if i < 0 || run.Submission.Results[i].Outcome != want.Outcome || run.Reasons[id] != want.Reason || want.Outcome != "checkout_reached" {
		t.Errorf("%s in the demo's UCP run: %+v [%s], want %s [%s]", id, run.Submission.Results, run.Reasons[id], want.Outcome, want.Reason)
	}
	if !strings.Contains(run.Submission.Run.Notes, key.KeyID()) {
		t.Errorf("the run's notes do not name the signing key %s: %q", key.KeyID(), run.Submission.Run.Notes)
	}
}
