package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"svc/datasets/svc100"
	"svc/fixtures"
	"svc/pipeline"
	"svc/pipeline/leaderboard"
	"svc/pipeline/shop"
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

// TestDemoServesBeforeTheBrowserLane: `svc demo` answers GET
// /api/protocols while its shop stage is still running (the runner here
// lets three runs through and then blocks until released), the home page
// and the leaderboard say how far the browser lane is, with pages sent
// no-store, and once the runs are released the same server serves the
// next version, whose leaderboard has the browser lane, and the notice is
// gone.
func TestDemoServesBeforeTheBrowserLane(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole pipeline")
	}
	const free = 3 // runs that end at once; the rest wait for release
	release := make(chan struct{})
	var calls atomic.Int64
	runner := func(ctx context.Context, sh shop.Shopper, rawURL string) (*shop.Report, error) {
		if calls.Add(1) > free {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return &shop.Report{Shopper: sh, Store: strings.TrimSuffix(rawURL, "/"), Outcome: shop.AddedToCart, Reason: "scripted",
			Steps: 1, Seconds: 0.1, StoppedBeforePayment: true}, nil
	}
	data := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	g := &globals{context: ctx, out: &out, errOut: &out}
	root := newRoot(g)
	for _, c := range root.Commands() {
		if c.Name() == "demo" {
			root.RemoveCommand(c)
		}
	}
	served := make(chan string, 1)
	root.AddCommand(newDemoCmdWith(g, func(o *demoOptions) error {
		o.shop = func() (pipeline.ShopRunner, func(), error) { return runner, func() {}, nil }
		o.served = func(base string) { served <- base }
		return demoRun(ctx, o)
	}))
	root.SetArgs([]string{"demo", "--data", data, "--addr", "127.0.0.1:0", "--fixtures-addr", "127.0.0.1:0", "--ucp-schema-dir", ""})
	exited := make(chan error, 1)
	go func() { exited <- root.ExecuteContext(ctx) }()
	var base string
	select {
	case base = <-served:
	case err := <-exited:
		t.Fatalf("the demo ended before serving: %v\n%s", err, out.String())
	case <-time.After(5 * time.Minute):
		t.Fatalf("the demo did not serve within 5 minutes\n%s", out.String())
	}

	// Serving, with the shop stage held.
	if code, _, _ := demoGet(t, base+"/api/protocols"); code != http.StatusOK {
		t.Fatalf("GET /api/protocols: %d while the shop stage runs", code)
	}
	first := servedVersion(ctx, base)
	if first == "" {
		t.Fatal("no version served")
	}
	total := svc100.Size * 5
	want := fmt.Sprintf("The browser lane is being measured: %d of %d runs", free, total)
	for _, page := range []string{"/", "/leaderboard/"} {
		var body, cc string
		demoWait(t, page+" says "+want, func() bool {
			_, body, cc = demoGet(t, base+page)
			return strings.Contains(body, want)
		})
		if n := strings.Count(body, `role="status"`); n != 1 || cc != "no-store" {
			t.Errorf("%s while pending: %d notices, Cache-Control %q; want 1 and no-store", page, n, cc)
		}
	}
	if p := browserPath(t, base); p.Status == "measured" || p.N != 0 {
		t.Fatalf("the browser lane is on the leaderboard before its runs are done: %+v", p)
	}
	// The stage's pages each hold one run; no other starts.
	demoWait(t, "the held runs", func() bool { return calls.Load() == free+pipeline.DefaultPages })

	// Released: the same server serves the next version.
	close(release)
	demoWait(t, "a new version served", func() bool { v := servedVersion(ctx, base); return v != "" && v != first })
	if v, latest := servedVersion(ctx, base), latestVersion(data); v != latest {
		t.Errorf("served %s, latest published %s", v, latest)
	}
	if p := browserPath(t, base); p.Status != "measured" || p.N != svc100.Size {
		t.Errorf("browser shopper A after the lane landed: %+v, want measured over %d stores", p, svc100.Size)
	}
	for _, page := range []string{"/", "/leaderboard/"} {
		if _, body, cc := demoGet(t, base+page); strings.Contains(body, `role="status"`) || strings.Contains(body, "browser lane is") || cc == "no-store" {
			t.Errorf("%s after the lane landed still says it is pending (Cache-Control %q)", page, cc)
		}
	}
	demoWait(t, "the demo says the lane landed", func() bool { return strings.Contains(out.String(), "The browser lane has landed") })
	if calls.Load() != int64(total) {
		t.Errorf("%d runs, want %d", calls.Load(), total)
	}
	cancel()
	if err := <-exited; err != nil {
		t.Errorf("the demo ended with %v", err)
	}
}

// demoGet GETs url and returns the status, body and Cache-Control.
func demoGet(t *testing.T, url string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b), resp.Header.Get("Cache-Control")
}

// demoWait polls ok for up to two minutes.
func demoWait(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); !ok(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited two minutes for %s", what)
		}
	}
}

// browserPath is browser shopper A's row of the leaderboard served at base.
func browserPath(t *testing.T, base string) (p struct {
	ID, Status string
	N          int
}) {
	t.Helper()
	_, body, _ := demoGet(t, base+"/api/leaderboard")
	var lb struct {
		Paths []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
			N      int    `json:"n"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(body), &lb); err != nil {
		t.Fatalf("leaderboard: %v", err)
	}
	for _, r := range lb.Paths {
		if r.ID == "browser-a" {
			p.ID, p.Status, p.N = r.ID, r.Status, r.N
			return p
		}
	}
	t.Fatalf("no browser-a on the leaderboard: %s", body)
	return p
}
