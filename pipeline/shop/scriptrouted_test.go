package shop

import (
	"net/http"
	"net/url"
	"testing"
)

// TestScriptRoutedProductAddresses: stores routed by one script name
// their pages in the query. Their product pages read as products, a
// category does not, and two products are two pages. The addresses are
// each platform's default (no friendly URLs): OpenCart 3.0's demo data
// (product 40, the iPhone; category 20, Desktops), Zen Cart 1.5's
// index.php?main_page=product_info&cPath=1_4&products_id=1, osCommerce
// 2.3's product_info.php?products_id=28, PrestaShop 1.7's
// index.php?id_product=1&controller=product.
func TestScriptRoutedProductAddresses(t *testing.T) {
	for raw, product := range map[string]bool{
		"https://s.example/index.php?route=product/product&product_id=40":            true,
		"https://s.example/index.php?route=product/category&path=20":                 false,
		"https://s.example/index.php?route=common/home":                              false,
		"https://s.example/index.php?main_page=product_info&cPath=1_4&products_id=1": true,
		"https://s.example/index.php?main_page=index&cPath=1":                        false,
		"https://s.example/product_info.php?products_id=28":                          true,
		"https://s.example/index.php?id_product=1&controller=product&id_lang=1":      true,
		"https://s.example/index.php?id_category=3&controller=category":              false,
		"https://s.example/collections/all?product_id=40":                            false,
		"https://s.example/products/tee?variant=1":                                   false, // reProduct's, not the query's
		// WooCommerce 7.9.0 with plain permalinks (the lab's store).
		"https://s.example/?product=hoodie":         true,
		"https://s.example/?post_type=product&p=15": true,
		"https://s.example/?add-to-cart=22":         false,
		"https://s.example/?page_id=5":              false,
		"https://s.example/?post_type=product":      false,
		"https://s.example/?product_cat=clothing":   false,
	} {
		u, _ := url.Parse(raw)
		if got := queryProduct(u); got != product {
			t.Errorf("queryProduct(%s) = %v, want %v", raw, got, product)
		}
	}
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"https://s.example/index.php?route=product/product&product_id=40", "https://s.example/index.php?route=product/product&product_id=43", false},
		{"https://s.example/index.php?route=product/product&product_id=40&search=x", "https://s.example/index.php?product_id=40&route=product/product", true},
		{"https://s.example/index.php?route=product/product&product_id=40", "https://s.example/index.php?route=common/home", false},
		{"https://s.example/products/tee?variant=1", "https://s.example/products/tee?variant=2", true},
		// WordPress with plain permalinks: its Shop page is not its home,
		// two products are two pages.
		{"https://s.example/?page_id=5", "https://s.example/", false},
		{"https://s.example/?post_type=product", "https://s.example/", false},
		{"https://s.example/?product=album", "https://s.example/?product=beanie", false},
		{"https://s.example/?page_id=6&utm_source=x", "https://s.example/?page_id=6", true},
	} {
		if got := samePage(tc.a, tc.b); got != tc.same {
			t.Errorf("samePage(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

// scriptRoutedShop is an OpenCart 3 store without friendly URLs: every
// page is index.php?route=..., its first product is out of stock (its
// button disabled, "Availability: Out Of Stock") and its second can be
// bought. A shopper that took every index.php link for one page tried
// only the first.
func scriptRoutedShop() *realShop {
	return &realShop{host: "opencart-plain.test", serve: func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
		page := func(title, body string) {
			shopPage(w, `<nav><a href="index.php?route=product/category&amp;path=20">Desktops</a></nav>`, title, body, "")
		}
		q := r.URL.Query()
		switch {
		case r.URL.Path == "/":
			page("Your Store", `<div class="row"><div class="product-layout"><h4><a href="index.php?route=product/product&amp;product_id=40">iPhone</a></h4><p class="price">$123.20</p></div>`+
				`<div class="product-layout"><h4><a href="index.php?route=product/product&amp;product_id=43">MacBook</a></h4><p class="price">$602.00</p></div></div>`)
		case r.URL.Path == "/index.php" && q.Get("route") == "product/product" && q.Get("product_id") == "40":
			page("iPhone", `<ul class="list-unstyled"><li>Availability: Out Of Stock</li></ul><button type="button" id="button-cart" disabled>Add to Cart</button>`)
		case r.URL.Path == "/index.php" && q.Get("route") == "product/product" && q.Get("product_id") == "43":
			page("MacBook", `<ul class="list-unstyled"><li>Availability: In Stock</li></ul><form method="post" action="/cart/add"><input type="hidden" name="id" value="43"><button type="submit" id="button-cart">Add to Cart</button></form>`)
		case !cartFlow(w, r, "43", "MacBook", page):
			http.NotFound(w, r)
		}
	}}
}

// TestShoppersTellScriptRoutedPagesApart: at that store A, B and E move
// on from the out-of-stock product to the next and reach checkout.
func TestShoppersTellScriptRoutedPagesApart(t *testing.T) {
	wantEach(t, scriptRoutedShop(), CheckoutReached, Semantic, Accessibility, Mobile)
}
