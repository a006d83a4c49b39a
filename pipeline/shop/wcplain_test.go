package shop

import (
	"net/http"
	"path"
	"strings"
	"testing"
)

// wcPlainShop is WooCommerce 7.9.0 on Twenty Twenty-One 1.7 with plain
// permalinks, as the lab's real store serves it (testdata/realshops/wc-tt1,
// whose README names the pages it was saved from): the home page is
// WordPress's blog with one post and no product; the Shop of the primary
// menu (/?page_id=5, redirected to /?post_type=product) lists the
// products at /?product=slug; the cart is /?page_id=6 and the checkout
// /?page_id=7. Every page is the site's root with a query.
func wcPlainShop() *realShop {
	return &realShop{
		host: "wc-plain.test", dir: "wc-tt1",
		trap: func(r *http.Request) bool {
			q := r.URL.Query()
			return r.Method == http.MethodPost && (q.Get("wc-ajax") == "checkout" || q.Get("page_id") == "7" || q.Get("page_id") == "8" ||
				hasForm(r, "woocommerce_checkout_place_order") || hasForm(r, "login"))
		},
		serve: serveWCPlain,
	}
}

func serveWCPlain(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/wp-content/") {
		h.asset(w, s, path.Base(r.URL.Path))
		return
	}
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	const site = " – WooCommerce Lab Store"
	switch {
	case q.Get("add-to-cart") != "" && r.Method == http.MethodGet:
		// The shop's own "Add to cart" without its script: WooCommerce
		// adds and shows the page again with its notice.
		pg := hxPage{Title: "Products" + site}
		if items, ok := hxAdd(w, r, q.Get("add-to-cart")); ok {
			r.Header.Set("Cookie", "hx_cart="+hxIDs(items))
			pg.Message = "“" + items[len(items)-1].Name + "” has been added to your cart."
		}
		h.render(w, r, s, "shop", http.StatusOK, pg)
	case q.Get("page_id") == "5":
		w.Header().Set("X-Redirect-By", "WordPress")
		http.Redirect(w, r, "https://"+s.host+"/?post_type=product", http.StatusFound)
	case q.Get("post_type") == "product":
		h.render(w, r, s, "shop", http.StatusOK, hxPage{Title: "Products" + site})
	case q.Get("product") != "":
		pr, ok := hxFind(q.Get("product"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		pg := hxPage{Title: pr.Name + site, Product: pr}
		if r.Method == http.MethodPost && formValue(r, "add-to-cart") == pr.ID {
			items, _ := hxAdd(w, r, pr.ID)
			// WooCommerce handles the add before it renders the page.
			r.Header.Set("Cookie", "hx_cart="+hxIDs(items))
			pg.Message = "“" + pr.Name + "” has been added to your cart."
		}
		h.render(w, r, s, "product", http.StatusOK, pg)
	case q.Get("page_id") == "6":
		h.render(w, r, s, "cart", http.StatusOK, hxPage{Title: "Cart" + site})
	case q.Get("page_id") == "7":
		if len(hxCart(r)) == 0 {
			http.Redirect(w, r, "https://"+s.host+"/?page_id=6", http.StatusFound)
			return
		}
		h.render(w, r, s, "checkout", http.StatusOK, hxPage{Title: "Checkout" + site})
	case q.Get("page_id") == "8":
		h.render(w, r, s, "page", http.StatusOK, hxPage{Title: "My account" + site, Query: "My account"})
	case q.Get("page_id") == "3", q.Get("page_id") == "9":
		h.render(w, r, s, "page", http.StatusOK, hxPage{Title: "Policy" + site, Query: "policy"})
	case q.Get("p") != "", q.Get("cat") != "", q.Get("m") != "", q.Get("s") != "":
		// A post, a category, a month's archive, a search: the blog's one
		// post again.
		h.render(w, r, s, "index", http.StatusOK, hxPage{Title: "Hello world!" + site})
	case r.URL.RawQuery == "":
		h.render(w, r, s, "index", http.StatusOK, hxPage{Title: "WooCommerce Lab Store"})
	default:
		http.NotFound(w, r)
	}
}

// TestShoppersLeaveABlogHomeForTheShop: on WooCommerce's blog home (one
// post, an archive, a category; no product and no price) A and B take the
// primary menu's Shop, not the post's links, and reach checkout.
func TestShoppersLeaveABlogHomeForTheShop(t *testing.T) {
	wantEach(t, wcPlainShop(), CheckoutReached, Semantic, Accessibility)
}

// TestPhoneShopperOpensTheMenuForTheShop: on a phone Twenty Twenty-One
// keeps the primary menu behind its "Menu" button (aria-expanded="false",
// the menu hidden until the button is pressed, then faded in): E opens it,
// takes Shop and reaches checkout.
func TestPhoneShopperOpensTheMenuForTheShop(t *testing.T) {
	wantEach(t, wcPlainShop(), CheckoutReached, Mobile)
}
