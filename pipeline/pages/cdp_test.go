package pages_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// A minimal Chrome DevTools Protocol client over --remote-debugging-pipe:
// the browser reads commands from its fd 3 and writes answers and events
// to its fd 4, each message a JSON object followed by a NUL byte. It
// speaks to one page target through a flat session.

type cdpMsg struct {
	ID        int64           `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *cdpError       `json:"error,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

type cdpError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// cdpEvent is one event the browser sent, in arrival order.
type cdpEvent struct {
	Method string
	Params json.RawMessage
}

type browser struct {
	cmd    *exec.Cmd
	toB    io.WriteCloser
	stderr bytes.Buffer

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan cdpMsg
	events  []cdpEvent // of the page session
	notify  chan struct{}
	readErr error
	done    chan struct{}

	session string
}

// browserFlags are the command line of the headless browser: no network
// beyond what a page asks for, a fresh profile, the DevTools pipe.
func browserFlags(profile string) []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile,
		"--remote-debugging-pipe", "--disable-dev-shm-usage", "--disable-extensions",
		"--no-default-browser-check", "--disable-default-apps", "--hide-scrollbars", "--mute-audio",
		"--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication",
		"about:blank",
	}
}

func startBrowser(ctx context.Context, bin, profile string) (*browser, error) {
	// Pipe to the browser (its fd 3) and from it (its fd 4).
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, browserFlags(profile)...)
	cmd.ExtraFiles = []*os.File{inR, outW}
	b := &browser{cmd: cmd, toB: inW, pending: map[int64]chan cdpMsg{}, notify: make(chan struct{}), done: make(chan struct{})}
	cmd.Stderr = &b.stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	inR.Close()
	outW.Close()
	go b.read(outR)
	return b, nil
}

func (b *browser) read(r io.ReadCloser) {
	defer close(b.done)
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = err
			for _, ch := range b.pending {
				close(ch)
			}
			b.pending = map[int64]chan cdpMsg{}
			b.mu.Unlock()
			return
		}
		var m cdpMsg
		if err := json.Unmarshal(line[:len(line)-1], &m); err != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.pending[m.ID]; ok {
				ch <- m
				delete(b.pending, m.ID)
			}
		} else if m.SessionID != "" && m.SessionID == b.session {
			b.events = append(b.events, cdpEvent{m.Method, m.Params})
			close(b.notify)
			b.notify = make(chan struct{})
		}
		b.mu.Unlock()
	}
}

// call sends a command (to the page session when session is set) and
// decodes its result into out.
func (b *browser) call(ctx context.Context, session, method string, params, out any) error {
	b.mu.Lock()
	if b.readErr != nil {
		b.mu.Unlock()
		return fmt.Errorf("%s: browser gone: %w", method, b.readErr)
	}
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMsg, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	if params == nil {
		params = struct{}{}
	}
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	msg, _ := json.Marshal(cdpMsg{ID: id, Method: method, Params: p, SessionID: session})
	if _, err := b.toB.Write(append(msg, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: the browser closed the pipe", method)
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// page calls a method of the page session.
func (b *browser) page(ctx context.Context, method string, params, out any) error {
	return b.call(ctx, b.session, method, params, out)
}

// openPage creates a page target, attaches to it and enables the domains
// whose events the checks read.
func (b *browser) openPage(ctx context.Context) error {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		return err
	}
	b.mu.Lock()
	b.session = att.SessionID
	b.mu.Unlock()
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable", "Network.enable"} {
		if err := b.page(ctx, m, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// mark returns the number of events so far: later reads start there.
func (b *browser) mark() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.events)
}

// eventsSince returns the events from index from on.
func (b *browser) eventsSince(from int) []cdpEvent {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]cdpEvent(nil), b.events[from:]...)
}

// waitFor waits until an event after from satisfies ok.
func (b *browser) waitFor(ctx context.Context, from int, ok func(cdpEvent) bool) error {
	for {
		b.mu.Lock()
		for _, e := range b.events[from:] {
			if ok(e) {
				b.mu.Unlock()
				return nil
			}
		}
		from = len(b.events)
		ch, err := b.notify, b.readErr
		b.mu.Unlock()
		if err != nil {
			return err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// settle waits until no request started after from is in flight for
// quiet, so late subresources (images) are counted.
func (b *browser) settle(ctx context.Context, from int, quiet time.Duration) error {
	for {
		inflight := map[string]bool{}
		for _, e := range b.eventsSince(from) {
			var p struct {
				RequestID string `json:"requestId"`
			}
			json.Unmarshal(e.Params, &p)
			switch e.Method {
			case "Network.requestWillBeSent":
				inflight[p.RequestID] = true
			case "Network.loadingFinished", "Network.loadingFailed":
				delete(inflight, p.RequestID)
			}
		}
		n := b.mark()
		if len(inflight) == 0 {
			t := time.NewTimer(quiet)
			b.mu.Lock()
			ch := b.notify
			b.mu.Unlock()
			select {
			case <-t.C:
				if b.mark() == n {
					return nil
				}
			case <-ch:
				t.Stop()
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			}
			continue
		}
		b.mu.Lock()
		ch := b.notify
		b.mu.Unlock()
		select {
		case <-ch:
		case <-time.After(quiet):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// eval runs an expression in the page and decodes its JSON-able value.
func (b *browser) eval(ctx context.Context, expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := b.page(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res); err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("evaluate: %s", res.ExceptionDetails.Text)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}

func (b *browser) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.call(ctx, "", "Browser.close", nil, nil)
	b.toB.Close()
	select {
	case <-b.done:
	case <-time.After(5 * time.Second):
	}
	err := b.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil // a browser closed by Browser.close may report a signal
	}
	return err
}
