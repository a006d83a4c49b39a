// Messages in order without waiting for answers: a click's pointer move,
// press and release (a tap's touch start and end), and Settle's question
// and the reading behind it, are written to Chromium one after the other,
// each once the one before it has gone out, not once the renderer has
// answered it.

package browser

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/chromedp/chromedp"
)

// wire learns when a protocol message has been written to Chromium. It is
// the browser's protocol logger (chromedp.WithDebugf): chromedp's pipe
// connection logs each message as "-> %s" just before it writes it, from
// the one goroutine that writes them all in the order they were sent. A
// message seen there is therefore ahead, on the pipe, of any message sent
// after it was seen; Chromium handles a session's messages in the order
// they arrive.
//
// Should a chromedp release stop logging writes, no message is ever seen,
// and every wait falls back to the answer of the message before (the
// order is kept; only the time is lost). TestInputGoesOutInOrderWithoutAFrame
// fails then.
type wire struct {
	waiting atomic.Int32 // len(waits), read without the lock
	seen    atomic.Int64 // messages matched, for the tests
	mu      sync.Mutex
	waits   []*wireWait
	// tap, when set (tests), is called with every message written
	// (dir "->") and read ("<-").
	tap atomic.Pointer[func(dir string, msg []byte)]
}

type wireWait struct {
	session, method []byte
	out             chan struct{}
}

// debugf is the protocol logger of the browser.
func (w *wire) debugf(format string, args ...any) {
	if len(args) != 1 || len(format) < 2 {
		return
	}
	msg, ok := args[0].([]byte)
	if !ok {
		return
	}
	if f := w.tap.Load(); f != nil {
		(*f)(format[:2], msg)
	}
	if format != "-> %s" || w.waiting.Load() == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, wt := range w.waits {
		if bytes.Contains(msg, wt.session) && bytes.Contains(msg, wt.method) {
			close(wt.out)
			w.waits = slices.Delete(w.waits, i, i+1)
			w.waiting.Add(-1)
			w.seen.Add(1)
			return
		}
	}
}

// expect returns a channel closed once the next message of the session
// calling method has been written, and a func that stops waiting.
func (w *wire) expect(session, method string) (<-chan struct{}, func()) {
	wt := &wireWait{session: []byte(`"sessionId":"` + session + `"`), method: []byte(`"method":"` + method + `"`), out: make(chan struct{})}
	w.mu.Lock()
	w.waits = append(w.waits, wt)
	w.waiting.Add(1)
	w.mu.Unlock()
	return wt.out, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if i := slices.Index(w.waits, wt); i >= 0 {
			w.waits = slices.Delete(w.waits, i, i+1)
			w.waiting.Add(-1)
		}
	}
}

// session is the page's protocol session ("" before it has one).
func (p *Page) session() string {
	if c := chromedp.FromContext(p.ctx); c != nil && c.Target != nil {
		return string(c.Target.SessionID)
	}
	return ""
}

// sendThen runs call, which sends one protocol message of method on the
// session and waits for its answer; once that message has been written to
// Chromium (or call has returned, when the write is not seen), it runs
// then in this goroutine, told whether call is still good (not failed).
// It returns call's error once both are done.
func (p *Page) sendThen(session, method string, call func() error, then func(ok bool)) error {
	var out <-chan struct{}
	stop := func() {}
	if session != "" {
		out, stop = p.b.wire.expect(session, method)
	}
	answer := make(chan error, 1)
	go func() { answer <- call() }()
	var err error
	answered := false
	select {
	case <-out: // written: what follows goes behind it
	case err = <-answer:
		answered = true
	}
	stop()
	then(err == nil)
	if !answered {
		err = <-answer
	}
	return err
}

// inputCall is one input command of the page: its protocol method and
// the call that sends it and waits for its answer.
type inputCall struct {
	method string
	call   func(ctx context.Context) error
}

// inputs sends the calls in order, each once the one before has been
// written to Chromium, and returns once every one has been answered, with
// the first error; nothing is sent after a call that failed. Chromium
// answers an input event once the renderer has handled it, and handles a
// pointer move (and each touch event) only at its next frame: waiting for
// each answer in turn made a click wait a frame (13 ms of its 15 on an
// idle machine) and a tap two. Sent in a row, the page gets the press
// right behind the move, which the renderer then handles at once, in
// order, as a person's move and press that come within a frame.
//
// Calls on one page are one at a time (inputMu): the first input message
// of the session written after a wait began is that wait's.
func (p *Page) inputs(ctx context.Context, calls ...inputCall) error {
	return p.inputsOn(ctx, p.session(), calls...)
}

// inputsOn is inputs on the protocol session; with none (""), each call
// waits for the answer of the one before.
func (p *Page) inputsOn(ctx context.Context, session string, calls ...inputCall) error {
	p.inputMu.Lock()
	defer p.inputMu.Unlock()
	return p.chain(ctx, session, calls)
}

func (p *Page) chain(ctx context.Context, session string, calls []inputCall) error {
	switch len(calls) {
	case 0:
		return nil
	case 1:
		return calls[0].call(ctx)
	}
	var rest error
	err := p.sendThen(session, calls[0].method, func() error { return calls[0].call(ctx) }, func(ok bool) {
		if ok {
			rest = p.chain(ctx, session, calls[1:])
		}
	})
	if err != nil {
		return err
	}
	return rest
}
