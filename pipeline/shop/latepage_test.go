package shop

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// lateShop renders its product grid and its buy button from a timer,
// well after each page's load event (as themes that hydrate late do): a
// shopper that judged a page right after Settle's quiet window would find
// no product and no add control. The cart is a cookie; the checkout page
// has card fields and a place-order trap.
func lateShop(delayMS int) *realShop {
	return &realShop{host: "late-bloom.test", serve: func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		later := func(html string) string {
			return fmt.Sprintf(`<div id="slot"></div><script>setTimeout(() => { document.getElementById('slot').innerHTML = %q; }, %d);</script>`, html, delayMS)
		}
		inCart := false
		if c, err := r.Cookie("cart"); err == nil && c.Value == "tea" {
			inCart = true
		}
		switch {
		case r.URL.Path == "/":
			fmt.Fprint(w, `<!doctype html><title>Late Bloom Tea</title><h1>Late Bloom Tea</h1>`+
				later(`<ul><li><a href="/products/green-tea">Green Tea</a></li></ul>`))
		case r.URL.Path == "/products/green-tea":
			fmt.Fprint(w, `<!doctype html><title>Green Tea – Late Bloom Tea</title><h1>Green Tea</h1><p>$12.00</p>`+
				later(`<form method="post" action="/cart/add"><input type="hidden" name="id" value="tea"><button type="submit">Add to cart</button></form>`))
		case r.URL.Path == "/cart/add" && r.Method == http.MethodPost:
			http.SetCookie(w, &http.Cookie{Name: "cart", Value: "tea", Path: "/"})
			http.Redirect(w, r, "/cart", http.StatusSeeOther)
		case r.URL.Path == "/cart":
			if !inCart {
				fmt.Fprint(w, `<!doctype html><title>Your cart</title><h1>Your cart</h1><p>Your cart is empty.</p>`)
				return
			}
			fmt.Fprint(w, `<!doctype html><title>Your cart</title><h1>Your cart</h1><table><tr class="cart-item"><td>Green Tea</td><td>1</td></tr></table><a href="/checkout">Check out</a>`)
		case r.URL.Path == "/checkout":
			fmt.Fprint(w, `<!doctype html><title>Checkout</title><h1>Checkout</h1><form action="/trap/order" method="post">
<label>Email <input type="email" name="email"></label><label>Card number <input name="cardnumber" autocomplete="cc-number"></label>
<button type="submit">Place order</button></form>`)
		default:
			http.NotFound(w, r)
		}
	}}
}

// TestShoppersWaitForLateControls: a product grid and a buy button that
// appear 250 ms after the load event are found by A and B, which look a
// second time, patiently, before concluding that a page lacks them.
func TestShoppersWaitForLateControls(t *testing.T) {
	if testing.Short() {
		t.Skip("browser runs: not under -short")
	}
	needChromiumOrSkip(t)
	h := newHeldout(t, []*realShop{lateShop(250)})
	opts := h.runOptions(t)
	for _, sh := range []Shopper{Semantic, Accessibility} {
		rep, err := Run(t.Context(), opts, sh, "https://late-bloom.test/")
		if err != nil {
			t.Fatal(err)
		}
		late := 0
		for _, st := range rep.Log {
			if st.Action == "inspect" && strings.Contains(st.Note, "appeared after waiting") {
				late++
			}
		}
		if late != 2 {
			t.Errorf("%s: %d steps say what appeared late, want 2 (the products, the add control)", sh, late)
		}
		if rep.Outcome != CheckoutReached {
			t.Errorf("%s: %s (%s), want checkout_reached", sh, rep.Outcome, rep.Reason)
			for _, st := range rep.Log {
				t.Logf("%d %s %s %q — %s [%s]", st.N, st.Action, st.Role, st.Name, st.Note, st.Title)
			}
		}
	}
	if traps := h.Traps(); len(traps) > 0 {
		t.Errorf("traps were touched: %v", traps)
	}
}
