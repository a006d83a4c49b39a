// What the page sees: every request is intercepted and answered through the
// safe client, loading and dialogs are followed, and the page keeps its
// main-frame documents and refusals.

package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdpfetch "github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"svc/pipeline/fetch"
)

// serve answers every paused request, at most maxInFlight at a time.
func (p *Page) serve(events iter.Seq2[cdpfetch.EventRequestPaused, error]) {
	sem := make(chan struct{}, maxInFlight)
	var wg sync.WaitGroup
	defer wg.Wait()
	for ev, err := range events {
		if err != nil {
			return
		}
		// The browser's own requests (the tab's icon) are not the page's
		// activity: no script waits for them.
		d := 1
		if browserOwn(&ev) {
			d = 0
		}
		p.track(+d)
		select {
		case sem <- struct{}{}:
		case <-p.ctx.Done():
			p.track(-d)
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem; p.track(-d) }()
			p.handle(&ev)
		}()
	}
}

// browserOwn reports a request the browser makes for itself rather than
// for the page: the tab's icon, which Chromium asks for once a document
// has loaded.
func browserOwn(ev *cdpfetch.EventRequestPaused) bool {
	if ev.ResourceType != network.ResourceTypeOther || ev.Request == nil {
		return false
	}
	u, err := url.Parse(ev.Request.URL)
	return err == nil && u.Path == "/favicon.ico"
}

// watch follows the main frame's loading state, and drops the shopper's
// isolated world when a new document replaces it. It runs on the tab's
// event loop (chromedp.Listen), so started and stopped arrive in order.
func (p *Page) watch(ev any) {
	switch e := ev.(type) {
	case *page.EventFrameRequestedNavigation:
		// A click or a script asked for a new document: Settle waits for
		// it to start (or for navPatience) rather than read the old one.
		if e.FrameID == p.frame && !strings.HasPrefix(strings.ToLower(e.URL), "javascript:") {
			p.mu.Lock()
			p.navRequested, p.activity = time.Now(), time.Now()
			p.mu.Unlock()
			p.wake()
		}
	case *page.EventFrameStartedLoading:
		if e.FrameID == p.frame {
			p.mu.Lock()
			p.loading, p.activity, p.navRequested = true, time.Now(), time.Time{}
			p.mu.Unlock()
			p.wake()
		}
	case *page.EventFrameStoppedLoading:
		if e.FrameID == p.frame {
			p.mu.Lock()
			now := time.Now()
			p.loading, p.activity, p.loaded, p.navRequested = false, now, now, time.Time{}
			p.mu.Unlock()
			p.wake()
		}
	case *page.EventNavigatedWithinDocument:
		if e.FrameID == p.frame {
			p.mu.Lock()
			p.activity, p.navRequested = time.Now(), time.Time{}
			p.mu.Unlock()
			p.wake()
		}
	case *page.EventScreencastFrame:
		p.mu.Lock()
		ch := p.screencast
		p.mu.Unlock()
		if ch != nil {
			select {
			case ch <- e.Data:
			default:
			}
		}
	case *inspector.EventTargetCrashed:
		// The tab's renderer is gone (the kernel's out-of-memory killer
		// took it, or it crashed) while the browser lives on: nothing
		// sent to the tab is answered again, so it is closed at once and
		// every call on it fails rather than waits out the run's bound.
		// Closing disposes its browser context. Not from this goroutine,
		// which delivers the target's events.
		p.mu.Lock()
		p.crashed = true
		p.mu.Unlock()
		go p.cancel()
	case *page.EventWindowOpen:
		// The new tab itself loads nothing: its requests are not
		// intercepted and meet the refusing proxy. TakeOpened hands the
		// address to the shopper, which may follow it in this tab.
		p.mu.Lock()
		p.opened = e.URL
		p.mu.Unlock()
	case *page.EventJavascriptDialogOpening:
		// alert, confirm, prompt, beforeunload: always dismissed (a
		// confirm is answered "cancel"), never left to block the page.
		go func() {
			ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
			defer cancel()
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}()
	case *runtime.EventExecutionContextCreated:
		// The shopper's isolated world of a new document, made at its
		// start by the init scripts: known from here, with no round trip
		// to ask for it (worldID, frameWorld).
		var aux struct {
			FrameID cdp.FrameID `json:"frameId"`
		}
		c := e.Context
		switch {
		case c == nil || c.Name != worldName || json.Unmarshal(c.AuxData, &aux) != nil || aux.FrameID == "":
			// another world, or one of no frame
		case aux.FrameID == p.frame:
			p.mu.Lock()
			p.world = c.ID
			p.mu.Unlock()
		default:
			p.frames.set(aux.FrameID, c.ID)
		}
	case *page.EventFrameNavigated:
		if e.Frame != nil && e.Frame.ID == p.frame {
			p.mu.Lock()
			p.world = 0
			p.mu.Unlock()
			p.frames.forget("")
		} else if e.Frame != nil {
			p.frames.forget(e.Frame.ID)
		}
	}
}

// Touch marks activity now, so that Settle waits its quiet time from an
// action (a click whose navigation has not started yet).
func (p *Page) Touch() {
	p.mu.Lock()
	p.activity = time.Now()
	p.mu.Unlock()
	p.wake()
}

func (p *Page) track(d int) {
	if d == 0 {
		return
	}
	p.mu.Lock()
	p.inflight += d
	p.activity = time.Now()
	p.mu.Unlock()
	p.wake()
}

// wake tells a waiting Settle that the page's state changed.
func (p *Page) wake() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// sampleRTT folds one evaluation's round trip into the page's average
// (an exponentially weighted mean, a quarter per sample).
func (p *Page) sampleRTT(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rttAt = time.Now()
	if p.rtt == 0 {
		p.rtt = d
		return
	}
	p.rtt += (d - p.rtt) / 4
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
// trip to the store, as is the tab's icon (browserOwn), which no shopper
// looks at.
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
	if quietTypes[ev.ResourceType] || browserOwn(ev) {
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

// TakeOpened returns the address the page last asked to open in a new
// tab or window since the last call ("" when none), and forgets it. When
// there was one it closes the tabs and windows the page opened and brings
// the page to the front again: a page behind a new window draws no
// frames, and a tap waits for one.
func (p *Page) TakeOpened(ctx context.Context) string {
	p.mu.Lock()
	u := p.opened
	p.opened = ""
	p.mu.Unlock()
	if u == "" {
		return ""
	}
	ctx, cancel := p.with(ctx)
	defer cancel()
	if c := chromedp.FromContext(p.ctx); c != nil && c.Target != nil {
		if res, err := chromedp.CallBrowser(ctx, target.GetTargets, target.GetTargetsParams{}); err == nil {
			for _, t := range res.TargetInfos {
				if t.OpenerID == c.Target.TargetID {
					_, _ = chromedp.CallBrowser(ctx, target.CloseTarget, target.CloseTargetParams{TargetID: t.TargetID})
				}
			}
		}
	}
	_, _ = chromedp.Call(ctx, page.BringToFront, cdp.Empty{})
	return u
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
