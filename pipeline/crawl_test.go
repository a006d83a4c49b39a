package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/pipeline/check"
	"svc/pipeline/fetch"
)

// fakeChecker records calls and the peak number of checks running at once.
type fakeChecker struct {
	mu      sync.Mutex
	calls   map[string]int
	running atomic.Int64
	peak    atomic.Int64
	fail    map[string]error
	delay   time.Duration
}

func (f *fakeChecker) Check(ctx context.Context, rawURL string) (*check.Result, error) {
	n := f.running.Add(1)
	defer f.running.Add(-1)
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	host := strings.TrimSuffix(strings.TrimPrefix(rawURL, "https://"), "/")
	f.mu.Lock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[host]++
	f.mu.Unlock()
	if f.delay > 0 {
		time.Sleep(f.delay)
	}
	if err := f.fail[host]; err != nil {
		return nil, err
	}
	return &check.Result{Host: host, URL: rawURL}, nil
}

func stores(n int) []Store {
	var out []Store
	for i := range n {
		out = append(out, Store{Host: fmt.Sprintf("shop-%03d.test", i), Source: "seed"})
	}
	return out
}

func journalHosts(t *testing.T, dir string) []string {
	t.Helper()
	var hosts []string
	if err := ReadJournal(filepath.Join(dir, JournalName), func(r CrawlRecord) { hosts = append(hosts, r.Store.Host) }); err != nil {
		t.Fatal(err)
	}
	sort.Strings(hosts)
	return hosts
}

func TestCrawlChecksEveryStoreOnceWithinConcurrency(t *testing.T) {
	dir := t.TempDir()
	fc := &fakeChecker{delay: 2 * time.Millisecond, fail: map[string]error{
		"shop-007.test": fmt.Errorf("boom: %w", fetch.ErrTimeout),
	}}
	st, err := Crawl(context.Background(), CrawlOptions{Stores: stores(50), Dir: dir, Concurrency: 4, Checker: fc})
	if err != nil {
		t.Fatal(err)
	}
	if st.Total != 50 || st.Done != 50 || st.Failed != 1 || st.Resumed != 0 {
		t.Errorf("stats = %+v", st)
	}
	if p := fc.peak.Load(); p > 4 {
		t.Errorf("peak concurrency %d, want at most 4", p)
	}
	for h, n := range fc.calls {
		if n != 1 {
			t.Errorf("%s checked %d times", h, n)
		}
	}
	if got := len(journalHosts(t, dir)); got != 50 {
		t.Errorf("journal holds %d stores, want 50", got)
	}
	// The failure is recorded as a class, not as raw error text.
	ReadJournal(filepath.Join(dir, JournalName), func(r CrawlRecord) {
		if r.Store.Host == "shop-007.test" && r.Error != "timeout" {
			t.Errorf("failed store recorded as %q, want %q", r.Error, "timeout")
		}
	})
}

// TestCrawlResumes interrupts a crawl, then runs it again: only the stores
// not yet in the journal are checked, and a torn last line is ignored.
func TestCrawlResumes(t *testing.T) {
	dir := t.TempDir()
	all := stores(30)
	fc := &fakeChecker{}
	if _, err := Crawl(context.Background(), CrawlOptions{Stores: all[:12], Dir: dir, Concurrency: 3, Checker: fc}); err != nil {
		t.Fatal(err)
	}
	// A crash mid-write leaves a torn line.
	f, _ := os.OpenFile(filepath.Join(dir, JournalName), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"store":{"host":"shop-020.test"`)
	f.Close()

	fc2 := &fakeChecker{}
	st, err := Crawl(context.Background(), CrawlOptions{Stores: all, Dir: dir, Concurrency: 3, Checker: fc2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Resumed != 12 || st.Done != 18 {
		t.Errorf("stats = %+v, want 12 resumed and 18 done", st)
	}
	for h := range fc2.calls {
		var i int
		fmt.Sscanf(h, "shop-%03d.test", &i)
		if i < 12 {
			t.Errorf("%s was checked again after resume", h)
		}
	}
	var want []string
	for _, s := range all {
		want = append(want, s.Host)
	}
	if diff := cmp.Diff(want, journalHosts(t, dir)); diff != "" {
		t.Errorf("journal hosts (-want +got):\n%s", diff)
	}
}

// cancelAfter cancels the crawl when its checker has finished n checks:
// the cancel comes mid-crawl however slow the machine is.
type cancelAfter struct {
	fakeChecker
	n      int64
	done   atomic.Int64
	cancel func()
}

func (c *cancelAfter) Check(ctx context.Context, rawURL string) (*check.Result, error) {
	r, err := c.fakeChecker.Check(ctx, rawURL)
	if c.done.Add(1) == c.n {
		c.cancel()
	}
	return r, err
}

func TestCrawlCancelledRecordsNothingHalfDone(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	fc := &cancelAfter{fakeChecker: fakeChecker{delay: 20 * time.Millisecond}, n: 6, cancel: cancel}
	_, err := Crawl(ctx, CrawlOptions{Stores: stores(200), Dir: dir, Concurrency: 2, Checker: fc})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// Checks 1 to 5 finished before the cancel (the last of them perhaps
	// only just); the 6th and any in flight finished after it.
	if n := len(journalHosts(t, dir)); n == 0 || n > 5 {
		t.Errorf("journal holds %d stores after cancel, want 1 to 5", n)
	}
}

func TestReadStores(t *testing.T) {
	in := "host,name,category,source\nhttps://Shop.Example/x,Shop,apparel,\nshop.example,Dup,,seed\nother.example.,Other,pets,submitted\n"
	got, err := ReadStores(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Store{
		{Host: "shop.example", Name: "Shop", Category: "apparel", Source: "seed"},
		{Host: "other.example", Name: "Other", Category: "pets", Source: "submitted"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReadStores (-want +got):\n%s", diff)
	}
	for _, bad := range []string{
		"name\nx\n",                           // no host column
		"host\n127.0.0.1\n",                   // unsafe host
		"host,source\nshop.example,friends\n", // unknown source
	} {
		if _, err := ReadStores(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadStores(%q) accepted bad input", bad)
		}
	}
}
