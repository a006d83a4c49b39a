package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/emulation"
	cdpfetch "github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"svc/pipeline/fetch"
)

// Viewports of the two kinds of page.
const (
	DesktopWidth, DesktopHeight = 1280, 800
	MobileWidth, MobileHeight   = 390, 844
	mobileScale                 = 2
)

// UserAgentToken is appended to the browser's user agent: the shopper says
// what it is, and that it stops before payment.
const UserAgentToken = "svc-shopper/1.0 (+agent-commerce readiness; stops before payment)"

// Bounds on what a page keeps.
const (
	maxDocBody   = 256 << 10 // bytes of a main-frame document kept for wall detection
	maxDocs      = 32
	maxRefusals  = 64
	worldName    = "svc-shopper"
	maxEvalBytes = 4 << 20
)

// PageOptions configure a Page.
type PageOptions struct {
	// Mobile emulates a phone: 390×844, a mobile user agent and touch.
	Mobile bool
	// InitScripts run in the page's own JavaScript world before any page
	// script, on every document (Page.addScriptToEvaluateOnNewDocument).
	InitScripts []string
	// AllowNavigation reports whether the main frame may load u (a
	// document request of the top-level page); nil allows every URL the
	// safe client allows. A refused navigation fails in the browser and
	// is recorded as a Refusal.
	AllowNavigation func(u *url.URL) bool
	// RefuseRequest returns a reason to refuse a request that is not a
	// GET or HEAD, or "" to let it through: the network-level twin of
	// the shopper's control guard.
	RefuseRequest func(method string, u *url.URL) string
}

// Document is a main-frame document the page was served.
type Document struct {
	URL    *url.URL
	Status int
	Header http.Header
	Body   []byte // at most 256 KiB
	// Err is the class of a failure when no response came: "timeout",
	// "refused", "too_large" or "connect".
	Err string
	// Refusal is the code of a refused document (Err "refused").
	Refusal string
}

// Refusal is a request the page was not allowed to make. It holds the host
// only, never the URL.
type Refusal struct {
	Host   string `json:"host"`
	Code   string `json:"code"`
	Method string `json:"method,omitempty"`
}

// Page is one tab in a fresh incognito browser context.
type Page struct {
	b      *Browser
	opts   PageOptions
	ctx    context.Context
	cancel context.CancelFunc
	client *fetch.Client
	frame  cdp.FrameID

	mu       sync.Mutex
	inflight int
	activity time.Time
	docs     []Document
	refused  []Refusal
	world    runtime.ExecutionContextID
	served   int
	loading  bool // the main frame is loading a document
}

// NewPage opens a tab in a new incognito browser context, with request
// interception, the viewport and user agent of opts, and the init scripts
// installed. Close it when done.
func (b *Browser) NewPage(ctx context.Context, opts PageOptions) (*Page, error) {
	ua := desktopUA(b.product)
	if opts.Mobile {
		ua = mobileUA(b.product)
	}
	client, err := b.client(ua)
	if err != nil {
		return nil, fmt.Errorf("new page: %w", err)
	}
	tctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
	p := &Page{b: b, opts: opts, ctx: tctx, cancel: cancel, client: client, activity: time.Now()}
	fail := func(err error) (*Page, error) {
		cancel()
		return nil, fmt.Errorf("new page: %w", err)
	}
	if err := chromedp.Do(tctx); err != nil {
		return fail(err)
	}
	// Stop the tab when the caller's context ends.
	go func() {
		select {
		case <-ctx.Done():
			cancel()
		case <-tctx.Done():
		}
	}()
	tree, err := chromedp.Call(tctx, page.GetFrameTree, struct{}{})
	if err != nil {
		return fail(err)
	}
	p.frame = tree.FrameTree.Frame.ID

	paused := chromedp.Events(tctx, cdpfetch.RequestPaused)
	go p.serve(paused)
	if err := chromedp.Listen(tctx, p.watch); err != nil {
		return fail(err)
	}
	if _, err := chromedp.Call(tctx, cdpfetch.Enable, cdpfetch.EnableParams{
		Patterns: []*cdpfetch.RequestPattern{{URLPattern: "*", RequestStage: cdpfetch.RequestStageRequest}},
	}); err != nil {
		return fail(err)
	}
	w, h, scale := int64(DesktopWidth), int64(DesktopHeight), 1.0
	if opts.Mobile {
		w, h, scale = MobileWidth, MobileHeight, mobileScale
	}
	if _, err := chromedp.Call(tctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: w, Height: h, DeviceScaleFactor: scale, Mobile: opts.Mobile,
	}); err != nil {
		return fail(err)
	}
	if opts.Mobile {
		if _, err := chromedp.Call(tctx, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 5}); err != nil {
			return fail(err)
		}
	}
	platform := "Linux x86_64"
	if opts.Mobile {
		platform = "Linux armv8l"
	}
	if _, err := chromedp.Call(tctx, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua, Platform: platform}); err != nil {
		return fail(err)
	}
	for _, src := range opts.InitScripts {
		if _, err := chromedp.Call(tctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src}); err != nil {
			return fail(err)
		}
	}
	return p, nil
}

// Close closes the tab and disposes of its browser context.
func (p *Page) Close() { p.cancel() }

// with returns a context for protocol calls on the tab that also ends
// with ctx (its deadline and cancellation).
func (p *Page) with(ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(p.ctx)
	if dl, ok := ctx.Deadline(); ok {
		var cancelDL context.CancelFunc
		c, cancelDL = context.WithDeadline(c, dl)
		prev := cancel
		cancel = func() { cancelDL(); prev() }
	}
	stop := context.AfterFunc(ctx, cancel)
	return c, func() { stop(); cancel() }
}

func desktopUA(product string) string {
	return "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) " + chromeVersion(product) + " Safari/537.36 " + UserAgentToken
}

func mobileUA(product string) string {
	return "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) " + chromeVersion(product) + " Mobile Safari/537.36 " + UserAgentToken
}

// chromeVersion gives "Chrome/156.0.0.0", reduced as Chrome reduces its
// own user agent.
func chromeVersion(product string) string {
	v := strings.TrimPrefix(product, "Chrome/")
	if i := strings.IndexByte(v, '.'); i > 0 {
		v = v[:i]
	}
	if v == "" {
		v = "156"
	}
	return "Chrome/" + v + ".0.0.0"
}

// UserAgent is the user agent the page sends.
func (p *Page) UserAgent() string {
	if p.opts.Mobile {
		return mobileUA(p.b.product)
	}
	return desktopUA(p.b.product)
}

// serve answers every paused request, at most maxInFlight at a time.
func (p *Page) serve(events iter.Seq2[cdpfetch.EventRequestPaused, error]) {
	sem := make(chan struct{}, maxInFlight)
	var wg sync.WaitGroup
	defer wg.Wait()
	for ev, err := range events {
		if err != nil {
			return
		}
		p.track(+1)
		select {
		case sem <- struct{}{}:
		case <-p.ctx.Done():
			p.track(-1)
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem; p.track(-1) }()
			p.handle(&ev)
		}()
	}
}

// watch follows the main frame's loading state, and drops the shopper's
// isolated world when a new document replaces it. It runs on the tab's
// event loop (chromedp.Listen), so started and stopped arrive in order.
func (p *Page) watch(ev any) {
	switch e := ev.(type) {
	case *page.EventFrameStartedLoading:
		if e.FrameID == p.frame {
			p.mu.Lock()
			p.loading, p.activity = true, time.Now()
			p.mu.Unlock()
		}
	case *page.EventFrameStoppedLoading:
		if e.FrameID == p.frame {
			p.mu.Lock()
			p.loading, p.activity = false, time.Now()
			p.mu.Unlock()
		}
	case *page.EventJavascriptDialogOpening:
		// alert, confirm, prompt, beforeunload: always dismissed (a
		// confirm is answered "cancel"), never left to block the page.
		go func() {
			ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
			defer cancel()
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}()
	case *page.EventFrameNavigated:
		if e.Frame != nil && e.Frame.ID == p.frame {
			p.mu.Lock()
			p.world = 0
			p.mu.Unlock()
		}
	}
}

// Touch marks activity now, so that Settle waits its quiet time from an
// action (a click whose navigation has not started yet).
func (p *Page) Touch() {
	p.mu.Lock()
	p.activity = time.Now()
	p.mu.Unlock()
}

func (p *Page) track(d int) {
	p.mu.Lock()
	p.inflight += d
	p.activity = time.Now()
	p.mu.Unlock()
}

// hop-by-hop and transport headers neither side may pass through.
var dropRequestHeaders = map[string]bool{
	"host": true, "connection": true, "keep-alive": true, "proxy-connection": true, "proxy-authorization": true,
	"te": true, "trailer": true, "transfer-encoding": true, "upgrade": true, "content-length": true,
	"accept-encoding": true, "user-agent": true,
}

var dropResponseHeaders = map[string]bool{
	"connection": true, "keep-alive": true, "transfer-encoding": true, "content-length": true,
	"content-encoding": true, "trailer": true, "upgrade": true, "alt-svc": true, "proxy-authenticate": true,
}

// quietTypes are requests no shopper needs: they are refused without a
// trip to the store.
var quietTypes = map[network.ResourceType]bool{
	network.ResourceTypeMedia:              true,
	network.ResourceTypePing:               true,
	network.ResourceTypeCSPViolationReport: true,
	network.ResourceTypePrefetch:           true,
}

// handle decides one paused request: refuse it, or fetch it through the
// safe client and fulfil it with the answer.
func (p *Page) handle(ev *cdpfetch.EventRequestPaused) {
	req := ev.Request
	mainDoc := ev.ResourceType == network.ResourceTypeDocument && ev.FrameID == p.frame
	u, err := url.Parse(req.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		p.fail(ev, network.ErrorReasonBlockedByClient, Refusal{Host: hostOf(u), Code: fetch.CodeScheme})
		return
	}
	if quietTypes[ev.ResourceType] {
		p.fail(ev, network.ErrorReasonBlockedByClient, Refusal{})
		return
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if p.b.opts.FixtureAddr != "" && !(strings.HasSuffix(host, ".test") && len(host) > len(".test")) {
		p.fail(ev, network.ErrorReasonBlockedByClient, Refusal{Host: host, Code: "outside_fixture_world"})
		return
	}
	if mainDoc && p.opts.AllowNavigation != nil && !p.opts.AllowNavigation(u) {
		p.fail(ev, network.ErrorReasonBlockedByClient, Refusal{Host: host, Code: "navigation_off_store"})
		return
	}
	method := strings.ToUpper(req.Method)
	if method != http.MethodGet && method != http.MethodHead && p.opts.RefuseRequest != nil {
		if code := p.opts.RefuseRequest(method, u); code != "" {
			p.fail(ev, network.ErrorReasonBlockedByClient, Refusal{Host: host, Code: code, Method: method})
			return
		}
	}
	h := http.Header{}
	for k, v := range req.Headers {
		if dropRequestHeaders[strings.ToLower(k)] {
			continue
		}
		if s, ok := v.(string); ok {
			for _, line := range strings.Split(s, "\n") {
				h.Add(k, line)
			}
		}
	}
	var body []byte
	for _, e := range req.PostDataEntries {
		body = append(body, e.Bytes...)
	}
	resp, err := p.client.Do(p.ctx, fetch.Request{Method: method, URL: u.String(), Header: h, Body: body, NoRedirect: true})
	if err != nil {
		class, reason := "connect", network.ErrorReasonConnectionFailed
		switch r, refused := fetch.IsRefused(err); {
		case refused:
			p.fail(ev, network.ErrorReasonBlockedByClient, Refusal{Host: host, Code: r.Code})
			return
		case errors.Is(err, fetch.ErrTimeout):
			class, reason = "timeout", network.ErrorReasonTimedOut
		case errors.Is(err, fetch.ErrTooLarge):
			class, reason = "too_large", network.ErrorReasonFailed
		}
		if mainDoc {
			p.addDoc(Document{URL: u, Err: class})
		}
		p.fail(ev, reason, Refusal{})
		return
	}
	var hdrs []*cdpfetch.HeaderEntry
	for k, vs := range resp.Header {
		if dropResponseHeaders[strings.ToLower(k)] {
			continue
		}
		for _, v := range vs {
			hdrs = append(hdrs, &cdpfetch.HeaderEntry{Name: k, Value: v})
		}
	}
	if mainDoc {
		b := resp.Body
		if len(b) > maxDocBody {
			b = b[:maxDocBody]
		}
		p.addDoc(Document{URL: u, Status: resp.StatusCode, Header: resp.Header, Body: bytes.Clone(b)})
	}
	p.mu.Lock()
	p.served++
	p.mu.Unlock()
	_, _ = chromedp.Call(p.ctx, cdpfetch.FulfillRequest, cdpfetch.FulfillRequestParams{
		RequestID: ev.RequestID, ResponseCode: int64(resp.StatusCode), ResponseHeaders: hdrs, Body: resp.Body,
	})
}

func hostOf(u *url.URL) string {
	if u == nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

func (p *Page) fail(ev *cdpfetch.EventRequestPaused, reason network.ErrorReason, r Refusal) {
	if r.Code != "" {
		p.addRefusal(r)
		if ev.ResourceType == network.ResourceTypeDocument && ev.FrameID == p.frame {
			u, _ := url.Parse(ev.Request.URL)
			p.addDoc(Document{URL: u, Err: "refused", Refusal: r.Code})
		}
	}
	_, _ = chromedp.Call(p.ctx, cdpfetch.FailRequest, cdpfetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: reason})
}

func (p *Page) addRefusal(r Refusal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.refused) < maxRefusals {
		p.refused = append(p.refused, r)
	}
}

func (p *Page) addDoc(d Document) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.docs) == maxDocs {
		p.docs = p.docs[1:]
	}
	p.docs = append(p.docs, d)
}

// Documents are the main-frame documents served so far, oldest first.
func (p *Page) Documents() []Document {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Document(nil), p.docs...)
}

// Refusals are the requests refused so far.
func (p *Page) Refusals() []Refusal {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Refusal(nil), p.refused...)
}

// Served counts the responses served to the page.
func (p *Page) Served() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.served
}

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
