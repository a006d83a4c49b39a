package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
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
			}
		})
	}
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
