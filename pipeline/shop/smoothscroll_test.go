package shop

import (
	"fmt"
	"net/http"
	"testing"
)

// smoothShop scrolls smoothly, as every Bootstrap 5 page does: its reboot
// sets scroll-behavior: smooth on :root unless the person prefers reduced
// motion (twbs/bootstrap scss/_reboot.scss, $enable-smooth-scroll on by
// default). Every control it has sits below a hero taller than any
// screen, so a shopper must scroll to each one; a scroll that glides
// takes a few hundred milliseconds of frames, and a click point read as
// it starts is where the control was, not where it will be. The cart is
// a cookie; the checkout page has card fields and a place-order trap.
func smoothShop() *realShop {
	return &realShop{host: "glide-outfitters.test", serve: func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		page := func(title, h1, body string) {
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title><style>:root { scroll-behavior: smooth } .hero { height: 2600px; background: #eef }</style></head>
<body><header><a href="/">Glide Outfitters</a></header><main><div class="hero"><h1>%s</h1></div>%s</main></body></html>`, title, h1, body)
		}
		switch {
		case r.URL.Path == "/":
			page("Glide Outfitters", "Glide Outfitters", `<ul><li><a href="/products/trail-tent">Trail Tent</a></li></ul>`)
		case r.URL.Path == "/products/trail-tent":
			page("Trail Tent – Glide Outfitters", "Trail Tent", `<p>$240.00</p><form method="post" action="/cart/add"><input type="hidden" name="id" value="tent"><button type="submit" class="btn btn-primary">Add to cart</button></form>`)
		case !cartFlow(w, r, "tent", "Trail Tent", func(title, body string) { page(title, title, body) }):
			http.NotFound(w, r)
		}
	}}
}

// TestShoppersClickWhereSmoothScrollingStops: on a page that scrolls
// smoothly, A, B and E click each control below the fold where it is once
// scrolled to, and reach checkout.
func TestShoppersClickWhereSmoothScrollingStops(t *testing.T) {
	wantEach(t, smoothShop(), CheckoutReached, Semantic, Accessibility, Mobile)
}
