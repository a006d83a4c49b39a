package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"svc/fixtures"
	"svc/pipeline/check"
	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
)

// BenchmarkCrawlVsRawFetch crawls a large fixture world and then fetches
// exactly the requests that crawl made (recorded by the fixture server),
// with the same client and the same concurrency but no parsing, detection
// or journal. The ratio crawl/raw is the engine's overhead over the network
// work itself; the target is at most 1.3. It also reports the peak
// Go heap during the crawl.
//
// SVC_BENCH_STORES sets the world size (default 10,000), SVC_BENCH_ROUNDS
// the number of (crawl, raw) pairs whose median ratio is reported (default
// 3). Slow stores answer after 1.5 s and the client gives up after 1 s in
// both runs.
func BenchmarkCrawlVsRawFetch(b *testing.B) {
	// Rounds of (crawl, raw fetch) alternate, and the median ratio is the
	// figure: on a shared machine one pair can land on a busy moment.
	rounds := 3
	if v, err := strconv.Atoi(os.Getenv("SVC_BENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	const concurrency = 32
	var mu sync.Mutex
	var recorded []fixtures.Request
	recording := atomic.Bool{}
	bw := newBenchWorld(b, concurrency, func(r fixtures.Request) {
		if recording.Load() {
			mu.Lock()
			recorded = append(recorded, r)
			mu.Unlock()
		}
	})
	stores := bw.stores

	for b.Loop() {
		var ratios, rates []float64
		var peakMax uint64
		for round := range rounds {
			runtime.GC() // the heap peak is this round's, not the last one's garbage
			recorded = recorded[:0]
			eng := bw.engine(b)

			stop := make(chan struct{})
			var peak uint64
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { // sample the heap while the crawl runs
				defer wg.Done()
				var ms runtime.MemStats
				t := time.NewTicker(50 * time.Millisecond)
				defer t.Stop()
				for {
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapInuse)
					select {
					case <-stop:
						return
					case <-t.C:
					}
				}
			}()
			recording.Store(true)
			start := time.Now()
			st, err := Crawl(context.Background(), CrawlOptions{Stores: stores, Dir: b.TempDir(), Concurrency: concurrency, Checker: eng})
			crawlTime := time.Since(start)
			recording.Store(false)
			close(stop)
			wg.Wait()
			if err != nil {
				b.Fatal(err)
			}

			// The raw baseline: the same requests, same concurrency, a fresh
			// client with the same limits, bodies read and dropped. Like the
			// crawl, each host's requests go in order on one worker, so both
			// runs reuse connections the same way.
			raw := bw.client(b)
			reqs := append([]fixtures.Request(nil), recorded...)
			byHost := map[string][]fixtures.Request{}
			var hosts []string
			for _, r := range reqs {
				h := hostOf(r.URL)
				if _, ok := byHost[h]; !ok {
					hosts = append(hosts, h)
				}
				byHost[h] = append(byHost[h], r)
			}
			jobs := make(chan []fixtures.Request)
			start = time.Now()
			var rwg sync.WaitGroup
			for range concurrency {
				rwg.Add(1)
				go func() {
					defer rwg.Done()
					for batch := range jobs {
						for _, r := range batch {
							req := fetch.Request{Method: r.Method, URL: r.URL, Body: r.Body, NoRedirect: true}
							if r.Method == http.MethodPost {
								req.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
							}
							raw.Do(context.Background(), req)
						}
					}
				}()
			}
			for _, h := range hosts {
				jobs <- byHost[h]
			}
			close(jobs)
			rwg.Wait()
			rawTime := time.Since(start)

			ratio := crawlTime.Seconds() / rawTime.Seconds()
			ratios = append(ratios, ratio)
			rates = append(rates, float64(st.Total)/crawlTime.Seconds())
			peakMax = max(peakMax, peak)
			fmt.Printf("round %d: crawl of %d fixture stores (%d requests, concurrency %d): %s (%.0f stores/s), raw fetch of the same requests: %s, ratio %.2f, peak heap %.1f MiB, failed %d\n",
				round+1, st.Total, len(reqs), concurrency, crawlTime.Round(time.Millisecond), float64(st.Total)/crawlTime.Seconds(),
				rawTime.Round(time.Millisecond), ratio, float64(peak)/(1<<20), st.Failed)
		}
		ratio, rate := median(ratios), median(rates)
		fmt.Printf("crawl/raw over %d rounds: median %.2f (target <= 1.3), min %.2f, max %.2f; %.0f stores/s; peak heap %.1f MiB\n",
			rounds, ratio, slices.Min(ratios), slices.Max(ratios), rate, float64(peakMax)/(1<<20))
		b.ReportMetric(ratio, "crawl/raw")
		b.ReportMetric(float64(peakMax)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(rate, "stores/s")
	}
}

// BenchmarkRecrawl crawls the bench world twice with one kept-document
// cache, a week apart by the cache's clock, the world unchanged between:
// the second crawl asks conditionally (If-None-Match, If-Modified-Since;
// HEAD for the discovery paths that answered 404) and reuses what the
// stores confirm. It prints the second crawl's body bytes, wire bytes
// (TLS and headers included) and requests against the first's, with the
// issue's target (body bytes <= 0.5), and fails when any published answer
// differs. The world mixes the conditional behaviours of real servers
// (fixtures.ConditionalOf): ETag, Last-Modified, both, neither, ignored.
func BenchmarkRecrawl(b *testing.B) {
	const concurrency = 32
	bw := newBenchWorld(b, concurrency, nil)
	for b.Loop() {
		now := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
		checkAt := now
		cache := &DocCache{Dir: b.TempDir(), Now: func() time.Time { return now }}
		crawl := func() (map[string]string, int, *fetch.Meter, time.Duration) {
			meter := &fetch.Meter{}
			// One check clock for both crawls: checkedAt is the one field
			// that must differ between weeks, and is not what is compared.
			eng := bw.engineWith(b, meter, func() time.Time { return checkAt })
			dir := b.TempDir()
			start := time.Now()
			if _, err := Crawl(context.Background(), CrawlOptions{Stores: bw.stores, Dir: dir, Concurrency: concurrency, Checker: eng, Docs: cache}); err != nil {
				b.Fatal(err)
			}
			took := time.Since(start)
			rows, reused := map[string]string{}, 0
			if err := ReadJournal(filepath.Join(dir, JournalName), func(r CrawlRecord) {
				if r.Result != nil {
					reused += len(r.Result.Reused)
					cp := *r.Result
					cp.Reused = nil
					r.Result = &cp
				}
				row, _ := json.Marshal(CheckRow(r))
				rows[r.Store.Host] = string(row)
			}); err != nil {
				b.Fatal(err)
			}
			return rows, reused, meter, took
		}
		first, _, m1, t1 := crawl()
		now = now.Add(7 * 24 * time.Hour)
		second, reused, m2, t2 := crawl()
		differ := 0
		for h, row := range first {
			if second[h] != row {
				differ++
			}
		}
		ratio := func(a, b int64) float64 { return float64(b) / float64(a) }
		fmt.Printf("second crawl of an unchanged world of %d stores: body bytes %d of %d (ratio %.2f, target <= 0.5), wire bytes %d of %d (%.2f), requests %d of %d (%.2f), %d documents reused, time %s of %s; answers identical: %d of %d\n",
			len(bw.stores), m2.BodyBytes(), m1.BodyBytes(), ratio(m1.BodyBytes(), m2.BodyBytes()),
			m2.WireBytes(), m1.WireBytes(), ratio(m1.WireBytes(), m2.WireBytes()),
			m2.Requests(), m1.Requests(), ratio(m1.Requests(), m2.Requests()), reused,
			t2.Round(time.Millisecond), t1.Round(time.Millisecond), len(first)-differ, len(first))
		b.ReportMetric(ratio(m1.BodyBytes(), m2.BodyBytes()), "body-bytes-ratio")
		b.ReportMetric(ratio(m1.WireBytes(), m2.WireBytes()), "wire-bytes-ratio")
		b.ReportMetric(ratio(m1.Requests(), m2.Requests()), "requests-ratio")
		if differ > 0 || len(second) != len(first) {
			b.Fatalf("%d published answers differ between the crawls", differ)
		}
	}
}

// benchWorld is the fixture world the crawl benchmarks run over: a world
// of SVC_BENCH_STORES stores (default 10,000) whose slow stores answer after
// 1.5 s, served on loopback with its TLS certificates already minted, and
// the directory rows of its stores.
type benchWorld struct {
	srv    *fixtures.Server
	stores []Store
}

// newBenchWorld starts the world (record, if set, sees every request) and
// warms it with concurrency requests at once; b.Cleanup stops it.
func newBenchWorld(b *testing.B, concurrency int, record func(fixtures.Request)) *benchWorld {
	b.Helper()
	n := 10_000
	if v, err := strconv.Atoi(os.Getenv("SVC_BENCH_STORES")); err == nil && v > 0 {
		n = v
	}
	world := fixtures.Generate(1, n)
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{Slow: 1500 * time.Millisecond, MaxConns: 4096, Record: record})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	bw := &benchWorld{srv: srv}
	for _, s := range world.Stores {
		bw.stores = append(bw.stores, Store{Host: s.Host, Name: s.Name, Category: s.Category, Source: s.Source})
	}
	// Mint the per-host TLS certificates (made on first contact) so no
	// timed run pays for them.
	warmFixtureHosts(bw.client(b), bw.stores, concurrency)
	return bw
}

// client is a fresh safe client to the world that gives up after 1 s.
func (bw *benchWorld) client(b *testing.B) *fetch.Client {
	c, err := fetch.New(fetch.Options{FixtureAddr: bw.srv.Addr(), FixtureCA: bw.srv.CAPEM(), Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// engine is a fresh check engine, with its own client and UCP validator,
// as one crawl process has.
func (bw *benchWorld) engine(b *testing.B) *check.Engine { return bw.engineWith(b, nil, nil) }

// engineWith is engine with a client that counts into meter and, when now
// is set, a check clock (so two crawls can publish the same bytes).
func (bw *benchWorld) engineWith(b *testing.B, meter *fetch.Meter, now func() time.Time) *check.Engine {
	client, err := fetch.New(fetch.Options{FixtureAddr: bw.srv.Addr(), FixtureCA: bw.srv.CAPEM(), Timeout: time.Second, Meter: meter})
	if err != nil {
		b.Fatal(err)
	}
	v, err := ucp.New(context.Background(), ucp.Config{SchemaDir: fixtures.UCPSchemaDir(), Client: client, CacheDir: b.TempDir(), Offline: true})
	if err != nil {
		b.Fatal(err)
	}
	return check.New(check.Options{Client: client, UCP: v, Now: now})
}

// warmFixtureHosts makes one request to every store's host, so the fixture
// server mints its per-host TLS certificates before a timed crawl.
func warmFixtureHosts(c *fetch.Client, stores []Store, concurrency int) {
	hosts := make(chan string)
	var wg sync.WaitGroup
	for range concurrency {
		wg.Go(func() {
			for h := range hosts {
				c.Do(context.Background(), fetch.Request{Method: http.MethodHead, URL: "https://" + h + "/robots.txt", NoRedirect: true})
			}
		})
	}
	for _, s := range stores {
		hosts <- s.Host
	}
	close(hosts)
	wg.Wait()
}

func hostOf(u string) string {
	rest := u[strings.Index(u, "://")+3:]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[:i]
	}
	return rest
}

// median of xs (not empty); xs is sorted in place.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
