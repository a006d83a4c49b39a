package shop

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"svc/pipeline/shop/browser"
)

// heldoutSession opens a page of the held-out shops as a run of shopper A
// would (its prefetch set), and returns the session.
func heldoutSession(t *testing.T, opts Options, host string) *session {
	t.Helper()
	s := testSession(t, opts.Browser, host, browser.PageOptions{})
	s.page.Prefetch(s.prefetch(true, false))
	return s
}

// testSession opens a page on b, with the page helper, for a session at
// host; the page is closed and the session's context ends with the test.
func testSession(t *testing.T, b *browser.Browser, host string, po browser.PageOptions) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	po.Library = domJS
	page, err := b.NewPage(ctx, po)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(page.Close)
	u, _ := url.Parse("https://" + host + "/")
	return &session{opts: Options{StepTimeout: 10 * time.Second}, page: page, rep: &Report{}, ctx: ctx, origin: u}
}

// TestASettledReadingIsTakenAsItIs: right after Settle confirmed a
// reading, the shopper's reads take it without asking the page; once
// settledFor has passed they ask again and see what changed.
func TestASettledReadingIsTakenAsItIs(t *testing.T) {
	if testing.Short() {
		t.Skip("browser runs: not under -short")
	}
	needChromiumOrSkip(t)
	h := newHeldout(t, []*realShop{lateShop(0)})
	s := heldoutSession(t, h.runOptions(t), "late-bloom.test")
	if err := s.open("https://late-bloom.test/checkout", "test"); err != nil && err != errStop {
		t.Fatal(err)
	}
	if s.seen.settled.IsZero() || s.seen.stKey == "" {
		t.Fatal("open kept no settled reading")
	}
	if err := s.page.EvalMain(s.ctx, "document.title = 'changed by the page'", nil); err != nil {
		t.Fatal(err)
	}
	// Within settledFor (the clock set back here, so that a slow machine
	// cannot make the test late) the settled reading is the answer.
	s.seen.settled = time.Now()
	st, err := s.state()
	if err != nil || st.Title != "Checkout" {
		t.Errorf("within settledFor: title %q (%v), want the settled reading's", st.Title, err)
	}
	if _, items, err := s.stateAndItems(); err != nil || items == nil {
		t.Errorf("within settledFor: %d items (%v), want the settled reading's", len(items), err)
	}
	s.seen.settled = time.Now().Add(-settledFor)
	if st, err := s.state(); err != nil || st.Title != "changed by the page" {
		t.Errorf("after settledFor: title %q (%v), want the page's new title", st.Title, err)
	}
	if s.seen.current() {
		t.Error("a reading the page was asked for counts as settled")
	}
}

// TestTheCheckoutScreenshotIsStartedEarly: the screenshot of a checkout
// page is started as soon as a reading shows that page, and is the one
// the run keeps when it ends there; a run that ends on another page, or
// on the same page changed since, gets a screenshot of that page.
func TestTheCheckoutScreenshotIsStartedEarly(t *testing.T) {
	if testing.Short() {
		t.Skip("browser runs: not under -short")
	}
	needChromiumOrSkip(t)
	h := newHeldout(t, []*realShop{lateShop(0)})
	opts := h.runOptions(t)

	s := heldoutSession(t, opts, "late-bloom.test")
	if err := s.open("https://late-bloom.test/checkout", "test"); err != errStop || s.rep.Outcome != CheckoutReached {
		t.Fatalf("open the checkout page: %v, outcome %q", err, s.rep.Outcome)
	}
	s.shotMu.Lock()
	early := s.early
	s.shotMu.Unlock()
	if early == nil || early.key != s.endKey || s.endKey == "" {
		t.Fatalf("no early screenshot of the checkout page (early %v, end key %q)", early != nil, s.endKey)
	}
	s.finish()
	<-early.done
	if early.err != nil || s.rep.Screenshot == nil || !bytes.Equal(s.rep.Screenshot.Data, early.data) {
		t.Errorf("the run kept another screenshot than the early one (%v)", early.err)
	}

	// Not a checkout page: nothing is started early.
	s = heldoutSession(t, opts, "late-bloom.test")
	if err := s.open("https://late-bloom.test/", "test"); err != nil {
		t.Fatal(err)
	}
	if s.early != nil {
		t.Error("a screenshot was started early on the store's front page")
	}

	// An early shot of the page at another key is not the last page.
	s = heldoutSession(t, opts, "late-bloom.test")
	if err := s.open("https://late-bloom.test/checkout", "test"); err != errStop {
		t.Fatal(err)
	}
	stale := &earlyShot{key: "another key", done: make(chan struct{}), data: []byte("stale")}
	close(stale.done)
	s.shotMu.Lock()
	s.early = stale
	s.shotMu.Unlock()
	s.finish()
	if s.rep.Screenshot == nil || bytes.Equal(s.rep.Screenshot.Data, stale.data) {
		t.Error("the screenshot of another key was kept")
	}
}

// TestStateTextIsTheCollapsedText: the page's text is collapsed a chunk
// at a time, and must read exactly as the whole text collapsed at once
// (the old reading, the oracle here): runs of white space that straddle
// a chunk's end, and a text far over the 20,000 characters kept.
func TestStateTextIsTheCollapsedText(t *testing.T) {
	if testing.Short() {
		t.Skip("browser runs: not under -short")
	}
	needChromiumOrSkip(t)
	var b strings.Builder
	for i := 0; b.Len() < 300_000; i++ {
		// Words between runs of white space of 3 to 60 characters: a
		// chunk of 65,536 characters collapses to fewer than 20,000, so
		// the text kept runs over the first chunk's end, and a run of
		// white space straddles that end.
		fmt.Fprintf(&b, "w%d%s", i, strings.Repeat(" \n\t", i%20+1))
		if n := b.Len(); n > 65536-40 && n < 65536 {
			b.WriteString(strings.Repeat(" ", 80))
		}
	}
	shop := &realShop{host: "long-text.test", serve: func(_ *heldout, _ *realShop, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.RawQuery == "short" {
			fmt.Fprint(w, "<!doctype html><title>Short</title><pre>  a \n\t b  </pre><p>   tail   </p>")
			return
		}
		fmt.Fprintf(w, "<!doctype html><title>Long</title><pre>%s</pre><p>   tail   </p>", b.String())
	}}
	h := newHeldout(t, []*realShop{shop})
	opts := h.runOptions(t)
	for _, short := range []bool{false, true} {
		s := heldoutSession(t, opts, "long-text.test")
		path := "/"
		if short {
			path = "/?short"
		}
		if err := s.open("https://long-text.test"+path, "test"); err != nil {
			t.Fatal(err)
		}
		s.forget()
		st, err := s.state()
		if err != nil {
			t.Fatal(err)
		}
		var want string
		if err := s.page.Eval(s.ctx, "document.body.innerText.replace(/\\s+/g, ' ').slice(0, 20000)", &want); err != nil {
			t.Fatal(err)
		}
		if st.Text != want || !short && len(want) != 20000 {
			t.Errorf("short %v: text of %d characters differs from the whole text collapsed (%d characters)", short, len(st.Text), len(want))
		}
	}
}
