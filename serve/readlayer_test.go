package serve

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"svc/datasets"
	"svc/serve/readlayer"
)

func TestMatchCategories(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"footwear", []string{"footwear"}},
		{"Food & Drink", []string{"food-drink"}},
		{"food-drink", []string{"food-drink"}},
		{"running shoes", []string{"footwear"}},
		{"Sneakers", []string{"footwear"}},
		{"summer dresses", []string{"apparel"}},
		{"dog food", []string{"pets"}},
		{"baby clothes", []string{"kids"}},
		{"wireless headphones", []string{"electronics"}},
		{"protein powder", []string{"supplements"}},
		{"quantum flux", nil},
		{"", nil},
	} {
		if got := matchCategories(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("matchCategories(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	for _, slug := range categorySlugs {
		if !slices.Contains(tiePriority, slug) {
			t.Errorf("tiePriority lacks %s", slug)
		}
		if _, ok := categoryWords[slug]; !ok {
			t.Errorf("no shopper words for %s", slug)
		}
	}
}

func TestIsInternalAgent(t *testing.T) {
	for ua, want := range map[string]bool{
		"SVC-monitor-internal": true, "SVC-monitor-internal/1.2 (+https://svc.example)": true, "svc-probe-internal": true,
		"SVC-internal": false, "SVC-monitor": false, "Mozilla/5.0 SVC-monitor-internal": false, "": false,
	} {
		if got := IsInternalAgent(ua); got != want {
			t.Errorf("IsInternalAgent(%q) = %v, want %v", ua, got, want)
		}
	}
}

// TestSnapshotSwapUnderLoad publishes a new snapshot while requests of
// every saved-data read are in flight: the server picks it up without a
// restart, no request fails, and the old read layer closes once its last
// request is done.
func TestSnapshotSwapUnderLoad(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{TrustProxy: true, Reload: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go ts.Watch(ctx)
	old, _ := ts.current().read.(*readlayer.Layer)
	if old == nil || old.Version() != f.version {
		t.Fatalf("read layer %v", old)
	}
	// The next version: the same tables, one store's name changed so the
	// answer shows which snapshot served it.
	pub := filepath.Join(ts.dir, "public", "data")
	next := f.version + ".1"
	if err := copyTree(filepath.Join(pub, f.version), filepath.Join(pub, next)); err != nil {
		t.Fatal(err)
	}
	host := f.world.Stores[0].Host
	renameStore(t, filepath.Join(pub, next, "store_answers.parquet"), host, "Renamed Store")

	paths := []string{"/api/precheck?url=", "/api/store?host=", "/api/agent-checkout/product-data?host=", "/api/agent-facts?host="}
	var sent, failed atomic.Int64
	var firstFail atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				st := f.world.Stores[rand.IntN(len(f.world.Stores))]
				p := paths[(w+i)%len(paths)] + st.Host
				resp, body := ts.get(t, p, "X-Forwarded-For", fmt.Sprintf("203.0.%d.%d", w, i%250))
				sent.Add(1)
				if resp.StatusCode != 200 {
					failed.Add(1)
					firstFail.CompareAndSwap(nil, fmt.Sprintf("%s: %d %s", p, resp.StatusCode, body))
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	latest := filepath.Join(pub, "latest")
	if err := os.Symlink(next, latest+".new"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(latest+".new", latest); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for ts.current().version != next && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()
	if ts.current().version != next {
		t.Fatalf("still serving %s", ts.current().version)
	}
	if n := failed.Load(); n > 0 {
		t.Errorf("%d of %d requests failed across the swap; first: %v", n, sent.Load(), firstFail.Load())
	}
	if sent.Load() < 20 {
		t.Errorf("only %d requests were sent", sent.Load())
	}
	select {
	case <-old.Closed():
	case <-time.After(10 * time.Second):
		t.Errorf("the old read layer is still open (%d references)", old.Refs())
	}
	var c StoreCard
	if _, body := ts.getJSON(t, "/api/store?host="+host, &c, "X-Forwarded-For", "198.51.100.1"); c.Snapshot != next || c.Name == nil || *c.Name != "Renamed Store" {
		t.Errorf("after the swap: %s", body)
	}
}

// renameStore rewrites one store's name in a store_answers.parquet.
func renameStore(t *testing.T, path, host, name string) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := fh.Stat()
	c, err := datasets.ReadParquet(fh, fi.Size(), datasets.StoreAnswers)
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	rows := c.Rows()
	for _, r := range rows {
		if r[0] == host {
			r[datasets.StoreAnswers.ColumnIndex("name")] = name
		}
	}
	c, err = datasets.FromRows(datasets.StoreAnswers, rows)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := datasets.WriteParquet(out, c); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBrokenSnapshotKeepsServing points data/latest at a version whose
// table is corrupt: the reload fails and the previous snapshot is served.
func TestBrokenSnapshotKeepsServing(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	pub := filepath.Join(ts.dir, "public", "data")
	bad := f.version + ".9"
	if err := copyTree(filepath.Join(pub, f.version), filepath.Join(pub, bad)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pub, bad, "store_answers.parquet"), []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	latest := filepath.Join(pub, "latest")
	os.Remove(latest)
	if err := os.Symlink(bad, latest); err != nil {
		t.Fatal(err)
	}
	if err := ts.Reload(); err == nil {
		t.Error("a corrupt snapshot loaded")
	}
	if err := ts.Reload(); !errors.Is(err, errSkippedVersion) {
		t.Errorf("second reload of the corrupt snapshot: %v, want it skipped", err)
	}
	var c StoreCard
	if resp, body := ts.getJSON(t, "/api/store?host="+f.world.Stores[0].Host, &c); resp.StatusCode != 200 || c.Snapshot != f.version {
		t.Errorf("after a failed reload: %d %s", resp.StatusCode, body)
	}
}

// TestReadLayerClosesAfterLastRequest holds a reference across a close.
func TestReadLayerClosesAfterLastRequest(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	rl, err := ts.readView()
	if err != nil {
		t.Fatal(err)
	}
	ts.ts.Close()
	ts.Close() // drops the server's reference; ours keeps the layer open
	if r, err := rl.Lookup(f.world.Stores[0].Host); err != nil || r == nil {
		t.Fatalf("lookup while held: %v %v", r, err)
	}
	select {
	case <-rl.(*readlayer.Layer).Closed():
		t.Fatal("closed while a request held it")
	default:
	}
	rl.Release()
	select {
	case <-rl.(*readlayer.Layer).Closed():
	case <-time.After(5 * time.Second):
		t.Fatal("not closed after the last release")
	}
	if rl.Acquire() {
		t.Error("a closed layer was acquired")
	}
	if _, err := ts.readView(); err == nil {
		t.Error("a closed server still reads")
	}
}
