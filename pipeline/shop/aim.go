// Aiming at an element: reading it afresh for the guard, the frames it
// lives in, and the point a click or tap lands on.

package shop

import (
	"context"
	"fmt"
	"regexp"
	"svc/pipeline/shop/browser"

	"github.com/chromedp/cdproto/cdp"
)

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
