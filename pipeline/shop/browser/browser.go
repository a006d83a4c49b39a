// Package browser runs Debian's headless Chromium for svc's browser
// shoppers, over the Chrome DevTools Protocol (chromedp, pipe transport: no
// debugging port is opened).
//
// Network safety. Chromium never reaches the network itself. Every request
// of a page is paused by CDP request interception (the Fetch domain) and
// answered by svc's safe HTTP client (pipeline/fetch): the same address
// policy as every plain-HTTP check, applied at dial time on the address
// actually connected to, so no URL, redirect or DNS answer can make the
// browser reach a private, loopback or link-local address. In fixture mode
// the client dials every *.test host at the fixture address and trusts the
// fixture CA, and refuses everything else. Serving through the interception
// was chosen over Chromium's own --host-resolver-rules and
// --ignore-certificate-errors-spki-list: those would leave the SSRF check
// to a second implementation inside Chromium (with a lookup svc cannot see,
// so DNS rebinding stays open), and the SPKI list only matches keys in the
// chain the server sends, which the fixture world's per-host leaf
// certificates do not include.
//
// Anything that escapes interception (service workers, WebSockets,
// preconnects, Chromium's own background requests) goes to a local sink
// proxy that refuses every request: Chromium is started with that proxy and
// with no proxy bypass, so nothing leaves by another route. WebRTC is held
// to proxied UDP only, which the sink never grants.
//
// Profiles. Chromium runs with a temporary user-data directory (and HOME)
// created at Start and removed at Close. Each Page lives in a fresh
// incognito browser context (Target.createBrowserContext): cookies, storage
// and cache are in memory and shared with no other page, and are gone when
// the page closes. A run on its own Browser (svc shop) therefore gets a
// fresh profile; runs that share a Browser (a test table, the stage) get a
// fresh, isolated context each, which is what a fresh profile guarantees
// for a shopper: no state from any other run.
//
// Faults. A Chromium that dies (killed, crashed) or stops answering the
// protocol (frozen: a browser-level command unanswered for HangTimeout) is
// noticed by a watchdog, killed with every process of its profile, and
// replaced by a fresh one, with a fresh profile, at the next NewPage: the
// Browser value stays usable for the rest of a stage. A page of the lost
// process reports why (Page.Lost).
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"svc/pipeline/fetch"
)

// DefaultExecPath is Debian's Chromium.
const DefaultExecPath = "/usr/bin/chromium"

// Defaults of a Browser.
const (
	DefaultMaxBody        = 8 << 20 // bytes of one response the page may get
	DefaultRequestTimeout = fetch.DefaultTimeout
	// maxInFlight bounds the requests one page has in flight through the
	// safe client, and so the memory of their bodies.
	maxInFlight = 8
	// DefaultHangTimeout is how long the browser process may leave a
	// browser-level command (Browser.getVersion) unanswered before it is
	// taken for frozen. The browser process answers one in a millisecond
	// or two whatever its pages do (a renderer stuck in a script loop does
	// not hold it), so ten seconds is a process that is not running.
	DefaultHangTimeout = 10 * time.Second
)

// ErrNoBrowser is returned by Start when no Chromium binary is found.
var ErrNoBrowser = errors.New("no Chromium binary found (install Debian's chromium package, or set SVC_CHROMIUM)")

// Options configure a Browser.
type Options struct {
	// ExecPath is the Chromium binary; default FindExecPath().
	ExecPath string
	// FixtureAddr and FixtureCA are the fixture mode of the safe client
	// (the --fixture-addr and --fixture-ca flags): every *.test host is
	// served from this HOST:PORT, and nothing else is let through.
	FixtureAddr string
	FixtureCA   []byte
	// Resolver replaces the system resolver of the safe client (tests).
	Resolver fetch.Resolver
	// RequestTimeout bounds each request; default 6 s.
	RequestTimeout time.Duration
	// MaxBody bounds each response body; default 8 MiB.
	MaxBody int64
	// HangTimeout is how long the browser process may take to answer the
	// watchdog before it is killed and replaced; default 10 s. The
	// watchdog asks every quarter of it.
	HangTimeout time.Duration
	// Logf receives the browser's own errors. It never receives a URL.
	Logf func(format string, args ...any)
}

// FindExecPath returns $SVC_CHROMIUM, Debian's /usr/bin/chromium, or a
// chromium on the PATH; "" when there is none. Nothing is ever downloaded.
func FindExecPath() string {
	if p := os.Getenv("SVC_CHROMIUM"); p != "" {
		return p
	}
	if st, err := os.Stat(DefaultExecPath); err == nil && !st.IsDir() {
		return DefaultExecPath
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Browser is one Chromium process at a time: when the process dies or
// freezes, the next NewPage starts another (see Faults in the package
// comment). It is safe for concurrent use: each Page is its own tab in its
// own browser context.
type Browser struct {
	opts    Options
	parent  context.Context // Start's: every process ends with it
	sink    *sink
	product string        // e.g. "Chrome/156.0.8078.108"
	done    chan struct{} // closed by Close

	mu      sync.Mutex
	clients map[string]*fetch.Client // by user agent
	closed  bool

	// procMu is held while the process is looked at or replaced.
	procMu   sync.Mutex
	proc     *proc
	restarts int

	wire wire // when a protocol message has gone out (inputs, Settle)
}

// WebMCPFeatures are the Chromium features of its own WebMCP: the page
// API, its availability under automation, and the DevTools domain.
const WebMCPFeatures = "WebMCP,WebMCPTesting,DevToolsWebMCPSupport"

// Flags returns the Chromium command-line flags of a Browser whose
// profile is dir and whose sink proxy listens at proxy, for a process
// running as root or not. They are exported for the tests and the docs.
func Flags(dir, proxy string, root bool) map[string]any {
	f := map[string]any{
		"headless":                 true,
		"hide-scrollbars":          true,
		"mute-audio":               true,
		"no-first-run":             true,
		"no-default-browser-check": true,
		"user-data-dir":            dir,
		// No background traffic: none of it is a shopper's, and the
		// sink would refuse it anyway.
		"disable-background-networking":          true,
		"disable-component-update":               true,
		"disable-sync":                           true,
		"disable-default-apps":                   true,
		"disable-extensions":                     true,
		"disable-breakpad":                       true,
		"disable-client-side-phishing-detection": true,
		"disable-domain-reliability":             true,
		"no-pings":                               true,
		"metrics-recording-only":                 true,
		"safebrowsing-disable-auto-update":       true,
		"password-store":                         "basic",
		"use-mock-keychain":                      true,
		"deny-permission-prompts":                true,
		"disable-notifications":                  true,
		// One renderer process for a page and its frames, so the page's
		// request interception also covers its cross-site iframes.
		// Memory: no spare renderer kept warm, no back-forward cache
		// holding the pages a run has left, no on-device model service,
		// and no WebUI omnibox popups: headless Chromium 156 preloads two
		// (chrome://omnibox-popup.top-chrome/) for every window, so every
		// incognito page had a second renderer of about 40 MB that no
		// shopper ever sees. And no holding the page's tasks after an
		// input until its next frame is drawn (DeferRendererTasksAfterInput,
		// on in Chromium 156): it helps a person see the press sooner, but
		// made a form submitted by a click start its navigation 13 ms
		// later (34 ms after the click instead of a link's 20), and no
		// shopper looks between a click and what it sets off.
		"disable-features": "Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider," +
			"AutofillServerCommunication,CertificateTransparencyComponentUpdater," +
			"IsolateOrigins,site-per-process,PrivacySandboxSettings4,InterestFeedContentSuggestions," +
			"SpareRendererForSitePerProcess,BackForwardCache,DeferRendererTasksAfterInput,OptimizationGuideModelDownloading," +
			"OptimizationGuideOnDeviceModel,OnDeviceModelService,WebUIOmniboxPopup,WebUIOmniboxAimPopup",
		// The network service runs in the browser process: one process
		// fewer, about 27 MB (every request is served by svc's client
		// through interception anyway). WebMCP is Chromium's own
		// implementation of the draft (document.modelContext, forms with
		// a toolname turned into tools); WebMCPTesting exposes it to a
		// page the browser opens under automation, and
		// DevToolsWebMCPSupport gives the protocol its WebMCP domain
		// (toolsAdded, invokeTool, toolResponded). Shopper C and the
		// Checkout WebMCP reading ask the browser for a page's tools
		// through that domain, as an agent built into Chrome would,
		// rather than a copy of the feature injected into the page.
		"enable-features":               "NetworkServiceInProcess2," + WebMCPFeatures,
		"disable-site-isolation-trials": true,
		"disable-dev-shm-usage":         true,
		"disable-gpu":                   true,
		"in-process-gpu":                true, // one process fewer: nothing is drawn on a GPU
		"force-color-profile":           "srgb",
		"enable-automation":             true,
		"window-size":                   "1280,800",
		// Whatever escapes interception meets the refusing sink.
		"proxy-server":                    "http://" + proxy,
		"proxy-bypass-list":               "<-loopback>",
		"host-resolver-rules":             "MAP * ~NOTFOUND , EXCLUDE " + strings.Split(proxy, ":")[0],
		"force-webrtc-ip-handling-policy": "disable_non_proxied_udp",
		"js-flags":                        "--max-old-space-size=512",
	}
	if root {
		// Chromium's sandbox cannot run as root; only then is it off.
		f["no-sandbox"] = true
	}
	return f
}

// Start launches Chromium. The process lives until Close or until ctx
// ends; one that dies or freezes before then is replaced.
func Start(ctx context.Context, opts Options) (*Browser, error) {
	if opts.ExecPath == "" {
		opts.ExecPath = FindExecPath()
	}
	if opts.ExecPath == "" {
		return nil, ErrNoBrowser
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.HangTimeout <= 0 {
		opts.HangTimeout = DefaultHangTimeout
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	// Check the fixture options once, as the client does.
	if _, err := fetch.New(fetch.Options{FixtureAddr: opts.FixtureAddr, FixtureCA: opts.FixtureCA}); err != nil {
		return nil, fmt.Errorf("start browser: %w", err)
	}
	sk, err := newSink()
	if err != nil {
		return nil, fmt.Errorf("start browser: %w", err)
	}
	b := &Browser{opts: opts, parent: ctx, sink: sk, done: make(chan struct{}), clients: map[string]*fetch.Client{}}
	p, err := b.launch()
	if err != nil {
		sk.close()
		return nil, err
	}
	b.proc = p
	// End with the caller's context too.
	go func() {
		select {
		case <-ctx.Done():
			b.Close()
		case <-b.done:
		}
	}()
	return b, nil
}

// launch starts a Chromium process with a fresh profile. Chromium now and
// then dies while it starts on a loaded machine (its zygote's pipe breaks
// before the DevTools endpoint is up): one more try, with a fresh profile,
// before the browser lane gives up.
func (b *Browser) launch() (*proc, error) {
	p, err := b.launchOnce()
	if err != nil && b.parent.Err() == nil {
		b.opts.Logf("chromium: %v; starting it once more", err)
		p, err = b.launchOnce()
	}
	return p, err
}

// launchOnce starts one Chromium process with a fresh profile, and its
// watchdog.
func (b *Browser) launchOnce() (*proc, error) {
	opts := b.opts
	dir, err := os.MkdirTemp("", "svc-shop-profile-")
	if err != nil {
		return nil, fmt.Errorf("start browser: profile: %w", err)
	}
	p := &proc{profile: dir, ended: make(chan struct{})}
	allocOpts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(opts.ExecPath),
		chromedp.Env("HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"), "XDG_CACHE_HOME="+filepath.Join(dir, ".cache")),
	}
	for k, v := range Flags(dir, b.sink.addr(), os.Geteuid() == 0) {
		allocOpts = append(allocOpts, chromedp.Flag(k, v))
	}
	actx, acancel := chromedp.NewExecAllocator(context.WithoutCancel(b.parent), allocOpts...)
	quiet := func(string, ...any) {}
	bctx, bcancel := chromedp.NewContext(actx,
		chromedp.WithErrorf(func(f string, a ...any) { opts.Logf("chromium: "+f, a...) }),
		chromedp.WithLogf(quiet), chromedp.WithDebugf(b.wire.debugf))
	p.ctx, p.cancel, p.stop = bctx, bcancel, acancel
	if err := chromedp.Do(bctx); err != nil {
		p.close()
		return nil, fmt.Errorf("start browser %s: %w", opts.ExecPath, err)
	}
	if c := chromedp.FromContext(bctx); c != nil && c.Browser != nil && c.Browser.Process() != nil {
		p.pid = c.Browser.Process().Pid
	}
	if b.product == "" {
		v, err := chromedp.CallBrowser(bctx, browser.GetVersion, struct{}{})
		if err == nil {
			b.product = strings.Replace(v.Product, "HeadlessChrome", "Chrome", 1)
		}
	}
	// The first tab (about:blank) is never used: every run opens its own
	// page in a fresh incognito context. Closed, it frees its renderer
	// (25 to 40 MB); the browser stays up with no tab.
	if c := chromedp.FromContext(bctx); c != nil && c.Target != nil {
		if _, err := chromedp.CallBrowser(bctx, target.CloseTarget, target.CloseTargetParams{TargetID: c.Target.TargetID}); err != nil {
			opts.Logf("chromium: closing the first tab: %v", err)
		}
	}
	go b.watch(p)
	return p, nil
}

// Product is the browser's name and version, e.g. "Chrome/156.0.8078.108".
func (b *Browser) Product() string { return b.product }

// Profile is the temporary profile directory of the current process
// (removed when the process ends).
func (b *Browser) Profile() string {
	b.procMu.Lock()
	defer b.procMu.Unlock()
	return b.proc.profile
}

// Escaped counts the requests that reached the refusing sink proxy, by
// host: what Chromium tried to send outside interception. Every one was
// refused.
func (b *Browser) Escaped() map[string]int { return b.sink.counts() }

// Close stops Chromium and removes its profile. It is safe to call twice.
func (b *Browser) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	close(b.done)
	b.mu.Unlock()
	b.procMu.Lock()
	p := b.proc
	b.procMu.Unlock()
	err := p.close()
	b.sink.close()
	if err != nil {
		return fmt.Errorf("close browser: %w", err)
	}
	return nil
}

// client returns the safe client that serves pages with user agent ua.
func (b *Browser) client(ua string) (*fetch.Client, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c, ok := b.clients[ua]; ok {
		return c, nil
	}
	c, err := fetch.New(fetch.Options{
		Timeout: b.opts.RequestTimeout, MaxBody: b.opts.MaxBody, UserAgent: ua,
		Resolver: b.opts.Resolver, FixtureAddr: b.opts.FixtureAddr, FixtureCA: b.opts.FixtureCA,
	})
	if err != nil {
		return nil, err
	}
	b.clients[ua] = c
	return c, nil
}
