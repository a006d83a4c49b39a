package leaderboard

import (
	"slices"
	"testing"
	"time"

	"svc/datasets/svc100"
	"svc/fixtures"
)

// shopperOutcome is a scripted rule for the board's tests: it derives
// each shopper's outcome at a store from the store's known answers. It is
// test input, not a browser session; the shoppers differ so that the board
// shows different rates:
//
//   - every shopper: a store behind a wall is blocked; a store that is
//     down is an error; a store with an empty catalog is no_cart;
//   - A reaches checkout everywhere else;
//   - B reaches checkout on Shopify and WooCommerce stores, adds to the
//     cart elsewhere;
//   - C adds to the cart, but gets nothing from single-page apps (no_cart)
//     and is turned away by throttled catalogs (blocked);
//   - D reaches checkout where product pages carry product data (JSON-LD
//     or the public products.json), else no_cart;
//   - E adds to the cart only where a WebMCP adapter shows in the HTML,
//     else no_cart, and skips every tenth store (not_attempted).
func shopperOutcome(shopper byte, st *fixtures.Store, i int) string {
	e := st.Expect
	has := func(t string) bool { return slices.Contains(st.Traits, t) }
	switch {
	case e.BlockStatus.Blocked != nil && *e.BlockStatus.Blocked:
		return OutcomeBlocked
	case e.Platform == nil:
		return OutcomeError
	case has("catalog:empty"):
		return OutcomeNoCart
	}
	switch shopper {
	case 'A':
		return OutcomeCheckoutReached
	case 'B':
		if *e.Platform == "shopify" || *e.Platform == "woocommerce" {
			return OutcomeCheckoutReached
		}
		return OutcomeAddedToCart
	case 'C':
		switch {
		case has("soft404:spa"):
			return OutcomeNoCart
		case has("catalog:throttled"):
			return OutcomeBlocked
		}
		return OutcomeAddedToCart
	case 'D':
		if e.ProductData != nil && e.ProductData.Source != nil {
			return OutcomeCheckoutReached
		}
		return OutcomeNoCart
	case 'E':
		switch {
		case i%10 == 9:
			return OutcomeNotAttempted
		case e.WebMCP != nil && *e.WebMCP:
			return OutcomeAddedToCart
		}
		return OutcomeNoCart
	}
	panic("no shopper " + string(shopper))
}

// scriptedBrowserResults are the browser shoppers' results over SVC-100 v1
// by shopperOutcome, as the shop stage would hand them to
// WriteBrowserRuns: a scripted input of the board's tests, not a browser
// session (the shop stage's own tests run Chromium).
func scriptedBrowserResults(t testing.TB, w *fixtures.World) map[string][]BrowserResult {
	t.Helper()
	out := map[string][]BrowserResult{}
	for k, l := range "ABCDE" {
		at := time.Date(2026, 11, 16, 9+2*k, 0, 0, 0, time.UTC)
		for i, st := range svc100.Stores() {
			fs, ok := w.Lookup(st.Host)
			if !ok {
				t.Fatalf("%s is not a fixture store", st.Host)
			}
			secs := float64(20 + (i*37+k*11)%70)
			out[string(l)] = append(out[string(l)], BrowserResult{ID: st.ID, Outcome: shopperOutcome(byte(l), fs, i),
				Reason: "scripted", At: at, Seconds: secs, Steps: 6 + (i*5+k)%9})
			at = at.Add(time.Duration(secs+10) * time.Second)
		}
	}
	return out
}
