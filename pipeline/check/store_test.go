package check_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"svc/pipeline/check"
	"svc/pipeline/fetch"
)

// storeEngine serves h as every *.test host over plain HTTP and returns an
// engine that reaches it through the fixture flags (no UCP validator).
func storeEngine(t *testing.T, h http.Handler) *check.Engine {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	client, err := fetch.New(fetch.Options{FixtureAddr: ts.Listener.Addr().String(), Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return check.New(check.Options{Client: client})
}

func checkStore(t *testing.T, eng *check.Engine, url string) *check.Result {
	t.Helper()
	res, err := eng.Check(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCookieGateStore: a store that sets a region cookie on a redirect and
// a consent cookie on the next, redirecting home until both come back, is
// reachable within one check; the next check starts without its cookies.
func TestCookieGateStore(t *testing.T) {
	homes := 0
	eng := storeEngine(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		has := func(name string) bool { _, err := r.Cookie(name); return err == nil }
		switch {
		case r.URL.Path == "/robots.txt":
			w.Write([]byte("User-agent: *\nAllow: /\n"))
		case r.URL.Path == "/region":
			http.Redirect(w, r, "/", http.StatusFound)
		case !has("region"):
			http.SetCookie(w, &http.Cookie{Name: "region", Value: "us", Path: "/"})
			http.Redirect(w, r, "/region", http.StatusFound)
		case !has("consent"):
			http.SetCookie(w, &http.Cookie{Name: "consent", Value: "1", Path: "/"})
			http.Redirect(w, r, "/", http.StatusFound)
		case r.URL.Path == "/":
			homes++
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<html><head><title>Gated shop</title></head><body><a href="/cart">Cart</a></body></html>`))
		default:
			http.NotFound(w, r)
		}
	}))
	for i := 0; i < 2; i++ {
		res := checkStore(t, eng, "http://gated.test/")
		if r := res.Reachability; r.Reachable == nil || !*r.Reachable || r.HTTPStatus != 200 {
			t.Fatalf("check %d: reachability %+v, want reachable 200", i+1, r)
		}
	}
	if homes != 2 {
		t.Errorf("the homepage was served %d times, want once per check", homes)
	}
}

// wooProducts is a Store API product list as WooCommerce 7.9 answers it
// for its sample data (fields trimmed to those the check reads).
const wooProducts = `[{"id":15,"name":"Beanie","slug":"beanie","permalink":"http://woo.test/?product=beanie","sku":"woo-beanie",
"short_description":"<p>This is a simple product.</p>","prices":{"price":"1800","regular_price":"2000","sale_price":"1800",
"price_range":null,"currency_code":"USD","currency_symbol":"$","currency_minor_unit":2},
"images":[{"id":40,"src":"http://woo.test/wp-content/uploads/2023/07/beanie-2.jpg"}],"is_in_stock":true,"variations":[]}]`

// wooStore serves a WooCommerce store as WordPress without pretty
// permalinks serves it (php -S, no rewrite rules): /wp-json/ is a 404
// page, the REST API answers under ?rest_route=. announce is the REST root
// its pages announce ("" for none); legacyOnly keeps only the older
// /wc/store/products alias; homeLinks false makes the homepage link no
// product (a blog front page). Requests are logged.
func wooStore(announce string, legacyOnly bool, log *[]string, homeLinks ...bool) http.Handler {
	links := len(homeLinks) == 0 || homeLinks[0]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*log = append(*log, r.URL.RequestURI())
		if announce != "" {
			w.Header().Add("Link", "<"+announce+`>; rel="https://api.w.org/"`)
		}
		if route := r.URL.Query().Get("rest_route"); route != "" && (r.URL.Path == "/" || r.URL.Path == "/index.php") {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			switch {
			case route == "/wc/store/products" || route == "/wc/store/v1/products" && !legacyOnly:
				w.Write([]byte(wooProducts))
			default:
				w.WriteHeader(http.StatusNotFound)
				w.Write([]byte(`{"code":"rest_no_route","message":"No route was found matching the URL and request method.","data":{"status":404}}`))
			}
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		switch r.URL.Path {
		case "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("User-agent: *\nDisallow: /wp-admin/\n"))
		case "/":
			if r.URL.Query().Get("product") == "beanie" {
				w.Write([]byte(wooBeaniePage))
				return
			}
			list := `<ul class="products"><li class="product type-product"><a href="http://woo.test/?product=beanie">Beanie</a></li></ul>`
			if !links {
				list = `<article class="post-1 post type-post"><a href="http://woo.test/?p=1">Hello world!</a></article>`
			}
			w.Write([]byte(`<!doctype html><html><head><title>Woo plain</title>` + wooHeadLink(announce) + `</head>
<body class="home blog wp-embed-responsive woocommerce-no-js"><main><a href="http://woo.test/?page_id=5">Shop</a>
` + list + `</main></body></html>`))
		default:
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`<!doctype html><html><head><title>Page not found</title></head><body class="error404">Not found</body></html>`))
		}
	})
}

func wooHeadLink(announce string) string {
	if announce == "" {
		return ""
	}
	return `<link rel="https://api.w.org/" href="` + announce + `" />`
}

// wooBeaniePage is the product page at /?product=beanie, with the Product
// JSON-LD WooCommerce's WC_Structured_Data prints.
const wooBeaniePage = `<!doctype html><html><head><title>Beanie</title></head><body class="product-template-default single single-product woocommerce">
<script type="application/ld+json">{"@context":"https://schema.org/","@graph":[{"@type":"Product","@id":"http://woo.test/?product=beanie#product",
"name":"Beanie","url":"http://woo.test/?product=beanie","description":"Pellentesque habitant morbi tristique senectus.",
"image":"http://woo.test/wp-content/uploads/2023/07/beanie-2.jpg","sku":"woo-beanie","offers":[{"@type":"Offer","price":"18.00",
"priceValidUntil":"2027-12-31","priceCurrency":"USD","availability":"http://schema.org/InStock","url":"http://woo.test/?product=beanie"}]}]}</script>
</body></html>`

// TestWooStoreAPIQueryRoot: the Store API of a WooCommerce store without
// pretty permalinks is found from the REST root its pages announce, and
// by the ?rest_route= fallback when nothing is announced and /wp-json/
// 404s; a store showing no WordPress is not asked for ?rest_route=.
func TestWooStoreAPIQueryRoot(t *testing.T) {
	for _, tc := range []struct {
		name, announce string
		legacyOnly     bool
		want           bool
		wantAsked      string
	}{
		{"WordPress 6.1 announces index.php?rest_route=/", "http://woo.test/index.php?rest_route=/", false, true, "/index.php?rest_route=/wc/store/v1/products"},
		{"announced ?rest_route=/", "http://woo.test/?rest_route=/", false, true, "/?rest_route=/wc/store/v1/products"},
		{"only the older /wc/store/products alias", "http://woo.test/?rest_route=/", true, true, "/?rest_route=/wc/store/products"},
		{"nothing announced, /wp-json/ 404s: the ?rest_route= fallback", "", false, true, "/?rest_route=/wc/store/v1/products"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log []string
			res := checkStore(t, storeEngine(t, wooStore(tc.announce, tc.legacyOnly, &log)), "http://woo.test/")
			if res.CatalogAnswered == nil || *res.CatalogAnswered != tc.want || res.Catalog.Source != "store_api" {
				t.Fatalf("catalogAnswered %v source %q, want %v store_api; requests %v", res.CatalogAnswered, res.Catalog.Source, tc.want, log)
			}
			if res.Catalog.Products == nil || *res.Catalog.Products != 1 || res.ProductFound == nil || !*res.ProductFound {
				t.Errorf("products %v, productFound %v, want 1 priced product", res.Catalog.Products, res.ProductFound)
			}
			if !contains(log, tc.wantAsked) {
				t.Errorf("requests %v, want %s among them", log, tc.wantAsked)
			}
		})
	}
}

// TestNoRestRouteWithoutWordPress: a store that shows no WordPress gets
// no ?rest_route= requests.
func TestNoRestRouteWithoutWordPress(t *testing.T) {
	var log []string
	eng := storeEngine(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log = append(log, r.URL.RequestURI())
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`<html><head><title>Handmade</title></head><body><a href="/cart">Cart</a></body></html>`))
	}))
	checkStore(t, eng, "http://handmade.test/")
	for _, l := range log {
		if strings.Contains(l, "rest_route") {
			t.Errorf("asked %s of a store with no WordPress", l)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestProductPageByQuery: a product page addressed by its query, linked
// from the homepage (/?product=beanie on WooCommerce with plain
// permalinks) or asked for directly, is read for its Product JSON-LD.
func TestProductPageByQuery(t *testing.T) {
	for _, url := range []string{"http://woo.test/", "http://woo.test/?product=beanie"} {
		t.Run(url, func(t *testing.T) {
			var log []string
			res := checkStore(t, storeEngine(t, wooStore("http://woo.test/index.php?rest_route=/", false, &log)), url)
			pd := res.ProductData
			if pd == nil || pd.Source == nil || *pd.Source != "jsonld" || pd.URL != "http://woo.test/?product=beanie" {
				t.Fatalf("product data %+v, want JSON-LD from /?product=beanie; requests %v", pd, log)
			}
			if pd.Name == nil || *pd.Name != "Beanie" || pd.Price == nil || *pd.Price != "18.00" || pd.SKU == nil || !pd.Complete {
				t.Errorf("product data %+v, want the complete Beanie at 18.00", pd)
			}
		})
	}
}

// TestPlatformCookieOnRedirect: the Medusa Next.js starter sets
// _medusa_cache_id on the redirect from / to a country path
// (nextjs-starter-medusa src/middleware.ts); with the cookie back, the page
// itself sets none, and the platform is still named from the redirect.
func TestPlatformCookieOnRedirect(t *testing.T) {
	eng := storeEngine(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			if _, err := r.Cookie("_medusa_cache_id"); err != nil {
				http.SetCookie(w, &http.Cookie{Name: "_medusa_cache_id", Value: "1b4e28ba-2fa1-11d2-883f-0016d3cca427", Path: "/", MaxAge: 86400})
			}
			http.Redirect(w, r, "/us", http.StatusTemporaryRedirect)
		case "/us":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<!DOCTYPE html><html lang="en"><head><title>Medusa Store</title></head><body><a href="/us/store">Store</a></body></html>`))
		default:
			http.NotFound(w, r)
		}
	}))
	res := checkStore(t, eng, "http://medusa.test/")
	if res.Platform == nil || *res.Platform != "medusa" {
		t.Errorf("platform %v, want medusa", res.Platform)
	}
}

// TestProductPageFromCatalog: a homepage that links no product (a
// WordPress blog front page) still gets its product pages read, from the
// permalinks the Store API gave.
func TestProductPageFromCatalog(t *testing.T) {
	var log []string
	res := checkStore(t, storeEngine(t, wooStore("http://woo.test/index.php?rest_route=/", false, &log, false)), "http://woo.test/")
	if pd := res.ProductData; pd == nil || pd.Source == nil || *pd.Source != "jsonld" || pd.URL != "http://woo.test/?product=beanie" || !pd.Complete {
		t.Fatalf("product data %+v, want complete JSON-LD from the Store API's permalink; requests %v", pd, log)
	}
}
