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

// TestProductLinksByQuery: platforms whose URL rewriting is off address a
// product page by its query; those links are product pages, while their
// cart links and category pages are not.
func TestProductLinksByQuery(t *testing.T) {
	u, _ := url.Parse("https://shop.example/")
	html := `<html><body>
<a href="/?product=beanie">WooCommerce, plain permalinks</a>
<a href="/?post_type=product&p=15">WooCommerce by id</a>
<a href="/?add-to-cart=15">WooCommerce add to cart</a>
<a href="/?product_cat=clothing">WooCommerce category</a>
<a href="/?page_id=5">WooCommerce shop page</a>
<a href="/index.php?id_product=3&amp;id_product_attribute=13&amp;rewrite=the-best-is-yet-poster&amp;controller=product&amp;id_lang=1">PrestaShop</a>
<a href="/index.php?controller=cart&amp;add=1&amp;id_product=3&amp;token=abc">PrestaShop add to cart</a>
<a href="/index.php?id_category=3&amp;controller=category">PrestaShop category</a>
<a href="/index.php?route=product/product&amp;product_id=40">OpenCart 3</a>
<a href="/index.php?route=product/product&amp;language=en-gb&amp;product_id=43">OpenCart 4</a>
<a href="/index.php?route=product/category&amp;path=20">OpenCart category</a>
<a href="/index.php?route=checkout/cart.add&amp;product_id=40">OpenCart add to cart</a>
<a href="/catalog/product/view/id/5">Magento without URL rewrites</a>
<a href="/catalog/category/view/id/3">Magento category</a>
<a href="/index.php?main_page=product_info&amp;cPath=1&amp;products_id=1">Zen Cart</a>
<a href="/product_info.php?products_id=28">osCommerce</a>
<a href="/index.php?dispatch=products.view&amp;product_id=242">CS-Cart</a>
<a href="/?s=beanie&amp;post_type=product">search</a>
</body></html>`
	want := []string{
		"https://shop.example/?product=beanie",
		"https://shop.example/?post_type=product&p=15",
		"https://shop.example/index.php?id_product=3&id_product_attribute=13&rewrite=the-best-is-yet-poster&controller=product&id_lang=1",
		"https://shop.example/index.php?route=product/product&product_id=40",
		"https://shop.example/index.php?route=product/product&language=en-gb&product_id=43",
		"https://shop.example/catalog/product/view/id/5",
		"https://shop.example/index.php?main_page=product_info&cPath=1&products_id=1",
		"https://shop.example/product_info.php?products_id=28",
		"https://shop.example/index.php?dispatch=products.view&product_id=242",
	}
	if diff := cmp.Diff(want, ProductLinks(NewPage(u, 200, nil, []byte(html)))); diff != "" {
		t.Errorf("ProductLinks (-want +got):\n%s", diff)
	}
}
