// Child frames: what a shopper needs to reach a consent dialog that a
// consent manager (Sourcepoint, TrustArc) draws inside an iframe, often
// from another origin. Chromium runs a page's frames in its process (site
// isolation is off, see Flags), so every frame is in this tab's target:
// its document gets the shopper's isolated world like the main frame's,
// and its accessibility tree is one call away.

package browser

import (
	"context"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// maxFrames bounds the child frames a page reports.
const maxFrames = 16

// Frame is a child frame of the main frame.
type Frame struct {
	ID  cdp.FrameID
	URL string
	// Owner is the iframe element in the main document.
	Owner cdp.BackendNodeID
}

// frameWorlds are the shopper's isolated worlds in child frames, by frame.
// They are forgotten with the main frame's world (a new document).
type frameWorlds struct {
	mu sync.Mutex
	m  map[cdp.FrameID]runtime.ExecutionContextID
}

func (w *frameWorlds) get(f cdp.FrameID) runtime.ExecutionContextID {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.m[f]
}

func (w *frameWorlds) set(f cdp.FrameID, id runtime.ExecutionContextID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[cdp.FrameID]runtime.ExecutionContextID{}
	}
	w.m[f] = id
}

func (w *frameWorlds) forget(f cdp.FrameID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if f == "" {
		w.m = nil
		return
	}
	delete(w.m, f)
}

// Frames lists the main frame's child frames (not their own children), at
// most 16, with the iframe element each is drawn in.
func (p *Page) Frames(ctx context.Context) ([]Frame, error) {
	ctx, cancel := p.with(ctx)
	defer cancel()
	tree, err := chromedp.Call(ctx, page.GetFrameTree, struct{}{})
	if err != nil {
		return nil, fmt.Errorf("frames: %w", err)
	}
	var out []Frame
	for _, c := range tree.FrameTree.ChildFrames {
		if c == nil || c.Frame == nil || len(out) >= maxFrames {
			continue
		}
		owner, err := chromedp.Call(ctx, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: c.Frame.ID})
		if err != nil {
			continue // gone since the tree was read
		}
		out = append(out, Frame{ID: c.Frame.ID, URL: c.Frame.URL, Owner: owner.BackendNodeID})
	}
	return out, nil
}

// frameWorld returns the shopper's isolated world in frame f.
func (p *Page) frameWorld(ctx context.Context, f cdp.FrameID) (runtime.ExecutionContextID, error) {
	if id := p.frames.get(f); id != 0 {
		return id, nil
	}
	res, err := chromedp.Call(ctx, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: f, WorldName: worldName})
	if err != nil {
		return 0, err
	}
	p.frames.set(f, res.ExecutionContextID)
	return res.ExecutionContextID, nil
}

// EvalIn is Eval in the shopper's isolated world of child frame f.
func (p *Page) EvalIn(ctx context.Context, f cdp.FrameID, expr string, out any) error {
	ctx, cancel := p.with(ctx)
	defer cancel()
	for attempt := 0; ; attempt++ {
		id, err := p.frameWorld(ctx, f)
		if err != nil {
			return fmt.Errorf("eval in frame: %w", err)
		}
		err = p.evaluate(ctx, id, expr, out)
		if err != nil && attempt == 0 && staleContext(err) {
			p.frames.forget(f)
			continue
		}
		return err
	}
}

// CallOnNodeIn is CallOnNode for a node of child frame f.
func (p *Page) CallOnNodeIn(ctx context.Context, f cdp.FrameID, backend cdp.BackendNodeID, fn string, out any) error {
	ctx, cancel := p.with(ctx)
	defer cancel()
	id, err := p.frameWorld(ctx, f)
	if err != nil {
		return fmt.Errorf("call on node in frame: %w", err)
	}
	return p.callOn(ctx, id, backend, fn, out, func() { p.frames.forget(f) })
}

// AXTreeIn returns the accessibility tree of child frame f, read as
// AXTree reads the page's.
func (p *Page) AXTreeIn(ctx context.Context, f cdp.FrameID) ([]*accessibility.Node, error) {
	nodes, err := p.axTree(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("accessibility tree of a frame: %w", err)
	}
	return nodes, nil
}
