package shop

import (
	"net/http"
	"strings"
	"testing"
)

// newTabShop opens its pages in new tabs: its product links have
// target="_blank", and its cart's checkout button opens the checkout with
// window.open, as Shopify's Buy Button does for a shop embedded in
// another site (its cart's checkout opens in a new window by default).
// A shopper that stays in its first tab sees nothing happen. The checkout
// page has card fields and a place-order trap.
func newTabShop() *realShop {
	return &realShop{host: "new-tabs.test", serve: func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
		page := func(title, body string) { shopPage(w, `<a href="/">Tidepool Studio</a>`, title, body, "") }
		switch {
		case r.URL.Path == "/":
			page("Tidepool Studio", `<ul><li class="product"><a href="/products/sea-glass-print" target="_blank" rel="noopener">Sea Glass Print</a></li></ul>`)
		case r.URL.Path == "/products/sea-glass-print":
			page("Sea Glass Print", `<p>$64.00</p><form method="post" action="/cart/add"><input type="hidden" name="id" value="print"><button type="submit">Add to cart</button></form>`)
		case r.URL.Path == "/popunder":
			page("Sea Glass Print", `<button type="button" onclick="window.open('https://adnetwork.example/pop', '_blank')">Add to cart</button>`)
		case !cartFlowWith(w, r, "print", "Sea Glass Print",
			`<button type="button" class="shopify-buy__btn shopify-buy__btn--cart-checkout" onclick="window.open('/checkout', 'checkout')">Checkout</button>`, page):
			http.NotFound(w, r)
		}
	}}
}

// TestShoppersFollowNewTabsInTheirOwn: a product link that opens a new
// tab and a checkout button that opens a new window are followed in the
// shopper's own tab, and A, B and E reach checkout.
func TestShoppersFollowNewTabsInTheirOwn(t *testing.T) {
	wantEach(t, newTabShop(), CheckoutReached, Semantic, Accessibility, Mobile)
}

// TestANewTabOnAnotherSiteIsNotFollowed: a click whose page opens a tab on
// another brand's site (a pop-under advertisement) leaves the shopper
// where it was.
func TestANewTabOnAnotherSiteIsNotFollowed(t *testing.T) {
	s := shopSession(t, newTabShop())
	if err := s.open("https://new-tabs.test/popunder", "test"); err != nil {
		t.Fatal(err)
	}
	its, err := s.items()
	if err != nil || len(its) == 0 {
		t.Fatalf("items: %v, %v", its, err)
	}
	var add Item
	for _, it := range its {
		if it.Name == "Add to cart" {
			add = it
		}
	}
	if err := s.act(add, "button", "Add to cart", "add to cart"); err != nil {
		t.Fatal(err)
	}
	last := s.rep.Log[len(s.rep.Log)-1]
	if !strings.Contains(last.Note, "not followed") || !strings.HasSuffix(last.URL, "/popunder") {
		t.Errorf("the last step is %+v, want the click, not followed, on the same page", last)
	}
}
