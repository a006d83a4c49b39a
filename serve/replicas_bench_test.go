package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
	"svc/pipeline/inbox/pgtest"
)

// BenchmarkReplicas measures store-submission and live-check throughput
// through one and through two replicas sharing one PostgreSQL database
// (in-process servers over loopback, 16 clients, each request from its own
// network so no per-network limit applies; 450 of each, under the
// site-wide fresh-check quota), with the file log as the baseline.
// The fixture world answers every store, so the figures are svc's and the
// database's cost plus the world's, not the internet's.
//
// In the same run it measures the per-host reads (precheck, store card,
// product data, agent facts, Index answer) through the same replicas, over
// a small synthetic snapshot (SVC_REPLICA_BENCH_STORES, default 10,000;
// BenchmarkSavedReadsMillion is the million-store one), p50 and p99, each
// against its floor: a bare http.FileServer per replica serving a file of
// the read's mean answer size, loaded the same way. readLoad's 4 workers
// run against each replica at once (SVC_LOAD_SECONDS, default 20 s, is
// split over the reads: a tenth each).
func BenchmarkReplicas(b *testing.B) {
	world := fixtures.Generate(1, 3000)
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{Slow: 1500 * time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	client, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM(), Timeout: 2 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	var hosts []string
	for _, st := range world.Stores {
		if out, _ := expectedOutcome(st); out == OutcomeAccepted && !hasTrait(st, "block:") && !hasTrait(st, "slow") {
			hosts = append(hosts, st.Host)
		}
	}
	// The site-wide quotas bound a day's work: 500 fresh checks.
	n := min(len(hosts)/2, quotaSiteFresh.Max-50)
	subHosts, checkHosts := hosts[:n], hosts[n:2*n]
	stores := 10_000
	if v := os.Getenv("SVC_REPLICA_BENCH_STORES"); v != "" {
		if stores, err = strconv.Atoi(v); err != nil || stores < 1 {
			b.Fatalf("SVC_REPLICA_BENCH_STORES=%q", v)
		}
	}
	snap := b.TempDir() // public/ only: each replica gets its own state
	if err := writeSynthSnapshot(snap, "2026-11-16", stores, time.Now()); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		replicas int
		pg       bool
	}{{"file/1", 1, false}, {"postgres/1", 1, true}, {"postgres/2", 2, true}} {
		b.Run(tc.name, func(b *testing.B) {
			cfg := Config{Client: client, Engine: check.New(check.Options{Client: client}), TrustProxy: true}
			if tc.pg {
				cfg.State = pgtest.URL(b)
			}
			var bases []string
			for range tc.replicas {
				c := cfg
				c.DataDir = b.TempDir()
				if err := os.Symlink(filepath.Join(snap, "public"), filepath.Join(c.DataDir, "public")); err != nil {
					b.Fatal(err)
				}
				s, err := New(c)
				if err != nil {
					b.Fatal(err)
				}
				ts := newBenchServer(b, s)
				bases = append(bases, ts)
			}
			for range b.N {
				subs := load(b, bases, subHosts, func(base, host string, n uint32) (*http.Request, error) {
					body, _ := json.Marshal(StoreSubmission{URL: host})
					req, err := http.NewRequest(http.MethodPost, base+"/api/stores/submit", strings.NewReader(string(body)))
					req.Header.Set("Content-Type", "application/json")
					return req, err
				})
				checks := load(b, bases, checkHosts, func(base, host string, n uint32) (*http.Request, error) {
					return http.NewRequest(http.MethodGet, base+"/api/agent-checkout?url="+host, nil)
				})
				b.ReportMetric(subs, "submissions/s")
				b.ReportMetric(checks, "live_checks/s")
				fmt.Printf("replicas %s: %.0f submissions/s, %.0f live checks/s; per-host reads on %d stores, p50/p99 against a bare http.FileServer floor:\n",
					tc.name, subs, checks, stores)
				for _, rc := range replicaReads {
					read, floor, size := replicaReadLoad(b, bases, rc.path, stores)
					fmt.Printf("  %-12s p50 %6s  p99 %6s   floor p50 %6s  p99 %6s   (%.0f req/s, answer %d bytes)\n", rc.name,
						read.p50.Round(time.Microsecond), read.p99.Round(time.Microsecond),
						floor.p50.Round(time.Microsecond), floor.p99.Round(time.Microsecond), read.rps, size)
					b.ReportMetric(float64(read.p99.Microseconds())/1000, strings.ReplaceAll(rc.name, " ", "_")+"-p99-ms")
				}
			}
		})
	}
}

// replicaReads are the per-host reads BenchmarkReplicas measures, as a
// path the host is appended to.
var replicaReads = []struct{ name, path string }{
	{"precheck", "/api/precheck?url="},
	{"store card", "/api/store?host="},
	{"product data", "/api/agent-checkout/product-data?host="},
	{"agent facts", "/api/agent-facts?host="},
	{"index answer", "/api/ask?url="},
}

// replicaReadLoad loads path through every replica at once (readLoad on
// each), then as many bare http.FileServers serving a file of the mean
// answer size, and returns both, latencies merged, and that size.
func replicaReadLoad(b *testing.B, bases []string, path string, n int) (read, floor loadResult, size int) {
	b.Helper()
	d := loadDuration() / 10
	size = replicaAnswerSize(b, bases[0], path, n)
	dir := b.TempDir()
	body := bytes.Repeat([]byte("{\"abcdefghij\":0123456789}"), size/24+1)[:size]
	if err := os.WriteFile(filepath.Join(dir, "answer"), body, 0o644); err != nil {
		b.Fatal(err)
	}
	var floors []string
	for range bases {
		fs := httptest.NewServer(http.FileServer(http.Dir(dir)))
		defer fs.Close()
		floors = append(floors, fs.URL)
	}
	at := func(urls []string, p string) loadResult {
		lats := make([][]time.Duration, len(urls))
		var wg sync.WaitGroup
		for i, u := range urls {
			wg.Go(func() { lats[i] = readLoad(b, strings.TrimPrefix(u, "http://"), p, n, d).lat })
		}
		wg.Wait()
		return summarize(slices.Concat(lats...), d)
	}
	return at(bases, path), at(floors, "/answer?host="), size
}

// replicaAnswerSize is the mean body size of path's answers for 100
// synthetic hosts.
func replicaAnswerSize(b *testing.B, base, path string, n int) int {
	total := 0
	const k = 100
	for i := range k {
		req, _ := http.NewRequest(http.MethodGet, base+path+synthHost(i*(n/k)), nil)
		req.Header.Set("X-Forwarded-For", fmt.Sprintf("198.19.1.%d", i))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("%s: %d %.200s", path, resp.StatusCode, body)
		}
		total += len(body)
	}
	return total / k
}

func newBenchServer(b *testing.B, s *Server) string {
	hs := &http.Server{Handler: s.Handler()}
	ln, err := listenLoopback()
	if err != nil {
		b.Fatal(err)
	}
	go hs.Serve(ln)
	b.Cleanup(func() { hs.Close(); s.Close() })
	return "http://" + ln.Addr().String()
}

// load sends one request per host from 16 clients, round robin over the
// replicas, each from a new network, and returns requests per second.
func load(b *testing.B, bases, hosts []string, mk func(base, host string, n uint32) (*http.Request, error)) float64 {
	b.Helper()
	var next, netN atomic.Uint32
	var wg sync.WaitGroup
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	start := time.Now()
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(hosts) {
					return
				}
				n := netN.Add(1)
				req, err := mk(bases[i%len(bases)], hosts[i], n)
				if err != nil {
					b.Error(err)
					return
				}
				req.Header.Set("X-Forwarded-For", fmt.Sprintf("10.%d.%d.%d", byte(n>>16), byte(n>>8), byte(n)))
				resp, err := hc.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Errorf("%s %s: %d", req.Method, req.URL.Path, resp.StatusCode)
				}
			}
		}()
	}
	wg.Wait()
	return float64(len(hosts)) / time.Since(start).Seconds()
}
