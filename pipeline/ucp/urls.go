package ucp

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// webURL is the part of a URL the rules look at.
type webURL struct {
	scheme string // lower case
	host   string // lower case, no trailing dot, no port
	path   string
}

// urlInfo is what the rules need of one URL string, from a single parse.
type urlInfo struct {
	web webURL
	err error // why it is not an absolute URL with a host
	// auth is the host the URL binds under the UCP derivation algorithm;
	// authErr why it binds none.
	auth    string
	authErr error
}

// analyzeURL parses s once for every rule.
func analyzeURL(s string) urlInfo {
	if info, ok := analyzePlainURL(s); ok {
		return info
	}
	var info urlInfo
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		info.err = err
		info.authErr = fmt.Errorf("it does not parse (%v)", err)
		return info
	}
	switch {
	case u.Scheme == "":
		info.err = errors.New("it has no scheme")
	case u.Host == "":
		info.err = errors.New("it has no host")
	default:
		info.web = webURL{
			scheme: strings.ToLower(u.Scheme),
			host:   strings.TrimSuffix(strings.ToLower(u.Hostname()), "."),
			path:   u.EscapedPath(),
		}
	}
	info.auth, info.authErr = authorityOf(u)
	return info
}

// analyzePlainURL is analyzeURL for the shape nearly every profile URL has,
// scheme://host[:port][/path][?query][#fragment] with a letters-digits-dots
// host and no user info or escapes, at a fifth of net/url's cost. It
// declines (ok false) anything else.
func analyzePlainURL(s string) (info urlInfo, ok bool) {
	i := strings.Index(s, "://")
	if i <= 0 {
		return urlInfo{}, false
	}
	scheme := s[:i]
	for j := 0; j < len(scheme); j++ {
		c := lower(scheme[j])
		if !(c >= 'a' && c <= 'z' || j > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return urlInfo{}, false
		}
	}
	rest := s[i+3:]
	end := 0
	for end < len(rest) && rest[end] != '/' && rest[end] != '?' && rest[end] != '#' {
		end++
	}
	authority, tail := rest[:end], rest[end:]
	host := authority
	if j := strings.LastIndexByte(authority, ':'); j >= 0 {
		host = authority[:j]
		for _, c := range []byte(authority[j+1:]) {
			if c < '0' || c > '9' {
				return urlInfo{}, false
			}
		}
	}
	if host == "" {
		return urlInfo{}, false
	}
	for j := 0; j < len(host); j++ {
		c := lower(host[j])
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return urlInfo{}, false
		}
	}
	for j := 0; j < len(tail); j++ {
		if c := tail[j]; uriClasses[c]&queryClass == 0 && c != '#' {
			return urlInfo{}, false
		}
	}
	path := tail
	for j := 0; j < len(path); j++ {
		if path[j] == '?' || path[j] == '#' {
			path = path[:j]
			break
		}
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" || strings.Contains(host, "xn--") {
		return urlInfo{}, false
	}
	info = urlInfo{web: webURL{scheme: strings.ToLower(scheme), host: host, path: path}}
	switch {
	case info.web.scheme != "https":
		info.authErr = fmt.Errorf("it uses %s: instead of https", scheme)
	case ipLiteral(host):
		info.authErr = fmt.Errorf("its host %s is an IP address, not a domain", host)
	case !strings.Contains(host, "."):
		info.authErr = fmt.Errorf("its host %s has a single label", host)
	default:
		info.auth = host
	}
	return info, true
}

// parseWebURL parses an absolute URL with a host.
func parseWebURL(s string) (webURL, error) {
	info := analyzeURL(s)
	return info.web, info.err
}

// url returns the analysis of s.
func (c *checker) url(s string) urlInfo { return analyzeURL(s) }

// ipLiteral reports whether host is an IP address in any spelling a URL
// parser accepts: bracketed or bare IPv6, and IPv4 including the numeric
// forms WHATWG maps to an address (any host whose last label is a number).
func ipLiteral(host string) bool {
	h := strings.Trim(host, "[]")
	if strings.Contains(h, ":") {
		return true
	}
	last := h[strings.LastIndexByte(h, '.')+1:]
	if last == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") || strings.HasPrefix(last, "0X") {
		return true
	}
	for i := 0; i < len(last); i++ {
		if last[i] < '0' || last[i] > '9' {
			return false
		}
	}
	return true
}

// authorityOf returns the host a schema URL binds, following the UCP
// derivation algorithm: https, no user info, a domain (not an IP literal) of
// at least two labels, lower case, no trailing dot, IDNs as A-labels, port
// ignored.
func authorityOf(u *url.URL) (string, error) {
	if !strings.EqualFold(u.Scheme, "https") {
		if u.Scheme == "" {
			return "", errors.New("it is not an absolute URL")
		}
		return "", fmt.Errorf("it uses %s: instead of https", u.Scheme)
	}
	if u.User != nil {
		return "", fmt.Errorf("it carries user info, so its real host is %s", u.Hostname())
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return "", errors.New("it has no host")
	}
	if ipLiteral(host) {
		return "", fmt.Errorf("its host %s is an IP address, not a domain", host)
	}
	if !isASCIIHost(host) {
		a, err := idna.Lookup.ToASCII(host)
		if err != nil {
			return "", fmt.Errorf("its host %s is not a valid domain name", host)
		}
		host = a
	}
	if !strings.Contains(host, ".") {
		return "", fmt.Errorf("its host %s has a single label", host)
	}
	return host, nil
}

// isASCIIHost reports whether host is already in A-label form: lower-case
// letters, digits, hyphens and dots, with no label starting "xn--" that
// would need checking.
func isASCIIHost(host string) bool {
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return !strings.Contains(host, "xn--")
}

// boundTo reports whether a name is in the namespace of host: the host's
// labels reversed are the name or a label-aligned prefix of it.
func boundTo(name, host string) bool {
	// Walk host's labels from the last, matching name's from the first.
	rest := name
	for end := len(host); end > 0; {
		start := strings.LastIndexByte(host[:end], '.') + 1
		label := host[start:end]
		if !strings.HasPrefix(rest, label) {
			return false
		}
		rest = rest[len(label):]
		if start == 0 {
			break
		}
		if !strings.HasPrefix(rest, ".") {
			return false
		}
		rest = rest[1:]
		end = start - 1
	}
	return rest == "" || rest[0] == '.'
}

// namespaceHost is the registrable-looking host a name's first two labels
// stand for (dev.ucp.shopping -> ucp.dev), for messages.
func namespaceHost(name string) string {
	labels := strings.SplitN(name, ".", 3)
	if len(labels) < 2 {
		return name
	}
	return labels[1] + "." + labels[0]
}

// sharedSuffixes are hosting domains under which anyone can publish.
var sharedSuffixes = []string{
	"github.io", "gitlab.io", "vercel.app", "netlify.app", "pages.dev", "workers.dev", "herokuapp.com",
	"web.app", "firebaseapp.com", "s3.amazonaws.com", "cloudfront.net", "storage.googleapis.com",
	"blob.core.windows.net", "azurewebsites.net", "onrender.com", "fly.dev", "glitch.me", "repl.co",
}

// sharedSuffix returns the shared hosting suffix host sits under, or "".
func sharedSuffix(host string) string {
	for _, s := range sharedSuffixes {
		if strings.HasSuffix(host, s) && (len(host) == len(s) || host[len(host)-len(s)-1] == '.') {
			return s
		}
	}
	return ""
}

// publicHost reports hosts no fetcher may reach: IP literals, localhost and
// single-label names (ucp.url.public_host, offline part).
func (c *checker) publicHost(p string, u webURL, what string) {
	var why string
	switch {
	case ipLiteral(u.host):
		why = "is an IP address; use a public DNS name"
	case u.host == "localhost" || strings.HasSuffix(u.host, ".localhost"):
		why = "is a loopback name"
	case !strings.Contains(u.host, "."):
		why = "is a single-label name, which does not resolve publicly"
	default:
		return
	}
	c.fs.rule(rulePublicHost, p, "%s's host %s %s; fetchers must refuse it", what, u.host, why)
}

// sameSite reports whether a and b are the same host or one is a subdomain
// of the other.
func sameSite(a, b string) bool {
	return a == b || strings.HasSuffix(a, "."+b) || strings.HasSuffix(b, "."+a)
}

// reverseDomain reports whether s matches the schema's reverse-domain
// pattern ^[a-z](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9_-]*[a-z0-9_])?)+$.
func reverseDomain(s string) bool {
	label, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			c := s[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' && label > 0) {
				return false
			}
			continue
		}
		if i == start { // empty label
			return false
		}
		first, last := s[start], s[i-1]
		if label == 0 && !(first >= 'a' && first <= 'z') || first == '-' || first == '_' || last == '-' {
			return false
		}
		label++
		start = i + 1
	}
	return label >= 2
}

// devUCPNames are the dev.ucp.* services and capabilities each release
// defines (RULES.md ucp.capability.dev_ucp_known).
var devUCPNames = map[string]struct{ services, capabilities []string }{
	"2026-04-08": {
		services: []string{"dev.ucp.shopping"},
		capabilities: []string{
			"dev.ucp.shopping.checkout", "dev.ucp.shopping.cart", "dev.ucp.shopping.catalog.search",
			"dev.ucp.shopping.catalog.lookup", "dev.ucp.shopping.order", "dev.ucp.shopping.fulfillment",
			"dev.ucp.shopping.discount", "dev.ucp.shopping.buyer_consent", "dev.ucp.shopping.ap2_mandate",
			"dev.ucp.common.identity_linking",
		},
	},
	"2026-08-25": {
		services: []string{"dev.ucp.shopping", "dev.ucp.common"},
		capabilities: []string{
			"dev.ucp.shopping.checkout", "dev.ucp.shopping.cart", "dev.ucp.shopping.catalog.search",
			"dev.ucp.shopping.catalog.lookup", "dev.ucp.shopping.order", "dev.ucp.shopping.fulfillment",
			"dev.ucp.shopping.discount", "dev.ucp.shopping.buyer_consent", "dev.ucp.shopping.permalink",
			"dev.ucp.common.identity_linking", "dev.ucp.common.loyalty", "dev.ucp.common.location.search",
			"dev.ucp.common.location.lookup", "dev.ucp.common.payment.ap2_mandate",
			"dev.ucp.common.payment.authentication", "dev.ucp.common.payment.split_payments",
			"dev.ucp.common.payment.terms",
		},
	},
}

// renamedIn20260825 are names 2026-08-25 replaced (official PR #741).
var renamedIn20260825 = map[string]string{
	"dev.ucp.shopping.ap2_mandate":            "dev.ucp.common.payment.ap2_mandate",
	"dev.ucp.shopping.payment_authentication": "dev.ucp.common.payment.authentication",
	"dev.ucp.shopping.split_payments":         "dev.ucp.common.payment.split_payments",
	"dev.ucp.shopping.payment_terms":          "dev.ucp.common.payment.terms",
}

// devUCPKnown warns about dev.ucp.* names the declared release does not
// define: a typo, or a vendor squatting the reserved namespace.
func (c *checker) devUCPKnown(registryName, key string) {
	rel := "2026-04-08"
	if atLeast(c.release, "2026-08-25") {
		rel = "2026-08-25"
	}
	known := devUCPNames[rel].capabilities
	if registryName == "services" {
		known = devUCPNames[rel].services
	}
	for _, k := range known {
		if k == key {
			return
		}
	}
	p := "/ucp/" + registryName + "/" + escapeToken(key)
	if to, ok := renamedIn20260825[key]; ok && rel == "2026-08-25" {
		c.fs.rule(ruleDevUCPKnown, p, "%s was renamed %s in UCP 2026-08-25", key, to)
		return
	}
	c.fs.rule(ruleDevUCPKnown, p, "UCP %s defines no %s named %s; dev.ucp.* is reserved to the UCP governing body, so this is a typo or a name vendors must not use (use your own reverse-domain namespace)",
		rel, singular(registryName), key)
}

// singular names one entry of a registry, for messages.
func singular(registryName string) string {
	switch registryName {
	case "services":
		return "service"
	case "capabilities":
		return "capability"
	}
	return "payment handler"
}
