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
		switch {
		case r.URL.Path == "/":
			fmt.Fprint(w, `<!doctype html><title>Late Bloom Tea</title><h1>Late Bloom Tea</h1>`+
				later(`<ul><li><a href="/products/green-tea">Green Tea</a></li></ul>`))
		case r.URL.Path == "/products/green-tea":
			fmt.Fprint(w, `<!doctype html><title>Green Tea – Late Bloom Tea</title><h1>Green Tea</h1><p>$12.00</p>`+
				later(`<form method="post" action="/cart/add"><input type="hidden" name="id" value="tea"><button type="submit">Add to cart</button></form>`))
		case !cartFlow(w, r, "tea", "Green Tea", func(title, body string) {
			fmt.Fprint(w, `<!doctype html><title>`+title+`</title><h1>`+title+`</h1>`+body)
		}):
			http.NotFound(w, r)
		}
	}}
}

// TestShoppersWaitForLateControls: a product grid and a buy button that
// appear 250 ms after the load event are found by A and B, which look a
// second time, patiently, before concluding that a page lacks them.
func TestShoppersWaitForLateControls(t *testing.T) {
	for sh, rep := range runOnShop(t, lateShop(250), Semantic, Accessibility) {
		late := 0
		for _, st := range rep.Log {
			if st.Action == "inspect" && strings.Contains(st.Note, "appeared after waiting") {
				late++
			}
		}
		if late != 2 {
			t.Errorf("%s: %d steps say what appeared late, want 2 (the products, the add control)", sh, late)
		}
		wantOutcome(t, sh, rep, CheckoutReached)
	}
}

// iconShop is the fixture world's icon-only trait as a held-out shop:
// its add button holds only an svg hidden from assistive technology, so
// it has no accessible name; A finds it by its form, which posts to the
// cart, and B cannot see it.
func iconShop() *realShop {
	return &realShop{host: "icon-only.test", serve: func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
		page := func(title, body string) { shopPage(w, "", title, body, "") }
		switch {
		case r.URL.Path == "/":
			page("Icon Outfitters", `<ul><li><a href="/products/cap">Field Cap</a></li></ul>`)
		case r.URL.Path == "/products/cap":
			page("Field Cap", `<p>$18.00</p><form method="post" action="/cart/add"><input type="hidden" name="id" value="cap">`+
				`<button type="submit" class="atc-icon"><svg width="24" height="24" aria-hidden="true"><path d="M7 4h10v2H7z"/></svg></button></form>`)
		case !cartFlow(w, r, "cap", "Field Cap", page):
			http.NotFound(w, r)
		}
	}}
}

// TestAccessibilityShopperNamesWhatItCannotSee: on a product page whose
// add button has no accessible name, B ends without a cart and says why:
// the page holds an add control, found as A finds it, that the
// accessibility tree does not name. The page has rendered, so B does not
// wait for a control to appear (its patient look is for pages still
// rendering; TestShoppersWaitForLateControls holds it to that). A, which
// reads the form, reaches checkout.
func TestAccessibilityShopperNamesWhatItCannotSee(t *testing.T) {
	reps := runOnShop(t, iconShop(), Accessibility, Semantic)
	wantOutcome(t, Semantic, reps[Semantic], CheckoutReached)
	rep := reps[Accessibility]
	wantOutcome(t, Accessibility, rep, NoCart)
	said, waited := false, false
	for _, st := range rep.Log {
		said = said || st.Action == "inspect" && strings.Contains(st.Note, "holds an add control that is not in the accessibility tree") &&
			strings.Contains(st.Note, "a button with no name")
		waited = waited || strings.Contains(st.Note, "after waiting")
	}
	if !said || waited {
		t.Errorf("B's steps do not say that the add control has no name (said %v), or say it waited (%v):", said, waited)
		for _, st := range rep.Log {
			t.Logf("%d %s %s %q — %s", st.N, st.Action, st.Role, st.Name, st.Note)
		}
	}
}

// trapCheckout is a test shop's checkout page: an email and a card field,
// and a place-order form whose post is a trap.
const trapCheckout = `<form action="/trap/order" method="post">
<label>Email <input type="email" name="email"></label><label>Card number <input name="cardnumber" autocomplete="cc-number"></label>
<button type="submit">Place order</button></form>`

// cartFlow serves a one-product shop's cart: the add (a form posting id to
// /cart/add, kept in a cookie), the cart page (product in a line, a
// checkout link) and the checkout page (card fields and a place-order
// trap), each drawn by page. It reports whether r was one of those.
func cartFlow(w http.ResponseWriter, r *http.Request, id, product string, page func(title, body string)) bool {
	return cartFlowWith(w, r, id, product, `<a href="/checkout">Check out</a>`, page)
}

// cartFlowWith is cartFlow with the cart page's checkout control given.
func cartFlowWith(w http.ResponseWriter, r *http.Request, id, product, checkout string, page func(title, body string)) bool {
	switch {
	case r.URL.Path == "/cart/add" && r.Method == http.MethodPost:
		http.SetCookie(w, &http.Cookie{Name: "cart", Value: id, Path: "/"})
		http.Redirect(w, r, "/cart", http.StatusSeeOther)
	case r.URL.Path == "/cart":
		if c, err := r.Cookie("cart"); err != nil || c.Value != id {
			page("Your cart", `<p>Your cart is empty.</p>`)
			break
		}
		page("Your cart", `<table><tr class="cart-item"><td>`+product+`</td><td>1</td></tr></table>`+checkout)
	case r.URL.Path == "/checkout":
		page("Checkout", trapCheckout)
	default:
		return false
	}
	return true
}

// runOnShop runs each shopper on shop's front page (skipped under -short
// or without Chromium) and returns the reports; no trap may be touched.
func runOnShop(t *testing.T, shop *realShop, shoppers ...Shopper) map[Shopper]*Report {
	t.Helper()
	if testing.Short() {
		t.Skip("browser runs: not under -short")
	}
	needChromiumOrSkip(t)
	h := newHeldout(t, []*realShop{shop})
	opts := h.runOptions(t)
	out := map[Shopper]*Report{}
	for _, sh := range shoppers {
		rep, err := Run(t.Context(), opts, sh, "https://"+shop.host+"/")
		if err != nil {
			t.Fatal(err)
		}
		out[sh] = rep
	}
	if traps := h.Traps(); len(traps) > 0 {
		t.Errorf("traps were touched: %v", traps)
	}
	return out
}

// shopSession serves shop and opens a page on it as a run of shopper A
// would (skipped under -short or without Chromium).
func shopSession(t *testing.T, shop *realShop) *session {
	t.Helper()
	if testing.Short() {
		t.Skip("browser runs: not under -short")
	}
	needChromiumOrSkip(t)
	h := newHeldout(t, []*realShop{shop})
	return heldoutSession(t, h.runOptions(t), shop.host)
}

// wantEach runs shoppers on shop's front page and holds every run to want.
func wantEach(t *testing.T, shop *realShop, want string, shoppers ...Shopper) {
	t.Helper()
	for sh, rep := range runOnShop(t, shop, shoppers...) {
		wantOutcome(t, sh, rep, want)
	}
}

// shopPage writes a test shop's page: a viewport, the title, a header
// holding header, an h1 of the title over body in main, and tail after
// main (a footer, a dialog).
func shopPage(w http.ResponseWriter, header, title, body, tail string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>%s</title></head>
<body><header>%s</header><main><h1>%s</h1>%s</main>%s</body></html>`, title, header, title, body, tail)
}

// wantOutcome holds a run to its outcome, logging its steps when not.
func wantOutcome(t *testing.T, sh Shopper, rep *Report, want string) {
	t.Helper()
	if rep.Outcome == want {
		return
	}
	t.Errorf("%s: %s (%s), want %s", sh, rep.Outcome, rep.Reason, want)
	for _, st := range rep.Log {
		t.Logf("%d %s %s %q — %s [%s]", st.N, st.Action, st.Role, st.Name, st.Note, st.Title)
	}
}

// lateCartShop confirms the add on the product page ("Added to cart",
// and the header's cart count) and renders its cart page's checkout
// control 250 ms after the page loads, as Vendure 3.7's Next.js storefront
// (the lab's https://vendure.test/cart) renders the cart's lines and
// "Proceed to Checkout" once its route's data has arrived.
func lateCartShop() *realShop {
	return &realShop{host: "late-cart.test", serve: func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
		inCart := false
		if c, err := r.Cookie("cart"); err == nil && c.Value == "mouse" {
			inCart = true
		}
		header := `<a href="/cart">0 Shopping Cart</a>`
		if inCart {
			header = `<a href="/cart">1 Shopping Cart</a>`
		}
		page := func(title, body string) { shopPage(w, header, title, body, "") }
		switch r.URL.Path {
		case "/":
			page("Late Cart", `<ul><li><a href="/product/cordless-mouse">Wireless Optical Mouse $22.79</a></li></ul>`)
		case "/product/cordless-mouse":
			page("Wireless Optical Mouse", `<p>$22.79</p><p id="msg" role="status"></p><button type="button" id="add">Add to Cart</button>
<script>document.getElementById('add').onclick = () => fetch('/cart/add', {method: 'POST'}).then(() => {
  document.getElementById('msg').textContent = 'Added to cart';
  document.querySelector('header a').textContent = '1 Shopping Cart';
});</script>`)
		case "/cart/add":
			http.SetCookie(w, &http.Cookie{Name: "cart", Value: "mouse", Path: "/"})
			w.WriteHeader(http.StatusNoContent)
		case "/cart":
			if !inCart {
				page("Cart", `<p>Your cart is empty.</p>`)
				return
			}
			page("Cart", `<div id="slot"></div><script>setTimeout(() => { document.getElementById('slot').innerHTML =
  '<table><tr class="cart-item"><td>Wireless Optical Mouse</td><td>1</td></tr></table><a href="/checkout">Proceed to Checkout</a>'; }, 250);</script>`)
		case "/checkout":
			page("Checkout", trapCheckout)
		default:
			http.NotFound(w, r)
		}
	}}
}

// TestShoppersWaitForTheCartPagesCheckout: A and B, which waited on the
// product page for a checkout control, wait once more on the cart page
// for its late "Proceed to Checkout", and reach checkout.
func TestShoppersWaitForTheCartPagesCheckout(t *testing.T) {
	wantEach(t, lateCartShop(), CheckoutReached, Semantic, Accessibility)
}
