package shop

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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

// forget drops the cached reading: the shopper is about to act.
func (s *session) forget() { s.seen = pageCache{} }

func (s *session) stepCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.ctx, s.opts.StepTimeout)
}

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
	// A link to another page: the page's address and key before the
	// click (those of the reading the shopper decided on, with no round
	// trip of their own), to tell a click that has changed nothing yet.
	var before, key string
	if fresh.Tag == "a" && webURL(fresh.Href) != nil {
		if st, err := s.state(); err == nil && !samePage(st.URL, fresh.Href) {
			before, key = st.URL, s.seen.stKey
		}
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
	opened := s.page.TakeOpened(ctx)
	st, _ := s.state()
	if key != "" && opened == "" && st.URL == before && s.seen.stKey == key {
		s.awaitLink(ctx, before)
		st, _ = s.state()
	}
	// A click that opened a new tab or window (a link with a target,
	// window.open) and left this tab where it was: the shopper follows the
	// address in its own tab, as the link it would be, judged by the guard
	// first; never to another brand's site (a pop-under advertisement).
	note, follow := why, ""
	if u := opened; len(s.page.Documents()) == docs {
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

// linkPatience is how long a click on a link to another page waits for
// the address to change once the page has settled: a storefront's router
// (Next.js's Link, as Vendure's storefront uses it) may change it only
// when its transition renders, after the settle's quiet window when the
// machine is busy, and a person who clicks a link waits for the page to
// change before deciding it did nothing.
const linkPatience = 2 * time.Second

// awaitLink waits, for at most linkPatience, for the page's address to
// leave before (a link was clicked and the page settled where it was, its
// document and DOM unchanged: a link that opened a drawer instead has
// changed the DOM, and is not waited on), then for the page to settle
// again.
func (s *session) awaitLink(ctx context.Context, before string) {
	defer phase("await a link's navigation")()
	deadline := time.Now().Add(linkPatience)
	for time.Now().Before(deadline) {
		var href string
		if err := s.page.Eval(ctx, "location.href", &href); err != nil || href != before {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
	s.forget()
	_ = s.settle(ctx)
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

// sameBrand reports whether u is on the store's site or a sibling host of
// the same brand (secure.brand.com, brand.myshopify.com).
func (s *session) sameBrand(u *url.URL) bool {
	if detect.RegistrableDomain(u.Hostname()) == detect.RegistrableDomain(s.origin.Hostname()) {
		return true
	}
	return !detect.DetectRedirect(s.origin, u).AnotherBrand
}
