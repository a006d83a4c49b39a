// What Settle reads of a page while it waits: a shopper's reading of each
// settled page overlaps the quiet window, and is kept only when the page
// is unchanged at its end.

package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Prefetch sets what Settle reads of the page as soon as nothing is in
// flight, while it waits out the quiet window, so that the reading a
// shopper makes of each settled page overlaps the wait instead of
// following it. read returns the key of the page it read (keyJS; "" when
// the page changed while it read, or on an error) and its reading;
// Reading returns the reading.
func (p *Page) Prefetch(read func(ctx context.Context) (key string, v any)) {
	p.mu.Lock()
	p.prefetch = read
	p.mu.Unlock()
}

// Reading returns what the Prefetch function read during the last
// Settle, and reports whether there is one: only when the page at the end
// of Settle was still as read (the same document, address and DOM
// mutation count).
func (p *Page) Reading() (any, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reading, p.reading != nil
}

// EvalKeyed is EvalJSON, and returns the key of the page as it read it.
func (p *Page) EvalKeyed(ctx context.Context, expr string, out any) (string, error) {
	var r struct {
		Key   string          `json:"k"`
		Value json.RawMessage `json:"v"`
	}
	if err := p.EvalJSON(ctx, "(() => { const k = "+keyJS+"; return {k, v: ("+expr+")}; })()", &r); err != nil {
		return "", err
	}
	if out != nil && len(r.Value) > 0 {
		if err := json.Unmarshal(r.Value, out); err != nil {
			return "", fmt.Errorf("eval: %w", err)
		}
	}
	return r.Key, nil
}

// Key returns the key of the page as it is now.
func (p *Page) Key(ctx context.Context) (string, error) {
	var k string
	err := p.Eval(ctx, keyJS, &k)
	return k, err
}

// prefetched is one reading by the Prefetch function, with the key of the
// page it read.
type prefetched struct {
	key   string
	value any
}

// prefetcher makes one Settle's readings: one in flight at a time,
// started when nothing is in flight and again after any activity or DOM
// change since the last one started.
type prefetcher struct {
	p    *Page
	read func(ctx context.Context) (string, any) // nil reads nothing
	ch   chan prefetched                         // the reading in flight, nil when none
	at   time.Time                               // when the last one started
	got  *prefetched                             // the last one done
}

// start reads the page, unless a reading is in flight.
func (f *prefetcher) start(ctx context.Context) {
	if !f.idle() {
		return
	}
	ch := make(chan prefetched, 1)
	f.ch, f.at = ch, time.Now()
	go func() {
		k, v := f.read(ctx)
		ch <- prefetched{key: k, value: v}
	}()
}

// idle reports whether a reading can start now: there is a reading to
// make and none is in flight.
func (f *prefetcher) idle() bool { return f.read != nil && f.ch == nil }

// poll takes the reading in flight if it is done, or with block waits for
// it (or for ctx).
func (f *prefetcher) poll(ctx context.Context, block bool) {
	if f.ch == nil {
		return
	}
	if !block {
		select {
		case r := <-f.ch:
			f.got, f.ch = &r, nil
		default:
		}
		return
	}
	select {
	case r := <-f.ch:
		f.got, f.ch = &r, nil
	case <-ctx.Done():
	}
}

// keep makes the last reading the page's Reading when it was of the page
// as it is now, named by key. A reading of the page before a change that
// Settle waited out in the page (settleJS) is made again, now that the
// page is settled, and kept if the page is still at key.
func (f *prefetcher) keep(ctx context.Context, key string) {
	if f.read == nil || key == "" {
		return
	}
	f.poll(ctx, true)
	if f.got == nil || f.got.key != key {
		k, v := f.read(ctx)
		f.got = &prefetched{key: k, value: v}
	}
	if f.got.key != key || f.got.value == nil {
		return
	}
	f.p.mu.Lock()
	f.p.reading = f.got.value
	f.p.mu.Unlock()
}
