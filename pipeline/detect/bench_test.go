package detect

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// benchRobots is shaped like a hosted-platform default robots.txt with a
// store's own AI-agent groups added.
var benchRobots = func() string {
	var b strings.Builder
	b.WriteString("# we use a platform robots.txt\n\nUser-agent: *\n")
	for _, p := range []string{"/admin", "/cart", "/orders", "/checkouts/", "/checkout", "/carts", "/account",
		"/collections/*sort_by*", "/*/collections/*sort_by*", "/collections/*+*", "/collections/*%2B*",
		"/collections/*%2b*", "/*/collections/*+*", "/blogs/*+*", "/blogs/*%2B*", "/*/blogs/*+*",
		"/*?*oseid=*", "/*preview_theme_id*", "/*preview_script_id*", "/policies/", "/*/policies/",
		"/*/*?*ls=*&ls=*", "/*/*?*ls%3D*%3Fls%3D*", "/search", "/apple-app-site-association", "/.well-known/shopify/monorail",
		"/cdn/wpm/*.js", "/recommendations/products", "/*/recommendations/products"} {
		b.WriteString("Disallow: " + p + "\n")
	}
	b.WriteString("Sitemap: https://shop.example/sitemap.xml\n\n")
	for _, a := range []string{"adsbot-google", "Nutch", "AhrefsBot", "AhrefsSiteAudit", "MJ12bot", "Pinterest"} {
		fmt.Fprintf(&b, "User-agent: %s\nDisallow: /\nCrawl-delay: 10\n\n", a)
	}
	b.WriteString("User-agent: GPTBot\nUser-agent: CCBot\nUser-agent: Bytespider\nDisallow: /\n\n")
	b.WriteString("User-agent: OAI-SearchBot\nUser-agent: PerplexityBot\nAllow: /products/\nDisallow: /checkout\n")
	return b.String()
}()

func BenchmarkRobotsParseAndReport(b *testing.B) {
	body := []byte(benchRobots)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		r := ParseRobots(body)
		RobotsReport(r, "/products/trail-shoe?variant=123")
	}
}

func BenchmarkRobotsMatch(b *testing.B) {
	r := ParseRobots([]byte(benchRobots))
	b.ReportAllocs()
	for b.Loop() {
		r.Match("Claude-User", "/collections/shoes?sort_by=price&filter=a+b")
	}
}

// benchProductPage is a product page of realistic size: a large theme
// head, many scripts and links, and the Product JSON-LD near the end.
var benchProductPage = func() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trail Shoe – Acme</title>`)
	b.WriteString(`<link rel="canonical" href="https://shop.example/products/trail-shoe"><meta name="generator" content="x">`)
	for i := range 40 {
		fmt.Fprintf(&b, `<link rel="preload" href="/cdn/shop/t/1/assets/part-%d.css" as="style"><script src="/cdn/shop/t/1/assets/part-%d.js" defer></script>`, i, i)
	}
	b.WriteString(`<script>var Shopify = Shopify || {}; Shopify.shop = "acme.myshopify.com"; Shopify.theme = {"name":"Dawn"};` +
		strings.Repeat(`window.dataLayer.push({"event":"view","value":1});`, 400) + `</script></head>`)
	b.WriteString(`<body class="template-product"><div id="shopify-section-header">`)
	for i := range 300 {
		fmt.Fprintf(&b, `<li class="menu-item"><a href="/collections/c-%d" class="link">Collection %d</a></li>`, i, i)
	}
	b.WriteString(`</div><main><h1>Trail Shoe</h1><form action="/cart/add" method="post"><input type="hidden" name="id" value="1"><button>Add to cart</button></form>`)
	b.WriteString(strings.Repeat(`<p class="rte">Light, grippy and made to last on every kind of trail. </p>`, 300))
	b.WriteString(`</main><footer><a href="/policies/refund-policy">Refund policy</a><a href="/policies/shipping-policy">Shipping policy</a>` +
		`<a href="/policies/privacy-policy">Privacy policy</a><a href="/policies/terms-of-service">Terms of service</a></footer>`)
	b.WriteString(`<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Acme","logo":"https://shop.example/logo.png"}</script>`)
	b.WriteString(`<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Trail Shoe","url":"https://shop.example/products/trail-shoe",
		"image":["https://shop.example/cdn/shop/files/1.jpg","https://shop.example/cdn/shop/files/2.jpg"],"description":"Light, grippy and made to last.",
		"sku":"TS-41","gtin13":"0123456789012","brand":{"@type":"Brand","name":"Acme"},
		"offers":[`)
	for i := range 12 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"@type":"Offer","sku":"TS-%d","price":"89.90","priceCurrency":"EUR","availability":"https://schema.org/InStock","url":"https://shop.example/products/trail-shoe?variant=%d"}`, i, i)
	}
	b.WriteString(`]}</script></body></html>`)
	return b.String()
}()

func BenchmarkNewPage(b *testing.B) {
	u, _ := url.Parse("https://shop.example/products/trail-shoe")
	body := []byte(benchProductPage)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		NewPage(u, 200, nil, body)
	}
}

func BenchmarkExtractJSONLD(b *testing.B) {
	u, _ := url.Parse("https://shop.example/products/trail-shoe")
	p := NewPage(u, 200, nil, []byte(benchProductPage))
	if got := ExtractJSONLD(p); len(got.Products) != 1 || !got.Products[0].Completeness().Complete() {
		b.Fatalf("bench page does not give one complete product: %+v", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		ExtractJSONLD(p)
	}
}

// BenchmarkAllPageDetectors is the per-page cost the crawl pays: one scan
// and every HTML detector over it.
func BenchmarkAllPageDetectors(b *testing.B) {
	u, _ := url.Parse("https://shop.example/products/trail-shoe")
	body := []byte(benchProductPage)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		p := NewPage(u, 200, nil, body)
		ExtractJSONLD(p)
		DetectWebMCP(p)
		DetectPlatform(p)
		DetectBlock(p)
		DetectParked(p)
		FindPolicies(p)
	}
}

// BenchmarkScanScriptHostile is a first-party script built to make the tool
// resolver work hardest: a megabyte of wrapper calls, loops and short
// identifiers. It must stay within a few times a plain scan.
func BenchmarkScanScriptHostile(b *testing.B) {
	var s strings.Builder
	s.WriteString("const mc = navigator.modelContext;\n")
	for s.Len() < 1<<20 {
		s.WriteString("function w(t){mc.registerTool({...t})} w(a); w(t); const a=[t,a,w,[a,[t]]]; a.forEach(t=>mc.registerTool(t)); t=a;\n")
	}
	js := []byte(s.String())
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		ScanScript("hostile.js", js)
	}
}
