package detect

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestDetectParked(t *testing.T) {
	tests := []struct {
		name string
		url  string
		html string
		want Parked
	}{
		{
			name: "sedo parking script",
			url:  "https://oldshop.example/",
			html: `<html><head><title>oldshop.example</title><script src="https://sedoparking.com/frmpark/oldshop.example/IONOSParkingDE/park.js"></script></head></html>`,
			want: Parked{Parked: true, Provider: "sedo", Evidence: []string{"page references sedoparking.com", "no store markup"}},
		},
		{
			name: "for sale title",
			url:  "https://oldshop.example/",
			html: `<html><head><title>OldShop.example is for sale!</title></head><body><a href="https://www.afternic.com/forsale/oldshop.example">Buy</a></body></html>`,
			want: Parked{Parked: true, Provider: "afternic", Evidence: []string{"page references afternic.com", `title "OldShop.example is for sale!"`, "no store markup"}},
		},
		{
			name: "dan.com lander",
			url:  "https://oldshop.example/",
			html: `<html><head><title>oldshop.example</title></head><body><a href="https://dan.com/buy-domain/oldshop.example">Make an offer</a></body></html>`,
			want: Parked{Parked: true, Provider: "dan.com", Evidence: []string{"page references //dan.com/", "no store markup"}},
		},
		{
			name: "redirect to a marketplace",
			url:  "https://www.hugedomains.com/domain_profile.cfm?d=oldshop.example",
			html: `<html><title>OldShop.example</title></html>`,
			want: Parked{Parked: true, Provider: "hugedomains", Evidence: []string{"final URL on hugedomains.com"}},
		},
		{
			name: "store that links to a marketplace is not parked",
			url:  "https://shop.example/",
			html: `<html><head><title>Shop</title></head><body><a href="https://www.afternic.com/">our other domains</a><form action="/cart/add"><button>Add to cart</button></form></body></html>`,
			want: Parked{},
		},
		{
			name: "jordan.com is not dan.com",
			url:  "https://shop.example/",
			html: `<html><body><a href="https://jordan.com/">x</a></body></html>`,
			want: Parked{},
		},
		{
			name: "ordinary store",
			url:  "https://shop.example/",
			html: `<html><head><title>Shop</title></head><body><h1>Welcome</h1></body></html>`,
			want: Parked{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DetectParked(htmlPage(t, tt.url, tt.html))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DetectParked mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDetectRedirect(t *testing.T) {
	tests := []struct {
		from, to string
		want     Redirect
	}{
		{"https://shop.example/", "https://www.shop.example/", Redirect{From: "shop.example", To: "shop.example"}},
		{"https://acme.com/", "https://acme.de/", Redirect{From: "acme.com", To: "acme.de", OtherDomain: true}},
		{"https://acme.myshopify.com/", "https://acme-store.com/", Redirect{From: "acme.myshopify.com", To: "acme-store.com", OtherDomain: true}},
		{"https://oldshop.com/", "https://www.bigretailer.co.uk/brands/old", Redirect{From: "oldshop.com", To: "bigretailer.co.uk", OtherDomain: true, AnotherBrand: true}},
		{"https://abc.com/", "https://abcd.com/", Redirect{From: "abc.com", To: "abcd.com", OtherDomain: true, AnotherBrand: true}},
	}
	for _, tt := range tests {
		got := DetectRedirect(mustURL(t, tt.from), mustURL(t, tt.to))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("DetectRedirect(%s, %s) mismatch (-want +got):\n%s", tt.from, tt.to, diff)
		}
	}
	if got := DetectRedirect(nil, mustURL(t, "https://a.com")); got != (Redirect{}) {
		t.Errorf("DetectRedirect(nil, …) = %+v", got)
	}
}

func TestRegistrableDomain(t *testing.T) {
	tests := map[string]string{
		"Shop.Example.co.uk":   "example.co.uk",
		"www.shop.example":     "shop.example",
		"a.myshopify.com":      "a.myshopify.com",
		"shop.example:8443":    "shop.example",
		"shop.example.":        "shop.example",
		"127.0.0.1":            "127.0.0.1",
		"[2001:db8::1]:443":    "2001:db8::1",
		"localhost":            "localhost",
		"store-7.fixture.test": "fixture.test",
		"":                     "",
	}
	for in, want := range tests {
		if got := RegistrableDomain(in); got != want {
			t.Errorf("RegistrableDomain(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFindPolicies(t *testing.T) {
	html := `<html><head><base href="https://shop.example/en/"></head><body><footer>
		<a href="/account/login?return_url=/account">Returning customer? Sign in</a>
		<a href="/policies/refund-policy">Refund policy</a>
		<a href="pages/faq">Shipping &amp; Returns</a>
		<a href="/policies/privacy-policy">Privacy</a>
		<a href="https://termly.io/policy/123">Terms of service</a>
		<a href="https://help.shop.example/terms-of-service"><span>Terms</span> of service</a>
		<a href="/photos">Photos</a>
		<a href="mailto:x@shop.example">Returns by email</a>
		<a href="/pages/delivery" aria-label="Delivery information"></a>
	</footer></body></html>`
	got := FindPolicies(htmlPage(t, "https://shop.example/", html))
	want := Policies{
		Returns:  &PolicyLink{URL: "https://shop.example/policies/refund-policy", Text: "Refund policy", By: "path+text"},
		Shipping: &PolicyLink{URL: "https://shop.example/pages/delivery", Text: "Delivery information", By: "path+text"},
		Privacy:  &PolicyLink{URL: "https://shop.example/policies/privacy-policy", Text: "Privacy", By: "path+text"},
		Terms:    &PolicyLink{URL: "https://help.shop.example/terms-of-service", Text: "Terms of service", By: "path+text"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FindPolicies mismatch (-want +got):\n%s", diff)
	}
	if got.Found() != 4 {
		t.Errorf("Found() = %d, want 4", got.Found())
	}

	// Text alone and the first link of a kind.
	got = FindPolicies(htmlPage(t, "https://shop.example/", `<a href="/pages/info">Shipping &amp; Returns</a><a href="/p/datenschutz">Datenschutz</a>`))
	want = Policies{
		Returns:  &PolicyLink{URL: "https://shop.example/pages/info", Text: "Shipping & Returns", By: "text"},
		Shipping: &PolicyLink{URL: "https://shop.example/pages/info", Text: "Shipping & Returns", By: "text"},
		Privacy:  &PolicyLink{URL: "https://shop.example/p/datenschutz", Text: "Datenschutz", By: "path+text"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FindPolicies (text) mismatch (-want +got):\n%s", diff)
	}

	if got := FindPolicies(NewPage(nil, 200, nil, []byte(html))); got.Found() != 0 {
		t.Errorf("FindPolicies without a page URL found %d", got.Found())
	}
}

func TestCheckJSON(t *testing.T) {
	tests := []struct {
		name   string
		status int
		header http.Header
		body   string
		want   JSONCheck
	}{
		{"json", 200, hdr("Content-Type", "application/json; charset=utf-8"), `{"products":[]}`, JSONCheck{OK: true, Reason: JSONOK, ContentType: "application/json"}},
		{"json+ld type", 200, hdr("Content-Type", "application/ld+json"), `[]`, JSONCheck{OK: true, Reason: JSONOK, ContentType: "application/ld+json"}},
		{"json mislabelled", 200, hdr("Content-Type", "text/plain"), `{"a":1}`, JSONCheck{OK: true, Reason: JSONOK, ContentType: "text/plain", ContentTypeMismatch: true}},
		{"spa soft 404", 200, hdr("Content-Type", "text/html"), `<!doctype html><div id=app></div>`, JSONCheck{Reason: JSONSoft404, ContentType: "text/html"}},
		{"html labelled json", 200, hdr("Content-Type", "application/json"), `<html><body>oops</body></html>`, JSONCheck{Reason: JSONSoft404, ContentType: "application/json", ContentTypeMismatch: true}},
		{"garbage", 200, hdr("Content-Type", "application/json"), `{"a":`, JSONCheck{Reason: JSONNotJSON, ContentType: "application/json", ContentTypeMismatch: true}},
		{"empty", 200, nil, "  \n", JSONCheck{Reason: JSONEmpty}},
		{"status", 404, hdr("Content-Type", "application/json"), `{}`, JSONCheck{Reason: JSONStatus, ContentType: "application/json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, CheckJSON(tt.status, tt.header, []byte(tt.body))); diff != "" {
				t.Errorf("CheckJSON mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDetectThrottle(t *testing.T) {
	tests := []struct {
		name   string
		status int
		header http.Header
		empty  bool
		want   Throttle
	}{
		{"429", 429, hdr("Retry-After", "2"), false, Throttle{Throttled: true, RetryAfter: "2", Evidence: []string{"status 429", "header Retry-After: 2"}}},
		{"empty with retry-after", 200, hdr("Retry-After", "10"), true, Throttle{Throttled: true, RetryAfter: "10", Evidence: []string{"empty catalog answer", "header Retry-After: 10"}}},
		{"empty at call limit", 200, hdr("X-Shopify-Shop-Api-Call-Limit", "40/40"), true, Throttle{Throttled: true, Evidence: []string{"empty catalog answer", "header X-Shopify-Shop-Api-Call-Limit: 40/40"}}},
		{"empty below call limit", 200, hdr("X-Shopify-Shop-Api-Call-Limit", "3/40"), true, Throttle{}},
		{"empty remaining zero", 200, hdr("X-RateLimit-Remaining", "0"), true, Throttle{Throttled: true, Evidence: []string{"empty catalog answer", "header X-RateLimit-Remaining: 0"}}},
		{"empty structured ratelimit", 200, hdr("RateLimit", `"default";r=0;t=30`), true, Throttle{Throttled: true, Evidence: []string{"empty catalog answer", `header RateLimit: "default";r=0;t=30`}}},
		{"empty, no headers: really empty", 200, nil, true, Throttle{}},
		{"products with retry-after: answered", 200, hdr("Retry-After", "10"), false, Throttle{RetryAfter: "10"}},
		{"bad call limit", 200, hdr("X-Shopify-Shop-Api-Call-Limit", "x/y"), true, Throttle{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, DetectThrottle(tt.status, tt.header, tt.empty)); diff != "" {
				t.Errorf("DetectThrottle mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestContainsFold(t *testing.T) {
	tests := []struct {
		s, sub string
		want   bool
	}{
		{"Add To Cart", "add to cart", true},
		{"xxADD TO CARTxx", "add to cart", true},
		{"add to car", "add to cart", false},
		{"", "a", false},
		{"abc", "", true},
		{"aaaaab", "ab", true},
		{"AaAaAb", "ab", true},
		{"BigCommerce", "bigcommerce", true},
		{"123-456", "3-4", true},
		{"xyz", "xyzz", false},
	}
	for _, tt := range tests {
		if got := containsFold([]byte(tt.s), tt.sub); got != tt.want {
			t.Errorf("containsFold(%q, %q) = %v, want %v", tt.s, tt.sub, got, tt.want)
		}
	}
}
