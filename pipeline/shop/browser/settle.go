// When a page is settled: the quiet windows, the scripts that watch its
// DOM (mutationJS) and wait in the page (settleJS), and Settle, which
// waits for the network and then asks the page (probe).

package browser

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/runtime"
)

// Quiet windows of Settle. A page is settled when nothing has been in
// flight, and its DOM has not changed, for a quiet time: long enough for a
// response just served to be rendered, or for a click's navigation or
// request, or a script's short timer, to show up. On a busy machine the
// renderer runs late, so the window grows with the page's own round-trip
// time (how long an evaluation takes to come back): quietPerRTT round
// trips, never less than minQuiet nor more than maxQuiet. minQuiet stays
// at 50 ms: shorter windows (30 ms was tried) read pages mid-update once
// the machine is loaded (TestSettleWaitsForTheDOMAndForRequestedNavigations
// under a loaded make test).
//
// A document that has just loaded, with nothing happening since (no
// request, no DOM change, no action of the shopper's), is judged sooner:
// its load event has fired and its load handlers have run, and the wait
// only has to catch what they deferred by a task or a frame. It ends once
// the page has drawn a frame and run a task after it (settleJS), or after
// minLoadQuiet or loadQuietPerRTT round trips if that comes first (a page
// that draws no frame). On the SVC-100 stand-ins the frame and task came
// 8.5 ms after the load event at the median, where the fixed window was
// 20 ms. Work a page defers longer (a theme that renders its buy button
// from a timer) is caught by the shoppers' second, patient look before
// any conclusion that a page lacks something (session.lookAgain).
const (
	minQuiet        = 50 * time.Millisecond
	maxQuiet        = 150 * time.Millisecond
	quietPerRTT     = 4
	minLoadQuiet    = 20 * time.Millisecond
	loadQuietPerRTT = 2
	// settleTick bounds each wait: Settle is woken by the page's events
	// (a request ending, a load stopping), and looks again at least this
	// often.
	settleTick = 10 * time.Millisecond
	// A DOM that never stops changing (a carousel, a ticker) is judged
	// once the network has been idle this long.
	domPatience = time.Second
	// A navigation the page requested must start within this time.
	navPatience = time.Second
	// A document still loading with nothing in flight this long is
	// judged as it stands (a stalled load must not hold a run).
	loadPatience = 3 * time.Second
)

// mutationJS is run in the shopper's isolated world at the start of every
// document (before any page script): it counts the DOM's mutations and
// remembers when the last one happened, so that Settle can wait for a
// quiet DOM and a shopper can tell that a page is unchanged since it last
// read it. Shadow roots are watched once observe(root) is called on them.
//
// It also notes when the page, once its load event is over, has run a
// task, drawn a frame and run a task after that (drawn: -1 until then).
// Its chain starts at pageshow, which fires after every load handler has
// run, so each of its steps comes after the tasks and frames those
// handlers asked for, as settleJS's own frame and task do when it arrives
// later: settleJS takes a mark already made instead of waiting for the
// next frame (on the SVC-100 stand-ins its question arrived 4.5 ms after
// the load event at the median).
const mutationJS = `(() => {
  if (globalThis.__svcMut) return;
  let n = 0, last = performance.now(), drawn = -1;
  const id = Math.random().toString(36).slice(2);
  const opts = {subtree: true, childList: true, attributes: true, characterData: true};
  const o = new MutationObserver(rs => { n += rs.length; last = performance.now(); });
  o.observe(document, opts);
  addEventListener('pageshow', () => setTimeout(() => requestAnimationFrame(() => setTimeout(() => { drawn = performance.now(); }, 0)), 0), {once: true});
  globalThis.__svcMut = {
    key: () => id + ':' + n,
    since: () => performance.now() - last,
    drawn: () => drawn,
    observe: root => { try { o.observe(root, opts); } catch (e) {} },
  };
})()`

// keyJS names the document and its DOM as they are: the observer's id
// and mutation count, and the address ("" without an observer). It is the
// key of the shoppers' page helper (dom.js).
const keyJS = `(globalThis.__svcMut ? globalThis.__svcMut.key() + ' ' + location.href : '')`

// settleJS, called with (wait, loadQuiet, quiet, justLoaded, limit) in ms,
// waits in the page, by the page's own clock, until its document is
// complete, wait has passed, and its DOM is quiet. After a load with
// nothing since (justLoaded), the DOM is quiet while it has not changed
// since the load event, once the page has drawn a frame and run a task
// after that (the work its load handlers deferred by a task or a frame
// has run by then), or loadQuiet after the load event, whichever comes
// first, and in any case loadQuiet after the answer to a script's last
// request (fetch, XMLHttpRequest) ended: the script reads that answer in
// tasks of its own, which a frame and a task need not outlast. Otherwise
// it is quiet once it has not changed for quiet. It gives up after
// limit. It reports the document's readiness, how long its DOM has been
// quiet (in ms; -1 when the document has no observer), how long ago its
// load event ended (in ms; -1 before then), its key, how long it waited,
// the window it applied, and whether the DOM was found quiet.
//
// A frame and a task after the load the page has already been through
// (mutationJS's drawn mark) count as its own.
//
// Waiting in the page rather than in svc saves, on every Settle, the
// time the load event takes to reach svc and a round trip after the
// window: the page's answer leaves the moment the window ends. The
// probe arrives after the load event and its handlers, so its frame and
// task come after the frames and tasks those handlers asked for.
const settleJS = `((w, loadQ, fullQ, justLoaded, limit) => new Promise(done => {
  const t0 = performance.now();
  let drawn = false, timer = 0, over = false;
  const check = () => {
    if (over) return;
    clearTimeout(timer);
    const n = performance.getEntriesByType('navigation')[0];
    const s = [document.readyState, globalThis.__svcMut ? globalThis.__svcMut.since() : -1,
      n && n.loadEventEnd > 0 ? performance.now() - n.loadEventEnd : -1, ` + keyJS + `];
    const waited = performance.now() - t0;
    const scripts = s[1] >= 0 && s[2] >= 0 && s[1] < s[2];
    const q = justLoaded && !scripts ? loadQ : fullQ;
    let left = w - waited;
    if (justLoaded && !scripts) {
      left = Math.max(left, drawn ? 0 : s[2] >= 0 ? q - s[2] : q - waited);
      const f = performance.getEntriesByType('resource').filter(e => e.initiatorType === 'fetch' || e.initiatorType === 'xmlhttprequest');
      if (f.length) left = Math.max(left, q - (performance.now() - Math.max(...f.map(e => e.responseEnd))));
    } else if (s[1] >= 0) left = Math.max(left, q - s[1]);
    if (s[0] !== 'complete' || left <= 0 || waited >= limit) {
      over = true;
      done([...s, waited, q, s[1] < 0 || left <= 0]);
    } else timer = setTimeout(check, Math.min(left, limit - waited));
  };
  if (justLoaded) {
    const m = globalThis.__svcMut, n = performance.getEntriesByType('navigation')[0];
    if (m && n && n.loadEventEnd > 0 && m.drawn() >= n.loadEventEnd) drawn = true;
    else requestAnimationFrame(() => setTimeout(() => { drawn = true; check(); }, 0));
  }
  check();
}))`

// rttMaxAge is how old the page's measure of its latency may grow before
// Settle waits for a moment to measure it again.
const rttMaxAge = time.Second

// halfRTT is half the page's round trip: how long a question to the
// page takes to arrive.
func (p *Page) halfRTT() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rtt / 2
}

// quiet is the current quiet window: quietPerRTT round trips of the
// page's evaluations, within [minQuiet, maxQuiet].
func (p *Page) quiet() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.quietLocked()
}

func (p *Page) quietLocked() time.Duration {
	return min(max(quietPerRTT*p.rtt, minQuiet), maxQuiet)
}

// loadQuietLocked is the window after a document's load with nothing
// since: loadQuietPerRTT round trips, within [minLoadQuiet, maxQuiet].
func (p *Page) loadQuietLocked() time.Duration {
	return min(max(loadQuietPerRTT*p.rtt, minLoadQuiet), maxQuiet)
}

// Settle waits until the page has had no request in flight and no DOM
// change for the quiet window, no navigation is pending, and its document
// is complete, or ctx ends (not an error: a page that never settles is
// judged as it stands). It sleeps between looks, woken by the page's
// events.
func (p *Page) Settle(ctx context.Context) error {
	// Since Go 1.23 a Reset timer never delivers a stale tick: no draining.
	timer := time.NewTimer(settleTick)
	defer timer.Stop()
	p.mu.Lock()
	p.reading = nil
	pf := &prefetcher{p: p, read: p.prefetch}
	p.mu.Unlock()
	for {
		n := p.network()
		pf.poll(ctx, false)
		read := n.idle && (pf.got == nil || pf.at.Before(n.activity))
		left := n.left
		if left == 0 || n.idle && (n.justLoaded || left <= p.halfRTT()) {
			var settled bool
			if settled, left = p.probe(ctx, n, pf, read); settled {
				return nil
			}
		} else if read {
			pf.start(ctx)
		}
		// Sleep until left has passed, at most settleTick, or the page's
		// events wake us.
		timer.Reset(min(max(left, time.Millisecond), settleTick))
		select {
		case <-ctx.Done():
			return nil
		case <-p.ctx.Done():
			return errors.New("the page was closed")
		case <-p.kick:
		case <-timer.C:
		}
	}
}

// netState is the network side of Settle: how long until it may be idle
// (left, 0 when it is), and the quiet window that applies.
type netState struct {
	q          time.Duration // the quiet window
	since      time.Duration // since the last activity
	justLoaded bool          // nothing has happened since the document loaded: q is the short window
	idle       bool          // nothing in flight, loading or pending
	activity   time.Time     // the last activity
	left       time.Duration
}

func (p *Page) network() netState {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := netState{q: p.quietLocked(), since: time.Since(p.activity), activity: p.activity,
		justLoaded: !p.loaded.IsZero() && p.activity.Equal(p.loaded) && !p.loading,
		idle:       p.inflight == 0 && !p.loading && p.navRequested.IsZero()}
	if n.justLoaded {
		n.q = p.loadQuietLocked()
	}
	switch {
	case p.inflight > 0:
		n.left = settleTick
	case n.since < n.q:
		n.left = n.q - n.since
	case p.loading && n.since < loadPatience:
		n.left = loadPatience - n.since
	case !p.navRequested.IsZero() && time.Since(p.navRequested) < navPatience:
		n.left = navPatience - time.Since(p.navRequested)
	}
	return n
}

// probe looks at the page once its network side is idle, or half a
// round trip before (the time the question takes to arrive), or has
// waited all it may: it asks the page to wait out the rest of the
// network's quiet window, and its DOM's (settleJS), and judges the
// answer. The page is settled when nothing happened on the network
// meanwhile, its document is complete and its DOM has been quiet for the
// window (or has kept changing for domPatience); else probe says how long
// to wait before looking again. A settled page keeps the prefetched
// reading that is of it; a DOM that moved on since the reading is read
// again.
//
// With read, probe starts the reading too, right behind its question: the
// page then makes the reading while it waits for its next frame, where a
// reading sent first held the question (and the frame) until it was done.
func (p *Page) probe(ctx context.Context, n netState, pf *prefetcher, read bool) (settled bool, left time.Duration) {
	// A question sent while a reading is in flight waits behind it in the
	// page, so its round trip is not the renderer's latency. It is sent
	// all the same (the page's clock times the window), unless the
	// latency has not been measured for rttMaxAge: then after the reading.
	p.mu.Lock()
	stale := time.Since(p.rttAt) > rttMaxAge
	p.mu.Unlock()
	pf.poll(ctx, stale)
	clean := pf.ch == nil
	wait := max(n.left-p.halfRTT(), 0)
	if n.justLoaded {
		wait = 0 // the page's clock times the window from its load event
	}
	ms := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64)
	}
	expr := "(" + settleJS + ")(" + ms(wait) + ", " + ms(n.q) + ", " + ms(p.quiet()) + ", " + strconv.FormatBool(n.justLoaded) + ", " + ms(wait+maxQuiet) + ")"
	var st [7]any
	start := time.Now()
	ask := func() error { return p.Eval(ctx, expr, &st) }
	var err error
	if read && pf.idle() {
		err = p.sendThen(p.session(), runtime.CommandEvaluate, ask, func(bool) { pf.start(ctx) })
	} else {
		err = ask()
	}
	dur := func(v any) time.Duration { f, _ := v.(float64); return time.Duration(f * float64(time.Millisecond)) }
	state, _ := st[0].(string)
	quiet, _ := st[6].(bool)
	domQuiet := dur(st[1])
	key, _ := st[3].(string)
	// The window the page applied: the full one when scripts changed the
	// DOM after the load.
	q := dur(st[5])
	if err == nil && clean {
		// The round trip, less the wait: the renderer's latency, which
		// sets the quiet windows.
		p.sampleRTT(max(time.Since(start)-dur(st[4]), 0))
	}
	again := p.network()
	if err != nil || !again.activity.Equal(n.activity) {
		return false, settleTick // something happened meanwhile: look again
	}
	switch {
	case state == "complete" && (quiet || again.since >= domPatience):
		pf.keep(ctx, key)
		return true, 0
	case state == "complete":
		if pf.got != nil && pf.got.key != key {
			pf.start(ctx)
		}
		return false, q - domQuiet
	}
	return false, settleTick
}
