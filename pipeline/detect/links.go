package detect

import (
	"net/url"
	"strings"
)

// productPathMarkers are the path segments that mark a product page on the
// common platforms: Shopify /products/<handle>, WooCommerce /product/<slug>,
// BigCommerce and many custom shops /p/<slug> or /item/<slug>.
var productPathMarkers = []string{"products", "product", "p", "item", "items", "shop"}

// maxProductLinks bounds the links returned.
const maxProductLinks = 20

// ProductLinks returns the same-site links of a page that look like product
// pages, absolute, without fragment, in document order and without
// duplicates: a URL IsProductURL calls a product page, or any page link the
// markup marks as a product (a product card, data-product-id), which is how
// Magento (/linen-shirt.html) and BigCommerce (/linen-shirt/) themes link
// products. The catalog listing itself (/products, /products.json) and the
// homepage are not product pages.
func ProductLinks(p *Page) []string {
	if p == nil || p.URL == nil {
		return nil
	}
	pageHost := strings.ToLower(p.URL.Hostname())
	site := RegistrableDomain(pageHost)
	seen := map[string]bool{}
	var out []string
	for _, a := range p.doc.anchors {
		if len(out) >= maxProductLinks {
			break
		}
		u := resolve(p.doc.base, a.href)
		if u == nil || (u.Scheme != "http" && u.Scheme != "https") {
			continue
		}
		if h := strings.ToLower(u.Hostname()); h != pageHost && (site == "" || RegistrableDomain(h) != site) {
			continue
		}
		if !IsProductURL(u) && !(a.product && u.Path != "" && u.Path != "/" && !strings.HasSuffix(u.Path, ".json")) {
			continue
		}
		u.Fragment = ""
		s := u.String()
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func isProductPath(path string) bool {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i, s := range segs {
		if i+1 >= len(segs) {
			break
		}
		next := segs[i+1]
		if next == "" || strings.HasSuffix(next, ".json") || strings.HasSuffix(next, ".xml") {
			continue
		}
		for _, m := range productPathMarkers {
			if strings.EqualFold(s, m) {
				return true
			}
		}
	}
	return false
}

// IsProductURL reports whether a URL addresses a product page by its form:
// a path with a product marker segment followed by a slug
// (/products/linen-shirt, /product/linen-shirt/, Magento's
// /catalog/product/view/id/5), or the query by which a platform without
// rewritten URLs addresses one (see isProductQuery).
func IsProductURL(u *url.URL) bool {
	return u != nil && (isProductPath(u.Path) || isProductQuery(u))
}

// isProductQuery reports whether a URL's query addresses one product page
// on a platform that routes by query when its URL rewriting is off:
//   - WooCommerce with plain permalinks: /?product=beanie (the product post
//     type's query_var, register_post_type in WooCommerce's
//     includes/class-wc-post-types.php; get_permalink gives
//     home_url('?product=slug')), or ?post_type=product&p=15;
//   - PrestaShop without friendly URLs:
//     index.php?id_product=3&controller=product (the product controller,
//     controllers/front/ProductController.php; cart links carry
//     controller=cart and are not product pages);
//   - OpenCart without SEO URLs: index.php?route=product/product&product_id=40
//     (catalog/controller/product/product.php);
//   - Zen Cart: index.php?main_page=product_info&products_id=1, osCommerce:
//     product_info.php?products_id=1, CS-Cart:
//     index.php?dispatch=products.view&product_id=1.
//
// An add-to-cart link (?add-to-cart=15) is not a product page.
func isProductQuery(u *url.URL) bool {
	if u.RawQuery == "" {
		return false
	}
	q, _ := url.ParseQuery(u.RawQuery) // what parsed is enough
	get := func(k string) string { return strings.TrimSpace(q.Get(k)) }
	if q.Has("add-to-cart") || q.Has("add") {
		return false
	}
	switch {
	case get("product") != "":
		return true
	case get("post_type") == "product" && get("p") != "":
		return true
	case get("id_product") != "":
		c := strings.ToLower(get("controller"))
		return c == "" || c == "product"
	case get("product_id") != "":
		r, d := strings.ToLower(get("route")), strings.ToLower(get("dispatch"))
		return r == "product/product" || d == "products.view"
	case get("products_id") != "":
		return get("main_page") == "product_info" || strings.HasSuffix(strings.ToLower(u.Path), "/product_info.php")
	}
	return false
}
