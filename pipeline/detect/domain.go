package detect

import (
	"net"
	"net/url"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// RegistrableDomain returns the registrable domain (eTLD+1) of a host, from
// the Public Suffix List including its private section, so that
// "shop.example.co.uk" gives "example.co.uk" and "a.myshopify.com" stays
// "a.myshopify.com". A port and a trailing dot are dropped and the result
// is lower case. An IP address, a single-label name or a bare public suffix
// is returned as is: it is its own site.
func RegistrableDomain(host string) string {
	host = strings.ToLower(strings.TrimSpace(host))
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	host = strings.TrimSuffix(host, ".")
	if host == "" || len(host) > 253 {
		return ""
	}
	if net.ParseIP(host) != nil || !strings.Contains(host, ".") {
		return host
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return d
}

// SameSite reports whether two URLs share a registrable domain.
func SameSite(a, b *url.URL) bool {
	if a == nil || b == nil {
		return false
	}
	da := RegistrableDomain(a.Hostname())
	return da != "" && da == RegistrableDomain(b.Hostname())
}

// Redirect compares the URL asked for with the URL that answered.
type Redirect struct {
	// From and To are the registrable domains of the two URLs.
	From string `json:"from"`
	To   string `json:"to"`
	// OtherDomain: the final URL is on another registrable domain.
	OtherDomain bool `json:"otherDomain"`
	// AnotherBrand: another domain whose name does not share the brand
	// label, e.g. oldshop.com → bigretailer.com. A country or TLD move
	// (brand.com → brand.de) and a platform domain (brand.myshopify.com →
	// brand.com) are OtherDomain but not AnotherBrand.
	AnotherBrand bool `json:"anotherBrand"`
}

// DetectRedirect compares the requested and final URLs of a homepage
// fetch. The brand test is a heuristic on names: it compares the label left
// of the public suffix, ignoring hyphens, and accepts one containing the
// other ("acme" and "acmestore"), which is how stores name their domains.
func DetectRedirect(requested, final *url.URL) Redirect {
	if requested == nil || final == nil {
		return Redirect{}
	}
	r := Redirect{From: RegistrableDomain(requested.Hostname()), To: RegistrableDomain(final.Hostname())}
	if r.From == "" || r.To == "" || r.From == r.To {
		return r
	}
	r.OtherDomain = true
	r.AnotherBrand = !sameBrand(brandLabel(requested.Hostname()), brandLabel(final.Hostname()))
	return r
}

// brandLabel returns the label just left of the public suffix, without
// hyphens: "www.acme-store.co.uk" gives "acmestore".
func brandLabel(host string) string {
	d := RegistrableDomain(host)
	label, _, _ := strings.Cut(d, ".")
	return strings.ReplaceAll(label, "-", "")
}

func sameBrand(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if a == b {
		return true
	}
	short, long := a, b
	if len(short) > len(long) {
		short, long = long, short
	}
	return len(short) >= 4 && strings.Contains(long, short)
}
