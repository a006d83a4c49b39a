// What a shopper does with a page: navigate, wait, evaluate script, read
// the accessibility tree, click and take a screenshot.

package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/go-json-experiment/json/jsontext"
)

// Navigate loads rawURL in the tab and waits until it settles. The URL
// must already have passed the caller's checks; the safe client checks it
// again.
func (p *Page) Navigate(ctx context.Context, rawURL string) error {
	ctx, cancel := p.with(ctx)
	defer cancel()
	p.resetWorld()
	_, err := chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: rawURL})
	if err != nil {
		return fmt.Errorf("navigate: %w", err)
	}
	return p.Settle(ctx)
}

// Load loads rawURL in the tab and waits for its load event only, with
// none of Settle's quiet time: a browser merely loading the page, the
// floor the shoppers' benchmark measures them against.
func (p *Page) Load(ctx context.Context, rawURL string) error {
	ctx, cancel := p.with(ctx)
	defer cancel()
	p.resetWorld()
	if err := chromedp.Do(ctx, chromedp.Navigate(rawURL)); err != nil {
		return fmt.Errorf("load: %w", err)
	}
	return nil
}

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

func (p *Page) resetWorld() {
	p.mu.Lock()
	p.world = 0
	p.mu.Unlock()
	p.frames.forget("")
}

// worldID returns the execution context of the shopper's isolated world in
// the current document, creating it when needed. The isolated world shares
// the DOM with the page but none of its JavaScript, so a page cannot
// redefine what the shopper's scripts call.
func (p *Page) worldID(ctx context.Context) (runtime.ExecutionContextID, error) {
	p.mu.Lock()
	id := p.world
	p.mu.Unlock()
	if id != 0 {
		return id, nil
	}
	res, err := chromedp.Call(ctx, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: p.frame, WorldName: worldName})
	if err != nil {
		return 0, err
	}
	p.mu.Lock()
	p.world = res.ExecutionContextID
	p.mu.Unlock()
	return res.ExecutionContextID, nil
}

// Eval evaluates expr in the shopper's isolated world, awaiting a promise,
// and decodes its JSON value into out (which may be nil).
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	ctx, cancel := p.with(ctx)
	defer cancel()
	for attempt := 0; ; attempt++ {
		id, err := p.worldID(ctx)
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		err = p.evaluate(ctx, id, expr, out)
		if err != nil && attempt == 0 && staleContext(err) {
			p.resetWorld()
			continue
		}
		return err
	}
}

// EvalMain evaluates expr in the page's own world (for what the page's
// scripts hold, such as WebMCP tools) and decodes the value into out.
func (p *Page) EvalMain(ctx context.Context, expr string, out any) error {
	ctx, cancel := p.with(ctx)
	defer cancel()
	return p.evaluate(ctx, 0, expr, out)
}

func staleContext(err error) bool {
	s := err.Error()
	return strings.Contains(s, "Cannot find context") || strings.Contains(s, "Execution context was destroyed") ||
		strings.Contains(s, "Cannot find default execution context")
}

func (p *Page) evaluate(ctx context.Context, id runtime.ExecutionContextID, expr string, out any) error {
	err := p.evaluateOnce(ctx, id, expr, out)
	if err != nil && id != 0 && p.madeLibrary(ctx, id, err.Error()) {
		err = p.evaluateOnce(ctx, id, expr, out)
	}
	return err
}

func (p *Page) evaluateOnce(ctx context.Context, id runtime.ExecutionContextID, expr string, out any) error {
	t := true
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ContextID: id, ReturnByValue: &t, AwaitPromise: &t, Silent: &t,
	})
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("eval: %s", exceptionText(res.ExceptionDetails))
	}
	if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
		return nil
	}
	if len(res.Result.Value) > maxEvalBytes {
		return errors.New("eval: the result is too large")
	}
	return json.Unmarshal(res.Result.Value, out)
}

// exceptionText is what an exception in the page says, at most 300 bytes:
// its description (the error and its message) when it has one.
func exceptionText(d *runtime.ExceptionDetails) string {
	msg := d.Text
	if e := d.Exception; e != nil && e.Description != "" {
		msg = e.Description
	}
	if len(msg) > 300 {
		msg = msg[:300]
	}
	return msg
}

// CallOnNode calls the function declaration fn with the DOM node of the
// backend node id as its this, in the shopper's isolated world, and decodes
// its value into out.
func (p *Page) CallOnNode(ctx context.Context, backend cdp.BackendNodeID, fn string, out any) error {
	ctx, cancel := p.with(ctx)
	defer cancel()
	id, err := p.worldID(ctx)
	if err != nil {
		return fmt.Errorf("call on node: %w", err)
	}
	return p.callOn(ctx, id, backend, fn, out, p.resetWorld)
}

// callOn calls fn with the node as its this in the world id; stale is
// called when the world is gone.
func (p *Page) callOn(ctx context.Context, id runtime.ExecutionContextID, backend cdp.BackendNodeID, fn string, out any, stale func()) error {
	obj, err := chromedp.Call(ctx, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: backend, ExecutionContextID: id})
	if err != nil {
		if staleContext(err) {
			stale()
		}
		return fmt.Errorf("call on node: %w", err)
	}
	t := true
	call := func() (runtime.CallFunctionOnResult, error) {
		return chromedp.Call(ctx, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: fn, ObjectID: obj.Object.ObjectID, ReturnByValue: &t, AwaitPromise: &t, Silent: &t,
		})
	}
	res, err := call()
	if err == nil && res.ExceptionDetails != nil && p.madeLibrary(ctx, id, exceptionText(res.ExceptionDetails)) {
		res, err = call()
	}
	// The node's handle is let go without waiting for the answer: nothing
	// depends on it, and it goes with its document in any case.
	go func() {
		rctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		defer cancel()
		_, _ = chromedp.Call(rctx, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: obj.Object.ObjectID})
	}()
	if err != nil {
		return fmt.Errorf("call on node: %w", err)
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("call on node: %s", exceptionText(res.ExceptionDetails))
	}
	if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}

// AXTree returns the page's full accessibility tree (main frame), with
// what a shopper reads of each node: its id, parent and children, role,
// whether it is ignored, its DOM node, the states disabled, checked,
// pressed, selected and its url, and its name where axNamed keeps it. The
// protocol's answer is decoded into that much only: the full nodes (every
// name's sources, descriptions, related nodes) of a page with a few
// megabytes of text came to about 200 MB in svc for a single reading.
func (p *Page) AXTree(ctx context.Context) ([]*accessibility.Node, error) {
	nodes, err := p.axTree(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("accessibility tree: %w", err)
	}
	return nodes, nil
}

// axTree reads the tree of frame f (the main frame when "").
func (p *Page) axTree(ctx context.Context, f cdp.FrameID) ([]*accessibility.Node, error) {
	ctx, cancel := p.with(ctx)
	defer cancel()
	res, err := chromedp.Call(ctx, getLeanAXTree, accessibility.GetFullAXTreeParams{FrameID: f})
	if err != nil {
		return nil, err
	}
	out := make([]*accessibility.Node, len(res.Nodes))
	for i, w := range res.Nodes {
		n := &accessibility.Node{NodeID: w.NodeID, Ignored: w.Ignored, ParentID: w.ParentID,
			ChildIDs: w.ChildIDs, BackendDOMNodeID: w.BackendDOMNodeID, Role: w.Role.value()}
		if role, _ := unquote(w.Role); axNamed[role] {
			n.Name = w.Name.value()
		} else if role == "StaticText" {
			// A short text (a price, an option's name over its values)
			// is read; a paragraph is not kept.
			if t, ok := unquote(w.Name); ok && len(t) <= maxAXText {
				n.Name = w.Name.value()
			}
		}
		for _, pr := range w.Properties {
			if axKept[pr.Name] {
				n.Properties = append(n.Properties, &accessibility.Property{Name: pr.Name, Value: pr.Value.value()})
			}
		}
		out[i] = n
	}
	return out, nil
}

// axNamed are the roles whose accessible name a shopper reads: the
// controls it acts on, the options of a select, and the dialogs and
// groups around them. Other nodes (text, headings, generic containers)
// are kept without their name.
var axNamed = map[string]bool{
	"button": true, "link": true, "combobox": true, "menuitem": true, "radio": true, "checkbox": true,
	"tab": true, "switch": true, "option": true, "menuitemradio": true, "PopUpButton": true,
	"MenuListOption": true, "listbox": true, "dialog": true, "alertdialog": true, "group": true, "radiogroup": true,
	// B finds a consent manager by the name of its iframe or region.
	"Iframe": true, "region": true,
}

// maxAXText is the longest static text whose words the tree keeps.
const maxAXText = 80

// axKept are the properties a shopper reads.
var axKept = map[accessibility.PropertyName]bool{
	accessibility.PropertyNameDisabled: true, accessibility.PropertyNameChecked: true,
	accessibility.PropertyNamePressed: true, accessibility.PropertyNameSelected: true,
	accessibility.PropertyNameURL: true,
}

// getLeanAXTree is Accessibility.getFullAXTree decoded into leanAXNode.
var getLeanAXTree = cdp.Command[accessibility.GetFullAXTreeParams, struct {
	Nodes []leanAXNode `json:"nodes"`
}]{Method: accessibility.CommandGetFullAXTree}

// leanAXNode is the part of a protocol AXNode a shopper reads; the
// decoder skips the rest.
type leanAXNode struct {
	NodeID           accessibility.NodeID   `json:"nodeId"`
	Ignored          bool                   `json:"ignored"`
	Role             *leanAXValue           `json:"role"`
	Name             *leanAXValue           `json:"name"`
	Properties       []leanAXProperty       `json:"properties"`
	ParentID         accessibility.NodeID   `json:"parentId"`
	ChildIDs         []accessibility.NodeID `json:"childIds"`
	BackendDOMNodeID cdp.BackendNodeID      `json:"backendDOMNodeId"`
}

type leanAXProperty struct {
	Name  accessibility.PropertyName `json:"name"`
	Value *leanAXValue               `json:"value"`
}

type leanAXValue struct {
	Type  accessibility.ValueType `json:"type"`
	Value json.RawMessage         `json:"value"`
}

func (v *leanAXValue) value() *accessibility.Value {
	if v == nil {
		return nil
	}
	return &accessibility.Value{Type: v.Type, Value: jsontext.Value(v.Value)}
}

// unquote returns a value that is a JSON string.
func unquote(v *leanAXValue) (string, bool) {
	var s string
	if v == nil || json.Unmarshal(v.Value, &s) != nil {
		return "", false
	}
	return s, true
}

// Click sends a real pointer click (a tap on a mobile page) at the
// viewport point x, y: the pointer's move, press and release (the touch's
// start and end), in order, each sent right behind the one before
// (inputs).
func (p *Page) Click(ctx context.Context, x, y float64) error {
	ctx, cancel := p.with(ctx)
	defer cancel()
	p.Touch()
	var calls []inputCall
	what := "click"
	if p.opts.Mobile {
		what = "tap"
		for _, ev := range []input.DispatchTouchEventParams{
			{Type: input.DispatchTouchEventTypeTouchStart, TouchPoints: []*input.TouchPoint{{X: x, Y: y}}},
			{Type: input.DispatchTouchEventTypeTouchEnd, TouchPoints: []*input.TouchPoint{}},
		} {
			calls = append(calls, inputCall{input.CommandDispatchTouchEvent, func(ctx context.Context) error {
				_, err := chromedp.Call(ctx, input.DispatchTouchEvent, ev)
				return err
			}})
		}
	} else {
		for _, prm := range clickEvents(x, y) {
			calls = append(calls, inputCall{input.CommandDispatchMouseEvent, func(ctx context.Context) error {
				_, err := chromedp.Call(ctx, input.DispatchMouseEvent, prm)
				return err
			}})
		}
	}
	if err := p.inputs(ctx, calls...); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	p.Touch() // the quiet time of Settle starts once the page has the click
	return nil
}

// clickEvents are a pointer click's events at x, y: the move, the press
// and the release of the left button.
func clickEvents(x, y float64) []input.DispatchMouseEventParams {
	return []input.DispatchMouseEventParams{
		{Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y},
		{Type: input.DispatchMouseEventTypeMousePressed, X: x, Y: y, Button: input.MouseButtonLeft, ClickCount: 1},
		{Type: input.DispatchMouseEventTypeMouseReleased, X: x, Y: y, Button: input.MouseButtonLeft, ClickCount: 1},
	}
}

// Screenshot captures the viewport as a small JPEG (quality 50, about
// 480 px wide on a desktop page, 240 on a phone): the next frame the page
// draws, from a screencast started for it and stopped after it. A capture
// (Page.captureScreenshot) makes frames of its own and took 40 to 65 ms
// on a still page; the screencast's first frame comes with the page's
// next frame, in about 18 ms. When no frame comes within frameWait (a
// page whose drawing is stalled), the capture is taken instead.
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	ctx, cancel := p.with(ctx)
	defer cancel()
	p.shotMu.Lock()
	defer p.shotMu.Unlock()
	w, h, dpr, target := float64(DesktopWidth), float64(DesktopHeight), 1.0, 480.0
	if p.opts.Mobile {
		w, h, dpr, target = MobileWidth, MobileHeight, mobileScale, 240
	}
	q := int64(50)
	frames := make(chan []byte, 1)
	p.mu.Lock()
	p.screencast = frames
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.screencast = nil
		p.mu.Unlock()
	}()
	if _, err := chromedp.Call(ctx, page.StartScreencast, page.StartScreencastParams{
		Format: page.StartScreencastFormatJpeg, Quality: &q, MaxWidth: int64(target), MaxHeight: int64(target * h / w), EveryNthFrame: 1,
	}); err == nil {
		timer := time.NewTimer(frameWait)
		defer timer.Stop()
		var b []byte
		select {
		case b = <-frames:
		case <-timer.C:
		case <-ctx.Done():
		}
		_, _ = chromedp.Call(ctx, page.StopScreencast, cdp.Empty{})
		if b != nil {
			return b, nil
		}
	}
	fast := true
	res, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatJpeg, Quality: &q, OptimizeForSpeed: &fast,
		Clip: &page.Viewport{X: 0, Y: 0, Width: w, Height: h, Scale: target / (w * dpr)},
	})
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	return res.Data, nil
}

// frameWait is how long Screenshot waits for the page's next frame.
const frameWait = time.Second
