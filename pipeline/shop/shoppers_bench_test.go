package shop

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"svc/datasets/svc100"
	"svc/fixtures"
	"svc/internal/proctree"
	"svc/pipeline/fetch"
	"svc/pipeline/shop/browser"
)

// benchConcurrency is the pages a benchmark run keeps open at once: the
// bounded concurrency of a shopping run on a two-core machine.
const benchConcurrency = 2

// The targets of issue 36.3: the shoppers within 1.3× the floor, on the
// mean of three runs, within 600 MB.
const (
	benchRatioTarget = 1.3
	benchPeakTarget  = 600 // MB of PSS, svc + Chromium
	benchRounds      = 3
)

// BenchmarkShoppers runs shoppers A, B and E, three rounds of each, over
// the 100 fixture stores that stand in for SVC-100 v1. After each store's
// run, on the same worker, it replays exactly the main-frame documents
// that run loaded as plain page loads (a new page, navigate, wait for the
// load event) in the same browser: the floor of any browser agent on that
// store. Pairing each run with its floor keeps the ratio fair on a busy
// machine, where load changes from one minute to the next. The ratio of
// the summed times, shopper/floor, is the cost of the shopper's reading,
// deciding and settling; each shopper's three ratios and their mean are
// printed against the target (≤ 1.3×). Throughout it samples the memory of
// svc (this process) and its Chromium process tree from /proc and reports
// the peak (target ≤ 600 MB, PSS; RSS double-counts Chromium's shared
// pages and is reported beside it); the fixture world, the internet's
// stand-in, runs in a child process left out of the sum. Each run's
// outcomes are held to the world's truth and the stores that differ are
// named. The figures are printed, not asserted. SVC_BENCH_SHOP_STORES=N
// runs the first N stores only, SVC_BENCH_SHOPPERS=A,E other shoppers and
// SVC_BENCH_SHOP_ROUNDS=1 fewer rounds; SVC_BENCH_SHOP_LATENCY=200ms
// delays every answer of the world as a real store's round trip would;
// SVC_BENCH_SHOP_TRAIT=html_form_cart runs the stores of one shop trait.
func BenchmarkShoppers(b *testing.B) {
	if browser.FindExecPath() == "" {
		b.Skip("no Chromium found: the browser shoppers cannot be measured")
	}
	if !svc100.FixtureStandIn() {
		b.Skip("SVC-100 v1 is not the fixture stand-in set")
	}
	ctx := context.Background()
	// The fixture world is the internet's stand-in, not part of svc: it
	// runs in a child process the memory sampler leaves out.
	world := startWorldProcess(b)
	br, err := browser.Start(ctx, browser.Options{FixtureAddr: world.addr, FixtureCA: world.ca})
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	c, err := fetch.New(fetch.Options{FixtureAddr: world.addr, FixtureCA: world.ca})
	if err != nil {
		b.Fatal(err)
	}
	var hosts []string
	for _, st := range svc100.Stores() {
		hosts = append(hosts, st.Host)
	}
	if n, _ := strconv.Atoi(os.Getenv("SVC_BENCH_SHOP_STORES")); n > 0 && n < len(hosts) {
		hosts = hosts[:n]
	}
	w := fixtures.Generate(1, fixtures.DefaultStores)
	traits := map[string]string{} // the shop trait of each store, for the report
	for _, st := range w.Stores {
		traits[st.Host] = st.ShopTrait()
	}
	if tr := os.Getenv("SVC_BENCH_SHOP_TRAIT"); tr != "" {
		var keep []string
		for _, h := range hosts {
			if traits[h] == tr {
				keep = append(keep, h)
			}
		}
		hosts = keep
	}
	shoppers := []Shopper{Semantic, Accessibility, Mobile}
	if v := os.Getenv("SVC_BENCH_SHOPPERS"); v != "" {
		shoppers = nil
		for _, x := range strings.Split(v, ",") {
			shoppers = append(shoppers, Shopper(strings.TrimSpace(x)))
		}
	}
	rounds := benchRounds
	if n, _ := strconv.Atoi(os.Getenv("SVC_BENCH_SHOP_ROUNDS")); n > 0 {
		rounds = n
	}
	want := func(h string, sh Shopper) string {
		t, _ := w.ShopTruth(h)
		return t.Want[string(sh)]
	}
	for i := 0; i < b.N; i++ {
		ratios := map[Shopper][]float64{}
		var peakMB float64
		wrongRuns := 0
		// Rounds go A, B, E, A, B, E …, so that a minute of heavy load
		// on the machine falls on every shopper alike.
		for r := 1; r <= rounds; r++ {
			for _, sh := range shoppers {
				p := shopPass(ctx, br, c, sh, hosts, world.pid)
				ratio := p.shopping.Seconds() / p.floor.Seconds()
				ratios[sh] = append(ratios[sh], ratio)
				mb := float64(p.peak.pss) / (1 << 20)
				peakMB = max(peakMB, mb)
				var wrong []string
				for _, h := range hosts {
					if wt := want(h, sh); wt != "" && p.outcomeOf[h] != wt {
						wrong = append(wrong, fmt.Sprintf("%s %s (want %s)", h, p.outcomeOf[h], wt))
					}
				}
				wrongRuns += len(wrong)
				fmt.Printf("shopper %s, run %d of %d, over %d SVC-100 stand-ins, %d pages at a time (%s in all): shopping %s; floor (the %d documents it loaded, replayed as plain loads after each store) %s; ratio %.2f× (target ≤ %.1f×)\n",
					sh, r, rounds, len(hosts), benchConcurrency, p.wall.Round(time.Millisecond), p.shopping.Round(time.Millisecond), p.loads, p.floor.Round(time.Millisecond), ratio, benchRatioTarget)
				fmt.Printf("  peak memory, svc + Chromium: PSS %.0f MB, RSS %.0f MB over %d processes (target ≤ %d MB); outcomes %v; %d of %d as the world's truth%s\n",
					mb, float64(p.peak.rss)/(1<<20), p.peak.procs, benchPeakTarget, p.outcomes, len(hosts)-len(wrong), len(hosts), strings.Join(append([]string{""}, wrong...), "; differs: "))
				fmt.Printf("  at the peak, PSS by process: %s; stores in flight %v\n", p.peak.byKind, p.peak.inFlight)
				fmt.Printf("  the floor: new pages %s, loads %s, closing %s\n", p.floorOpen.Round(time.Millisecond), p.floorLoads.Round(time.Millisecond), (p.floor - p.floorOpen - p.floorLoads).Round(time.Millisecond))
				printPhases(p.phases, p.shopping)
				printExcess(hosts, p.took, p.floorTook, p.outcomeOf, traits)
			}
		}
		fmt.Printf("shoppers against the page-load floor, %d run(s) each (target ≤ %.1f× on the mean, ≤ %d MB peak):\n", rounds, benchRatioTarget, benchPeakTarget)
		var all []float64
		for _, sh := range shoppers {
			m := mean(ratios[sh])
			all = append(all, m)
			var each []string
			for _, x := range ratios[sh] {
				each = append(each, fmt.Sprintf("%.2f×", x))
			}
			fmt.Printf("  %s: %s, mean %.2f× %s\n", sh, strings.Join(each, ", "), m, metOrNot(m <= benchRatioTarget))
			b.ReportMetric(m, "x_floor_"+string(sh))
		}
		fmt.Printf("  all: mean %.2f× %s; peak PSS %.0f MB %s; %d run(s) off the world's truth\n",
			mean(all), metOrNot(mean(all) <= benchRatioTarget), peakMB, metOrNot(peakMB <= benchPeakTarget), wrongRuns)
		b.ReportMetric(peakMB, "MB_peak_pss")
	}
}

// pass is one shopper's run over the stores, with each store's floor.
type pass struct {
	wall, shopping, floor time.Duration
	floorOpen, floorLoads time.Duration // the floor's new pages, and its loads
	loads                 int
	outcomes              map[string]int
	took, floorTook       map[string]time.Duration
	outcomeOf             map[string]string
	phases                map[string]time.Duration
	peak                  memPeak
}

// shopPass runs shopper sh over hosts, benchConcurrency at a time, and
// after each store replays its documents as plain loads on the same worker.
// The memory sampler leaves out the process skip (the fixture world).
func shopPass(ctx context.Context, br *browser.Browser, c *fetch.Client, sh Shopper, hosts []string, skip int) pass {
	var mu sync.Mutex
	p := pass{outcomes: map[string]int{}, took: map[string]time.Duration{}, floorTook: map[string]time.Duration{}, outcomeOf: map[string]string{}}
	mem := sampleMemory(skip)
	timePhases(true)
	start := time.Now()
	each(hosts, func(h string) {
		inFlight.Store(h, true)
		defer inFlight.Delete(h)
		var docs []string
		opts := Options{Browser: br, Client: c, documents: func(_ string, ds []browser.Document) { docs = replayable(ds) }}
		t0 := time.Now()
		rep, _ := Run(ctx, opts, sh, "https://"+h+"/")
		shop := time.Since(t0)
		// The floor of this store, right after its run, on the
		// same worker: both see the same load on the machine.
		t0 = time.Now()
		var opened, loaded time.Duration
		if pg, err := br.NewPage(ctx, browser.PageOptions{Mobile: sh == Mobile}); err == nil {
			opened = time.Since(t0)
			for _, u := range docs {
				lctx, cancel := context.WithTimeout(ctx, DefaultStepTimeout)
				_ = pg.Load(lctx, u)
				cancel()
			}
			loaded = time.Since(t0) - opened
			pg.Close()
		}
		floor := time.Since(t0)
		mu.Lock()
		defer mu.Unlock()
		p.took[h], p.floorTook[h], p.loads = shop, floor, p.loads+len(docs)
		p.shopping += shop
		p.floor += floor
		p.floorOpen += opened
		p.floorLoads += loaded
		if rep != nil {
			p.outcomes[rep.Outcome]++
			p.outcomeOf[h] = rep.Outcome
		}
	})
	p.wall = time.Since(start)
	p.phases = timePhases(false)
	p.peak = mem.stop()
	return p
}

// printPhases prints where the shoppers' time went, by phase, as a share
// of the summed shopping time.
func printPhases(phases map[string]time.Duration, shopping time.Duration) {
	if len(phases) == 0 {
		return
	}
	var names []string
	for k := range phases {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return phases[names[i]] > phases[names[j]] })
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s %s (%.0f%%)", k, phases[k].Round(time.Millisecond), 100*phases[k].Seconds()/shopping.Seconds()))
	}
	fmt.Printf("  time by phase (summed over stores; phases overlap where they nest): %s\n", strings.Join(parts, ", "))
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func metOrNot(ok bool) string {
	if ok {
		return "(met)"
	}
	return "(NOT met)"
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

// memPeak is the largest memory of this process and its descendants seen,
// with the PSS by kind of process and the stores in flight at that moment.
type memPeak struct {
	pss, rss, procs int64
	byKind          string
	inFlight        []string
}

// inFlight holds the hosts whose runs are going on, for memPeak.
var inFlight sync.Map

type sampler struct {
	stopc chan struct{}
	done  chan memPeak
}

// sampleMemory samples, every 100 ms until stop, the PSS and RSS summed
// over this process and every process descended from it (Chromium's
// browser, renderers and utility processes), leaving out the process
// skip and its descendants (the fixture world).
func sampleMemory(skip int) *sampler {
	s := &sampler{stopc: make(chan struct{}), done: make(chan memPeak, 1)}
	go func() {
		var peak memPeak
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			m := treeMemory(os.Getpid(), skip)
			if m.pss > peak.pss {
				peak.pss, peak.byKind, peak.inFlight = m.pss, m.byKind, nil
				inFlight.Range(func(k, _ any) bool { peak.inFlight = append(peak.inFlight, k.(string)); return true })
			}
			peak.rss = max(peak.rss, m.rss)
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

// treeMemory sums /proc/<pid>/smaps_rollup over root and its descendants,
// except skip and its descendants.
func treeMemory(root, skip int) memPeak {
	var m memPeak
	kinds, counts := map[string]int64{}, map[string]int{}
	for _, pid := range proctree.Descendants(root, skip) {
		pss, rss, ok := smapsRollup(pid)
		if !ok {
			continue
		}
		m.procs++
		m.pss += pss
		m.rss += rss
		kinds[processKind(pid, root)] += pss
		counts[processKind(pid, root)]++
	}
	var parts []string
	for k, v := range kinds {
		parts = append(parts, fmt.Sprintf("%s %.0f MB (%d)", k, float64(v)/(1<<20), counts[k]))
	}
	sort.Strings(parts)
	m.byKind = strings.Join(parts, ", ")
	return m
}

// smapsRollup reads a process's PSS and RSS in bytes.
func smapsRollup(pid int) (pss, rss int64, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		for _, k := range []struct {
			prefix string
			into   *int64
		}{{"Pss:", &pss}, {"Rss:", &rss}} {
			if rest, found := strings.CutPrefix(line, k.prefix); found {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				*k.into += kb << 10
			}
		}
	}
	return pss, rss, true
}

// processKind names a process of the tree: svc itself, or Chromium's
// browser process, or its --type= (renderer, utility, zygote …).
func processKind(pid, root int) string {
	if pid == root {
		return "svc"
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return "other"
	}
	for _, a := range strings.FieldsFunc(string(b), func(r rune) bool { return r == 0 || r == ' ' }) {
		if t, ok := strings.CutPrefix(a, "--type="); ok {
			return "chromium " + t
		}
	}
	return "chromium browser"
}

// printExcess prints the stores where the shopper spent the most time
// above the floor's plain loads of the same documents, so the next speed
// work knows where to look.
func printExcess(hosts []string, took, floor map[string]time.Duration, outcome, trait map[string]string) {
	type row struct {
		host       string
		shop, base time.Duration
	}
	var rows []row
	type sum struct {
		n          int
		shop, base time.Duration
	}
	byTrait := map[string]*sum{}
	for _, h := range hosts {
		rows = append(rows, row{h, took[h], floor[h]})
		t := byTrait[trait[h]]
		if t == nil {
			t = &sum{}
			byTrait[trait[h]] = t
		}
		t.n, t.shop, t.base = t.n+1, t.shop+took[h], t.base+floor[h]
	}
	var names []string
	for k := range byTrait {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := byTrait[names[i]], byTrait[names[j]]
		return a.shop-a.base > b.shop-b.base
	})
	fmt.Println("  by shop trait (stores: shopper / floor):")
	for _, k := range names {
		t := byTrait[k]
		fmt.Printf("    %-34s %3d: %8s / %8s (%.2f×)\n", k, t.n, t.shop.Round(time.Millisecond), t.base.Round(time.Millisecond), t.shop.Seconds()/t.base.Seconds())
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].shop-rows[i].base > rows[j].shop-rows[j].base })
	fmt.Println("  furthest above the floor:")
	for _, r := range rows[:min(8, len(rows))] {
		fmt.Printf("    %-28s %-34s %-16s shopper %6s  floor %6s\n", r.host, trait[r.host], outcome[r.host], r.shop.Round(time.Millisecond), r.base.Round(time.Millisecond))
	}
}

// worldProcess is the fixture world served by a child process.
type worldProcess struct {
	pid  int
	addr string
	ca   []byte
}

// startWorldProcess runs this test binary again as the fixture world
// (serveWorldProcess) and reads its address and CA.
func startWorldProcess(b *testing.B) worldProcess {
	b.Helper()
	dir := b.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SVC_FIXTURE_WORLD_PROCESS="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "addr ")
	if err != nil || !ok {
		b.Fatalf("fixture world process: %q %v", line, err)
	}
	ca, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	if err != nil {
		b.Fatal(err)
	}
	return worldProcess{pid: cmd.Process.Pid, addr: addr, ca: ca}
}

// serveWorldProcess is the child of startWorldProcess, called from
// TestMain: with SVC_FIXTURE_WORLD_PROCESS set to a directory it serves the
// fixture world, writes the CA there, prints its address and serves until
// stdin closes. It reports whether it was the child.
func serveWorldProcess() bool {
	dir := os.Getenv("SVC_FIXTURE_WORLD_PROCESS")
	if dir == "" {
		return false
	}
	latency, _ := time.ParseDuration(os.Getenv("SVC_BENCH_SHOP_LATENCY"))
	srv, err := fixtures.NewServer(fixtures.Generate(1, fixtures.DefaultStores), fixtures.ServerOptions{CAOut: filepath.Join(dir, "ca.pem"), Latency: latency})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer srv.Close()
	fmt.Printf("addr %s\n", srv.Addr())
	io.Copy(io.Discard, os.Stdin)
	return true
}
