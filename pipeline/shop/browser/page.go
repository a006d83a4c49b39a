package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdpfetch "github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
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
	// Library is the source of a function expression whose value is the
	// shopper's page helper: what LibraryRef names in the shopper's
	// isolated world of every document, the main frame's and its child
	// frames'. It is made at the start of each document, so that an
	// evaluation carries only its call, never the library; a document
	// begun without it gets it at its first evaluation.
	Library string
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

// LibraryRef is the expression by which an evaluation in the shopper's
// isolated world reaches the page's Library. Where the library has not
// been made it throws a ReferenceError naming libraryMissing; the
// evaluation then makes it and runs again.
const LibraryRef = "(globalThis.__svcLib || " + libraryMissing + ")"

const libraryMissing = "svcLibraryMissing"

// libraryInstall makes the page's Library in the world it runs in, once.
func (p *Page) libraryInstall() string {
	return "void (globalThis.__svcLib || (globalThis.__svcLib = (" + p.opts.Library + ")()))"
}

// madeLibrary makes the page's Library in world id when what an
// evaluation's failure says (msg) is that the world has none yet, and
// reports whether it did: the evaluation is then worth running again.
func (p *Page) madeLibrary(ctx context.Context, id runtime.ExecutionContextID, msg string) bool {
	return p.opts.Library != "" && strings.Contains(msg, libraryMissing) &&
		p.evaluateOnce(ctx, id, p.libraryInstall(), nil) == nil
}

// Page is one tab in a fresh incognito browser context.
type Page struct {
	b      *Browser
	proc   *proc // the Chromium process the tab lives in
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
	frames   frameWorlds // the isolated worlds of child frames
	served   int
	loading  bool // the main frame is loading a document
	crashed  bool // the tab's renderer died (Crashed)
	// loaded is when the main frame last stopped loading: while activity
	// is still that moment, nothing has happened since.
	loaded time.Time
	// navRequested is when the main frame last asked for a navigation
	// that has not started yet (zero when none is pending).
	navRequested time.Time
	// opened is the address the page last asked to open in a new tab or
	// window (a link with a target, window.open), until TakeOpened.
	opened string
	// rtt is the mean round trip of short evaluations: how busy the
	// renderer is, which sets Settle's quiet window. rttAt is when it was
	// last sampled.
	rtt   time.Duration
	rttAt time.Time
	// prefetch is the reading Settle makes while it waits (Prefetch), and
	// reading its value from the last Settle when still current.
	prefetch func(ctx context.Context) (string, any)
	reading  any
	// kick wakes Settle when the page's loading or requests change.
	kick chan struct{}
	// screencast receives the next screencast frame while a Screenshot waits
	// for it (nil otherwise); shotMu holds Screenshots to one at a time.
	screencast chan []byte
	shotMu     sync.Mutex
	// inputMu holds the page's input commands (inputs) to one series at
	// a time.
	inputMu sync.Mutex
	// mcp is the page's WebMCP tools as the browser reports them.
	mcp mcpState
}

// NewPage opens a tab in a new incognito browser context, with request
// interception, the viewport and user agent of opts, and the init scripts
// installed, in the running Chromium process (a new one when the last was
// lost). Close it when done.
func (b *Browser) NewPage(ctx context.Context, opts PageOptions) (*Page, error) {
	ua := desktopUA(b.product)
	if opts.Mobile {
		ua = mobileUA(b.product)
	}
	client, err := b.client(ua)
	if err != nil {
		return nil, fmt.Errorf("new page: %w", err)
	}
	pr, err := b.live()
	if err != nil {
		return nil, fmt.Errorf("new page: %w", err)
	}
	tctx, cancel := chromedp.NewContext(pr.ctx, chromedp.WithNewBrowserContext())
	p := &Page{b: b, proc: pr, opts: opts, ctx: tctx, cancel: cancel, client: client, activity: time.Now(), kick: make(chan struct{}, 1)}
	// Stop the tab when the caller's context ends, or when it has not
	// opened within openTimeout: a tab whose renderer dies while it opens
	// never answers the calls that set it up.
	opened := make(chan struct{})
	var late atomic.Bool // closed for not opening within openTimeout
	go func() {
		timer := time.NewTimer(openTimeout)
		defer timer.Stop()
		select {
		case <-opened:
		case <-timer.C:
			late.Store(true)
			cancel()
			return
		case <-ctx.Done():
			cancel()
			return
		case <-tctx.Done():
			return
		}
		select {
		case <-ctx.Done():
			cancel()
		case <-tctx.Done():
		}
	}()
	fail := func(err error) (*Page, error) {
		cancel()
		if late.Load() {
			err = fmt.Errorf("the tab did not open within %s: %w", openTimeout, err)
		}
		return nil, fmt.Errorf("new page: %w", err)
	}
	if err := chromedp.Do(tctx); err != nil {
		return fail(err)
	}
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
	// The DOM observer of Settle, in the shopper's isolated world of
	// every document (the page's scripts cannot see or stop it).
	if _, err := chromedp.Call(tctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: mutationJS, WorldName: worldName}); err != nil {
		return fail(err)
	}
	if opts.Library != "" {
		if _, err := chromedp.Call(tctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: p.libraryInstall(), WorldName: worldName}); err != nil {
			return fail(err)
		}
	}
	for _, src := range opts.InitScripts {
		if _, err := chromedp.Call(tctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src}); err != nil {
			return fail(err)
		}
	}
	close(opened)
	return p, nil
}

// openTimeout bounds the opening of a tab (its target, domains, viewport
// and init scripts): well under a second on an idle machine, a few on a
// loaded one; a tab not open by then (its renderer died as it opened) is
// closed, and NewPage fails.
const openTimeout = 20 * time.Second

// Close closes the tab and disposes of its browser context. The context
// goes first, which ends the tab's renderer at once: a tab closed first
// has its renderer take the document down piece by piece, which on a page
// of 2 MiB of text took half a second and some 70 MB more memory.
func (p *Page) Close() {
	if c := chromedp.FromContext(p.ctx); c != nil && c.BrowserContextID != "" && p.ctx.Err() == nil {
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		_, _ = chromedp.CallBrowser(ctx, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: c.BrowserContextID})
		cancel()
	}
	p.cancel()
}

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
