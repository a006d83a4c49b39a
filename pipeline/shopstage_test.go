package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"svc/datasets"
	"svc/datasets/svc100"
	"svc/pipeline/leaderboard"
	"svc/pipeline/shop"
	"svc/pipeline/shop/browser"
	"svc/publish"
)

// scriptedShopRecords are journal lines for stores, every shopper A to E
// with outcome(host, shopper): input of tests that need a journal, not a
// browser session.
func scriptedShopRecords(stores []svc100.Store, outcome func(host, shopper string) string) []ShopRecord {
	var out []ShopRecord
	at := time.Date(2026, 11, 21, 7, 0, 0, 0, time.UTC)
	for _, st := range stores {
		for _, l := range "ABCDE" {
			o := outcome(st.Host, string(l))
			out = append(out, ShopRecord{Host: st.Host, Shopper: string(l), SVC100ID: st.ID, At: at,
				Report: &shop.Report{Shopper: shop.Shopper(l), Store: "https://" + st.Host, Outcome: o, Reason: "scripted",
					Steps: 2, Seconds: 1.5, StoppedBeforePayment: true, Log: []shop.Step{
						{N: 1, Action: "open", URL: "https://" + st.Host + "/"},
						// A raw checkout address, as no stage writes it: the
						// published evidence must still withhold it.
						{N: 2, Action: "click", Role: "button", Name: "Checkout", URL: "https://" + st.Host + "/checkout?token=ck_secret_token"},
					}}})
			at = at.Add(2 * time.Second)
		}
	}
	return out
}

func writeShopJournal(t *testing.T, runDir string, recs []ShopRecord) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(runDir, ShopDirName), 0o755); err != nil {
		t.Fatal(err)
	}
	j, err := openJournal(filepath.Join(runDir, ShopDirName, ShopJournal))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := j.append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(j.flush(), j.close()); err != nil {
		t.Fatal(err)
	}
}

// fakeJPEG is a screenshot's bytes for scripted runs (its content only
// has to be hashed and kept).
func fakeShot(host, shopper string) *shop.Screenshot {
	data := []byte("\xff\xd8\xff\xe0 screenshot of " + host + " by " + shopper + "\xff\xd9")
	sum := sha256.Sum256(data)
	return &shop.Screenshot{SHA256: hex.EncodeToString(sum[:]), Type: "image/jpeg", Bytes: len(data), Data: data}
}

// scriptedRunner answers each run with outcome(host, shopper), counting
// the runs per (host, shopper).
type scriptedRunner struct {
	mu      sync.Mutex
	calls   map[string]int
	outcome func(host, shopper string) string
	after   func(n int) // called after each run with the number of runs so far
	n       atomic.Int64
}

func (s *scriptedRunner) run(ctx context.Context, sh shop.Shopper, rawURL string) (*shop.Report, error) {
	host := strings.TrimSuffix(strings.TrimPrefix(rawURL, "https://"), "/")
	s.mu.Lock()
	if s.calls == nil {
		s.calls = map[string]int{}
	}
	s.calls[host+" "+string(sh)]++
	s.mu.Unlock()
	o := s.outcome(host, string(sh))
	rep := &shop.Report{Shopper: sh, Store: "https://" + host, Outcome: o, Reason: "scripted", Steps: 2, Seconds: 0.5,
		StoppedBeforePayment: true, Log: []shop.Step{
			{N: 1, Action: "open", Title: "Home", URL: "https://" + host + "/?utm=x#top"},
			{N: 2, Action: "click", Role: "link", Name: "Check out", URL: "https://" + host + "/checkout?token=ck_secret_token"},
		}}
	if o != shop.NotAttempted {
		rep.Screenshot = fakeShot(host, string(sh))
	}
	if s.after != nil {
		s.after(int(s.n.Add(1)))
	}
	return rep, nil
}

func scriptedOutcome(host, shopper string) string {
	switch {
	case shopper == "D":
		return shop.NotAttempted // no model configured
	case host == "extra-blocked.test":
		return shop.Blocked
	case strings.HasSuffix(host, "0.test") || shopper == "C":
		return shop.NoCart
	}
	return shop.CheckoutReached
}

// TestShopStageScripted runs the stage with a scripted runner: a stage
// cancelled half-way resumes without running a finished (store, shopper)
// pair again; its journal becomes the leaderboard's browser runs (D,
// never attempted, stays unmeasured), the buy.browser lane of SVC-100 and
// of the --stores list, and the published evidence, with no checkout
// address anywhere.
func TestShopStageScripted(t *testing.T) {
	data := t.TempDir()
	extra := []Store{{Host: "extra-blocked.test", Source: "seed"}, {Host: "extra-gone.test", Source: "opted-out"}}
	var out bytes.Buffer
	env := StageEnv{DataDir: data, RunID: "s1", Out: &out, ErrOut: &out}
	ctx, cancel := context.WithCancel(context.Background())
	first := &scriptedRunner{outcome: scriptedOutcome, after: func(n int) {
		if n == 230 {
			cancel() // as a SIGINT would, mid-stage
		}
	}}
	err := ShopStage(ctx, ShopStageOptions{StageEnv: env, Stores: extra, Concurrency: 3, Run: first.run})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled stage: err %v", err)
	}
	runDir := RunDir(data, "s1")
	before, err := ReadShopRecords(runDir)
	if err != nil {
		t.Fatal(err)
	}
	total := (svc100.Size + 1) * 5
	if len(before) < 200 || len(before) >= total {
		t.Fatalf("after the cancel the journal holds %d of %d runs", len(before), total)
	}
	second := &scriptedRunner{outcome: scriptedOutcome}
	out.Reset()
	if err := ShopStage(context.Background(), ShopStageOptions{StageEnv: env, Stores: extra, Run: second.run}); err != nil {
		t.Fatal(err)
	}
	for _, r := range before {
		if second.calls[r.key()] != 0 {
			t.Errorf("%s was finished before the cancel and ran again", r.key())
		}
	}
	after, err := ReadShopRecords(runDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != total || len(second.calls) != total-len(before) {
		t.Errorf("journal %d runs (want %d); the resumed stage ran %d (want %d)", len(after), total, len(second.calls), total-len(before))
	}
	if !strings.Contains(out.String(), fmt.Sprintf("%d resumed", len(before))) {
		t.Errorf("summary: %s", out.String())
	}
	for _, r := range after {
		if r.Host == "extra-gone.test" {
			t.Error("an opted-out store was shopped")
		}
		for _, st := range r.Report.Log {
			if strings.Contains(st.URL, "?") || strings.Contains(st.URL, "#") || strings.Contains(st.URL, "/checkout") {
				t.Errorf("journal step URL %q", st.URL)
			}
		}
		if r.Report.Screenshot != nil {
			if _, err := os.Stat(filepath.Join(runDir, ShopScreens, r.Report.Screenshot.SHA256+".jpg")); err != nil {
				t.Errorf("screenshot of %s: %v", r.key(), err)
			}
		}
	}

	// The leaderboard's browser runs: A, B, C, E measured over 100
	// stores; D not run.
	runs, err := leaderboard.ReadAgentRuns(runDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"browser-a", "browser-b", "browser-c", "browser-e"} {
		r := runs[id]
		if r == nil || len(r.Submission.Results) != svc100.Size || r.MeasuredBy != leaderboard.MeasuredBy ||
			r.Submission.Run.StartedAt == "" || r.Submission.Run.FinishedAt == "" {
			t.Fatalf("%s: %+v", id, r)
		}
	}
	if runs["browser-d"] != nil {
		t.Error("shopper D, never attempted, has a run")
	}

	// buy.browser: SVC-100 and the extra store; C's no_cart does not
	// hide A's checkout.
	lane, err := BrowserLaneByHost(runDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(lane) != svc100.Size+1 {
		t.Errorf("lane covers %d hosts", len(lane))
	}
	for _, st := range svc100.Stores() {
		want := !strings.HasSuffix(st.Host, "0.test")
		if got, ok := lane[st.Host]; !ok || got != want {
			t.Errorf("lane %s = %v (%v), want %v", st.Host, got, ok, want)
		}
	}
	if got, ok := lane["extra-blocked.test"]; !ok || got {
		t.Errorf("lane of the blocked extra store = %v (%v), want false", got, ok)
	}

	// The evidence: one file per store, screenshots beside them.
	n, err := WriteShopEvidence(runDir, "s1")
	if err != nil || n != svc100.Size+1 {
		t.Fatalf("evidence: %d stores, %v", n, err)
	}
	var ev publish.ShopEvidence
	b, err := os.ReadFile(filepath.Join(runDir, OutFiles, filepath.FromSlash(publish.ShopEvidencePath(svc100.Stores()[1].Host))))
	if err != nil || json.Unmarshal(b, &ev) != nil {
		t.Fatalf("evidence file: %v", err)
	}
	if len(ev.Shoppers) != 5 || ev.Svc100ID == nil || ev.Shoppers[0].Screenshot == nil || ev.Shoppers[3].Screenshot != nil ||
		ev.Shoppers[0].Log[1].URL != "https://"+ev.Host+"/"+shop.Withheld {
		t.Errorf("evidence: %s", b)
	}
	if _, err := os.Stat(filepath.Join(runDir, OutFiles, filepath.FromSlash(ev.Shoppers[0].Screenshot.Path))); err != nil {
		t.Errorf("published screenshot: %v", err)
	}
	noCheckoutAddress(t, filepath.Join(runDir, OutFiles))
}

// noCheckoutAddress fails when any file under dir holds a checkout
// address of the fixture shops: their checkout paths, tokens and the
// sibling checkout host's paths.
func noCheckoutAddress(t *testing.T, dir string) {
	t.Helper()
	bad := []string{"ck_secret_token", "token=", ".test/checkout", "checkout.svcshop-sibling.test/c/", "/checkout?", "return_to="}
	files := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&os.ModeSymlink != 0 {
			return err
		}
		files++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, s := range bad {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %q", p, s)
			}
		}
		return nil
	})
	if err != nil || files == 0 {
		t.Fatalf("walk %s: %d files, %v", dir, files, err)
	}
}

// TestShopLaneWithoutBrowser: a run without the shop stage (no Chromium)
// has no browser runs and no lane: every browser path is not run, and an
// old run file of one is removed.
func TestShopLaneWithoutBrowser(t *testing.T) {
	runDir := t.TempDir()
	if err := leaderboard.WriteBrowserRuns(runDir, "old", map[string][]leaderboard.BrowserResult{"A": func() []leaderboard.BrowserResult {
		var out []leaderboard.BrowserResult
		for _, st := range svc100.Stores() {
			out = append(out, leaderboard.BrowserResult{ID: st.ID, Outcome: leaderboard.OutcomeNoCart, At: time.Now()})
		}
		return out
	}()}); err != nil {
		t.Fatal(err)
	}
	if err := WriteShopRuns(runDir, "r"); err != nil {
		t.Fatal(err)
	}
	runs, err := leaderboard.ReadAgentRuns(runDir)
	if err != nil || len(runs) != 0 {
		t.Fatalf("runs without a journal: %v, %v", runs, err)
	}
	lane, err := BrowserLaneByHost(runDir)
	if err != nil || len(lane) != 0 {
		t.Errorf("lane without a journal: %v, %v", lane, err)
	}
	if n, err := WriteShopEvidence(runDir, "r"); err != nil || n != 0 {
		t.Errorf("evidence without a journal: %d, %v", n, err)
	}
}

// TestShopLaneIntoStoreAnswers runs aggregate and snapshot over the
// fixture crawl twice: with a shop journal covering 20 SVC-100 stores,
// those stores' buy_browser is the shoppers' answer and every other is
// null; the browser paths are measured and the evidence is published
// with no checkout address. Without a journal (no Chromium), every
// buy_browser is null, never false, and every browser path is not run.
func TestShopLaneIntoStoreAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("aggregates the fixture world")
	}
	d := sharedWorld(t)
	covered := map[string]bool{}
	for _, st := range svc100.Stores()[:20] {
		covered[st.Host] = true
	}
	outcome := func(host, shopper string) string {
		switch {
		case shopper == "D":
			return shop.NotAttempted
		case strings.HasSuffix(host, "e.test"):
			return shop.NoCart
		}
		return shop.AddedToCart
	}
	for _, withShop := range []bool{true, false} {
		t.Run(fmt.Sprintf("shop=%v", withShop), func(t *testing.T) {
			data := t.TempDir()
			dir := d.newRun(t, data, "w1", "2026-05-04")
			if withShop {
				writeShopJournal(t, dir, scriptedShopRecords(svc100.Stores()[:20], outcome))
			}
			env := StageEnv{DataDir: data, RunID: "w1", Out: io.Discard, ErrOut: io.Discard}
			if err := AggregateStage(context.Background(), AggregateStageOptions{StageEnv: env, NoHistory: true}); err != nil {
				t.Fatal(err)
			}
			if err := SnapshotStage(context.Background(), SnapshotStageOptions{StageEnv: env}); err != nil {
				t.Fatal(err)
			}
			cols, err := ReadTableFile(filepath.Join(dir, OutTables, datasets.StoreAnswers.Name+".parquet"), datasets.StoreAnswers)
			if err != nil {
				t.Fatal(err)
			}
			hostCol, laneCol := datasets.StoreAnswers.ColumnIndex("host"), datasets.StoreAnswers.ColumnIndex("buy_browser")
			set := 0
			for i := range cols.Len() {
				row := cols.Row(i)
				host := row[hostCol].(string)
				lane := row[laneCol]
				switch {
				case withShop && covered[host]:
					set++
					if want := !strings.HasSuffix(host, "e.test"); lane != want {
						t.Errorf("%s buy_browser %v, want %v", host, lane, want)
					}
				case lane != nil:
					t.Errorf("%s buy_browser %v, want null (not covered by a shopper)", host, lane)
				}
			}
			if withShop && set != 20 {
				t.Errorf("%d covered stores in store_answers, want 20", set)
			}
			public := filepath.Join(data, "public")
			var board publish.Leaderboard
			b, err := os.ReadFile(filepath.Join(public, filepath.FromSlash(publish.LeaderboardPath)))
			if err != nil || json.Unmarshal(b, &board) != nil {
				t.Fatalf("published leaderboard: %v", err)
			}
			for _, p := range board.Paths {
				if p.Path != "browser" {
					continue
				}
				measured := withShop && p.ID != "browser-d"
				if measured != (p.Status == leaderboard.StatusMeasured) || measured != (p.Rate != nil) {
					t.Errorf("%s: status %s, rate %v", p.ID, p.Status, p.Rate)
				}
			}
			_, err = os.Stat(filepath.Join(public, filepath.FromSlash(publish.ShopEvidencePath(svc100.Stores()[0].Host))))
			if withShop != (err == nil) {
				t.Errorf("published evidence: %v", err)
			}
			noCheckoutAddress(t, public)
		})
	}
}

// TestRunShopStage: svc run's shop stage says plainly when Chromium is
// missing (and leaves no journal), says when it is skipped, and runs the
// stage with the runner it is given.
func TestRunShopStage(t *testing.T) {
	data := t.TempDir()
	var out, errOut bytes.Buffer
	o := RunOptions{StageEnv: StageEnv{DataDir: data, RunID: "r1", Out: &out, ErrOut: &errOut}}
	if err := runShopStage(context.Background(), o); err != nil || !strings.Contains(out.String(), "skipped (--no-shop)") {
		t.Errorf("skipped: %v, %q", err, out.String())
	}
	o.Shop = func() (ShopRunner, func(), error) { return nil, nil, fmt.Errorf("start: %w", browser.ErrNoBrowser) }
	if err := runShopStage(context.Background(), o); err != nil || !strings.Contains(errOut.String(), "chromium not found: the browser lane is unmeasured") {
		t.Errorf("no Chromium: %v, %q", err, errOut.String())
	}
	if _, err := os.Stat(filepath.Join(RunDir(data, "r1"), ShopDirName)); !os.IsNotExist(err) {
		t.Errorf("a stage without Chromium left %v", err)
	}
	stopped := false
	sr := &scriptedRunner{outcome: scriptedOutcome}
	o.Shop = func() (ShopRunner, func(), error) { return sr.run, func() { stopped = true }, nil }
	if err := runShopStage(context.Background(), o); err != nil || !stopped || len(sr.calls) != svc100.Size*5 {
		t.Errorf("with a runner: %v, stopped %v, %d runs", err, stopped, len(sr.calls))
	}
}

// TestShopStageShards: the shards of a shop stage split the stores as
// crawl does, each in its own journal, and together cover every (store,
// shopper) pair once; the runs are built from all of them.
func TestShopStageShards(t *testing.T) {
	data := t.TempDir()
	env := StageEnv{DataDir: data, RunID: "sh", Out: io.Discard, ErrOut: io.Discard}
	for i := range 3 {
		sr := &scriptedRunner{outcome: scriptedOutcome}
		if err := ShopStage(context.Background(), ShopStageOptions{StageEnv: env, Shard: Shard{I: i, N: 3}, Run: sr.run}); err != nil {
			t.Fatal(err)
		}
		for k := range sr.calls {
			if host, _, _ := strings.Cut(k, " "); ShardOf(host, 3) != i {
				t.Errorf("shard %d ran %s", i, k)
			}
		}
	}
	runDir := RunDir(data, "sh")
	if _, err := os.Stat(filepath.Join(runDir, ShopDirName, ShopJournal)); !os.IsNotExist(err) {
		t.Errorf("a sharded stage wrote the unsharded journal: %v", err)
	}
	recs, err := ReadShopRecords(runDir)
	if err != nil || len(recs) != svc100.Size*5 {
		t.Fatalf("%d records over the shards, %v", len(recs), err)
	}
	if err := WriteShopRuns(runDir, "sh"); err != nil {
		t.Fatal(err)
	}
	runs, err := leaderboard.ReadAgentRuns(runDir)
	if err != nil || runs["browser-a"] == nil || len(runs["browser-a"].Submission.Results) != svc100.Size {
		t.Errorf("browser-a over the shards: %v", err)
	}
}
