package shop

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"

	"svc/pipeline/detect"
	"svc/pipeline/shop/browser"
)

//go:embed dom.js
var domJS string

// helper is the expression that returns the page helper (dom.js, the
// page's Library) in the shopper's isolated world.
const helper = browser.LibraryRef

// errStop ends a run early with the outcome already set.
var errStop = errors.New("run ended")

// session is one browser run: the page, the report being written, and what
// the run knows so far.
type session struct {
	opts   Options
	page   *browser.Page
	rep    *Report
	ctx    context.Context // ends at the run deadline
	origin *url.URL
	frozen atomic.Bool // set at the first checkout page: nothing more is sent

	finder      finder                            // how the shopper sees pages (A, B, E)
	frameOwners map[cdp.FrameID]cdp.BackendNodeID // the iframe of each child frame seen
	dismissing  bool                              // an overlay is being dismissed: no second dismissal inside it
	dismissed   int                               // overlays dismissed so far

	product  string          // the product the run tries to buy
	added    bool            // an add-to-cart action was taken and confirmed
	lastDocs int             // main-frame documents already judged
	endKey   string          // the key of the checkout page the run ended on
	waited   map[string]bool // what lookAgain has waited for

	// early is the screenshot started as soon as a reading showed a
	// checkout page, the likely last page of the run (earlyShot).
	shotMu sync.Mutex
	early  *earlyShot

	// seen is the last reading of the page. A reading is reused only
	// while the page helper's key (the document, its DOM mutation count
	// and its address) is unchanged, and never across an action of the
	// shopper's own.
	seen pageCache
}

type pageCache struct {
	stKey, itemsKey, axKey string
	st                     PageState
	items                  []Item
	ax                     []*accessibility.Node
	// axOver marks a page at axKey beyond the documents whose
	// accessibility tree B reads (maxAXElements).
	axOver bool
	// settled is when a Settle that had just found the page at stKey
	// returned this reading: for settledFor after it, the reading is
	// taken as current without asking the page again.
	settled time.Time
}

// settledFor is how long a reading that Settle confirmed stays current
// without a round trip to the page to check its key. Settle confirmed it
// at the end of a quiet window of at least this long (no request, no DOM
// change), so the shopper's reads right after the settle (the step's
// record, the next look) take it as it is; a later read asks the page,
// and the guard reads the element it acts on afresh in any case.
const settledFor = 20 * time.Millisecond

// current reports whether the cached reading is one Settle confirmed
// within settledFor.
func (c *pageCache) current() bool {
	return c.stKey != "" && !c.settled.IsZero() && time.Since(c.settled) < settledFor
}

// forget drops the cached reading: the shopper is about to act.
func (s *session) forget() { s.seen = pageCache{} }

func (s *session) stepCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.ctx, s.opts.StepTimeout)
}

// stateReading is the page helper's answer to stateIf.
type stateReading struct {
	PageState
	Same bool   `json:"same"`
	Key  string `json:"key"`
}

// itemsReading is the page helper's answer to snapshotIf.
type itemsReading struct {
	Same  bool   `json:"same"`
	Key   string `json:"key"`
	Items []Item `json:"items"`
}

// state reads the page.
func (s *session) state() (PageState, error) {
	if s.seen.current() {
		return s.seen.st, nil
	}
	defer phase("read the page (state)")()
	ctx, cancel := s.stepCtx()
	defer cancel()
	var r stateReading
	k, _ := json.Marshal(s.seen.stKey)
	if err := s.page.Eval(ctx, helper+".stateIf("+string(k)+")", &r); err != nil {
		s.forget()
		return PageState{}, err
	}
	return s.keepState(r), nil
}

// keepState caches a state reading, or returns the cached one when the
// page is unchanged.
func (s *session) keepState(r stateReading) PageState {
	if r.Same {
		return s.seen.st
	}
	if s.seen.stKey != r.Key {
		s.seen = pageCache{} // a new page: every cached reading is stale
	}
	s.seen.stKey, s.seen.st = r.Key, r.PageState
	return r.PageState
}

// items lists the actionable elements of the page.
func (s *session) items() ([]Item, error) {
	defer phase("read the page (items)")()
	ctx, cancel := s.stepCtx()
	defer cancel()
	var r itemsReading
	k, _ := json.Marshal(s.seen.itemsKey)
	if err := s.page.Eval(ctx, helper+".snapshotIf("+string(k)+")", &r); err != nil {
		s.forget()
		return nil, err
	}
	return s.keepItems(r), nil
}

// keepItems caches an items reading, or returns the cached items when
// the page is unchanged.
func (s *session) keepItems(r itemsReading) []Item {
	if r.Same {
		return s.seen.items
	}
	s.seen.itemsKey, s.seen.items = r.Key, r.Items
	return r.Items
}

// reading is what Settle reads of a page while it waits out the quiet
// window (browser.Page.Prefetch): the state, the items for a shopper that
// reads the DOM, and the accessibility tree for one that reads that.
type reading struct {
	State    stateReading  `json:"state"`
	Snapshot *itemsReading `json:"snapshot"`
	Elements int           `json:"elements"`
	ax       []*accessibility.Node
	axRead   bool
}

// prefetch returns the reading function of the shopper whose finder
// reads the DOM (items) or the accessibility tree (ax).
func (s *session) prefetch(items, ax bool) func(ctx context.Context) (string, any) {
	expr := "({state: " + helper + ".stateIf('')})"
	switch {
	case items:
		expr = helper + ".settleLook()"
	case ax:
		expr = "({state: " + helper + ".stateIf(''), elements: " + elementsJS + "})"
	}
	return func(ctx context.Context) (string, any) {
		defer phase("  the reading made while settling")()
		var r reading
		done := phase("  the reading made while settling (the page's part)")
		key, err := s.page.EvalKeyed(ctx, expr, &r)
		done()
		if err != nil || key == "" {
			return "", nil
		}
		// A checkout page ends the run (judge): its tree would never be
		// read. Should the run go on after all, B's look reads it then.
		if ax && r.Elements <= maxAXElements && !IsCheckoutPage(r.State.PageState) {
			defer phase("  accessibility tree (read while settling)")()
			// The tree, read while the page stays as it was.
			nodes, err := s.page.AXTree(ctx)
			if err != nil {
				return "", nil
			}
			if again, err := s.page.Key(ctx); err != nil || again != key {
				return "", nil
			}
			r.ax, r.axRead = nodes, true
		}
		if IsCheckoutPage(r.State.PageState) {
			s.shootEarly(key)
		}
		return key, &r
	}
}

// takeReading installs the reading Settle prefetched, when the page is
// still as read, so the shopper's next look is answered from it: without
// asking the page at all within settledFor, and with the page's "same"
// after that.
func (s *session) takeReading() {
	v, ok := s.page.Reading()
	r, _ := v.(*reading)
	if !ok || r == nil || r.State.Same || r.State.Key == "" {
		return
	}
	s.forget()
	s.keepState(r.State)
	if r.Snapshot != nil && !r.Snapshot.Same && r.Snapshot.Key == r.State.Key {
		s.keepItems(*r.Snapshot)
	}
	if r.axRead {
		s.seen.axKey, s.seen.ax = r.State.Key, r.ax
	}
	s.seen.settled = time.Now()
}

// settle waits for the page to settle and takes what was read meanwhile.
func (s *session) settle(ctx context.Context) error {
	err := s.page.Settle(ctx)
	s.takeReading()
	return err
}

// stateAndItems is state and items in one round trip.
func (s *session) stateAndItems() (PageState, []Item, error) {
	if s.seen.current() && s.seen.itemsKey == s.seen.stKey {
		return s.seen.st, s.seen.items, nil
	}
	defer phase("read the page (state and items)")()
	ctx, cancel := s.stepCtx()
	defer cancel()
	var r reading
	sk, _ := json.Marshal(s.seen.stKey)
	ik, _ := json.Marshal(s.seen.itemsKey)
	if err := s.page.Eval(ctx, helper+".lookIf("+string(sk)+", "+string(ik)+")", &r); err != nil {
		s.forget()
		return PageState{}, nil, err
	}
	if r.Snapshot == nil {
		r.Snapshot = &itemsReading{}
	}
	items, itemsKey := s.seen.items, s.seen.itemsKey
	st := s.keepState(r.State) // may drop the cache, items too
	if r.Snapshot.Same {
		// The items were read at this very key (after the state was).
		s.seen.itemsKey, s.seen.items = itemsKey, items
		return st, items, nil
	}
	return st, s.keepItems(*r.Snapshot), nil
}

// evalIn evaluates expr in the shopper's world of frame f ("" is the
// main frame).
func (s *session) evalIn(ctx context.Context, f cdp.FrameID, expr string, out any) error {
	if f == "" {
		return s.page.Eval(ctx, expr, out)
	}
	return s.page.EvalIn(ctx, f, expr, out)
}

// describe reads one element afresh, for the guard.
func (s *session) describe(it Item) (*Item, error) {
	ctx, cancel := s.stepCtx()
	defer cancel()
	var fresh *Item
	err := s.evalIn(ctx, it.frame, fmt.Sprintf("%s.describe(%d)", helper, it.Ref), &fresh)
	if fresh != nil {
		fresh.frame = it.frame
	}
	return fresh, err
}

// registerNode gives a DOM node found another way (the accessibility tree)
// a ref of the page helper of its frame.
func (s *session) registerNode(f cdp.FrameID, id cdp.BackendNodeID) (int, error) {
	ctx, cancel := s.stepCtx()
	defer cancel()
	var ref int
	err := s.onNode(ctx, f, id, "register(this)", &ref)
	return ref, err
}

// onNode calls a method of the page helper with a DOM node as this, in
// the shopper's world of frame f ("" is the main frame): call is the
// method and its arguments, as "register(this)".
func (s *session) onNode(ctx context.Context, f cdp.FrameID, node cdp.BackendNodeID, call string, out any) error {
	fn := "function() { return " + helper + "." + call + " }"
	if f == "" {
		return s.page.CallOnNode(ctx, node, fn, out)
	}
	return s.page.CallOnNodeIn(ctx, f, node, fn, out)
}

// clickPoint is where a click on an element lands, in the page's visual
// viewport, and whether it lands on the element.
type clickPoint struct {
	OK  bool    `json:"ok"`
	Why string  `json:"why"`
	X   float64 `json:"x"`
	Y   float64 `json:"y"`
}

// aim reads an element afresh, for the guard, and finds where a click on
// it lands, in one round trip: fresh is nil when the element is gone. An
// element found in the accessibility tree is reached by its DOM node and
// given a ref in the same round trip. The point scrolls the element into
// view; nothing is clicked before the guard has judged fresh. For an
// element in a child frame the frame's point is carried into the main
// frame through the iframe's box, and must land on the iframe; err
// reports that this could not be done.
func (s *session) aim(ctx context.Context, it Item) (fresh *Item, pt clickPoint, err error) {
	var r struct {
		Item  *Item      `json:"item"`
		Point clickPoint `json:"point"`
	}
	if it.backend != 0 {
		err = s.onNode(ctx, it.frame, it.backend, "aimNode(this)", &r)
	} else {
		err = s.evalIn(ctx, it.frame, fmt.Sprintf("%s.aim(%d)", helper, it.Ref), &r)
	}
	if err != nil || r.Item == nil {
		return nil, clickPoint{}, nil
	}
	fresh, pt = r.Item, r.Point
	fresh.frame = it.frame
	if it.frame == "" || !pt.OK {
		return fresh, pt, nil
	}
	owner, ok := s.frameOwners[it.frame]
	if !ok {
		return fresh, clickPoint{Why: "gone"}, nil
	}
	var mp clickPoint
	err = s.onNode(ctx, "", owner, fmt.Sprintf("framePoint(this, %g, %g)", pt.X, pt.Y), &mp)
	return fresh, mp, err
}

// overlayFrames lists the child frames drawn as overlays (by the page
// helper's reading of their iframes), with the items in each, marked as
// in a dialog. It remembers each frame's iframe for clicks.
func (s *session) overlayFrameItems() []Item {
	defer phase("overlay frames")()
	ctx, cancel := s.stepCtx()
	defer cancel()
	frames, err := s.page.Frames(ctx)
	if err != nil {
		return nil
	}
	var out []Item
	for _, f := range frames {
		if reNotConsentFrame.MatchString(f.URL) {
			continue // a payment field or a challenge is never an overlay to dismiss
		}
		var overlay bool
		if err := s.onNode(ctx, "", f.Owner, "overlayFrame(this)", &overlay); err != nil || !overlay {
			continue
		}
		var its []Item
		if err := s.page.EvalIn(ctx, f.ID, helper+".snapshot()", &its); err != nil {
			continue
		}
		s.rememberFrame(f)
		for _, it := range its {
			it.frame, it.Dialog = f.ID, true
			out = append(out, it)
		}
	}
	return out
}

// rememberFrame keeps the iframe a child frame is drawn in.
func (s *session) rememberFrame(f browser.Frame) {
	if s.frameOwners == nil {
		s.frameOwners = map[cdp.FrameID]cdp.BackendNodeID{}
	}
	s.frameOwners[f.ID] = f.Owner
}

// reNotConsentFrame matches the addresses of frames that are never a
// consent dialog: payment fields, wallets and challenges.
var reNotConsentFrame = regexp.MustCompile(`(?i)recaptcha|hcaptcha|captcha|challenges?\.cloudflare|turnstile|arkoselabs|funcaptcha|pay|card|stripe|braintree|adyen|checkout|pci`)

// record appends a step with the page's title and address as they are
// now; on a checkout page the address is withheld.
func (s *session) record(action string, role, name, note string) {
	st, _ := s.state()
	s.recordState(st, action, role, name, note)
}

func (s *session) recordState(st PageState, action, role, name, note string) {
	checkout := s.frozen.Load() || IsCheckoutPage(st)
	s.rep.Log = append(s.rep.Log, Step{
		N: len(s.rep.Log) + 1, Action: action, Role: role, Name: safeName(name),
		Title: clipText(st.Title, 120), URL: StepURL(st.URL, checkout), Note: note,
	})

}

// safeName keeps an element name fit for the log: short, and never an
// address.
func safeName(s string) string {
	s = clipText(s, 80)
	if strings.Contains(s, "://") || strings.HasPrefix(s, "/") {
		return "(an address)"
	}
	return s
}

func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n]
		for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
			s = s[:len(s)-1]
		}
	}
	return s
}

// open loads a URL in the tab and judges what came back.
func (s *session) open(raw, why string) error {
	ctx, cancel := s.stepCtx()
	defer cancel()
	s.forget()
	done := phase("open a page (navigate and settle)")
	err := s.page.Navigate(ctx, raw)
	done()
	s.takeReading()
	st, _ := s.state()
	note := why
	if err != nil {
		note = strings.TrimSpace(why + " (the page did not load)")
	}
	s.recordState(st, "open", "", "", note)
	return s.judge(st)
}

// act clicks an element after the guard allows it, waits for the page to
// settle, and judges the result. A refusal is recorded and returned as
// errRefused.
func (s *session) act(it Item, role, name, why string) error {
	if s.frozen.Load() {
		return s.refuse(role, name, GuardCheckoutPage)
	}
	ctx, cancel := s.stepCtx()
	defer cancel()
	done := phase("aim (the guard's look)")
	fresh, pt, err := s.aim(ctx, it)
	done()
	if fresh == nil {
		s.record("click", role, name, "the element is gone")
		return errGone
	}
	if r := Forbidden(*fresh); r != "" {
		return s.refuse(role, name, r)
	}
	if err != nil {
		s.record("click", role, name, "the element could not be reached")
		return errGone
	}
	if !pt.OK {
		s.record("click", role, name, "not clicked: the element is "+pt.Why)
		if pt.Why == "covered" {
			return errCovered
		}
		return errGone
	}
	s.forget()
	docs := len(s.page.Documents())
	_ = s.page.TakeOpened(ctx) // what the page opened before the click is not the click's
	done = phase("click")
	if err := s.page.Click(ctx, pt.X, pt.Y); err != nil {
		done()
		s.record("click", role, name, "the click failed")
		return errGone
	}
	done()
	done = phase("settle after a click")
	_ = s.settle(ctx)
	done()
	st, _ := s.state()
	// A click that opened a new tab or window (a link with a target,
	// window.open) and left this tab where it was: the shopper follows the
	// address in its own tab, as the link it would be, judged by the guard
	// first; never to another brand's site (a pop-under advertisement).
	note, follow := why, ""
	if u := s.page.TakeOpened(ctx); len(s.page.Documents()) == docs {
		switch pu := webURL(u); {
		case pu == nil:
		case s.sameBrand(pu):
			note, follow = why+" (it opened a new tab)", u
		default:
			note = why + " (it opened a tab on another site, not followed)"
		}
	}
	s.recordState(st, "click", role, name, note)
	if err := s.judge(st); err != nil || follow == "" {
		return err
	}
	if r := Forbidden(Item{Tag: "a", Href: follow, Name: name}); r != "" {
		return s.refuse(role, name, r)
	}
	return s.open(follow, "follow the new tab in this one")
}

// webURL parses an http or https address; nil for anything else
// (about:blank, a script, data, nothing).
func webURL(raw string) *url.URL {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return nil
	}
	return u
}

// choose picks an option of a select, after the guard allows the select.
func (s *session) choose(it Item, opt Option, role, name string) error {
	if s.frozen.Load() {
		return s.refuse(role, name, GuardCheckoutPage)
	}
	fresh, err := s.describe(it)
	if err != nil || fresh == nil {
		return errGone
	}
	if r := Forbidden(*fresh); r != "" {
		return s.refuse(role, name, r)
	}
	ctx, cancel := s.stepCtx()
	defer cancel()
	var ok bool
	s.forget()
	if err := s.page.Eval(ctx, fmt.Sprintf("%s.select(%d, %d)", helper, it.Ref, opt.I), &ok); err != nil || !ok {
		s.record("choose", role, name, "the option could not be chosen")
		return errGone
	}
	s.page.Touch()
	done := phase("settle after a choice")
	_ = s.settle(ctx)
	done()
	st, _ := s.state()
	s.recordState(st, "choose", role, name+": "+clipText(opt.Text, 40), "first available option")
	return s.judge(st)
}

var (
	errRefused = errors.New("the guard refused the action")
	errGone    = errors.New("the element could not be used")
	errCovered = errors.New("the element is covered")
)

func (s *session) refuse(role, name, reason string) error {
	s.record("refused", role, name, "guard: "+reason)
	return errRefused
}

// judge looks at the page after an action: a new document that is a wall
// or an error, a challenge, a login wall or the first checkout page may end
// the run (errStop, with the outcome set).
func (s *session) judge(st PageState) error {
	docs := s.page.Documents()
	fresh := docs
	if s.lastDocs <= len(docs) {
		fresh = docs[s.lastDocs:]
	}
	s.lastDocs = len(docs)
	for _, d := range fresh {
		if d.Err != "" {
			if d.Err == "refused" {
				continue // recorded as a refusal; the page stays where it was
			}
			if !s.added {
				return s.end(Error, "store_"+d.Err)
			}
			return s.end(AddedToCart, "checkout_"+d.Err)
		}
		page := detect.NewPage(d.URL, d.Status, d.Header, d.Body)
		if b := detect.DetectBlock(page); b.Blocked {
			if !s.added {
				return s.end(Blocked, "blocked_"+b.Reason)
			}
			return s.end(AddedToCart, "checkout_challenge")
		}
		if d.Status >= http.StatusInternalServerError {
			if !s.added {
				return s.end(Error, fmt.Sprintf("store_http_%d", d.Status))
			}
			return s.end(AddedToCart, fmt.Sprintf("checkout_http_%d", d.Status))
		}
	}
	switch {
	case IsCheckoutPage(st):
		s.frozen.Store(true)
		s.endKey = s.seen.stKey
		s.checkoutWebMCP()
		return s.end(CheckoutReached, "checkout_page_loaded")
	case IsChallenge(st):
		if !s.added {
			return s.end(Blocked, "challenge")
		}
		return s.end(AddedToCart, "checkout_challenge")
	case IsLoginWall(st):
		if !s.added {
			return s.end(NoCart, "login_required")
		}
		return s.end(AddedToCart, "checkout_login_required")
	}
	return nil
}

func (s *session) end(outcome, reason string) error {
	s.rep.Outcome, s.rep.Reason = outcome, reason
	if outcome == CheckoutReached || outcome == AddedToCart && strings.HasPrefix(reason, "checkout_") {
		s.frozen.Store(true)
	}
	return errStop
}

// cartEvidence reports whether the page shows the cart holding an item:
// a cart count of one or more, an "added to cart" message, or a cart view
// with line items or the product's name and no empty-cart message.
func (s *session) cartEvidence(st PageState) (bool, string) {
	if st.CartCount != nil && *st.CartCount > 0 {
		return true, fmt.Sprintf("cart count %d", *st.CartCount)
	}
	if reEmptyCart.MatchString(st.Text) {
		return false, ""
	}
	if reAddedText.MatchString(st.Text) {
		return true, "added message"
	}
	inCartView := false
	for _, h := range append([]string{st.Title}, st.Headings...) {
		if reCartHeading.MatchString(h) {
			inCartView = true
		}
	}
	if inCartView && st.LineItems > 0 {
		return true, "cart line items"
	}
	if inCartView && s.product != "" && strings.Contains(strings.ToLower(st.Text), strings.ToLower(s.product)) {
		return true, "product in cart"
	}
	return false, ""
}

// jsonldProducts reads the products of the page's JSON-LD with the same
// reader as the plain-HTTP checks.
func jsonldProducts(st PageState) []detect.Product {
	if len(st.JSONLD) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("<html><head>")
	for _, t := range st.JSONLD {
		b.WriteString(`<script type="application/ld+json">`)
		b.WriteString(strings.ReplaceAll(t, "</", "<\\/"))
		b.WriteString("</script>")
	}
	b.WriteString("</head></html>")
	u, _ := url.Parse(st.URL)
	p := detect.NewPage(u, 200, http.Header{"Content-Type": {"text/html"}}, []byte(b.String()))
	return detect.ExtractJSONLD(p).Products
}

// screenshot keeps a small image of the last page: the one started
// early on this very page when there is one, else one taken now.
func (s *session) screenshot() {
	defer phase("screenshot")()
	s.shotMu.Lock()
	sh := s.early
	s.shotMu.Unlock()
	if sh != nil && sh.key == s.endKey {
		<-sh.done
		if sh.err == nil {
			s.rep.Screenshot = newScreenshot(sh.data)
			return
		}
	}
	b, err := s.shoot()
	if err == nil {
		s.rep.Screenshot = newScreenshot(b)
	}
}

func (s *session) shoot() ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 5*time.Second)
	defer cancel()
	return s.page.Screenshot(ctx)
}

// earlyShot is a screenshot of the page at key, taken while the run goes
// on: a screenshot waits for the next frame the page draws (some 18 ms,
// nearly all of it idle), so the one of a checkout page, the last page of
// most runs, is started the moment a reading shows that page, alongside
// Settle's quiet window and the checkout page's WebMCP reading.
type earlyShot struct {
	key  string
	done chan struct{} // closed once data or err is set
	data []byte
	err  error
}

// shootEarly starts the screenshot of the page at key, once per key.
func (s *session) shootEarly(key string) {
	s.shotMu.Lock()
	defer s.shotMu.Unlock()
	if s.early != nil && s.early.key == key {
		return
	}
	sh := &earlyShot{key: key, done: make(chan struct{})}
	s.early = sh
	go func() {
		defer close(sh.done)
		sh.data, sh.err = s.shoot()
	}()
}

// sameBrand reports whether u is on the store's site or a sibling host of
// the same brand (secure.brand.com, brand.myshopify.com).
func (s *session) sameBrand(u *url.URL) bool {
	if detect.RegistrableDomain(u.Hostname()) == detect.RegistrableDomain(s.origin.Hostname()) {
		return true
	}
	return !detect.DetectRedirect(s.origin, u).AnotherBrand
}
