package shop

import (
	"net/http"
	"testing"
)

// termsShop is a one-product Shopify-style shop whose cart asks the
// buyer to agree to its terms before checkout, as many Shopify carts do:
// Archetype's themes (Impulse, Streamline, Motion) ship the option, with
// the string cartTermsConfirmation "You must agree with the terms and
// conditions of sales to check out"; Shopify's help centre long gave a
// snippet that alerts so when the box is not ticked; Clean Canvas's themes
// use a cart-terms element that stops the cart form's submit; others grey
// the checkout button out until the box is ticked. gate is "alert" (the
// checkout button's click is refused with an alert), "submit" (the form's
// submit is stopped), "disabled" (the button is disabled until the box
// is ticked) or "styled" (as alert, with the box drawn by its label over a
// transparent input, whose words hold a link to the terms). The cart form also holds an "Email me with news and offers"
// box, which a shopper must leave alone: a checkout sent with it ticked is
// a trap, as is any order.
func termsShop(gate string) *realShop {
	return &realShop{host: "terms-" + gate + ".test", serve: func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
		page := func(title, body string) {
			shopPage(w, `<a href="/">Harbor Goods</a> <a href="/cart">Cart</a>`, title, body, "")
		}
		switch {
		case r.URL.Path == "/":
			page("Harbor Goods", `<ul><li class="grid__item"><a href="/products/rope-basket">Rope Basket</a></li></ul>`)
		case r.URL.Path == "/products/rope-basket":
			page("Rope Basket", `<p>$36.00</p><form method="post" action="/cart/add"><input type="hidden" name="id" value="basket"><button type="submit" name="add">Add to cart</button></form>`)
		case r.URL.Path == "/cart/add" && r.Method == http.MethodPost:
			http.SetCookie(w, &http.Cookie{Name: "cart", Value: "basket", Path: "/"})
			http.Redirect(w, r, "/cart", http.StatusSeeOther)
		case r.URL.Path == "/cart" && r.Method == http.MethodPost:
			if err := r.ParseForm(); err != nil || r.PostForm.Get("checkout") == "" {
				http.Error(w, "bad cart form", http.StatusBadRequest)
				return
			}
			if r.PostForm.Get("attributes[newsletter]") != "" {
				h.hit(s.host, "newsletter box ticked")
			}
			if r.PostForm.Get("attributes[terms]") == "" {
				http.Error(w, "checkout without the terms agreed", http.StatusBadRequest)
				return
			}
			http.Redirect(w, r, "/checkout", http.StatusSeeOther)
		case r.URL.Path == "/cart":
			if c, err := r.Cookie("cart"); err != nil || c.Value != "basket" {
				page("Your cart", `<p>Your cart is empty.</p>`)
				return
			}
			disabled, script, style := "", "", ""
			switch gate {
			case "styled":
				// A styled box: the input transparent under its label's
				// drawn square (the label, later in the page, is on top),
				// refused with an alert like Archetype's.
				style = `<style>.cart__terms { position: relative } .cart__terms input { position: absolute; left: 0; top: 0; width: 18px; height: 18px; margin: 0; opacity: 0 }
.cart__terms label { position: relative; display: inline-block; padding-left: 26px } .cart__terms label::before { content: ''; position: absolute; left: 0; top: 0; width: 16px; height: 16px; border: 1px solid #333 }</style>`
				fallthrough
			case "alert":
				script = `<script>document.querySelector('[name=checkout]').addEventListener('click', e => {
  if (!document.getElementById('CartAgree').checked) { e.preventDefault(); alert('You must agree with the terms and conditions of sales to check out'); }
});</script>`
			case "submit":
				script = `<script>document.getElementById('CartForm').addEventListener('submit', e => {
  if (!document.getElementById('CartAgree').checked) { e.preventDefault(); document.querySelector('.cart__terms-error').hidden = false; }
});</script>`
			case "disabled":
				disabled = " disabled"
				script = `<script>document.getElementById('CartAgree').addEventListener('change', e => { document.querySelector('[name=checkout]').disabled = !e.target.checked; });</script>`
			}
			page("Your cart", style+`<form id="CartForm" method="post" action="/cart">
<table><tr class="cart-item"><td>Rope Basket</td><td><input type="number" name="updates[]" value="1" aria-label="Quantity"></td></tr></table>
<p><input type="checkbox" id="CartNews" name="attributes[newsletter]" value="yes"><label for="CartNews">Email me with news and offers</label></p>
<p class="cart__terms"><input type="checkbox" id="CartAgree" name="attributes[terms]" value="agreed"><label for="CartAgree">I agree with the <a href="/pages/terms">terms and conditions</a>.</label></p>
<p class="cart__terms-error" hidden>Please agree to the terms first.</p>
<button type="submit" name="checkout" value="1"`+disabled+`>Check out</button></form>`+script)
		case r.URL.Path == "/checkout":
			page("Checkout", trapCheckout)
		default:
			http.NotFound(w, r)
		}
	}}
}

// TestShoppersAgreeToACartsTerms: on a cart that asks the buyer to agree
// to the store's terms before checkout, A, B and E tick that box (never
// the newsletter box beside it) and reach checkout, whether the store
// refuses an unticked checkout with an alert, stops the form's submit, or
// keeps the button disabled, and when the box is drawn by its label.
func TestShoppersAgreeToACartsTerms(t *testing.T) {
	for _, gate := range []string{"alert", "submit", "disabled", "styled"} {
		t.Run(gate, func(t *testing.T) {
			wantEach(t, termsShop(gate), CheckoutReached, Semantic, Accessibility, Mobile)
		})
	}
}
