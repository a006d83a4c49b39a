package browser

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The next call goes out once the one before has been written, before its
// answer; without the write being seen, once it has been answered; and
// nothing is sent after a call that failed.
func TestInputsFollowEachWrite(t *testing.T) {
	b := &Browser{}
	p := &Page{b: b, ctx: context.Background()}
	var mu sync.Mutex
	var log []string
	note := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	release := make(chan struct{})
	written := func(name, msg string, answer <-chan struct{}) inputCall {
		return inputCall{"Input.dispatchMouseEvent", func(context.Context) error {
			note(name + " sent")
			b.wire.debugf("-> %s", []byte(msg))
			<-answer
			note(name + " answered")
			return nil
		}}
	}
	const msg = `{"id":7,"sessionId":"S1","method":"Input.dispatchMouseEvent","params":{"type":"mouseMoved"}}`

	// With a session, a written message lets the next one go: the move
	// is answered only after the press was sent.
	const session = "S1"
	if err := p.inputsOn(context.Background(), session, written("move", msg, release), inputCall{"Input.dispatchMouseEvent", func(context.Context) error {
		note("press sent")
		close(release)
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"move sent", "press sent", "move answered"}; !slices.Equal(log, want) {
		t.Errorf("the order was %v, want %v", log, want)
	}
	if b.wire.seen.Load() != 1 || b.wire.waiting.Load() != 0 {
		t.Errorf("wire: seen %d, waiting %d; want 1 and 0", b.wire.seen.Load(), b.wire.waiting.Load())
	}

	// A message of another session is not the wait's: the next call
	// waits for the answer.
	log = nil
	answered := make(chan struct{})
	close(answered)
	other := `{"id":8,"sessionId":"S2","method":"Input.dispatchMouseEvent","params":{}}`
	if err := p.inputsOn(context.Background(), session, written("move", other, answered), written("press", msg, answered)); err != nil {
		t.Fatal(err)
	}
	if want := []string{"move sent", "move answered", "press sent", "press answered"}; !slices.Equal(log, want) {
		t.Errorf("with another session's message, the order was %v, want %v", log, want)
	}

	// A failed call ends the series.
	log = nil
	boom := errors.New("boom")
	err := p.inputsOn(context.Background(), session, inputCall{"Input.dispatchTouchEvent", func(context.Context) error { note("start sent"); return boom }},
		written("end", msg, answered))
	if !errors.Is(err, boom) || !slices.Equal(log, []string{"start sent"}) {
		t.Errorf("after a failure: %v, sent %v; want boom and the start alone", err, log)
	}
	if b.wire.waiting.Load() != 0 {
		t.Errorf("a wait was left behind: %d", b.wire.waiting.Load())
	}
}

// A real click and a real tap reach the page as a person's would, in
// order, and each event after the first went out behind the one before it
// (the wire saw every write it waited for). It fails if chromedp stops
// reporting its writes (the clicks then wait a frame each) or if the
// events are reordered.
func TestInputGoesOutInOrderWithoutAFrame(t *testing.T) {
	site := newHostServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><meta name="viewport" content="width=device-width,initial-scale=1"><title>input</title>
<button id="b" style="position:absolute;left:10px;top:10px;width:200px;height:50px">Add</button>
<script>window.ev = []; for (const k of ['touchstart','touchend','pointerdown','pointerup','mousedown','mouseup','click','mousemove'])
 document.addEventListener(k, e => ev.push(e.type), true);</script>`)
	})
	b := startBrowser(t, Options{FixtureAddr: site.Listener.Addr().String()})
	want := map[bool]string{
		false: "mousemove pointerdown mousedown pointerup mouseup click",
		true:  "pointerdown touchstart pointerup touchend mousemove mousedown mouseup click",
	}
	for _, mobile := range []bool{false, true} {
		p, err := b.NewPage(t.Context(), PageOptions{Mobile: mobile})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		if err := p.Navigate(ctx, "http://input.test/"); err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			seen := b.wire.seen.Load()
			if err := p.EvalMain(ctx, "window.ev = []", nil); err != nil {
				t.Fatal(err)
			}
			if err := p.Click(ctx, 50+float64(i), 30); err != nil {
				t.Fatal(err)
			}
			var ev []string
			if err := p.EvalMain(ctx, "window.ev", &ev); err != nil {
				t.Fatal(err)
			}
			// A desktop click's move also fires pointermove; the first
			// over the button, boundary events. Only the events above
			// are listened to.
			if got := strings.Join(ev, " "); got != want[mobile] {
				t.Errorf("mobile %v, click %d: the page saw %q, want %q", mobile, i, got, want[mobile])
			}
			wantSeen := int64(2) // the move and the press went out ahead of their answers
			if mobile {
				wantSeen = 1 // the touch's start
			}
			if got := b.wire.seen.Load() - seen; got != wantSeen {
				t.Errorf("mobile %v, click %d: %d writes seen, want %d: the input waited for the renderer's answers", mobile, i, got, wantSeen)
			}
		}
		cancel()
		p.Close()
	}
}
