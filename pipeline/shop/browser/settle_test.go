package browser

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdpfetch "github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
)

// TestSettleWaitsForTheDOMAndForRequestedNavigations holds Settle to what
// a shopper reads after a click: a DOM that keeps changing for a while
// with no request (a script-driven drawer) is read once it stops, and a
// navigation a script asks for a moment after the click, to a slow page,
// is waited for. The DOM observer lives in the shopper's isolated world,
// out of the page's reach.
func TestSettleWaitsForTheDOMAndForRequestedNavigations(t *testing.T) {
	site := newHostServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<!doctype html><title>start</title>
<button id="dom" style="position:absolute;left:10px;top:10px;width:120px;height:40px">DOM</button>
<button id="nav" style="position:absolute;left:10px;top:80px;width:120px;height:40px">Nav</button>
<p id="out">idle</p>
<script>
document.getElementById('dom').onclick = () => {
  let i = 0;
  const t = setInterval(() => { i++; document.getElementById('out').textContent = 'step ' + i;
    if (i === 12) { clearInterval(t); document.getElementById('out').textContent = 'done'; } }, 20);
};
document.getElementById('nav').onclick = () => setTimeout(() => { location.href = '/next'; }, 30);
</script>`)
		case "/next":
			time.Sleep(300 * time.Millisecond)
			fmt.Fprint(w, `<!doctype html><title>next</title><p>next</p>`)
		default:
			http.NotFound(w, r)
		}
	})
	_, p, ctx := openSite(t, site, "http://shop.test/", 20*time.Second)
	var kinds [2]string
	if err := p.Eval(ctx, "typeof globalThis.__svcMut", &kinds[0]); err != nil {
		t.Fatal(err)
	}
	if err := p.EvalMain(ctx, "typeof globalThis.__svcMut", &kinds[1]); err != nil {
		t.Fatal(err)
	}
	if kinds != [2]string{"object", "undefined"} {
		t.Errorf("the DOM observer is %q in the shopper's world and %q in the page's, want object and undefined", kinds[0], kinds[1])
	}
	click := func(id string) {
		t.Helper()
		var r struct{ X, Y float64 }
		if err := p.Eval(ctx, `(() => { const b = document.getElementById('`+id+`').getBoundingClientRect(); return {X: b.x + b.width / 2, Y: b.y + b.height / 2} })()`, &r); err != nil {
			t.Fatal(err)
		}
		if err := p.Click(ctx, r.X, r.Y); err != nil {
			t.Fatal(err)
		}
		if err := p.Settle(ctx); err != nil {
			t.Fatal(err)
		}
	}
	click("dom")
	var out string
	if err := p.Eval(ctx, "document.getElementById('out').textContent", &out); err != nil {
		t.Fatal(err)
	}
	if out != "done" {
		t.Errorf("after the click settled the page shows %q, want done: Settle did not wait for the DOM to stop changing", out)
	}
	click("nav")
	var title string
	if err := p.Eval(ctx, "document.title", &title); err != nil {
		t.Fatal(err)
	}
	if title != "next" {
		t.Errorf("after the click settled the title is %q, want next: Settle did not wait for the requested navigation", title)
	}
}

// TestSettleAfterALoadWaitsForScriptsAtWork: the short window after a
// load holds only while nothing happens; a page whose script starts
// changing the DOM in the task after its load event, every 30 ms (longer than
// the short window, shorter than the full one), is read once it stops.
func TestSettleAfterALoadWaitsForScriptsAtWork(t *testing.T) {
	site := newHostServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>busy</title><p id="out">0</p>
<script>
addEventListener('load', () => setTimeout(() => {
  let i = 0;
  document.getElementById('out').textContent = 'started';
  const t = setInterval(() => { i++; document.getElementById('out').textContent = i < 8 ? String(i) : 'done';
    if (i === 8) clearInterval(t); }, 30);
}, 0));
</script>`)
	})
	_, p, ctx := openSite(t, site, "http://shop.test/", 20*time.Second)
	var out string
	if err := p.Eval(ctx, "document.getElementById('out').textContent", &out); err != nil {
		t.Fatal(err)
	}
	if out != "done" {
		t.Errorf("after the load settled the page shows %q, want done: the short window after a load held while a script changed the DOM", out)
	}
}

// TestTheWindowAfterALoadEndsAfterAFrameAndATask holds settleJS, right
// after a load, to its frame rule: it answers once the page has drawn a
// frame and run a task after it, having seen what the page did in that
// frame and task, and does not wait for its time bound (here a million ms,
// so that only the frame rule can end the wait). Each probe is of a
// document just loaded, with nothing since. Here the document has no mark
// of a frame after its load (mutationJS's drawn, taken away), so the probe
// waits for a frame and a task of its own; work the page asks for in its
// next frame is registered just before the probe, as a load handler's
// would be.
func TestTheWindowAfterALoadEndsAfterAFrameAndATask(t *testing.T) {
	site := newHostServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>still</title><p id="x">still</p>`)
	})
	_, p, ctx := openSite(t, site, "http://still.test/", 20*time.Second)
	loads := 0
	probe := func(deferred string) (quiet bool, frame, task string) {
		t.Helper()
		loads++
		if err := p.Navigate(ctx, fmt.Sprintf("http://still.test/?%d", loads)); err != nil {
			t.Fatal(err)
		}
		return probeAfterLoad(t, ctx, p, `globalThis.__svcMut.drawn = () => -1; `+deferred)
	}
	if quiet, _, _ := probe(""); !quiet {
		t.Errorf("a still page after its load: not found quiet")
	}
	quiet, frame, _ := probe(`requestAnimationFrame(() => { document.getElementById('x').dataset.frame = 'drawn'; });`)
	if !quiet || frame != "drawn" {
		t.Errorf("a page that changes in its next frame: quiet %v, frame %q; want true, drawn: the probe answered before the page's frame", quiet, frame)
	}
	quiet, _, task := probe(`requestAnimationFrame(() => setTimeout(() => { document.getElementById('x').dataset.task = 'done'; }, 0));`)
	if !quiet || task != "done" {
		t.Errorf("a page that changes in a task after its next frame: quiet %v, task %q; want true, done: the probe answered before the page's task", quiet, task)
	}
}

// TestTheMarkOfAFrameAfterALoadComesAfterTheLoadHandlersWork holds
// mutationJS's drawn mark, which a probe arriving after it takes as its
// own frame and task, to the same rule: it is made after the frame and the
// tasks the page's load handlers asked for (a frame; a task after a frame;
// a frame after a task), so a probe that finds it has seen their work.
// The page's work notes when it ran, by the page's clock, and the mark
// must be later.
func TestTheMarkOfAFrameAfterALoadComesAfterTheLoadHandlersWork(t *testing.T) {
	deferred := map[string]string{
		"frame":            `requestAnimationFrame(() => { x.dataset.at = performance.now(); })`,
		"task-after-frame": `requestAnimationFrame(() => setTimeout(() => { x.dataset.at = performance.now(); }, 0))`,
		"frame-after-task": `setTimeout(() => requestAnimationFrame(() => { x.dataset.at = performance.now(); }), 0)`,
	}
	site := newHostServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>handlers</title><p id="x">still</p>
<script>const x = document.getElementById('x'); addEventListener('load', () => { %s; });</script>`, deferred[r.URL.Query().Get("d")])
	})
	_, p, ctx := openSite(t, site, "http://handlers.test/", 20*time.Second)
	for _, d := range []string{"frame", "task-after-frame", "frame-after-task"} {
		for i := 0; i < 3; i++ {
			if err := p.Navigate(ctx, fmt.Sprintf("http://handlers.test/?d=%s&i=%d", d, i)); err != nil {
				t.Fatal(err)
			}
			var r struct {
				Drawn float64 `json:"drawn"`
				At    string  `json:"at"`
			}
			// Settle may end before the mark is made (after its short
			// window, on a loaded machine whose frame comes late): the
			// order is what is tested, so the mark is waited for, a
			// second at most.
			for wait := time.Now(); ; {
				if err := p.Eval(ctx, "({drawn: globalThis.__svcMut.drawn(), at: document.getElementById('x').dataset.at || ''})", &r); err != nil {
					t.Fatal(err)
				}
				if r.Drawn >= 0 || time.Since(wait) > time.Second {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			at, err := strconv.ParseFloat(r.At, 64)
			if err != nil || r.Drawn < 0 || r.Drawn < at {
				t.Errorf("%s: the mark of a frame after the load is at %.1f ms, the load handler's work at %q: the mark came first, or not at all", d, r.Drawn, r.At)
			}
		}
	}
}

// probeAfterLoad runs before, then settleJS as right after a load with
// only its frame rule to end the wait, and returns whether it found the
// page quiet and what the page marked on #x (data-frame, data-task).
func probeAfterLoad(t *testing.T, ctx context.Context, p *Page, before string) (quiet bool, frame, task string) {
	t.Helper()
	var r []any
	expr := `(() => { ` + before + `
  const x = document.getElementById('x');
  return (` + settleJS + `)(0, 1e6, 50, true, 1e6).then(s => [s[6], x.dataset.frame || '', x.dataset.task || '']);
})()`
	if err := p.Eval(ctx, expr, &r); err != nil {
		t.Fatal(err)
	}
	if len(r) != 3 {
		t.Fatalf("probe answered %v", r)
	}
	quiet, _ = r[0].(bool)
	frame, _ = r[1].(string)
	task, _ = r[2].(string)
	return quiet, frame, task
}

// TestTheWindowAfterALoadOutlastsAScriptsAnswer: a script's request
// answered just before the probe (as a fetch started by the page and
// answered before its load event would be) holds the window after a load
// for its whole length from the answer's end, whatever the frame rule
// says: the script reads the answer in tasks of its own.
func TestTheWindowAfterALoadOutlastsAScriptsAnswer(t *testing.T) {
	site := newHostServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>still</title><p>still</p>`)
	})
	_, p, ctx := openSite(t, site, "http://still.test/", 20*time.Second)
	// The page's own script asks and reads its answer; the probe follows.
	if err := p.EvalMain(ctx, `fetch('/api').then(r => r.text()).then(() => true)`, nil); err != nil {
		t.Fatal(err)
	}
	var sinceAnswer float64
	expr := `(` + settleJS + `)(0, 300, 50, true, 1e6).then(() => {
  const f = performance.getEntriesByType('resource').filter(e => e.initiatorType === 'fetch');
  return f.length ? performance.now() - f[f.length - 1].responseEnd : -1;
})`
	if err := p.Eval(ctx, expr, &sinceAnswer); err != nil {
		t.Fatal(err)
	}
	if sinceAnswer < 300 {
		t.Errorf("the window after a load ended %.1f ms after a script's answer, want at least its 300 ms", sinceAnswer)
	}
}

// TestTheTabIconIsNotPageActivity: Chromium's request for /favicon.ico is
// the browser's own, and does not hold Settle; the page's requests do.
func TestTheTabIconIsNotPageActivity(t *testing.T) {
	for _, c := range []struct {
		typ  network.ResourceType
		url  string
		want bool
	}{
		{network.ResourceTypeOther, "https://shop.test/favicon.ico", true},
		{network.ResourceTypeImage, "https://shop.test/favicon.ico", false},
		{network.ResourceTypeOther, "https://shop.test/api/cart", false},
		{network.ResourceTypeFetch, "https://shop.test/favicon.ico?x=1", false},
	} {
		ev := &cdpfetch.EventRequestPaused{ResourceType: c.typ, Request: &network.Request{URL: c.url}}
		if got := browserOwn(ev); got != c.want {
			t.Errorf("%s %s: browser's own %v, want %v", c.typ, c.url, got, c.want)
		}
	}
}

// TestTheTabIconIsNotFetched: Chromium asks for a page's /favicon.ico
// once the page has loaded; no shopper looks at the tab's icon, so the
// request is refused without a trip to the store. The page's own image of
// the same name is fetched.
func TestTheTabIconIsNotFetched(t *testing.T) {
	site := newHostServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			fmt.Fprint(w, `<!doctype html><title>icon</title><p>shop</p>`)
			return
		}
		http.NotFound(w, r)
	})
	_, p, ctx := openSite(t, site, "http://icon.test/", 20*time.Second)
	if err := p.Navigate(ctx, "http://icon.test/?again"); err != nil {
		t.Fatal(err)
	}
	// Chromium asks for the icon within some milliseconds of a load; a
	// second is long enough to see it asked for.
	time.Sleep(time.Second)
	if n := site.count("icon.test/favicon.ico"); n != 0 {
		t.Errorf("the store was asked for /favicon.ico %d times by the browser", n)
	}
	var ok bool
	if err := p.Eval(ctx, `new Promise(r => { const i = new Image(); i.onload = i.onerror = () => r(true); i.src = '/favicon.ico?page'; })`, &ok); err != nil {
		t.Fatal(err)
	}
	if n := site.count("icon.test/favicon.ico"); n != 1 {
		t.Errorf("the page's own image /favicon.ico?page was fetched %d times, want 1", n)
	}
}

// TestQuietFollowsTheRenderer: Settle's quiet window is 50 ms on a quick
// renderer and grows with the round trip of its evaluations on a busy
// one, up to 150 ms.
func TestQuietFollowsTheRenderer(t *testing.T) {
	for _, c := range []struct{ rtt, want time.Duration }{
		{0, 50 * time.Millisecond},
		{2 * time.Millisecond, 50 * time.Millisecond},
		{20 * time.Millisecond, 80 * time.Millisecond},
		{time.Second, 150 * time.Millisecond},
	} {
		p := &Page{}
		if c.rtt > 0 {
			p.sampleRTT(c.rtt)
		}
		if got := p.quiet(); got != c.want {
			t.Errorf("round trip %v: quiet window %v, want %v", c.rtt, got, c.want)
		}
	}
	// The bound of the wait after a load with nothing since: 20 ms, or
	// two round trips.
	for _, c := range []struct{ rtt, want time.Duration }{
		{0, 20 * time.Millisecond},
		{30 * time.Millisecond, 60 * time.Millisecond},
		{time.Second, 150 * time.Millisecond},
	} {
		p := &Page{}
		if c.rtt > 0 {
			p.sampleRTT(c.rtt)
		}
		if got := p.loadQuietLocked(); got != c.want {
			t.Errorf("round trip %v: window after a load %v, want %v", c.rtt, got, c.want)
		}
	}
	p := &Page{}
	p.sampleRTT(40 * time.Millisecond)
	p.sampleRTT(0)
	if got := p.quiet(); got != 120*time.Millisecond {
		t.Errorf("after round trips of 40 ms and 0: quiet window %v, want 120ms (a quarter of each new sample)", got)
	}
}

// TestPrefetchReadsTheSettledPage: the reading Settle makes while it
// waits is returned only when it is of the page as settled. A page whose
// script rewrites it for a while after its load is read as it ends, and a
// page with no reading set returns none.
func TestPrefetchReadsTheSettledPage(t *testing.T) {
	site := newHostServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/busy":
			fmt.Fprint(w, `<!doctype html><title>busy</title><p id="out">0</p>
<script>
addEventListener('load', () => setTimeout(() => {
  let i = 0;
  document.getElementById('out').textContent = 'started';
  const t = setInterval(() => { i++; document.getElementById('out').textContent = i < 6 ? String(i) : 'done';
    if (i === 6) clearInterval(t); }, 30);
}, 0));
</script>`)
		default:
			fmt.Fprint(w, `<!doctype html><title>still</title><p id="out">still</p>`)
		}
	})
	_, p, ctx := openSite(t, site, "http://shop.test/", 20*time.Second)
	if v, ok := p.Reading(); ok {
		t.Errorf("a reading %v with no Prefetch set", v)
	}
	p.Prefetch(func(ctx context.Context) (string, any) {
		var out string
		k, err := p.EvalKeyed(ctx, `document.getElementById('out').textContent`, &out)
		if err != nil {
			return "", nil
		}
		return k, out
	})
	for _, c := range []struct{ path, want string }{{"/", "still"}, {"/busy", "done"}} {
		if err := p.Navigate(ctx, "http://shop.test"+c.path); err != nil {
			t.Fatal(err)
		}
		if v, ok := p.Reading(); !ok {
			t.Errorf("%s: no reading of the settled page", c.path)
		} else if v != c.want {
			t.Errorf("%s: the reading is %v, want %q: it is not of the page as settled", c.path, v, c.want)
		}
		var now string
		if err := p.Eval(ctx, "document.getElementById('out').textContent", &now); err != nil || now != c.want {
			t.Errorf("%s: the page shows %q (%v), want %q", c.path, now, err, c.want)
		}
	}
}

// TestSettleKeepsMeasuringTheRenderer: Settle's question to the page is
// sent while a reading is still in flight, and waits behind it, so its
// round trip is no measure of the renderer then; the renderer's latency,
// which sets the quiet windows, is measured all the same once it is
// older than rttMaxAge.
func TestSettleKeepsMeasuringTheRenderer(t *testing.T) {
	site := newHostServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>still</title><p>still</p>`)
	})
	_, p, ctx := openSite(t, site, "http://shop.test/", 20*time.Second)
	// A slow reading: always in flight when Settle asks the page.
	p.Prefetch(func(ctx context.Context) (string, any) {
		k, err := p.EvalKeyed(ctx, `(() => { const t = performance.now(); while (performance.now() - t < 400) {} return 1 })()`, nil)
		if err != nil {
			return "", nil
		}
		return k, 1
	})
	p.mu.Lock()
	p.rtt, p.rttAt = 0, time.Time{}
	p.mu.Unlock()
	for i := range 4 {
		if err := p.Navigate(ctx, fmt.Sprintf("http://shop.test/?%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	p.mu.Lock()
	rtt, at := p.rtt, p.rttAt
	p.mu.Unlock()
	if rtt <= 0 || time.Since(at) > 10*time.Second {
		t.Errorf("the renderer's latency was not measured (%v, at %v)", rtt, at)
	}
	if rtt >= 100*time.Millisecond {
		t.Errorf("the renderer's latency %v counts the reading's 400 ms of work", rtt)
	}
}

// TestTheReadingGoesBehindTheQuestion: after a load, Settle's question to
// the page (settleJS, which waits in the page for its next frame) is
// written first, and the reading Prefetch makes of the page right behind
// it, before the question is answered, so that the page makes the reading
// while it waits for the frame. It fails when the reading is sent first,
// or only after the answer.
func TestTheReadingGoesBehindTheQuestion(t *testing.T) {
	site := newHostServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>still</title><p id="out">still</p>`)
	})
	b, p, ctx := openSite(t, site, "http://shop.test/", 20*time.Second)
	var mu sync.Mutex
	var order []string
	question := "" // the id of the question in flight
	id := regexp.MustCompile(`^\{"id":(\d+),`)
	tap := func(dir string, msg []byte) {
		mu.Lock()
		defer mu.Unlock()
		m := id.FindSubmatch(msg)
		switch {
		case dir == "->" && bytes.Contains(msg, []byte("requestAnimationFrame")) && m != nil:
			order, question = append(order, "question"), string(m[1])
		case dir == "->" && bytes.Contains(msg, []byte("the reading")):
			order = append(order, "reading")
		case dir == "<-" && m != nil && string(m[1]) == question:
			order, question = append(order, "answer"), ""
		}
	}
	b.wire.tap.Store(&tap)
	defer b.wire.tap.Store(nil)
	p.Prefetch(func(ctx context.Context) (string, any) {
		var out string
		k, err := p.EvalKeyed(ctx, `/* the reading */ document.getElementById('out').textContent`, &out)
		if err != nil {
			return "", nil
		}
		return k, out
	})
	for range 5 {
		mu.Lock()
		order = nil
		mu.Unlock()
		if err := p.Navigate(ctx, "http://shop.test/"); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := strings.Join(order, " ")
		mu.Unlock()
		// Settle may ask more than once; the reading goes behind one of
		// its questions, never ahead of the first.
		if !strings.Contains(got, "question reading answer") || !strings.HasPrefix(got, "question") {
			t.Errorf("after a load the page was sent and answered %q, want the question, the reading right behind it, then the answer", got)
		}
		if v, ok := p.Reading(); !ok || v != "still" {
			t.Errorf("the reading is %v (%v), want still", v, ok)
		}
	}
}
