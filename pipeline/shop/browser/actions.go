// What a shopper does with a page: navigate, wait, evaluate script, read
// the accessibility tree, click and take a screenshot.

package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
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

// Settle waits until the page has had no request in flight for a short
// quiet time and its document is complete, or ctx ends (not an error: a
// page that never settles is judged as it stands).
func (p *Page) Settle(ctx context.Context) error {
	const quiet = 150 * time.Millisecond
	tick := time.NewTicker(30 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-p.ctx.Done():
			return errors.New("the page was closed")
		case <-tick.C:
		}
		p.mu.Lock()
		// A document still loading with nothing in flight for 3 s is
		// judged as it stands (a stalled load must not hold a run).
		idle := p.inflight == 0 && time.Since(p.activity) >= quiet && (!p.loading || time.Since(p.activity) >= 3*time.Second)
		p.mu.Unlock()
		if !idle {
			continue
		}
		var state string
		if err := p.Eval(ctx, "document.readyState", &state); err == nil && state == "complete" {
			return nil
		}
	}
}

func (p *Page) resetWorld() {
	p.mu.Lock()
	p.world = 0
	p.mu.Unlock()
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
	t := true
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ContextID: id, ReturnByValue: &t, AwaitPromise: &t, Silent: &t,
	})
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if res.ExceptionDetails != nil {
		msg := res.ExceptionDetails.Text
		if e := res.ExceptionDetails.Exception; e != nil && e.Description != "" {
			msg = e.Description
		}
		if len(msg) > 300 {
			msg = msg[:300]
		}
		return fmt.Errorf("eval: %s", msg)
	}
	if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
		return nil
	}
	if len(res.Result.Value) > maxEvalBytes {
		return errors.New("eval: the result is too large")
	}
	return json.Unmarshal(res.Result.Value, out)
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
	obj, err := chromedp.Call(ctx, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: backend, ExecutionContextID: id})
	if err != nil {
		if staleContext(err) {
			p.resetWorld()
		}
		return fmt.Errorf("call on node: %w", err)
	}
	t := true
	res, err := chromedp.Call(ctx, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn, ObjectID: obj.Object.ObjectID, ReturnByValue: &t, AwaitPromise: &t, Silent: &t,
	})
	_, _ = chromedp.Call(ctx, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: obj.Object.ObjectID})
	if err != nil {
		return fmt.Errorf("call on node: %w", err)
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("call on node: %s", res.ExceptionDetails.Text)
	}
	if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}

// AXTree returns the page's full accessibility tree (main frame).
func (p *Page) AXTree(ctx context.Context) ([]*accessibility.Node, error) {
	ctx, cancel := p.with(ctx)
	defer cancel()
	res, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		return nil, fmt.Errorf("accessibility tree: %w", err)
	}
	return res.Nodes, nil
}

// Click sends a real pointer click (a tap on a mobile page) at the
// viewport point x, y.
func (p *Page) Click(ctx context.Context, x, y float64) error {
	ctx, cancel := p.with(ctx)
	defer cancel()
	if p.opts.Mobile {
		p.Touch()
		pt := []*input.TouchPoint{{X: x, Y: y}}
		if _, err := chromedp.Call(ctx, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: input.DispatchTouchEventTypeTouchStart, TouchPoints: pt}); err != nil {
			return fmt.Errorf("tap: %w", err)
		}
		if _, err := chromedp.Call(ctx, input.DispatchTouchEvent, input.DispatchTouchEventParams{Type: input.DispatchTouchEventTypeTouchEnd, TouchPoints: []*input.TouchPoint{}}); err != nil {
			return fmt.Errorf("tap: %w", err)
		}
		return nil
	}
	p.Touch()
	for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMouseMoved, input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
		prm := input.DispatchMouseEventParams{Type: typ, X: x, Y: y}
		if typ != input.DispatchMouseEventTypeMouseMoved {
			prm.Button = input.MouseButtonLeft
			prm.ClickCount = 1
		}
		if _, err := chromedp.Call(ctx, input.DispatchMouseEvent, prm); err != nil {
			return fmt.Errorf("click: %w", err)
		}
	}
	return nil
}

// Screenshot captures the viewport as a small JPEG (quality 50, about
// 480 px wide on a desktop page, 240 on a phone).
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	ctx, cancel := p.with(ctx)
	defer cancel()
	w, h, dpr, target := float64(DesktopWidth), float64(DesktopHeight), 1.0, 480.0
	if p.opts.Mobile {
		w, h, dpr, target = MobileWidth, MobileHeight, mobileScale, 240
	}
	q := int64(50)
	res, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatJpeg, Quality: &q,
		Clip: &page.Viewport{X: 0, Y: 0, Width: w, Height: h, Scale: target / (w * dpr)},
	})
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	return res.Data, nil
}
