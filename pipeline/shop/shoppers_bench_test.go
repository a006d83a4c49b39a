package shop

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"svc/datasets/svc100"
	"svc/fixtures"
	"svc/pipeline/fetch"
	"svc/pipeline/shop/browser"
)

// benchConcurrency is the pages a benchmark run keeps open at once: the
// bounded concurrency of a shopping run on a two-core machine.
const benchConcurrency = 2

// BenchmarkShoppers runs shopper A, then B, over the 100 fixture stores
// that stand in for SVC-100 v1, recording the main-frame documents each
// run loaded; then it replays exactly those documents, store by store, as
// plain page loads (navigate, wait for the load event) in the same
// browser with the same concurrency. That replay is the floor of any
// browser agent on these stores: the ratio shopper/floor is the cost of
// the shopper's reading, deciding and settling (target ≤ 1.5). During the
// shopper's runs it samples the memory of svc (this process) and its
// Chromium process tree from /proc and reports the peak (target ≤ 600
// MB, PSS; RSS double-counts Chromium's shared pages and is reported
// beside it). The figures are printed, not asserted.
func BenchmarkShoppers(b *testing.B) {
	if browser.FindExecPath() == "" {
		b.Skip("no Chromium found: the browser shoppers cannot be measured")
	}
	if !svc100.FixtureStandIn() {
		b.Skip("SVC-100 v1 is not the fixture stand-in set")
	}
	ctx := context.Background()
	srv, err := fixtures.NewServer(fixtures.Generate(1, fixtures.DefaultStores), fixtures.ServerOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	br, err := browser.Start(ctx, browser.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM()})
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	c, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM()})
	if err != nil {
		b.Fatal(err)
	}
	var hosts []string
	for _, st := range svc100.Stores() {
		hosts = append(hosts, st.Host)
	}
	for i := 0; i < b.N; i++ {
		for _, sh := range []Shopper{Semantic, Accessibility} {
			var mu sync.Mutex
			docs := map[string][]string{}
			outcomes := map[string]int{}
			opts := Options{Browser: br, Client: c, documents: func(host string, ds []browser.Document) {
				mu.Lock()
				defer mu.Unlock()
				docs[host] = replayable(ds)
			}}
			mem := sampleMemory()
			start := time.Now()
			each(hosts, func(h string) {
				rep, _ := Run(ctx, opts, sh, "https://"+h+"/")
				if rep != nil {
					mu.Lock()
					outcomes[rep.Outcome]++
					mu.Unlock()
				}
			})
			shopping := time.Since(start)
			peak := mem.stop()

			loads := 0
			start = time.Now()
			each(hosts, func(h string) {
				p, err := br.NewPage(ctx, browser.PageOptions{Mobile: sh == Mobile})
				if err != nil {
					return
				}
				defer p.Close()
				for _, u := range docs[h] {
					lctx, cancel := context.WithTimeout(ctx, DefaultStepTimeout)
					_ = p.Load(lctx, u)
					cancel()
				}
			})
			floor := time.Since(start)
			for _, d := range docs {
				loads += len(d)
			}
			ratio := shopping.Seconds() / floor.Seconds()
			b.ReportMetric(ratio, "x_floor_"+string(sh))
			b.ReportMetric(float64(peak.pss)/(1<<20), "MB_peak_pss_"+string(sh))
			fmt.Printf("shopper %s over %d SVC-100 stand-ins, %d pages at a time: %s; floor (the %d documents it loaded, replayed as plain loads): %s; ratio %.2f× (target ≤ 1.5×)\n",
				sh, len(hosts), benchConcurrency, shopping.Round(time.Millisecond), loads, floor.Round(time.Millisecond), ratio)
			fmt.Printf("  peak memory, svc + Chromium: PSS %.0f MB, RSS %.0f MB over %d processes (target ≤ 600 MB); outcomes %v\n",
				float64(peak.pss)/(1<<20), float64(peak.rss)/(1<<20), peak.procs, outcomes)
		}
	}
}

// replayable keeps the documents a plain load can repeat: every URL the
// page showed (answered or failed), not the redirects in between (the
// load follows them) nor the navigations the shopper's rules refused.
func replayable(ds []browser.Document) []string {
	var out []string
	for _, d := range ds {
		if d.URL == nil || d.Err == "refused" || d.Err == "" && d.Status >= 300 && d.Status < 400 {
			continue
		}
		out = append(out, d.URL.String())
	}
	return out
}

// each calls f for every host, benchConcurrency at a time.
func each(hosts []string, f func(string)) {
	sem := make(chan struct{}, benchConcurrency)
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f(h)
		}()
	}
	wg.Wait()
}

// memPeak is the largest memory of this process and its descendants seen.
type memPeak struct{ pss, rss, procs int64 }

type sampler struct {
	stopc chan struct{}
	done  chan memPeak
}

// sampleMemory samples, every 100 ms until stop, the PSS and RSS summed
// over this process and every process descended from it (Chromium's
// browser, renderers, GPU and utility processes).
func sampleMemory() *sampler {
	s := &sampler{stopc: make(chan struct{}), done: make(chan memPeak, 1)}
	go func() {
		var peak memPeak
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			m := treeMemory(os.Getpid())
			if m.pss > peak.pss {
				peak.pss = m.pss
			}
			if m.rss > peak.rss {
				peak.rss = m.rss
			}
			peak.procs = max(peak.procs, m.procs)
			select {
			case <-s.stopc:
				s.done <- peak
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *sampler) stop() memPeak {
	close(s.stopc)
	return <-s.done
}

// treeMemory sums /proc/<pid>/smaps_rollup over root and its descendants.
func treeMemory(root int) memPeak {
	children := map[int][]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(b[i+1:]))
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if len(fields) > 1 {
			ppid, _ := strconv.Atoi(fields[1])
			children[ppid] = append(children[ppid], pid)
		}
	}
	var m memPeak
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		queue = append(queue, children[pid]...)
		f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
		if err != nil {
			continue
		}
		m.procs++
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			for _, k := range []struct {
				prefix string
				into   *int64
			}{{"Pss:", &m.pss}, {"Rss:", &m.rss}} {
				if rest, ok := strings.CutPrefix(line, k.prefix); ok {
					kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
					*k.into += kb << 10
				}
			}
		}
		f.Close()
	}
	return m
}
