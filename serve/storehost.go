package serve

import (
	"net/netip"
	"net/url"
	"strings"

	"svc/pipeline/fetch"
)

// What a live check may add to the directory. A fresh check is saved as the
// public card of its host (spec 4.2.1), so the URL must name a store the
// way the public reaches it: an http or https homepage or product URL, on
// the scheme's default port, of a host that could be a public store. The
// rest is refused with a 400 before anything is fetched or saved:
//
//   - a port other than 80 for http or 443 for https (the result would
//     stand for the host on its default port);
//   - an IP address instead of a domain name;
//   - a single-label name ("shop", no dot);
//   - names under special-use and private-use suffixes, which never reach
//     a public store: .localhost, .local, .internal, .lan, .home, .corp,
//     .intranet, .private, .localdomain, .home.arpa and the rest of .arpa,
//     .onion, .alt, .invalid, .example (and example.com/.net/.org), and
//     .test unless the server runs on the fixture world (--fixture-addr);
//   - wildcard DNS services that map a name to any address (nip.io,
//     sslip.io and the like), and any name that embeds an IPv4 address in
//     four numeric labels ("10.0.0.1.example.net") or a dashed
//     non-public one ("app-127-0-0-1.example.net").

// reservedSuffixes maps a suffix to why no store lives under it.
var reservedSuffixes = []struct{ suffix, why string }{
	{"localhost", "reserved for the local machine (RFC 6761)"},
	{"local", "reserved for multicast DNS on a local network (RFC 6762)"},
	{"internal", "reserved for private networks"},
	{"home.arpa", "reserved for home networks (RFC 8375)"},
	{"arpa", "reserved for internet infrastructure"},
	{"lan", "used for private networks"},
	{"home", "used for private networks"},
	{"corp", "used for private networks"},
	{"intranet", "used for private networks"},
	{"private", "used for private networks"},
	{"localdomain", "used for the local machine"},
	{"onion", "reserved for Tor onion services (RFC 7686)"},
	{"alt", "reserved for names outside the DNS (RFC 9476)"},
	{"invalid", "reserved as never valid (RFC 6761)"},
	{"example", "reserved for documentation (RFC 2606)"},
	{"example.com", "reserved for documentation (RFC 2606)"},
	{"example.net", "reserved for documentation (RFC 2606)"},
	{"example.org", "reserved for documentation (RFC 2606)"},
	{"test", "reserved for testing (RFC 6761)"},
}

// wildcardDNS are services whose names resolve to whatever address the
// name spells ("127.0.0.1.nip.io"), or always to loopback.
var wildcardDNS = []string{"nip.io", "sslip.io", "xip.io", "traefik.me", "localtest.me", "lvh.me", "vcap.me", "localho.st", "1u.ms", "rbndr.us"}

// storeHostProblem says why host (lower case, no trailing dot, as
// fetch.ParseURL leaves it) can never be a public store, or "". fixture
// allows *.test, the fixture world's names.
func storeHostProblem(host string, fixture bool) string {
	if _, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return "a store is named by its domain name, not an IP address"
	}
	if !strings.Contains(host, ".") {
		return "a single-label name (no dot) is not a public domain name"
	}
	for _, r := range reservedSuffixes {
		if host == r.suffix || strings.HasSuffix(host, "."+r.suffix) {
			if r.suffix == "test" && fixture {
				return ""
			}
			return "names under ." + r.suffix + " are " + r.why + " and never a public store"
		}
	}
	for _, w := range wildcardDNS {
		if host == w || strings.HasSuffix(host, "."+w) {
			return w + " is a wildcard DNS service that points names at any address; it never names a store"
		}
	}
	if a, ok := embeddedIPv4(host); ok {
		return "the name embeds the address " + a + ", the pattern of wildcard DNS names that resolve to any address; it never names a store"
	}
	return ""
}

// embeddedIPv4 finds an IPv4 address spelled inside a name: four
// consecutive numeric labels, or a non-public address as four dashed
// numbers in one label.
func embeddedIPv4(host string) (string, bool) {
	labels := strings.Split(host, ".")
	for i := 0; i+4 <= len(labels); i++ {
		if a, err := netip.ParseAddr(strings.Join(labels[i:i+4], ".")); err == nil && a.Is4() {
			return a.String(), true
		}
	}
	for _, l := range labels {
		parts := strings.Split(l, "-")
		for i := 0; i+4 <= len(parts); i++ {
			if a, err := netip.ParseAddr(strings.Join(parts[i:i+4], ".")); err == nil && a.Is4() && fetch.BlockedReason(a) != "" {
				return a.String(), true
			}
		}
	}
	return "", false
}

// liveCheckURL checks a live check's URL: safe (fetch.ParseURL), on the
// default port, of a host that can be a public store. It returns the URL to
// check, without the default port, and its host.
func liveCheckURL(raw string, fixture bool) (*url.URL, string, error) {
	u, err := fetch.ParseURL(raw)
	if err != nil {
		return nil, "", unsafeURL(err)
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if p := u.Port(); p != "" {
		def := map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
		if strings.TrimLeft(p, "0") != def {
			return nil, "", fail(ErrInvalid, "a live check takes the store's public address on the default port (443 for https, 80 for http), not :%s: its result is saved as the card of %s", p, host)
		}
		u.Host = strings.TrimSuffix(u.Host, ":"+p)
	}
	if why := storeHostProblem(host, fixture); why != "" {
		return nil, "", fail(ErrInvalid, "not a public store address: %s", why)
	}
	return u, host, nil
}
