// Script in the page: the shopper's isolated world, evaluations in it or
// in the page's own world, and calls on one DOM node.

package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

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

// EvalJSON is Eval for a synchronous expression with a large value, such
// as a reading of a page's hundreds of controls: the page writes the value
// as JSON text (JSON.stringify, in the isolated world, out of the page's
// reach) and sends that one string, leaving out every property whose
// value is "" or false. A value sent as such is converted into the
// protocol's form property by property: on a page of 2,000 elements and
// 800 controls the reading's round trip took 62-82 ms so, 49-63 as text,
// and 48-50 as text without the empty properties (151 KB instead of 346).
// So out must be a fresh value, where a property left out reads as its
// zero value; an array's "" or false arrives as null, which leaves a Go
// string or bool at its zero value too.
func (p *Page) EvalJSON(ctx context.Context, expr string, out any) error {
	var text *string
	if err := p.Eval(ctx, "JSON.stringify("+expr+", (k, v) => v === '' || v === false ? undefined : v)", &text); err != nil {
		return err
	}
	if out == nil || text == nil {
		return nil
	}
	if err := json.Unmarshal([]byte(*text), out); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	return nil
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
