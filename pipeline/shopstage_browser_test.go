package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"svc/datasets/svc100"
	"svc/fixtures"
	"svc/fixtures/shops"
	"svc/pipeline/leaderboard"
	"svc/pipeline/shop"
	"svc/pipeline/shop/browser"
	"svc/publish"
)

// The real-Chromium stage test: a small store list (ten SVC-100 stand-ins
// and five of the fixture shops, whose true outcomes shops.Truths lists),
// shoppers A and B, two pages at once.
var (
	browserTestShops    = []string{"svcshop-form.test", "svcshop-icon.test", "svcshop-login.test", "svcshop-wall.test", "svcshop-trap.test"}
	browserTestShoppers = []shop.Shopper{shop.Semantic, shop.Accessibility}
)

func browserTestStores() []Store {
	var out []Store
	for _, h := range browserTestShops {
		out = append(out, Store{Host: h, Source: "seed"})
	}
	return out
}

// startBrowser starts Chromium against the fixture world at addr, or
// skips the test when there is none (fails under CI=true).
func startBrowser(t *testing.T, addr string, ca []byte) *browser.Browser {
	t.Helper()
	if browser.FindExecPath() == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but no Chromium found: the shop stage is not tested")
		}
		t.Skip("no Chromium found (install Debian's chromium package, or set SVC_CHROMIUM)")
	}
	b, err := browser.Start(context.Background(), browser.Options{FixtureAddr: addr, FixtureCA: ca})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func browserStageOptions(data string, b *browser.Browser, errOut io.Writer) ShopStageOptions {
	so := shop.Options{Browser: b, RunTimeout: 45 * time.Second}
	return ShopStageOptions{
		StageEnv: StageEnv{DataDir: data, RunID: "b1", Out: io.Discard, ErrOut: errOut},
		Stores:   browserTestStores(), Concurrency: 2, Shoppers: browserTestShoppers,
		Run: func(ctx context.Context, sh shop.Shopper, u string) (*shop.Report, error) {
			return shop.Run(ctx, so, sh, u)
		},
		testSet: svc100.Stores()[:10],
	}
}

// TestShopStageHelper is the stage process that TestShopStageBrowser
// kills; it does nothing unless started by it.
func TestShopStageHelper(t *testing.T) {
	data := os.Getenv("SVC_SHOP_HELPER_DATA")
	if data == "" {
		t.Skip("helper process of TestShopStageBrowser")
	}
	ca, err := os.ReadFile(os.Getenv("SVC_SHOP_HELPER_CA"))
	if err != nil {
		t.Fatal(err)
	}
	b := startBrowser(t, os.Getenv("SVC_SHOP_HELPER_ADDR"), ca)
	if err := ShopStage(context.Background(), browserStageOptions(data, b, io.Discard)); err != nil {
		t.Fatal(err)
	}
}

// journalKeys counts the complete journal lines per (host, shopper).
func journalKeys(t *testing.T, path string) map[string]int {
	t.Helper()
	out := map[string]int{}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r ShopRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.key() != "" {
			out[r.key()]++
		}
	}
	return out
}

// TestShopStageBrowser runs the stage with real Chromium over the fixture
// world: the stage process is killed (SIGKILL) mid-way and the stage
// resumed, running no finished (store, shopper) pair again; every fixture
// shop gets its true outcome, no trap is touched; the runs become the
// leaderboard's measured browser paths and the buy.browser lane, and the
// published evidence holds screenshots and no checkout address.
func TestShopStageBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Chromium")
	}
	world := fixtures.Generate(1, fixtures.DefaultStores)
	caPath := filepath.Join(t.TempDir(), "ca.pem")
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{CAOut: caPath})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	b := startBrowser(t, srv.Addr(), srv.CAPEM())
	data := t.TempDir()
	runDir := RunDir(data, "b1")
	journal := filepath.Join(runDir, ShopDirName, ShopJournal)
	total := (10 + len(browserTestShops)) * len(browserTestShoppers)

	// 1. The stage in its own process, killed once some runs are done.
	cmd := exec.Command(os.Args[0], "-test.run=^TestShopStageHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SVC_SHOP_HELPER_DATA="+data, "SVC_SHOP_HELPER_ADDR="+srv.Addr(), "SVC_SHOP_HELPER_CA="+caPath)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its Chromium dies with it
	var helperOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &helperOut, &helperOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for len(journalKeys(t, journal)) < 5 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	before := journalKeys(t, journal)
	if len(before) < 5 || len(before) >= total {
		t.Fatalf("the killed stage left %d of %d runs in its journal\n%s", len(before), total, helperOut.String())
	}
	t.Logf("killed after %d of %d runs", len(before), total)

	// 2. Resumed here: only the runs the journal lacks are run.
	o := browserStageOptions(data, b, io.Discard)
	var mu sync.Mutex
	ran := map[string]int{}
	inner := o.Run
	o.Run = func(ctx context.Context, sh shop.Shopper, u string) (*shop.Report, error) {
		rep, err := inner(ctx, sh, u)
		if rep != nil {
			mu.Lock()
			ran[rep.Store[len("https://"):]+" "+string(sh)]++
			mu.Unlock()
		}
		return rep, err
	}
	start := time.Now()
	if err := ShopStage(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	t.Logf("resumed stage: %d runs in %s", len(ran), time.Since(start).Round(time.Millisecond))
	for k := range before {
		if ran[k] > 0 {
			t.Errorf("%s was finished before the kill and ran again", k)
		}
	}
	final := journalKeys(t, journal)
	if len(final) != total {
		t.Errorf("journal holds %d keys, want %d", len(final), total)
	}
	for k, n := range final {
		if n != 1 {
			t.Errorf("%s is %d times in the journal", k, n)
		}
	}

	// 3. True outcomes of the fixture shops; no trap touched.
	recs, err := ReadShopRecords(runDir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range recs {
		got[r.key()] = r.Report.Outcome
	}
	for _, tr := range shops.Truths() {
		for _, sh := range browserTestShoppers {
			k := tr.Host + " " + string(sh)
			if o, ok := got[k]; ok && o != tr.Want[string(sh)] {
				t.Errorf("%s: %s, truth %s", k, o, tr.Want[string(sh)])
			}
		}
	}
	if traps := srv.Shops().Traps(); len(traps) != 0 {
		t.Errorf("traps touched: %v", traps)
	}

	// 4. The browser paths of the leaderboard and the buy.browser lane.
	if err := WriteShopRuns(runDir, "b1"); err != nil {
		t.Fatal(err)
	}
	board, err := AggregateLeaderboard(context.Background(), runDir, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range board.Paths {
		measured := p.ID == "browser-a" || p.ID == "browser-b"
		if p.Path != "browser" {
			continue
		}
		if measured && (p.Status != leaderboard.StatusMeasured || p.N != 10 || p.Rate == nil || p.StartedAt == nil || p.FinishedAt == nil || p.MeasuredBy == nil) {
			t.Errorf("%s: %+v", p.ID, p)
		}
		if !measured && (p.Status != leaderboard.StatusNotRun || p.Rate != nil || p.Evidence != leaderboard.EvidenceNotMeasured) {
			t.Errorf("%s (not run): %+v", p.ID, p)
		}
	}
	var doc struct {
		Paths []struct {
			ID     string   `json:"id"`
			Status string   `json:"status"`
			N      int      `json:"n"`
			Rate   *float64 `json:"rate"`
		} `json:"paths"`
	}
	raw, err := os.ReadFile(filepath.Join(runDir, OutFiles, filepath.FromSlash(publish.LeaderboardPath)))
	if err != nil || json.Unmarshal(raw, &doc) != nil {
		t.Fatalf("leaderboard.json: %v", err)
	}
	if doc.Paths[0].ID != "browser-a" || doc.Paths[0].Status != "measured" || doc.Paths[0].N != 10 || doc.Paths[2].Rate != nil {
		t.Errorf("leaderboard.json paths: %+v", doc.Paths)
	}
	lane, err := BrowserLaneByHost(runDir)
	if err != nil {
		t.Fatal(err)
	}
	for h, want := range map[string]bool{"svcshop-form.test": true, "svcshop-icon.test": true, "svcshop-login.test": true, "svcshop-wall.test": false} {
		if g, ok := lane[h]; !ok || g != want {
			t.Errorf("buy_browser %s = %v (%v), want %v", h, g, ok, want)
		}
	}

	// 5. The evidence: screenshots (small JPEGs) and no checkout address.
	if n, err := WriteShopEvidence(runDir, "b1"); err != nil || n != 15 {
		t.Fatalf("evidence: %d stores, %v", n, err)
	}
	var ev publish.ShopEvidence
	raw, err = os.ReadFile(filepath.Join(runDir, OutFiles, filepath.FromSlash(publish.ShopEvidencePath("svcshop-form.test"))))
	if err != nil || json.Unmarshal(raw, &ev) != nil || len(ev.Shoppers) != 2 {
		t.Fatalf("evidence of svcshop-form.test: %v\n%s", err, raw)
	}
	a := ev.Shoppers[0]
	if a.Outcome != shop.CheckoutReached || len(a.Log) < 3 || a.Screenshot == nil {
		t.Fatalf("shopper A at svcshop-form.test: %+v", a)
	}
	shot, err := os.ReadFile(filepath.Join(runDir, OutFiles, filepath.FromSlash(a.Screenshot.Path)))
	if err != nil || !bytes.HasPrefix(shot, []byte{0xff, 0xd8}) || len(shot) > 200<<10 {
		t.Errorf("screenshot %s: %d bytes, %v", a.Screenshot.Path, len(shot), err)
	}
	if last := a.Log[len(a.Log)-1]; last.URL != "" && last.URL != "https://svcshop-form.test/"+shop.Withheld {
		t.Errorf("the checkout page's step URL is %q", last.URL)
	}
	noCheckoutAddress(t, filepath.Join(runDir, OutFiles))
	noCheckoutAddress(t, filepath.Join(runDir, ShopDirName))
}
