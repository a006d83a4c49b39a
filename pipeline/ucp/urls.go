package ucp

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

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
	// scheme "://": the scheme's characters, then the first "://".
	i, upperScheme := 0, false
	for ; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			upperScheme = true
			continue
		}
		if !(c >= 'a' && c <= 'z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			break
		}
	}
	if i == 0 || !strings.HasPrefix(s[i:], "://") {
		return urlInfo{}, false
	}
	scheme, rest := s[:i], s[i+3:]
	// host [":" port], then "/", "?", "#" or the end.
	j, upper, hyphen, dots := 0, false, false, 0
	for ; j < len(rest); j++ {
		k := hostClasses[rest[j]]
		if k == hostPlain {
			continue
		}
		switch k {
		case hostDot:
			dots++
		case hostHyphen:
			hyphen = true
		case hostUpper:
			upper = true
		default:
			goto hostEnd
		}
	}
hostEnd:
	host, k := rest[:j], j
	if k < len(rest) && rest[k] == ':' {
		for k++; k < len(rest) && rest[k] >= '0' && rest[k] <= '9'; k++ {
		}
	}
	tail := rest[k:]
	if host == "" || tail != "" && tail[0] != '/' && tail[0] != '?' && tail[0] != '#' {
		return urlInfo{}, false
	}
	// The path runs to the first "?" or "#"; the rest is query and fragment.
	t := 0
	for t < len(tail) && uriClasses[tail[t]]&pathClass != 0 {
		t++
	}
	path := tail[:t]
	if t < len(tail) {
		if c := tail[t]; c != '?' && c != '#' {
			return urlInfo{}, false
		}
		for t++; t < len(tail); t++ {
			if c := tail[t]; uriClasses[c]&queryClass == 0 && c != '#' {
				return urlInfo{}, false
			}
		}
	}
	if upper {
		host = strings.ToLower(host)
	}
	if strings.HasSuffix(host, ".") {
		host, dots = host[:len(host)-1], dots-1
	}
	if host == "" || hyphen && strings.Contains(host, "xn--") {
		return urlInfo{}, false
	}
	lowerScheme := scheme
	if upperScheme {
		lowerScheme = strings.ToLower(scheme)
	}
	info = urlInfo{web: webURL{scheme: lowerScheme, host: host, path: path}}
	switch {
	case info.web.scheme != "https":
		info.authErr = fmt.Errorf("it uses %s: instead of https", scheme)
	case numericLastLabel(host): // ipLiteral for a host of letters, digits, "-" and "."
		info.authErr = fmt.Errorf("its host %s is an IP address, not a domain", host)
	case dots == 0:
		info.authErr = fmt.Errorf("its host %s has a single label", host)
	default:
		info.auth = host
	}
	return info, true
}

// Classes of host characters for analyzePlainURL.
const (
	hostOther = iota
	hostPlain // a-z 0-9
	hostDot
	hostHyphen
	hostUpper
)

var hostClasses = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = hostPlain
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = hostPlain
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = hostUpper
	}
	t['.'], t['-'] = hostDot, hostHyphen
	return t
}()

// numericLastLabel is ipLiteral for a host without brackets or colons: its
// last label is a number, or starts with 0x.
func numericLastLabel(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
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

// parseWebURL parses an absolute URL with a host.
func parseWebURL(s string) (webURL, error) {
	info := analyzeURL(s)
	return info.web, info.err
}

// url returns the analysis of s.
func (c *checker) url(s string) urlInfo { return analyzeURL(s) }

// hasSuffixFold is strings.HasSuffix(strings.ToLower(s), suffix) for a
// lower-case ASCII suffix, without the copy.
func hasSuffixFold(s, suffix string) bool {
	if !isASCII(s) {
		return strings.HasSuffix(strings.ToLower(s), suffix)
	}
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// ipLiteral reports whether host is an IP address in any spelling a URL
// parser accepts: bracketed or bare IPv6, and IPv4 including the numeric
// forms WHATWG maps to an address (any host whose last label is a number).
func ipLiteral(host string) bool {
	h := host // strings.Trim(host, "[]")
	for h != "" && (h[0] == '[' || h[0] == ']') {
		h = h[1:]
	}
	for h != "" && (h[len(h)-1] == '[' || h[len(h)-1] == ']') {
		h = h[:len(h)-1]
	}
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

// sharedByTLD are the shared suffixes by their last label: a host's last
// label leaves one or two to compare.
var sharedByTLD = func() map[string][]string {
	m := map[string][]string{}
	for _, s := range sharedSuffixes {
		tld := s[strings.LastIndexByte(s, '.')+1:]
		m[tld] = append(m[tld], s)
	}
	return m
}()

// sharedSuffix returns the shared hosting suffix host sits under, or "".
func sharedSuffix(host string) string {
	for _, s := range sharedByTLD[host[strings.LastIndexByte(host, '.')+1:]] {
		if strings.HasSuffix(host, s) && (len(host) == len(s) || host[len(host)-len(s)-1] == '.') {
			return s
		}
	}
	return ""
}

// hostProblem says why no fetcher may reach host, or "": IP literals,
// localhost and single-label names (ucp.url.public_host, offline part).
// Items say "<the URL>'s host <host> <problem>; fetchers must refuse it".
func hostProblem(host string) string {
	switch {
	case ipLiteral(host):
		return "is an IP address; use a public DNS name"
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
		return "is a loopback name"
	case !strings.Contains(host, "."):
		return "is a single-label name, which does not resolve publicly"
	}
	return ""
}

// sameSite reports whether a and b are the same host or one is a subdomain
// of the other.
func sameSite(a, b string) bool {
	return a == b || strings.HasSuffix(a, "."+b) || strings.HasSuffix(b, "."+a)
}

// reverseDomain reports whether s matches the schema's reverse-domain
// pattern ^[a-z](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9_-]*[a-z0-9_])?)+$.
func reverseDomain(s string) bool {
	labels, start := 0, 0 // labels before the one that starts at start
	for i := 0; i < len(s); i++ {
		switch rdClasses[s[i]] {
		case rdPlain:
		case rdUnderscore:
			if labels == 0 {
				return false
			}
		case rdDot:
			if !rdLabel(s[start:i], labels) {
				return false
			}
			labels, start = labels+1, i+1
		default:
			return false
		}
	}
	return labels >= 1 && rdLabel(s[start:], labels)
}

// rdLabel checks the ends of label number n of a reverse-domain name: the
// first starts with a letter, none starts with "-" or "_" or ends with "-".
func rdLabel(l string, n int) bool {
	if l == "" {
		return false
	}
	first, last := l[0], l[len(l)-1]
	return !(n == 0 && !(first >= 'a' && first <= 'z') || first == '-' || first == '_' || last == '-')
}

// Classes of reverse-domain name characters.
const (
	rdOther      = iota
	rdPlain      // a-z 0-9 -
	rdUnderscore // allowed after the first label
	rdDot
)

var rdClasses = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = rdPlain
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = rdPlain
	}
	t['-'], t['_'], t['.'] = rdPlain, rdUnderscore, rdDot
	return t
}()

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
