package detect

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The fuzz targets check that no input panics and that findings keep their
// invariants. Seeds are small literals covering each syntax the detectors
// read; `go test -fuzz` grows the corpus from there.

func FuzzRobots(f *testing.F) {
	seeds := []struct{ body, agent, path string }{
		{"User-agent: *\nDisallow: /\n", "GPTBot", "/"},
		{"User-agent: GPTBot\nUser-agent: ClaudeBot\nDisallow: /checkout\nAllow: /checkout/help\n", "ClaudeBot", "/checkout/help/x"},
		{"user-agent: *\ndisallow: /*.json$\nallow: /products.json$\n", "CCBot", "/products.json"},
		{"User-agent: *\nDisallow:\n\nUser-agent: gptbot\nDisallow: /%7Ex/ツ\n", "GPTBot/1.1", "/~x/%E3%83%84?a=1"},
		{"\ufeffUser-agent: *\r\nDisallow: /a*b*c$ # comment\r\nSitemap: https://s.example/sitemap.xml\r\n", "x", "/aXbYc"},
		{"Disallow: /\nUser-agent\nUser-agent: *\nAllow: *\n", "*", "https://s.example/p?q#f"},
		{"<!doctype html><html>Disallow: /</html>", "", ""},
		{"User-agent: *\nDisallow: /cart\nUser-agent: 008\nUser-agent: *WordPress*\nDisallow: /\n", "GPTBot", "/"},
		{"\xef\xbbUser-agent GPTBot\nDisalow /\nAllow: /a/index.html\n", "GPTBot", "/a/"},
		{"User-agent: *\nDisallow: /%2A%24%3a<x> y$\n", "CCBot", "https://s.example/*$:%3Cx%3E%20y"},
	}
	for _, s := range seeds {
		f.Add(s.body, s.agent, s.path)
	}
	for _, r := range fixtureSeeds(f, "robots") {
		f.Add(r.body, "GPTBot", "/")
	}
	f.Fuzz(func(t *testing.T, body, agent, path string) {
		r := ParseRobots([]byte(body))
		m := r.Match(agent, path)
		switch m.Verdict {
		case Allowed, Disallowed:
			if m.Rule == "" || m.Group == "" {
				t.Fatalf("verdict %q without rule or group: %+v", m.Verdict, m)
			}
		case NoRule:
			if m.Rule != "" {
				t.Fatalf("no_rule with a rule: %+v", m)
			}
		default:
			t.Fatalf("unknown verdict %q", m.Verdict)
		}
		// The linear segment matcher must agree with a regexp built from
		// the same pattern.
		p := normalizeRobotsPath(robotsTarget(path))
		for _, g := range r.Groups {
			for i := range g.Rules {
				rule := &g.Rules[i]
				if got, want := rule.pat.matches(p), refMatch(rule.norm, p); got != want {
					t.Fatalf("pattern %q path %q: matches = %v, regexp says %v", rule.norm, p, got, want)
				}
			}
		}
		if rep := RobotsReport(r, path); len(rep) != len(agents) {
			t.Fatalf("report has %d rows", len(rep))
		}
		for _, st := range []int{0, 200, 301, 404, 429, 500, 503, 600} {
			RobotsFromResponse(st, []byte(body)).Match(agent, path)
		}
	})
}

// refMatch is the obvious matcher: the pattern as an anchored regexp.
func refMatch(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	pattern = strings.TrimSuffix(pattern, "$")
	parts := strings.Split(pattern, "*")
	for i, s := range parts {
		parts[i] = regexp.QuoteMeta(s)
	}
	expr := "^" + strings.Join(parts, "(?s:.*)")
	if anchored {
		expr += "$"
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return false
	}
	return re.MatchString(path)
}

func FuzzJSONLD(f *testing.F) {
	seeds := []string{
		`{"@context":"https://schema.org","@type":"Product","name":"A","sku":"1","image":"a.jpg","offers":{"@type":"Offer","price":"9.99","priceCurrency":"EUR","availability":"https://schema.org/InStock"}}`,
		`{"@graph":[{"@type":"WebSite"},{"@type":["Product"],"name":"B","offers":[{"price":1},{"price":"0"}]}]}`,
		`[{"@type":"ProductGroup","hasVariant":[{"@type":"Product","sku":"v","offers":{"@type":"AggregateOffer","lowPrice":"1,50","offers":[{"price":"2"}]}}]}]`,
		`<!-- {"@type":"Product", /* c */ "name":"x", } -->`,
		`{"@type":"Product","name":[{"@value":"k"}],"brand":[{"name":"b"}],"gtin13":123}`,
		`{"@type":"Product"} {"@type":"Product"`,
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	for _, r := range fixtureSeeds(f, "product") {
		f.Add(r.body)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, body := range []string{ldPage(ld(s)), s} {
			got := ExtractJSONLD(NewPage(nil, 200, nil, []byte(body)))
			if len(got.Products) > maxProducts || got.Invalid > got.Blocks || got.Blocks > maxJSONLDBlocks {
				t.Fatalf("bounds broken: %d products, %d/%d blocks", len(got.Products), got.Invalid, got.Blocks)
			}
			for _, p := range got.Products {
				checkProduct(t, p)
			}
		}
		if p := parsePrice(s); p != "" && parsePrice(p) != p {
			t.Fatalf("parsePrice(%q) = %q is not a fixed point", s, p)
		}
		if m := minorUnits(s, len(s)%10); m != "" && parsePrice(m) == "" {
			t.Fatalf("minorUnits(%q) = %q is not a positive price", s, m)
		}
	})
}

func checkProduct(t *testing.T, p Product) {
	t.Helper()
	if len(p.Offers) > maxOffers || len(p.Images) > maxImages {
		t.Fatalf("product over bounds: %d offers, %d images", len(p.Offers), len(p.Images))
	}
	for _, o := range p.Offers {
		if o.Price != "" && parsePrice(o.Price) == "" {
			t.Fatalf("offer price %q is not a positive number", o.Price)
		}
	}
	for _, s := range []string{p.Name, p.Description, p.SKU, p.GTIN, p.Brand} {
		if !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 in %q", s)
		}
	}
	c := p.Completeness()
	if c.Count() < 0 || c.Count() > 6 {
		t.Fatalf("completeness count %d", c.Count())
	}
}

func FuzzCatalog(f *testing.F) {
	f.Add(`{"products":[{"title":"A","handle":"a","vendor":"V","variants":[{"price":"1.00","available":true,"sku":"s"}],"images":[{"src":"i"}]}]}`)
	f.Add(`[{"id":1,"name":"M","prices":{"price":"1250","currency_code":"EUR","currency_minor_unit":2},"is_in_stock":true}]`)
	f.Add(`[{"id":1,"prices":{"price":"0","currency_minor_unit":9,"price_range":{"min_amount":"1"}}}]`)
	f.Add(`<html></html>`)
	for _, r := range fixtureSeeds(f, "catalog") {
		f.Add(r.body)
	}
	f.Fuzz(func(t *testing.T, s string) {
		base, _ := url.Parse("https://shop.example/")
		ps, err := ParseShopifyProducts([]byte(s), base)
		if err == nil {
			for _, p := range ps {
				checkProduct(t, p)
			}
		}
		ws, err := ParseWooProducts([]byte(s))
		if err == nil {
			for _, p := range ws {
				checkProduct(t, p)
			}
		}
	})
}

func FuzzWebMCP(f *testing.F) {
	seeds := []string{
		`<script>document.modelContext.registerTool({name:"search",description:"d",inputSchema:{properties:{name:{}}}})</script>`,
		`<script type=module>navigator.modelContext?.registerTool({"name":'a'}, {signal})</script>`,
		"<script>const m=navigator.modelContext; m.registerTool({name: `t`}); m?.registerTool(x)</script>",
		`<script>navigator.modelContext.provideContext({tools:[]});navigator.modelContext.clearContext()</script>`,
		`<form toolname="find" tooldescription="Find" toolautosubmit><input name=q toolparamdescription="words"></form>`,
		`<base href="/x/"><script src="a.js"></script><script src="//cdn.other.example/b.js"></script>`,
		`<script>document.modelContext.registerTool({name:"unterminated`,
		`<script>document.modelContext.registerTool({/*`,
		`<script>const t={name:"a"};function w(s){document.modelContext.registerTool({...s})};w(t);w({name:"b"})</script>`,
		`<script>const ts=[{name:"a"},b];ts.forEach(x=>navigator.modelContext.registerTool(x));navigator.modelContext.provideContext({tools})</script>`,
		`<script>let x={...x};let y=[y,x,[[[y]]]];document.modelContext.registerTool(y);x.push(x,x)</script>`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	for _, r := range fixtureSeeds(f, "home") {
		f.Add(r.body)
	}
	u, _ := url.Parse("https://shop.example/")
	f.Fuzz(func(t *testing.T, s string) {
		w := DetectWebMCP(NewPage(u, 200, nil, []byte(s)))
		checkWebMCP(t, w)
		sw := ScanScript("s.js", []byte(s))
		checkWebMCP(t, sw)
		checkWebMCP(t, w.Merge(sw))
		for _, su := range w.Scripts {
			if pu, err := url.Parse(su); err != nil || !SameSite(u, pu) {
				t.Fatalf("script %q is not first-party", su)
			}
		}
		toolNameAfter([]byte(s))
	})
}

func checkWebMCP(t *testing.T, w WebMCP) {
	t.Helper()
	if w.Detected && len(w.Evidence) == 0 {
		t.Fatal("detected without evidence")
	}
	for _, tools := range [][]string{w.Tools, w.LegacyTools} {
		if !slices.IsSorted(tools) || len(slices.Compact(slices.Clone(tools))) != len(tools) {
			t.Fatalf("tools not sorted and unique: %q", tools)
		}
		if len(tools) > maxToolNames {
			t.Fatalf("%d tools", len(tools))
		}
		for _, n := range tools {
			if n == "" || len(n) > maxToolName {
				t.Fatalf("bad tool name %q", n)
			}
		}
	}
}

// FuzzHTMLDetectors covers the page scan and the detectors that read it:
// platform, walls, parked pages, policy links, JSON sanity.
func FuzzHTMLDetectors(f *testing.F) {
	seeds := []struct {
		body   string
		status int
		cookie string
	}{
		{`<html><head><title>Just a moment...</title></head><body><script>window._cf_chl_opt={}</script></body></html>`, 403, ""},
		{`<html><body class="woocommerce"><a href="/policies/refund-policy">Refunds</a><a href="/privacy">Privacy</a></body></html>`, 200, "woocommerce_items_in_cart=1"},
		{`<html><head><title>x.example is for sale</title><script src="//sedoparking.com/p.js"></script></head></html>`, 200, ""},
		{`<iframe src="https://geo.captcha-delivery.com/captcha/"></iframe>`, 403, "datadome=1"},
		{`<meta http-equiv=refresh content="0;/.well-known/sgcaptcha/?r=/">`, 202, ""},
		{`<a href="/shipping"><b>Ship</b>ping<a href="terms">Terms</a></a><title>t`, 200, "_shopify_y=1"},
		{`<plaintext><script>`, 500, "incap_ses_1=1"},
		{strings.Repeat("<div>", 300) + "<a href=x>", 429, ""},
	}
	for _, s := range seeds {
		f.Add(s.body, s.status, s.cookie)
	}
	for _, r := range fixtureSeeds(f, "home") {
		f.Add(r.body, r.status, r.cookie)
	}
	u, _ := url.Parse("https://shop.example/")
	f.Fuzz(func(t *testing.T, body string, status int, cookie string) {
		h := http.Header{}
		h.Add("Set-Cookie", cookie)
		h.Add("Retry-After", cookie)
		p := NewPage(u, status, h, []byte(body))
		if !utf8.ValidString(p.Title) && utf8.ValidString(body) {
			t.Fatalf("invalid title from valid body: %q", p.Title)
		}
		pl := DetectPlatform(p)
		if pl.Name == "" || (pl.Name == PlatformCustom) != (pl.Strength == StrengthNone) {
			t.Fatalf("platform %+v", pl)
		}
		b := DetectBlock(p)
		if b.Blocked != (b.Reason != "") || (b.Blocked && len(b.Evidence) == 0) || (b.Vendor != "" && !b.Blocked) {
			t.Fatalf("block %+v", b)
		}
		if pk := DetectParked(p); pk.Parked && len(pk.Evidence) == 0 {
			t.Fatalf("parked without evidence: %+v", pk)
		}
		pol := FindPolicies(p)
		for _, l := range []*PolicyLink{pol.Returns, pol.Shipping, pol.Privacy, pol.Terms} {
			if l == nil {
				continue
			}
			lu, err := url.Parse(l.URL)
			if err != nil || !SameSite(u, lu) {
				t.Fatalf("policy link %q is not same-site", l.URL)
			}
		}
		CheckJSON(status, h, []byte(body))
		DetectThrottle(status, h, len(body)%2 == 0)
		if fu, err := url.Parse(body); err == nil {
			DetectRedirect(u, fu)
			RegistrableDomain(fu.Host)
		}
	})
}
