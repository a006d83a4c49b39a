package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"svc/datasets/svc100"
	"svc/fixtures"
	"svc/fixtures/shops"
	"svc/internal/proctree"
	"svc/pipeline/shop"
	"svc/pipeline/shop/browser"
)

// The browser faults of the shop stage (issue 36), injected for real:
// Chromium killed or frozen while a run is in flight, and pages that
// never settle. Each test runs the stage with real Chromium over a few
// fixture shops (whose true outcomes shops.Truths gives) and the hostile
// stores of faultWorld, served on loopback as *.test names.

// faultWorld serves the fixture shops and the hostile stores on one
// loopback port that speaks TLS for *.test names.
type faultWorld struct {
	addr string
	ca   []byte
	// held receives once for each request of hold.test's page, which is
	// answered only when release is closed (or after 20 s).
	held    chan struct{}
	release chan struct{}
	// hugeSent counts the bytes of the 100 MB answers written before the
	// reader stopped.
	hugeSent atomic.Int64
}

// hugeBytes is the size of the hostile answers: 100 MB, written from one
// small buffer, so that only the reader could hold them.
const hugeBytes = 100 << 20

func newFaultWorld(t *testing.T) *faultWorld {
	t.Helper()
	ln, ca, err := fixtures.Listen("127.0.0.1:0", 0)
	if err != nil {
		t.Fatal(err)
	}
	w := &faultWorld{addr: ln.Addr().String(), ca: ca, held: make(chan struct{}, 8), release: make(chan struct{})}
	sh := shops.New()
	srv := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		host, _, _ := strings.Cut(r.Host, ":")
		switch host {
		case "hold.test":
			w.hold(r)
			fmt.Fprint(rw, `<!doctype html><title>Held</title><h1>Held</h1>`)
		case "heldimg.test":
			// A page drawn at once whose image is held as hold.test's
			// page is: the tab's renderer is up, the run waiting.
			if r.URL.Path != "/" {
				w.hold(r)
				return
			}
			fmt.Fprint(rw, `<!doctype html><title>Held image</title><h1>Held image</h1><img src="/held.png" alt=""><a href="/p/1">A product</a>`)
		case "busy.test":
			// A script that never yields: the renderer answers nothing.
			fmt.Fprint(rw, `<!doctype html><title>Busy</title><h1>Busy</h1><a href="/p/1">A product</a><script>while (true) {}</script>`)
		case "endless.test":
			// Requests without end, four at a time, each answered after
			// 100 ms, on every page: never quiet.
			if r.URL.Path != "/poll" {
				fmt.Fprint(rw, `<!doctype html><title>Endless</title><h1>Endless</h1><a href="/p/1">A product</a>
<script>function more() { fetch('/poll?' + Math.random()).then(r => r.text()).finally(more); }
for (const ms of [0, 25, 50, 75]) setTimeout(more, ms);</script>`)
				return
			}
			time.Sleep(100 * time.Millisecond)
			fmt.Fprint(rw, "more")
		case "huge.test":
			// A page whose script is 100 MB.
			if r.URL.Path == "/" {
				fmt.Fprint(rw, `<!doctype html><title>Huge</title><h1>Huge</h1><script src="/huge.js"></script><p>After</p>`)
				return
			}
			w.writeHuge(rw, r)
		case "hugedoc.test":
			// The page itself is 100 MB.
			rw.Header().Set("Content-Type", "text/html")
			w.writeHuge(rw, r)
		default:
			sh.ServeHTTP(rw, r)
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		w.unhold()
		_ = srv.Close()
	})
	return w
}

// hold says that r is asked for (held) and keeps it until release is
// closed, r is abandoned, or 20 s have passed.
func (w *faultWorld) hold(r *http.Request) {
	w.held <- struct{}{}
	select {
	case <-w.release:
	case <-r.Context().Done():
	case <-time.After(20 * time.Second):
	}
}

func (w *faultWorld) unhold() {
	select {
	case <-w.release:
	default:
		close(w.release)
	}
}

func (w *faultWorld) writeHuge(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Content-Length", strconv.Itoa(hugeBytes))
	chunk := bytes.Repeat([]byte("<p>svc</p>\n"), 64<<10/11)
	for sent := 0; sent < hugeBytes; {
		n := min(len(chunk), hugeBytes-sent)
		if _, err := rw.Write(chunk[:n]); err != nil || r.Context().Err() != nil {
			return
		}
		sent += n
		w.hugeSent.Add(int64(n))
	}
}

// startFaultBrowser starts Chromium against w, or skips the test when
// there is none (fails under CI=true).
func startFaultBrowser(t *testing.T, w *faultWorld, hang time.Duration) *browser.Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("runs Chromium")
	}
	if browser.FindExecPath() == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but no Chromium found: the browser faults are not tested")
		}
		t.Skip("no Chromium found (install Debian's chromium package, or set SVC_CHROMIUM)")
	}
	b, err := browser.Start(context.Background(), browser.Options{FixtureAddr: w.addr, FixtureCA: w.ca, HangTimeout: hang,
		Logf: func(f string, a ...any) { t.Logf("%s "+f, append([]any{time.Now().Format("15:04:05.000")}, a...)...) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// timedRun is one run of a fault test's stage, as its runner saw it.
type timedRun struct {
	host       string
	start, end time.Time
	pid        int // the browser's process when the run started
	rep        *shop.Report
}

// faultStage is the stage over hosts with shopper A, two pages at once,
// each run bounded by bound(host); it returns the stage's options and
// the runs as they ended.
func faultStage(t *testing.T, b *browser.Browser, hosts []string, bound func(host string) time.Duration) (ShopStageOptions, func() []timedRun) {
	var mu sync.Mutex
	var runs []timedRun
	var stores []Store
	for _, h := range hosts {
		stores = append(stores, Store{Host: h, Source: "seed"})
	}
	o := ShopStageOptions{
		StageEnv: StageEnv{DataDir: t.TempDir(), RunID: "f1", Out: io.Discard, ErrOut: io.Discard},
		Stores:   stores, Concurrency: 2, Shoppers: []shop.Shopper{shop.Semantic},
		testSet: []svc100.Store{},
		Run: func(ctx context.Context, sh shop.Shopper, u string) (*shop.Report, error) {
			host := strings.TrimSuffix(strings.TrimPrefix(u, "https://"), "/")
			r := timedRun{host: host, start: time.Now(), pid: b.PID()}
			t.Logf("%s start %s", time.Now().Format("15:04:05.000"), host)
			so := shop.Options{Browser: b, RunTimeout: bound(host)}
			rep, err := shop.Run(ctx, so, sh, u)
			r.end, r.rep = time.Now(), rep
			t.Logf("%s end %s: %s %s", time.Now().Format("15:04:05.000"), host, rep.Outcome, rep.Reason)
			mu.Lock()
			runs = append(runs, r)
			mu.Unlock()
			return rep, err
		},
	}
	return o, func() []timedRun {
		mu.Lock()
		defer mu.Unlock()
		return append([]timedRun(nil), runs...)
	}
}

// journalOutcomes reads the stage's journal: outcome and reason per host.
func journalOutcomes(t *testing.T, o ShopStageOptions) map[string]ShopRecord {
	t.Helper()
	out := map[string]ShopRecord{}
	err := readShopJournal(filepath.Join(ShopDir(RunDir(o.DataDir, o.RunID), o.Shard), ShopJournal), func(r ShopRecord) { out[r.Host] = r })
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// truthA is shopper A's true outcome at each fixture shop.
func truthA() map[string]string {
	out := map[string]string{}
	for _, tr := range shops.Truths() {
		out[tr.Host] = tr.Want["A"]
	}
	return out
}

// namingProfile lists the processes whose command line names dir.
func namingProfile(dir string) []int {
	var out []int
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range paths {
		b, err := os.ReadFile(f)
		b = append(bytes.ReplaceAll(b, []byte{0}, []byte(" ")), ' ')
		if err == nil && (bytes.Contains(b, []byte(dir+" ")) || bytes.Contains(b, []byte(dir+"/"))) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			if pid != os.Getpid() {
				out = append(out, pid)
			}
		}
	}
	return out
}

// faultMidStage runs the stage of o, injects the fault when w's held
// request (held, named for messages) is asked for, and waits for the stage
// to complete. It fails the test unless the stage completes within 90 s
// of the fault with every store's run in its journal once, and every run
// finished before the fault kept as it was (at least one was). It returns
// when the fault was injected and the journal's runs.
func faultMidStage(t *testing.T, w *faultWorld, o ShopStageOptions, held string, inject func()) (time.Time, map[string]ShopRecord) {
	t.Helper()
	stageErr := make(chan error, 1)
	go func() { stageErr <- ShopStage(context.Background(), o) }()
	select {
	case <-w.held:
	case err := <-stageErr:
		t.Fatalf("the stage ended before %s was asked for: %v", held, err)
	case <-time.After(60 * time.Second):
		t.Fatalf("%s was not asked for within 60 s", held)
	}
	before := journalOutcomes(t, o)
	faultAt := time.Now()
	inject()
	var err error
	select {
	case err = <-stageErr:
	case <-time.After(90 * time.Second):
		t.Fatal("the stage did not complete within 90 s of the fault")
	}
	w.unhold()
	if err != nil {
		t.Fatalf("stage: %v", err)
	}
	final := journalOutcomes(t, o)
	if len(final) != len(o.Stores) {
		t.Fatalf("journal holds %d runs, want %d: %v", len(final), len(o.Stores), final)
	}
	for h, r := range before {
		if g := final[h]; g.At != r.At || g.Report.Outcome != r.Report.Outcome || g.Report.Reason != r.Report.Reason {
			t.Errorf("%s, finished before the fault: %s %s, now %s %s", h, r.Report.Outcome, r.Report.Reason, g.Report.Outcome, g.Report.Reason)
		}
	}
	if len(before) == 0 {
		t.Error("no run had finished before the fault: the test proves nothing about keeping them")
	}
	return faultAt, final
}

// TestShopStageBrowserLost kills (SIGKILL) or freezes (SIGSTOP, the
// browser process and every process under it) the stage's Chromium while
// a run is in flight (its page held by the store): the stage notices at
// once (killed) or within the watchdog's HangTimeout (frozen), kills what
// is left of the old process, records the run in flight as error with
// browser_crashed or browser_unresponsive, keeps every run finished
// before, and completes, the runs after it getting their true outcomes in
// a new browser.
func TestShopStageBrowserLost(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reason string
		inject func(t *testing.T, pid int)
		notice time.Duration // the in-flight run ends within this of the fault
	}{
		{"killed", "browser_crashed", func(t *testing.T, pid int) {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}, 5 * time.Second},
		{"frozen", "browser_unresponsive", func(t *testing.T, pid int) {
			procs := proctree.Descendants(pid, 0)
			for _, p := range procs {
				_ = syscall.Kill(p, syscall.SIGSTOP)
			}
			// Whatever the test's outcome, nothing stays stopped.
			t.Cleanup(func() {
				for _, p := range procs {
					_ = syscall.Kill(p, syscall.SIGKILL)
				}
			})
			t.Logf("stopped %d processes", len(procs))
		}, 2*time.Second + 5*time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newFaultWorld(t)
			b := startFaultBrowser(t, w, 2*time.Second)
			oldPID, oldProfile := b.PID(), b.Profile()
			if oldPID <= 0 {
				t.Fatal("the browser's process id is not known")
			}
			// Two workers: when hold.test is held, the run beside it may
			// have started already; the last one starts after the fault,
			// in a new browser.
			hosts := []string{"svcshop-form.test", "svcshop-icon.test", "hold.test", "svcshop-wall.test", "svcshop-soldout.test"}
			o, runs := faultStage(t, b, hosts, func(string) time.Duration { return 45 * time.Second })
			faultAt, final := faultMidStage(t, w, o, "hold.test", func() { tc.inject(t, oldPID) })
			// The run in flight is error with the reason, noticed in time.
			truth := truthA()
			for _, r := range runs() {
				rec := final[r.host].Report
				switch {
				case r.host == "hold.test":
					if rec.Outcome != shop.Error || rec.Reason != tc.reason {
						t.Errorf("hold.test (in flight): %s %s, want error %s", rec.Outcome, rec.Reason, tc.reason)
					}
					if d := r.end.Sub(faultAt); d > tc.notice {
						t.Errorf("hold.test ended %s after the fault, want within %s", d.Round(time.Millisecond), tc.notice)
					}
					t.Logf("hold.test: %s %s, %s after the fault", rec.Outcome, rec.Reason, r.end.Sub(faultAt).Round(time.Millisecond))
				case r.end.Before(faultAt):
					if rec.Outcome != truth[r.host] {
						t.Errorf("%s (before the fault): %s %s, truth %s", r.host, rec.Outcome, rec.Reason, truth[r.host])
					}
				case r.start.After(faultAt):
					// After the fault: the true outcome, in a new browser.
					if rec.Outcome != truth[r.host] {
						t.Errorf("%s (after the fault): %s %s, truth %s", r.host, rec.Outcome, rec.Reason, truth[r.host])
					}
				default:
					// In flight beside hold.test: lost with the browser, or
					// concluded before it was.
					if rec.Outcome != truth[r.host] && (rec.Outcome != shop.Error || rec.Reason != tc.reason) {
						t.Errorf("%s (in flight at the fault): %s %s, want %s or error %s", r.host, rec.Outcome, rec.Reason, truth[r.host], tc.reason)
					}
				}
			}
			// A new browser, and nothing of the old one left.
			if b.Restarts() != 1 || b.PID() == oldPID || b.PID() <= 0 {
				t.Errorf("after the fault: %d restarts, pid %d (was %d)", b.Restarts(), b.PID(), oldPID)
			}
			if left := namingProfile(oldProfile); len(left) > 0 {
				for _, p := range left {
					st, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat")
					cl, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/cmdline")
					t.Logf("%s | %.200s", st, bytes.ReplaceAll(cl, []byte{0}, []byte(" ")))
				}
				t.Errorf("processes of the lost browser (%s) still run: %v", oldProfile, left)
			}
			if _, err := os.Stat(oldProfile); !os.IsNotExist(err) {
				t.Errorf("the lost browser's profile %s is still there (%v)", oldProfile, err)
			}
		})
	}
}

// TestShopStageRendererKilled kills (SIGKILL) the renderers of the
// stage's Chromium while a run is in flight (its page drawn, an image
// held), as the kernel's out-of-memory killer picks a renderer, the
// largest process, first: the browser process lives on. The run in flight
// ends within moments as error page_crashed, not at its bound; the runs
// finished before are kept; the stage completes, the runs after it
// getting their true outcomes in the same browser (no restart).
func TestShopStageRendererKilled(t *testing.T) {
	w := newFaultWorld(t)
	b := startFaultBrowser(t, w, 2*time.Second)
	pid := b.PID()
	if pid <= 0 {
		t.Fatal("the browser's process id is not known")
	}
	hosts := []string{"svcshop-form.test", "svcshop-icon.test", "heldimg.test", "svcshop-wall.test"}
	o, runs := faultStage(t, b, hosts, func(string) time.Duration { return 45 * time.Second })
	faultAt, final := faultMidStage(t, w, o, "heldimg.test's image", func() {
		var killed []int
		for _, p := range proctree.Descendants(pid, 0) {
			cl, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/cmdline")
			if err == nil && bytes.Contains(cl, []byte("--type=renderer")) {
				if syscall.Kill(p, syscall.SIGKILL) == nil {
					killed = append(killed, p)
				}
			}
		}
		if len(killed) == 0 {
			t.Fatal("no renderer process of the browser was found to kill")
		}
		t.Logf("killed %d renderers", len(killed))
	})
	truth := truthA()
	for _, r := range runs() {
		rec := final[r.host].Report
		switch {
		case r.host == "heldimg.test":
			if rec.Outcome != shop.Error || rec.Reason != "page_crashed" {
				t.Errorf("heldimg.test (in flight): %s %s, want error page_crashed", rec.Outcome, rec.Reason)
			}
			if d := r.end.Sub(faultAt); d > 5*time.Second {
				t.Errorf("heldimg.test ended %s after the fault, want within 5 s", d.Round(time.Millisecond))
			}
			t.Logf("heldimg.test: %s %s, %s after the fault", rec.Outcome, rec.Reason, r.end.Sub(faultAt).Round(time.Millisecond))
		case r.end.Before(faultAt), r.start.After(faultAt):
			if rec.Outcome != truth[r.host] {
				t.Errorf("%s (not in flight at the fault): %s %s, truth %s", r.host, rec.Outcome, rec.Reason, truth[r.host])
			}
		default:
			if rec.Outcome != truth[r.host] && (rec.Outcome != shop.Error || rec.Reason != "page_crashed") {
				t.Errorf("%s (in flight at the fault): %s %s, want %s or error page_crashed", r.host, rec.Outcome, rec.Reason, truth[r.host])
			}
		}
	}
	if b.Restarts() != 0 || b.PID() != pid {
		t.Errorf("after a renderer's loss: %d restarts, pid %d (was %d); the browser lived and should serve on", b.Restarts(), b.PID(), pid)
	}
}

// TestShopStageHostilePages runs the stage over pages that never settle
// (a script loop that never yields, requests without end) and answers of
// 100 MB (a page's script and image, and a page itself), each store
// followed by a fixture shop: each hostile run ends at its time bound (or
// at once, for a page too large to load) with its reason, its worker
// takes the next store, the shops after it get their true outcomes in
// the same browser, no page's renderer is left running, and neither the
// 100 MB answers nor any copy of them is held in svc's memory.
func TestShopStageHostilePages(t *testing.T) {
	w := newFaultWorld(t)
	b := startFaultBrowser(t, w, 0)
	const bound = 8 * time.Second
	hosts := []string{"busy.test", "endless.test", "svcshop-form.test", "huge.test", "hugedoc.test", "svcshop-icon.test", "svcshop-wall.test"}
	o, runs := faultStage(t, b, hosts, func(h string) time.Duration {
		if strings.HasPrefix(h, "svcshop-") {
			return 45 * time.Second
		}
		return bound
	})

	// svc's heap, sampled while the stage runs.
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	start := time.Now()
	err := ShopStage(ctx, o)
	close(stop)
	<-sampled
	if err != nil {
		t.Fatalf("stage: %v", err)
	}
	t.Logf("stage: %s; svc's heap %d MB before, peak %d MB; %d MB of the 100 MB answers written",
		time.Since(start).Round(time.Millisecond), base>>20, peak.Load()>>20, w.hugeSent.Load()>>20)

	final := journalOutcomes(t, o)
	if len(final) != len(hosts) {
		t.Fatalf("journal holds %d runs, want %d", len(final), len(hosts))
	}
	want := map[string]string{
		"busy.test":    "page_unresponsive",
		"endless.test": "page_never_settled",
		"hugedoc.test": "unreachable_too_large",
	}
	truth := truthA()
	for _, r := range runs() {
		rec := final[r.host].Report
		took := r.end.Sub(r.start)
		t.Logf("%s: %s %s in %s", r.host, rec.Outcome, rec.Reason, took.Round(time.Millisecond))
		switch {
		case want[r.host] != "":
			if rec.Outcome != shop.Error || rec.Reason != want[r.host] {
				t.Errorf("%s: %s %s, want error %s", r.host, rec.Outcome, rec.Reason, want[r.host])
			}
		case r.host == "huge.test":
			// A page whose script and image are refused as too large
			// loads without them and is judged: no product.
			if rec.Outcome != shop.NoCart {
				t.Errorf("huge.test: %s %s, want no_cart", rec.Outcome, rec.Reason)
			}
		default:
			if rec.Outcome != truth[r.host] {
				t.Errorf("%s: %s %s, truth %s", r.host, rec.Outcome, rec.Reason, truth[r.host])
			}
		}
		// Every run ends at its bound, give or take its screenshot and
		// the page's close (5 s each at most).
		if !strings.HasPrefix(r.host, "svcshop-") && took > bound+12*time.Second {
			t.Errorf("%s took %s, its bound is %s", r.host, took.Round(time.Millisecond), bound)
		}
		if r.pid != b.PID() {
			t.Errorf("%s ran in browser %d, the browser is now %d: no page should have cost it", r.host, r.pid, b.PID())
		}
	}
	if b.Restarts() != 0 {
		t.Errorf("the browser was replaced %d times", b.Restarts())
	}
	// The 100 MB answers were cut off near the client's 8 MiB limit
	// (three of them, each read to 8 MiB and a socket's buffers), and svc
	// never held one.
	if sent := w.hugeSent.Load(); sent > 3*(browser.DefaultMaxBody+8<<20) {
		t.Errorf("%d MB of the 100 MB answers were written: the reader did not stop at its limit", sent>>20)
	}
	if grew := int64(peak.Load()) - int64(base); grew > 80<<20 {
		t.Errorf("svc's heap grew by %d MB while the stage ran: a 100 MB answer was read into memory", grew>>20)
	}
	// No page is left open: the busy page's renderer is gone.
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := 0
		for _, pid := range proctree.Descendants(b.PID(), 0) {
			if cmd, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil && bytes.Contains(cmd, []byte("--type=renderer")) {
				n++
			}
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("%d renderers still run after the stage", n)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
}
