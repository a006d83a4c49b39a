// Reading the page: the page helper's readings of its state and items,
// kept while the page's key is unchanged (pageCache), and the one reading
// Settle takes while it waits for the page to go quiet.

package shop

import (
	"context"
	"encoding/json"
	"time"

	"github.com/chromedp/cdproto/accessibility"
)

type pageCache struct {
	stKey, itemsKey, axKey string
	st                     PageState
	items                  []Item
	ax                     []*accessibility.Node
	// axOver marks a page at axKey beyond the documents whose
	// accessibility tree B reads (maxAXElements).
	axOver bool
	// settled is when a Settle that had just found the page at stKey
	// returned this reading: for settledFor after it, the reading is
	// taken as current without asking the page again.
	settled time.Time
}

// settledFor is how long a reading that Settle confirmed stays current
// without a round trip to the page to check its key. Settle confirmed it
// at the end of a quiet window of at least this long (no request, no DOM
// change), so the shopper's reads right after the settle (the step's
// record, the next look) take it as it is; a later read asks the page,
// and the guard reads the element it acts on afresh in any case.
const settledFor = 20 * time.Millisecond

// current reports whether the cached reading is one Settle confirmed
// within settledFor.
func (c *pageCache) current() bool {
	return c.stKey != "" && !c.settled.IsZero() && time.Since(c.settled) < settledFor
}

// stateReading is the page helper's answer to stateIf.
type stateReading struct {
	PageState
	Same bool   `json:"same"`
	Key  string `json:"key"`
}

// itemsReading is the page helper's answer to snapshotIf.
type itemsReading struct {
	Same  bool   `json:"same"`
	Key   string `json:"key"`
	Items []Item `json:"items"`
}

// state reads the page.
func (s *session) state() (PageState, error) {
	if s.seen.current() {
		return s.seen.st, nil
	}
	defer phase("read the page (state)")()
	ctx, cancel := s.stepCtx()
	defer cancel()
	var r stateReading
	k, _ := json.Marshal(s.seen.stKey)
	if err := s.page.EvalJSON(ctx, helper+".stateIf("+string(k)+")", &r); err != nil {
		s.forget()
		return PageState{}, err
	}
	return s.keepState(r), nil
}

// keepState caches a state reading, or returns the cached one when the
// page is unchanged.
func (s *session) keepState(r stateReading) PageState {
	if r.Same {
		return s.seen.st
	}
	if s.seen.stKey != r.Key {
		s.seen = pageCache{} // a new page: every cached reading is stale
	}
	s.seen.stKey, s.seen.st = r.Key, r.PageState
	return r.PageState
}

// items lists the actionable elements of the page.
func (s *session) items() ([]Item, error) {
	defer phase("read the page (items)")()
	ctx, cancel := s.stepCtx()
	defer cancel()
	var r itemsReading
	k, _ := json.Marshal(s.seen.itemsKey)
	if err := s.page.EvalJSON(ctx, helper+".snapshotIf("+string(k)+")", &r); err != nil {
		s.forget()
		return nil, err
	}
	return s.keepItems(r), nil
}

// keepItems caches an items reading, or returns the cached items when
// the page is unchanged.
func (s *session) keepItems(r itemsReading) []Item {
	if r.Same {
		return s.seen.items
	}
	s.seen.itemsKey, s.seen.items = r.Key, r.Items
	return r.Items
}

// reading is what Settle reads of a page while it waits out the quiet
// window (browser.Page.Prefetch): the state, the items for a shopper that
// reads the DOM, and the accessibility tree for one that reads that.
type reading struct {
	State    stateReading  `json:"state"`
	Snapshot *itemsReading `json:"snapshot"`
	Elements int           `json:"elements"`
	ax       []*accessibility.Node
	axRead   bool
}

// prefetch returns the reading function of the shopper whose finder
// reads the DOM (items) or the accessibility tree (ax).
func (s *session) prefetch(items, ax bool) func(ctx context.Context) (string, any) {
	expr := "({state: " + helper + ".stateIf('')})"
	switch {
	case items:
		expr = helper + ".settleLook()"
	case ax:
		expr = "({state: " + helper + ".stateIf(''), elements: " + elementsJS + "})"
	}
	return func(ctx context.Context) (string, any) {
		defer phase("  the reading made while settling")()
		var r reading
		done := phase("  the reading made while settling (the page's part)")
		key, err := s.page.EvalKeyed(ctx, expr, &r)
		done()
		if err != nil || key == "" {
			return "", nil
		}
		// A checkout page ends the run (judge): its tree would never be
		// read. Should the run go on after all, B's look reads it then.
		if ax && r.Elements <= maxAXElements && !IsCheckoutPage(r.State.PageState) {
			defer phase("  accessibility tree (read while settling)")()
			// The tree, read while the page stays as it was.
			nodes, err := s.page.AXTree(ctx)
			if err != nil {
				return "", nil
			}
			if again, err := s.page.Key(ctx); err != nil || again != key {
				return "", nil
			}
			r.ax, r.axRead = nodes, true
		}
		if IsCheckoutPage(r.State.PageState) {
			s.shootEarly(key)
		}
		return key, &r
	}
}

// takeReading installs the reading Settle prefetched, when the page is
// still as read, so the shopper's next look is answered from it: without
// asking the page at all within settledFor, and with the page's "same"
// after that.
func (s *session) takeReading() {
	v, ok := s.page.Reading()
	r, _ := v.(*reading)
	if !ok || r == nil || r.State.Same || r.State.Key == "" {
		return
	}
	s.forget()
	s.keepState(r.State)
	if r.Snapshot != nil && !r.Snapshot.Same && r.Snapshot.Key == r.State.Key {
		s.keepItems(*r.Snapshot)
	}
	if r.axRead {
		s.seen.axKey, s.seen.ax = r.State.Key, r.ax
	}
	s.seen.settled = time.Now()
}

// settle waits for the page to settle and takes what was read meanwhile.
func (s *session) settle(ctx context.Context) error {
	err := s.page.Settle(ctx)
	s.takeReading()
	return err
}

// stateAndItems is state and items in one round trip.
func (s *session) stateAndItems() (PageState, []Item, error) {
	if s.seen.current() && s.seen.itemsKey == s.seen.stKey {
		return s.seen.st, s.seen.items, nil
	}
	defer phase("read the page (state and items)")()
	ctx, cancel := s.stepCtx()
	defer cancel()
	var r reading
	sk, _ := json.Marshal(s.seen.stKey)
	ik, _ := json.Marshal(s.seen.itemsKey)
	if err := s.page.EvalJSON(ctx, helper+".lookIf("+string(sk)+", "+string(ik)+")", &r); err != nil {
		s.forget()
		return PageState{}, nil, err
	}
	if r.Snapshot == nil {
		r.Snapshot = &itemsReading{}
	}
	items, itemsKey := s.seen.items, s.seen.itemsKey
	st := s.keepState(r.State) // may drop the cache, items too
	if r.Snapshot.Same {
		// The items were read at this very key (after the state was).
		s.seen.itemsKey, s.seen.items = itemsKey, items
		return st, items, nil
	}
	return st, s.keepItems(*r.Snapshot), nil
}
