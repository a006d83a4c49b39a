package shop

import (
	"encoding/json"
	"testing"

	"svc/datasets/svc100"
	"svc/pipeline/shop/browser"
)

// TestReadingsAreReusedUntilThePageChanges: a second reading of an
// unchanged page is the cached one (the helper answers "same" for its
// key), a DOM change made by the page's own script is seen at once, and
// an action of the shopper's drops the cache.
func TestReadingsAreReusedUntilThePageChanges(t *testing.T) {
	s := standInSession(t)
	page, ctx := s.page, s.ctx
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
	s := standInSession(t)
	page, ctx := s.page, s.ctx
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

// standInSession opens the first SVC-100 stand-in's front page in a
// session of its own, with no prefetch: every reading asks the page.
func standInSession(t *testing.T) *session {
	t.Helper()
	_, b := shared(t)
	s := testSession(t, b, svc100.Stores()[0].Host, browser.PageOptions{})
	if err := s.page.Navigate(s.ctx, s.origin.String()); err != nil {
		t.Fatal(err)
	}
	return s
}
