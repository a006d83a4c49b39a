package shop

import (
	"fmt"
	"net/http"
	"testing"
)

// legacyShop is a store laid out for desktops only, as older osCommerce
// and Zen Cart templates are: no viewport meta tag and a fixed 960 px
// table, which a phone draws zoomed out to fit (a page scale of about 0.4
// at 390 px). Its controls sit low enough on the page that a tap aimed at
// the wrong scale lands on something else.
func legacyShop() *realShop {
	return &realShop{host: "legacy-desk.test", serve: func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
		page := func(title, body string) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><html><head><title>%s</title></head><body style="margin:0">
<table width="960" cellpadding="40"><tr><td height="300" valign="top"><h1>Desk Supply Co.</h1><p>Serving offices since 1998.</p></td></tr>
<tr><td valign="top"><h2>%s</h2>%s</td></tr></table></body></html>`, title, title, body)
		}
		switch {
		case r.URL.Path == "/":
			page("Catalog", `<ul><li><a href="/product_info.php?products_id=7">Brass Stapler</a></li></ul>`)
		case r.URL.Path == "/product_info.php":
			page("Brass Stapler", `<p>$24.00</p><form method="post" action="/cart/add"><input type="hidden" name="id" value="stapler"><input type="submit" value="Add to Cart"></form>`)
		case !cartFlow(w, r, "stapler", "Brass Stapler", page):
			http.NotFound(w, r)
		}
	}}
}

// TestPhoneTapsLandOnAPageNotLaidOutForPhones: E taps each control where
// it is drawn on a zoomed-out desktop page and reaches checkout. Its tap
// points were scaled by the page's scale, and landed on the headings above
// the controls (the protocol's input events take CSS pixels of the visual
// viewport, unscaled).
func TestPhoneTapsLandOnAPageNotLaidOutForPhones(t *testing.T) {
	wantEach(t, legacyShop(), CheckoutReached, Mobile, Semantic)
}
