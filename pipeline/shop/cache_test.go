package shop

import (
	"context"
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"svc/datasets/svc100"
	"svc/pipeline/shop/browser"
)

// TestReadingsAreReusedUntilThePageChanges: a second reading of an
// unchanged page is the cached one (the helper answers "same" for its
// key), a DOM change made by the page's own script is seen at once, and
// an action of the shopper's drops the cache.
func TestReadingsAreReusedUntilThePageChanges(t *testing.T) {
	srv, b := shared(t)
	_ = srv
	host := svc100.Stores()[0].Host
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	page, err := b.NewPage(ctx, browser.PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer page.Close()
	u, _ := url.Parse("https://" + host + "/")
	s := &session{opts: Options{StepTimeout: 10 * time.Second}, page: page, rep: &Report{}, ctx: ctx, origin: u}
	if err := page.Navigate(ctx, u.String()); err != nil {
		t.Fatal(err)
	}
	st, err := s.state()
	if err != nil {
		t.Fatal(err)
	}
	if s.seen.stKey == "" {
		t.Fatal("the reading has no key: the DOM observer is missing")
	}
	k, _ := json.Marshal(s.seen.stKey)
	var same struct {
		Same bool `json:"same"`
	}
	if err := page.Eval(ctx, helper+".stateIf("+string(k)+")", &same); err != nil || !same.Same {
		t.Errorf("an unchanged page was read again (same=%v, err %v)", same.Same, err)
	}
	if err := page.EvalMain(ctx, "document.title = 'changed by the page'", nil); err != nil {
		t.Fatal(err)
	}
	st2, err := s.state()
	if err != nil {
		t.Fatal(err)
	}
	if st2.Title != "changed by the page" || st2.Title == st.Title {
		t.Errorf("after the page changed its title the reading says %q", st2.Title)
	}
	if _, err := s.items(); err != nil || s.seen.itemsKey == "" {
		t.Fatalf("items: key %q, err %v", s.seen.itemsKey, err)
	}
	s.forget()
	if s.seen.stKey != "" || s.seen.itemsKey != "" || s.seen.items != nil {
		t.Error("forget kept a reading")
	}
}

// TestLookReusesItemsReadAfterTheState: one lookIf answers state and
// items; when the items were read after the page changed but the state
// was not, the state is read again and the items kept, not lost with the
// cache the new state drops.
func TestLookReusesItemsReadAfterTheState(t *testing.T) {
	_, b := shared(t)
	host := svc100.Stores()[0].Host
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	page, err := b.NewPage(ctx, browser.PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer page.Close()
	u, _ := url.Parse("https://" + host + "/")
	s := &session{opts: Options{StepTimeout: 10 * time.Second}, page: page, rep: &Report{}, ctx: ctx, origin: u}
	if err := page.Navigate(ctx, u.String()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.state(); err != nil {
		t.Fatal(err)
	}
	if err := page.EvalMain(ctx, "document.title = 'changed by the page'", nil); err != nil {
		t.Fatal(err)
	}
	items, err := s.items()
	if err != nil || len(items) == 0 {
		t.Fatalf("items: %d, %v", len(items), err)
	}
	st, got, err := s.stateAndItems()
	if err != nil {
		t.Fatal(err)
	}
	if st.Title != "changed by the page" {
		t.Errorf("the state was not read again: title %q", st.Title)
	}
	if len(got) != len(items) || s.seen.itemsKey == "" || s.seen.itemsKey != s.seen.stKey {
		t.Errorf("items %d (want %d), keys %q and %q: the items read at this key were dropped", len(got), len(items), s.seen.itemsKey, s.seen.stKey)
	}
}
