package ucp

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

func TestIsURI(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"https://ucp.dev/2026-08-25/schemas/shopping/checkout.json", true},
		{"HTTPS://Shop.Example.COM:8443/a/b?c=d&e#f", true},
		{"https://shop.example.com", true},
		{"https:shop.example.com", true},
		{"mailto:ops@example.com", true},
		{"urn:isbn:0451450523", true},
		{"https://[::1]:443/x", true},
		{"https://[v1.fe]/", true},
		{"https://user:pw@host/", true},
		{"https:///path", true},
		{"https://host/%41%2f", true},
		{"https://host/a b", false},
		{"https://host/{x}", false},
		{"https://host/a|b", false},
		{"https://host/#a#b", false},
		{"https://host/%zz", false},
		{"https://host:8a/", true}, // "//" then an empty host and the path "/host:8a/", as ajv reads it
		{"https://exämple.com/", false},
		{"https://[::1/", false},
		{"https://a@b@c/", true},
		{"https:", false},
		{"/relative/path", false},
		{"shop.example.com", false},
		{"", false},
		{"1http://x", false},
		{"x:?q", false},
		{"x:a?q#f?/", true},
	} {
		if got := isURI(tt.in); got != tt.want {
			t.Errorf("isURI(%q) = %v, want %v", tt.in, got, tt.want)
		}
		if got := ajvURI(tt.in); got != tt.want {
			t.Errorf("ajv oracle(%q) = %v, want %v (test case is wrong)", tt.in, got, tt.want)
		}
	}
}

// TestIsURIAgreesWithAjv compares the hand-written matcher with the
// transcribed ajv expression on random strings over URI-ish characters.
func TestIsURIAgreesWithAjv(t *testing.T) {
	const alphabet = "aZ09:/?#[]@!$&'()*+,;=-._~%fF vé{|}\\\"<>"
	parts := []string{"https:", "http://", "//", "[::1]", "[v1.x]", "[", "]", "%2F", "%g", "user@", ":80", "/p", "?q", "#f", "é", "a.b"}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 200000
	if testing.Short() {
		n = 20000
	}
	for i := 0; i < n; i++ {
		var b []byte
		for k := rng.IntN(12); k >= 0; k-- {
			if rng.IntN(3) == 0 {
				b = append(b, parts[rng.IntN(len(parts))]...)
			} else {
				b = append(b, alphabet[rng.IntN(len(alphabet))])
			}
		}
		s := string(b)
		if isURI(s) != ajvURI(s) {
			t.Fatalf("isURI(%q) = %v, ajv = %v", s, isURI(s), ajvURI(s))
		}
	}
}

func FuzzIsURI(f *testing.F) {
	for _, s := range []string{"https://ucp.dev/x", "https://[::1]:8/", "a:b", "x://u@h:1/p?q#f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if isURI(s) != ajvURI(s) {
			t.Fatalf("isURI(%q) = %v, ajv = %v", s, isURI(s), ajvURI(s))
		}
	})
}

// TestPatternsAgree checks the hand-written matchers against the schema
// patterns they stand in for.
func TestPatternsAgree(t *testing.T) {
	for _, p := range []string{versionPattern, reverseDomainPattern} {
		re := regexp.MustCompile(p)
		fast, _ := compilePattern(p)
		rng := rand.New(rand.NewPCG(3, 4))
		const alphabet = "az09-_.AZ é"
		for i := 0; i < 100000; i++ {
			var b []byte
			for k := rng.IntN(14); k >= 0; k-- {
				b = append(b, alphabet[rng.IntN(len(alphabet))])
			}
			s := string(b)
			if i%7 == 0 {
				s = fmt.Sprintf("%04d-%02d-%02d", rng.IntN(10000), rng.IntN(100), rng.IntN(100))
			}
			if re.MatchString(s) != fast.MatchString(s) {
				t.Fatalf("pattern %s on %q: regexp %v, hand-written %v", p, s, re.MatchString(s), fast.MatchString(s))
			}
		}
	}
}

// TestScopeTokenAgrees checks the hand-written scope token matcher, on
// strings made of the characters that matter to it.
func TestScopeTokenAgrees(t *testing.T) {
	re := regexp.MustCompile(scopeTokenPattern)
	fast, _ := compilePattern(scopeTokenPattern)
	if _, ok := fast.(pattern); !ok {
		t.Fatal("the scope token pattern has no hand-written matcher")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const alphabet = "az09-_.:AZ é\n"
	for i := 0; i < 200000; i++ {
		var b []byte
		if i%3 == 0 {
			b = []byte("dev.ucp.shopping.order")
		}
		for k := rng.IntN(12); k >= 0; k-- {
			b = append(b, alphabet[rng.IntN(len(alphabet))])
		}
		s := string(b)
		if re.MatchString(s) != fast.MatchString(s) {
			t.Fatalf("%q: regexp %v, hand-written %v", s, re.MatchString(s), fast.MatchString(s))
		}
	}
	for _, s := range []string{"dev.ucp.shopping.order:read", "dev.ucp.shopping.order:manage", "a.b:c", "a.b:", "a.b:C", "a:b", "a.b:c:d", "a.b:c\n"} {
		if re.MatchString(s) != fast.MatchString(s) {
			t.Errorf("%q: regexp %v, hand-written %v", s, re.MatchString(s), fast.MatchString(s))
		}
	}
}

func TestBoundTo(t *testing.T) {
	for _, tt := range []struct {
		name, host string
		want       bool
	}{
		{"dev.ucp.shopping.checkout", "ucp.dev", true},
		{"dev.ucp.shopping.checkout", "shopping.ucp.dev", true},
		{"dev.ucp", "ucp.dev", true},
		{"dev.ucpx.shopping", "ucp.dev", false},
		{"dev.ucp.shopping", "checkout.shopping.ucp.dev", false},
		{"com.example.pay", "pay.example.com", true},
		{"com.example.pay", "example.com", true},
		{"com.example.pay", "cdn.example.com", false},
		{"com.example", "example.com", true},
		{"com.examplex", "example.com", false},
	} {
		if got := boundTo(tt.name, tt.host); got != tt.want {
			t.Errorf("boundTo(%q, %q) = %v, want %v", tt.name, tt.host, got, tt.want)
		}
	}
}

// TestPlainURLAgrees checks the fast URL analysis against net/url's.
func TestPlainURLAgrees(t *testing.T) {
	inputs := []string{
		"https://ucp.dev/2026-08-25/schemas/shopping/checkout.json", "HTTPS://Shop.Example.COM.:8443/a/b?c=d#e",
		"http://shop.example.com/ucp/v1/", "https://localhost/x", "https://10.0.0.1/", "https://0x7f.1/", "https://shop",
		"https://shop.example.com", "https://shop.example.com?x", "https://shop.example.com#x", "ftp://files.example.com/a",
		"https://ex:/", "https://xn--bcher-kva.example/", "https://a.b/c d", "https://a.b/%41", "https://u@a.b/",
	}
	for _, s := range inputs {
		fast, ok := analyzePlainURL(s)
		if !ok {
			continue
		}
		slow := urlInfo{}
		{
			u, err := url.Parse(s)
			if err != nil {
				t.Fatalf("%q: fast path took a URL net/url rejects: %v", s, err)
			}
			slow.web = webURL{scheme: strings.ToLower(u.Scheme), host: strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), path: u.EscapedPath()}
			slow.auth, slow.authErr = authorityOf(u)
		}
		if fast.web != slow.web || fast.auth != slow.auth || (fast.authErr == nil) != (slow.authErr == nil) {
			t.Errorf("%q: fast %+v, net/url %+v", s, fast, slow)
		}
	}
}
