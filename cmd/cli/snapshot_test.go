package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svc/datasets/svc100"
	"svc/fixtures"
	"svc/pipeline"
	"svc/pipeline/inbox"
	"svc/pipeline/leaderboard"
	"svc/publish"
)

// TestSameDayRerun is issue 17.8: a second `svc run` on the day of a first
// one, after a submission arrived, publishes (as date.1) instead of
// stopping at the snapshot on the weekly edition of that date, which stays
// byte for byte as first published; the snapshot says it kept it.
func TestSameDayRerun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the pipeline over the fixture world twice")
	}
	srv, ca, stores, _ := worldStores(t, 20)
	data := filepath.Join(t.TempDir(), "data")
	// --no-shop: the shop stage (minutes of Chromium) is not what this tests.
	fx := []string{"--data", data, "--fixture-addr", srv.Addr(), "--fixture-ca", ca, "--agent-paths=false", "--no-shop", "--stores", stores}
	if d := fixtures.UCPSchemaDir(); d != "" {
		fx = append(fx, "--ucp-schema-dir", d)
	}
	svcRun := func(id string) string {
		t.Helper()
		code, stdout, stderr := runSvc(t, append([]string{"run", "--run", id}, fx...)...)
		if code != ExitOK {
			t.Fatalf("svc run --run %s: exit %d\nstdout: %s\nstderr: %s", id, code, stdout, stderr)
		}
		return stdout
	}
	svcRun("first")
	ri, err := pipeline.ReadRun(data, "first")
	if err != nil {
		t.Fatal(err)
	}
	edition := filepath.Join(data, "public", filepath.FromSlash(publish.WeeklyDir), ri.Date+".json")
	frozen, err := os.ReadFile(edition)
	if err != nil {
		t.Fatal(err)
	}

	// A leaderboard run and a store arrive; a second run starts the same day (its
	// date pinned to the first's, so the test does not depend on the
	// hour it runs at).
	var results []string
	for i := 1; i <= leaderboard.MinResults; i++ {
		results = append(results, fmt.Sprintf(`{"id":%q,"outcome":"added_to_cart"}`, svc100.ID(i)))
	}
	body := []byte(`{"spec":"svc-leaderboard-submission/v1","test_set":"SVC-100 v1","agent":{"name":"Rerun Agent","path":"browser"},` +
		`"run":{"stopped_before_payment":true},"results":[` + strings.Join(results, ",") + `]}`)
	sub, err := leaderboard.Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	log, err := inbox.Open(filepath.Join(data, "state"))
	if err != nil {
		t.Fatal(err)
	}
	if err := log.Append(context.Background(), inbox.TypeLeaderboardSubmission, ri.Started.Add(time.Second), sub.Record()); err != nil {
		t.Fatal(err)
	}
	// And a store, accepted by submission, joins the second run.
	var host string
	for _, s := range fixtures.Generate(1, fixtures.DefaultStores).Stores[40:] {
		if s.Source == "seed" && s.Expect.CartLink != nil && *s.Expect.CartLink {
			host = s.Host
			break
		}
	}
	if err := log.Append(context.Background(), inbox.TypeStoreSubmission, ri.Started.Add(2*time.Second),
		inbox.StoreSubmission{Hosts: []inbox.SubmittedHost{{Host: host}}}); err != nil {
		t.Fatal(err)
	}
	log.Close()
	if _, err := pipeline.OpenRun(data, "second", ri.Started.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}

	out := svcRun("second")
	if !strings.Contains(out, "version "+ri.Date+".1 published") {
		t.Errorf("second run did not publish %s.1:\n%s", ri.Date, out)
	}
	if !strings.Contains(out, "note: The weekly edition of "+ri.Date) || !strings.Contains(out, "kept unchanged") {
		t.Errorf("second run does not say the edition was kept:\n%s", out)
	}
	if got, _ := os.ReadFile(edition); !bytes.Equal(got, frozen) {
		t.Errorf("the frozen edition changed:\n%s\nwas\n%s", got, frozen)
	}
	latest, _ := os.Readlink(filepath.Join(data, "public", "data", "latest"))
	if latest != ri.Date+".1" {
		t.Errorf("latest -> %s, want %s.1", latest, ri.Date)
	}
	board, _ := os.ReadFile(filepath.Join(data, "public", "api", "leaderboard.json"))
	if !bytes.Contains(board, []byte(sub.ID())) {
		t.Errorf("the second snapshot's leaderboard lacks the new run %s", sub.ID())
	}
}
