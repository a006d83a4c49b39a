package detect

import (
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
// duplicates: a path with a product marker segment followed by a slug
// (/products/linen-shirt, /product/linen-shirt/), or any page link the
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
		if !isProductPath(u.Path) && !(a.product && u.Path != "" && u.Path != "/" && !strings.HasSuffix(u.Path, ".json")) {
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
