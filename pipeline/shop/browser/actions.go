// What a shopper does with a page: navigate, load, click and take a
// screenshot. Waiting for it (settle.go), evaluating script in it
// (eval.go) and reading its accessibility tree (axtree.go) have files of
// their own.

package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
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
