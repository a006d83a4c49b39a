package shop

import (
	"fmt"
	"net/http"
	"testing"
)

// dialogDrawerShop adds to the cart by script (a JSON post, as Shopify's
// /cart/add.js) and shows the cart in a <dialog> opened with showModal()
// (Shopify's Horizon theme: its CartDrawerComponent extends its
// DialogComponent and opens on the cart-add event): in the top layer, the
// rest of the page inert behind a backdrop, the checkout button inside.
// The header's cart count is a bubble. The checkout page has card fields
// and a place-order trap.
func dialogDrawerShop() *realShop {
	return &realShop{host: "dialog-drawer.test", serve: func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
		inCart := false
		if c, err := r.Cookie("cart"); err == nil && c.Value == "mug" {
			inCart = true
		}
		page := func(title, body string) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			count := ""
			if inCart {
				count = `<span class="cart-bubble__text-count">1</span>`
			}
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>%s</title>
<style>dialog.cart-drawer__dialog { width: 380px; height: 100vh; max-height: 100vh; margin: 0 0 0 auto; } dialog::backdrop { background: rgba(0,0,0,.5) }</style></head>
<body><header><a href="/">Kiln &amp; Co</a> <a href="/cart" class="header-actions__cart-icon" aria-label="Cart">&#128722;<span class="cart-bubble">%s</span></a></header>
<main><h1>%s</h1>%s</main>
<dialog class="cart-drawer__dialog" aria-label="Your cart"><div class="cart-drawer__inner"><h2>Your cart</h2><div class="cart-items"></div>
<form action="/cart" method="post" id="cart-form"><button type="submit" name="checkout" class="button cart__checkout-button">Check out</button></form>
<button type="button" class="cart-drawer__close" aria-label="Close dialog" onclick="this.closest('dialog').close()">&times;</button></div></dialog>
</body></html>`, title, count, title, body)
		}
		switch {
		case r.URL.Path == "/":
			page("Kiln & Co", `<ul class="product-grid"><li class="product-grid__item"><a href="/products/stoneware-mug">Stoneware Mug</a></li></ul>`)
		case r.URL.Path == "/products/stoneware-mug":
			page("Stoneware Mug", `<p>$28.00</p><form class="product-form" action="/cart/add" method="post"><input type="hidden" name="id" value="mug">
<button type="submit" name="add" class="button add-to-cart-button"><span class="add-to-cart-text">Add to cart</span></button></form>
<script>
document.querySelector('.product-form').addEventListener('submit', async e => {
  e.preventDefault();
  const r = await fetch('/cart/add.js', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({items: [{id: 'mug', quantity: 1}]})});
  if (!r.ok) return;
  document.querySelector('.cart-bubble').innerHTML = '<span class="cart-bubble__text-count">1</span>';
  document.querySelector('.cart-items').innerHTML = '<div class="cart-item">Stoneware Mug <span>Qty 1</span></div>';
  document.querySelector('dialog.cart-drawer__dialog').showModal();
});
</script>`)
		case r.URL.Path == "/cart/add.js" && r.Method == http.MethodPost:
			http.SetCookie(w, &http.Cookie{Name: "cart", Value: "mug", Path: "/"})
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"items":[{"id":"mug","quantity":1}]}`)
		case r.URL.Path == "/cart" && r.Method == http.MethodPost:
			http.Redirect(w, r, "/checkout", http.StatusSeeOther)
		case r.URL.Path == "/cart":
			if !inCart {
				page("Your cart", `<p>Your cart is empty.</p>`)
				return
			}
			page("Your cart", `<div class="cart-item">Stoneware Mug</div><form action="/cart" method="post"><button type="submit" name="checkout">Check out</button></form>`)
		case r.URL.Path == "/checkout":
			page("Checkout", trapCheckout)
		default:
			http.NotFound(w, r)
		}
	}}
}

// TestShoppersCheckOutFromAModalDialogDrawer: A, B and E add by script,
// find the checkout button in the cart drawer drawn as a modal <dialog>
// (the page behind it inert), and reach checkout.
func TestShoppersCheckOutFromAModalDialogDrawer(t *testing.T) {
	wantEach(t, dialogDrawerShop(), CheckoutReached, Semantic, Accessibility, Mobile)
}
