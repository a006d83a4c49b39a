package shop

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"svc/pipeline/fetch"
	"svc/pipeline/httpsig"
	"svc/pipeline/shop/browser"
	"svc/pipeline/ucp"
)

// Defaults of a run.
const (
	DefaultRunTimeout  = 90 * time.Second
	DefaultStepTimeout = 15 * time.Second
)

// Errors of Run. A run that happened returns a Report and a nil error,
// whatever its outcome.
var (
	// ErrInvalidURL: the URL is invalid or unsafe (svc shop exits 64).
	ErrInvalidURL = errors.New("invalid or unsafe store URL")
	// ErrUnreachable: the store's first page never answered (exit 2). The
	// Report is returned too, with outcome error.
	ErrUnreachable = errors.New("store unreachable")
)

// Options configure runs. One Options may serve many runs at once.
type Options struct {
	// Browser runs the browser paths A–E. Nil makes them not_attempted.
	Browser *browser.Browser
	// Client is the safe HTTP client of the ucp and mcp paths.
	Client *fetch.Client
	// UCP validates UCP profiles for the ucp path; nil leaves that path
	// not_attempted.
	UCP *ucp.Validator
	// AgentProfile is sent to UCP bindings that ask for one.
	AgentProfile string
	// AgentKey signs the ucp path's requests (leaderboard.RunOptions);
	// nil sends them unsigned.
	AgentKey *httpsig.Key
	// LLM is the model of path D; unconfigured makes D not_attempted.
	LLM LLMConfig
	// RunTimeout bounds a run; StepTimeout each action in it.
	RunTimeout  time.Duration
	StepTimeout time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time

	// documents, when set, receives the main-frame documents of each
	// browser run, by store host: the benchmark replays them as plain
	// page loads.
	documents func(host string, docs []browser.Document)
}

func (o *Options) defaults() {
	if o.RunTimeout <= 0 {
		o.RunTimeout = DefaultRunTimeout
	}
	if o.StepTimeout <= 0 {
		o.StepTimeout = DefaultStepTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// CheckURL checks a store URL from outside: the safe client's rules, and
// never a checkout address (a run starts at a store, and a checkout URL
// is never echoed).
func CheckURL(raw string) (*url.URL, error) {
	u, err := fetch.ParseURL(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	if LooksLikeCheckoutURL(u) {
		return nil, fmt.Errorf("%w: a run starts at a store page, not at a checkout address", ErrInvalidURL)
	}
	return u, nil
}

// Run runs one path on one store and reports what happened. It never pays
// or orders, never types, logs in or solves a captcha, and never records a
// checkout URL.
func Run(ctx context.Context, opts Options, shopper Shopper, rawURL string) (*Report, error) {
	opts.defaults()
	u, err := CheckURL(rawURL)
	if err != nil {
		return nil, err
	}
	start := opts.Now()
	rep := &Report{Shopper: shopper, Store: Origin(u), StoppedBeforePayment: true, Log: []Step{}}
	ctx, cancel := context.WithTimeout(ctx, opts.RunTimeout)
	defer cancel()
	switch {
	case shopper == UCP || shopper == MCP:
		err = runPlain(ctx, opts, shopper, u, rep)
	case shopper == Model && !opts.LLM.Configured():
		rep.Outcome, rep.Reason = NotAttempted, "no_model_configured"
	case !shopper.Browser():
		return nil, fmt.Errorf("shop: unknown shopper %q", shopper)
	case opts.Browser == nil:
		rep.Outcome, rep.Reason = NotAttempted, "no_browser"
	default:
		err = runBrowser(ctx, opts, shopper, u, rep)
	}
	rep.Steps = len(rep.Log)
	rep.Seconds = float64(opts.Now().Sub(start).Milliseconds()) / 1000
	return rep, err
}

// runBrowser runs a browser path in a fresh incognito page.
func runBrowser(ctx context.Context, opts Options, shopper Shopper, u *url.URL, rep *Report) error {
	s := &session{opts: opts, rep: rep, ctx: ctx, origin: u}
	po := browser.PageOptions{
		Mobile:          shopper == Mobile,
		AllowNavigation: s.sameBrand,
		RefuseRequest: func(method string, ru *url.URL) string {
			if s.frozen.Load() {
				return "after_checkout_reached"
			}
			return RefuseRequest(method, ru)
		},
	}
	po.Library = domJS
	pctx, cancel := pageContext(ctx)
	defer cancel()
	page, err := opts.Browser.NewPage(pctx, po)
	if err != nil && ctx.Err() == nil {
		// The browser may have been lost as the page opened: its loss is
		// noticed within moments, and the page then opens in a new one.
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
			page, err = opts.Browser.NewPage(pctx, po)
		}
	}
	if err != nil {
		rep.Outcome, rep.Reason = NotAttempted, "browser_failed"
		return nil
	}
	defer page.Close()
	if opts.documents != nil {
		// Every run's documents, the unreachable ones' too.
		defer func() { opts.documents(u.Hostname(), page.Documents()) }()
	}
	s.page = page
	page.Prefetch(s.prefetch(shopper == Semantic || shopper == Mobile, shopper == Accessibility))
	rep.Browser = opts.Browser.Product()
	if shopper == Model {
		rep.Model = opts.LLM.Model
	}
	gateErr, err := s.run(shopper)
	if lost := page.Lost(); lost != nil {
		// The browser died or froze during the run: what the run read
		// since is no finding, whatever it concluded (a page that stopped
		// answering reads as one with no cart). The run is not tried
		// again: the stage goes on with the next in a new browser.
		rep.Outcome, rep.Reason = Error, "browser_crashed"
		if errors.Is(lost, browser.ErrUnresponsive) {
			rep.Reason = "browser_unresponsive"
		}
		s.gatherRefusals()
		return nil
	}
	if page.Crashed() {
		// The tab's renderer died mid-run while the browser lived on
		// (the out-of-memory killer takes a renderer first): as for a
		// lost browser, no finding and no retry; the next run opens a
		// tab with a new renderer in the same browser.
		rep.Outcome, rep.Reason = Error, "page_crashed"
		s.gatherRefusals()
		return nil
	}
	if gateErr != nil {
		s.finish()
		return gateErr
	}
	switch {
	case expired(ctx) && (rep.Outcome == "" || rep.Outcome == NoCart):
		// The run met its time bound before it concluded: a no_cart
		// read from a page that never settled is not a finding either.
		rep.Outcome, rep.Reason = Error, timeoutReason(page)
		if s.added {
			rep.Outcome, rep.Reason = AddedToCart, "run_timeout_after_cart"
		}
	case err != nil && !errors.Is(err, errStop) && rep.Outcome == "":
		rep.Outcome, rep.Reason = Error, "run_failed"
		if page.Unresponsive(time.Second) {
			rep.Reason = "page_unresponsive"
		}
	case rep.Outcome == "":
		rep.Outcome, rep.Reason = NoCart, "no_add_control"
	}
	if rep.Reason == "page_unresponsive" {
		// A page held by its script draws no frame to capture.
		s.gatherRefusals()
		return nil
	}
	s.finish()
	return nil
}

// pageGrace is how long a run's page outlives the run's time bound: long
// enough to ask it why the run met the bound (timeoutReason) and to
// capture it as the run left it.
const pageGrace = 10 * time.Second

// pageContext is the context of a run's page: it ends when the run is
// cancelled, and pageGrace after the run's deadline.
func pageContext(ctx context.Context) (context.Context, context.CancelFunc) {
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if dl, ok := ctx.Deadline(); ok {
		var cancelDL context.CancelFunc
		pctx, cancelDL = context.WithDeadline(pctx, dl.Add(pageGrace))
		prev := cancel
		cancel = func() { cancelDL(); prev() }
	}
	stop := context.AfterFunc(ctx, func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			cancel()
		}
	})
	return pctx, func() { stop(); cancel() }
}

// run opens the store and runs the shopper's path on it. gateErr is the
// store's first page ending the run (ErrUnreachable, ErrInvalidURL; see
// gate); err is what ended the path.
func (s *session) run(shopper Shopper) (gateErr, err error) {
	err = s.open(s.origin.String(), "the store's page")
	if stop, gateErr := s.gate(); stop {
		return gateErr, errStop
	}
	if err != nil {
		return nil, err
	}
	switch shopper {
	case Semantic, Mobile:
		return nil, s.shop(domFinder{})
	case Accessibility:
		return nil, s.shop(axFinder{})
	case WebMCP:
		return nil, s.webmcp()
	case Model:
		return nil, s.model()
	}
	return nil, nil
}

// expired reports whether the run's time bound has passed. A step's
// context that ends with the run's deadline may report it a moment before
// the run's own context does.
func expired(ctx context.Context) bool {
	dl, ok := ctx.Deadline()
	return ctx.Err() != nil || ok && !time.Now().Before(dl)
}

// timeoutReason says why a run met its time bound: its page held the
// renderer in a script that never yields (page_unresponsive), kept
// loading or requesting (page_never_settled), or neither (run_timeout: a
// slow store, or a long path).
func timeoutReason(p *browser.Page) string {
	switch {
	case p.Unresponsive(time.Second):
		return "page_unresponsive"
	case p.Unsettled(time.Second):
		return "page_never_settled"
	}
	return "run_timeout"
}

// gate judges the store's first page as the plain-HTTP paths do: no
// answer (or a 5xx) is unreachable, an address that is not allowed is an
// unsafe URL, and a redirect off the store is not a store to shop.
func (s *session) gate() (stop bool, err error) {
	docs := s.page.Documents()
	status := 0
	for _, d := range docs {
		if d.Status > 0 {
			status = d.Status
		}
	}
	switch {
	case len(docs) == 0:
		s.rep.Outcome, s.rep.Reason = Error, "unreachable"
		return true, ErrUnreachable
	case docs[0].Err == "refused":
		return true, fmt.Errorf("%w: the store's address is not allowed (%s)", ErrInvalidURL, docs[0].Refusal)
	case status == 0:
		s.rep.Outcome, s.rep.Reason = Error, "unreachable_"+docs[len(docs)-1].Err
		return true, ErrUnreachable
	case docs[len(docs)-1].Err == "refused":
		s.rep.Outcome, s.rep.Reason = NotAttempted, "redirected_off_store"
		return true, nil
	case s.rep.Outcome == Error && strings.HasPrefix(s.rep.Reason, "store_http_5"):
		s.rep.Reason = "unreachable_http_5xx"
		return true, ErrUnreachable
	case s.rep.Outcome != "":
		return true, nil
	}
	return false, nil
}

// finish takes the screenshot and gathers the refusals.
func (s *session) finish() {
	s.screenshot()
	s.gatherRefusals()
}

// gatherRefusals counts the page's refused requests into the report.
func (s *session) gatherRefusals() {
	counts := map[Refusal]int{}
	for _, r := range s.page.Refusals() {
		counts[Refusal{Host: r.Host, Code: r.Code, Method: r.Method}]++
	}
	for r, n := range counts {
		r.Count = n
		s.rep.Refused = append(s.rep.Refused, r)
	}
	sort.Slice(s.rep.Refused, func(i, j int) bool {
		a, b := s.rep.Refused[i], s.rep.Refused[j]
		return a.Host+a.Code+a.Method < b.Host+b.Code+b.Method
	})
}
