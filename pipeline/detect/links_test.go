package detect

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProductLinks(t *testing.T) {
	u, _ := url.Parse("https://shop.example/")
	html := `<html><body>
<a href="/products/linen-shirt">Linen shirt</a>
<a href="/products/linen-shirt#reviews">again</a>
<a href="https://shop.example/product/wool-socks/">Socks</a>
<a href="/products">All products</a>
<a href="/products.json">feed</a>
<a href="/collections/summer">Summer</a>
<a href="https://other.example/products/x">elsewhere</a>
<a href="https://cdn.shop.example/p/cap">Cap on a subdomain</a>
<a href="javascript:void(0)">js</a>
<a href="mailto:hi@shop.example">mail</a>
<li class="product-card"><a href="/linen-shirt.html">Magento style</a></li>
<li class="menu-item"><a href="/about/">About</a></li>
<article class="card" data-product-id="12"><a href="/wool-cap/">BigCommerce style</a></article>
<a class="product-item-link" href="/scarf.html">Scarf</a>
<div class="product-card"><a href="/">Home is not a product</a></div>
</body></html>`
	p := NewPage(u, 200, nil, []byte(html))
	want := []string{
		"https://shop.example/products/linen-shirt",
		"https://shop.example/product/wool-socks/",
		"https://cdn.shop.example/p/cap",
		"https://shop.example/linen-shirt.html",
		"https://shop.example/wool-cap/",
		"https://shop.example/scarf.html",
	}
	if diff := cmp.Diff(want, ProductLinks(p)); diff != "" {
		t.Errorf("ProductLinks (-want +got):\n%s", diff)
	}
	if got := ProductLinks(nil); got != nil {
		t.Errorf("ProductLinks(nil) = %v", got)
	}
}
