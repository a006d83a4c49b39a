package check_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"svc/pipeline/detect"
)

// The answers the lab's stores gave (pipeline/detect/testdata/catalog/README.md).
func labAnswer(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../detect/testdata/catalog/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// vendureHome is the lab's Vendure storefront homepage (Vendure 3.7.3 with
// the nextjs-starter-vendure storefront), cut to what the check reads: its
// product cards link /product/<slug> (productRoute is the route used
// here) and show the Shop API's /assets/preview/ images; the page never
// names /shop-api, which the storefront's server calls.
func vendureHome(productRoute string) string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/><title>Vendure Store</title></head><body><main>`)
	for _, c := range []struct{ slug, name, img string }{
		{"laptop", "Laptop", "71/derick-david-409858-unsplash__preview.jpg"},
		{"tablet", "Tablet", "b8/kelly-sikkema-685291-unsplash__preview.jpg"},
	} {
		b.WriteString(`<a class="group block bg-card rounded-lg overflow-hidden border border-border hover:shadow-lg transition-shadow" href="` +
			productRoute + c.slug + `"><img alt="` + c.name + `" loading="lazy" decoding="async" data-nimg="fill" src="https://vendure.test/assets/preview/` + c.img + `"/></a>`)
	}
	b.WriteString(`<a href="/collection/electronics">Electronics</a><a href="/cart">Cart</a></main></body></html>`)
	return b.String()
}

// vendureStore serves a Vendure storefront and its Shop API at /shop-api,
// answering the check's query with the lab's answer. productPage, when not
// empty, is served at productRoute+"laptop". Requests are logged as
// "METHOD /path".
func vendureStore(t *testing.T, productRoute, productPage string, log *[]string) http.Handler {
	answer := labAnswer(t, "vendure-3.7.3-shop-api-products.json")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*log = append(*log, r.Method+" "+r.URL.RequestURI())
		switch {
		case r.URL.Path == "/shop-api" && r.Method == http.MethodPost:
			var q struct{ Query string }
			if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&q); err != nil || q.Query != detect.VendureProductsQuery ||
				!strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			// The headers Vendure 3.7.3 answered with.
			w.Header().Set("Access-Control-Expose-Headers", "vendure-auth-token")
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Write(answer)
		case r.URL.Path == "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(vendureHome(productRoute)))
		case productPage != "" && r.URL.Path == productRoute+"laptop":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(productPage))
		default:
			http.NotFound(w, r)
		}
	})
}

// TestVendureShopAPI: a storefront that signs itself Vendure has its Shop
// API read: 10 priced products, source vendure_shop_api, the currency
// quoted; no WooCommerce Store API request is spent on it.
func TestVendureShopAPI(t *testing.T) {
	var log []string
	res := checkStore(t, storeEngine(t, vendureStore(t, "/product/", "", &log)), "http://vendure.test/")
	if res.Platform == nil || *res.Platform != detect.PlatformVendure {
		t.Fatalf("platform %v, want vendure", res.Platform)
	}
	if res.CatalogAnswered == nil || !*res.CatalogAnswered || res.Catalog.Source != "vendure_shop_api" {
		t.Fatalf("catalogAnswered %v source %q, want true vendure_shop_api; requests %v", res.CatalogAnswered, res.Catalog.Source, log)
	}
	if res.Catalog.Products == nil || *res.Catalog.Products != 10 || res.ProductFound == nil || !*res.ProductFound {
		t.Errorf("products %v productFound %v, want 10 and true", res.Catalog.Products, res.ProductFound)
	}
	if res.Market.Currency == nil || *res.Market.Currency != "USD" {
		t.Errorf("market currency %v, want USD from the catalog", res.Market.Currency)
	}
	for _, l := range log {
		if strings.Contains(l, "wc/store") {
			t.Errorf("asked %s of a Vendure store", l)
		}
	}
}

// TestVendureProductPageBySlug: a product page linked under a route no
// product-link rule knows (/catalogue/laptop) is read for its JSON-LD,
// because its last segment is a slug the Shop API named.
func TestVendureProductPageBySlug(t *testing.T) {
	page := `<!doctype html><html><head><title>Laptop</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Laptop","sku":"L2201308",
"image":"https://vendure.test/assets/preview/71/derick-david-409858-unsplash__preview.jpg",
"offers":{"@type":"Offer","price":"1558.80","priceCurrency":"USD","availability":"https://schema.org/InStock"}}</script></head><body></body></html>`
	var log []string
	res := checkStore(t, storeEngine(t, vendureStore(t, "/catalogue/", page, &log)), "http://vendure.test/")
	pd := res.ProductData
	if pd == nil || pd.Source == nil || *pd.Source != "jsonld" || pd.URL != "http://vendure.test/catalogue/laptop" || !pd.Complete {
		t.Fatalf("product data %+v, want complete JSON-LD from /catalogue/laptop; requests %v", pd, log)
	}
}

// everShopHome is the lab's EverShop 2.2.1 homepage cut to its platform
// signature (var eContext, body#body.frontStore) and two of its product
// links.
const everShopHome = `<!DOCTYPE html><html id="root"><head><meta charset="utf-8"/><title>EverShop</title></head>
<body id="body" class="frontStore"><div id="app"><a href="/accessories/stainless-steel-thermos-yellow">Stainless Steel Thermos - Yellow</a>
<a href="/accessories/modern-ceramic-vase-green">Modern Ceramic Vase - Green</a></div>
<script>var eContext = {"graphqlResponse":{}}</script></body></html>`

// TestEverShopGraphQL: a storefront that signs itself EverShop has its
// storefront GraphQL read, with no key or login.
func TestEverShopGraphQL(t *testing.T) {
	answer := labAnswer(t, "evershop-2.2.1-graphql-products.json")
	var log []string
	eng := storeEngine(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log = append(log, r.Method+" "+r.URL.RequestURI())
		switch {
		case r.URL.Path == "/api/graphql" && r.Method == http.MethodPost:
			var q struct{ Query string }
			if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&q); err != nil || q.Query != detect.EverShopProductsQuery {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Write(answer)
		case r.URL.Path == "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(everShopHome))
		default:
			http.NotFound(w, r)
		}
	}))
	res := checkStore(t, eng, "http://evershop.test/")
	if res.Platform == nil || *res.Platform != detect.PlatformEverShop {
		t.Fatalf("platform %v, want evershop", res.Platform)
	}
	if res.CatalogAnswered == nil || !*res.CatalogAnswered || res.Catalog.Source != "evershop_graphql" {
		t.Fatalf("catalogAnswered %v source %q, want true evershop_graphql; requests %v", res.CatalogAnswered, res.Catalog.Source, log)
	}
	if res.Catalog.Products == nil || *res.Catalog.Products != 10 || res.ProductFound == nil || !*res.ProductFound {
		t.Errorf("products %v productFound %v, want 10 and true", res.Catalog.Products, res.ProductFound)
	}
}

// TestNoHeadlessCatalogElsewhere: stores that do not sign themselves
// Vendure or EverShop get no /shop-api or /api/graphql request: a plain
// shop, a WooCommerce store, and a page that merely shows an
// /assets/preview/ image next to Shopify's signature.
func TestNoHeadlessCatalogElsewhere(t *testing.T) {
	pages := map[string]string{
		"plain":   `<html><head><title>Handmade</title></head><body><a href="/cart">Cart</a></body></html>`,
		"shopify": `<html><head><title>Shop</title></head><body><img src="/assets/preview/1.jpg"><script>Shopify.shop = "x.myshopify.com"</script></body></html>`,
	}
	for name, page := range pages {
		t.Run(name, func(t *testing.T) {
			var log []string
			eng := storeEngine(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				log = append(log, r.Method+" "+r.URL.RequestURI())
				if r.URL.Path != "/" {
					http.NotFound(w, r)
					return
				}
				w.Write([]byte(page))
			}))
			checkStore(t, eng, "http://"+name+".test/")
			for _, l := range log {
				if strings.Contains(l, "/shop-api") || strings.Contains(l, "/api/graphql") {
					t.Errorf("asked %s of a store that is neither Vendure nor EverShop", l)
				}
			}
		})
	}
	t.Run("woocommerce", func(t *testing.T) {
		var log []string
		checkStore(t, storeEngine(t, wooStore("http://woo.test/index.php?rest_route=/", false, &log)), "http://woo.test/")
		for _, l := range log {
			if strings.Contains(l, "shop-api") || strings.Contains(l, "api/graphql") {
				t.Errorf("asked %s of a WooCommerce store", l)
			}
		}
	})
}
