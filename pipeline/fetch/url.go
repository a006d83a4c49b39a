package fetch

import (
	"golang.org/x/net/idna"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// MaxURLLength bounds the URLs we accept from outside.
const MaxURLLength = 2048

// ParseURL checks a URL from outside before anything is dialled: absolute,
// http or https, no user-info, a valid host, and no IP literal (in any of the
// spellings a resolver or browser accepts) that points at a non-public
// address. A bare host such as "shop.example" (or "shop.example:8443") is
// taken as https://shop.example/.
//
// The host is normalised the way a browser's URL parser does it (WHATWG URL,
// host parsing: UTS #46 mapping to ASCII first, then the IPv4 forms) before
// any check, and the returned URL carries that normalised host. So
// "１２７.０.０.１" and "127。0。0。1" are judged, and refused, as the
// 127.0.0.1 they become; every endpoint that takes a URL or host goes through
// here.
//
// Names are not resolved here; the dialer checks every resolved address.
func ParseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, refuse(raw, CodeInvalidURL, "the URL is empty")
	}
	if len(raw) > MaxURLLength {
		return nil, refuse(raw[:64]+"…", CodeInvalidURL, "the URL is longer than 2048 characters")
	}
	if err := checkScheme(raw); err != nil {
		return nil, err
	}
	if !hasScheme(raw) && !strings.HasPrefix(raw, "//") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, refuse(raw, CodeInvalidURL, "the URL does not parse: "+strings.TrimPrefix(err.Error(), "parse "))
	}
	host, err := canonicalURLHost(u)
	if err != nil {
		return nil, err
	}
	// Dial, send and save the normalised host: the A-label form of an
	// internationalised name, the dotted quad of an IPv4 address.
	if host != strings.ToLower(u.Hostname()) {
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		if p := u.Port(); p != "" {
			host += ":" + p
		}
		u.Host = host
	}
	return u, nil
}

// schemeName reports the scheme a URL starts with ("mailto" of
// "mailto:x@y"), or "" when it starts with none. A host with a port
// ("shop.example:8443/x") is not a scheme.
func schemeName(raw string) string {
	i := strings.IndexByte(raw, ':')
	if i <= 0 {
		return ""
	}
	name := raw[:i]
	for j, r := range name {
		isAlpha := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !isAlpha && (j == 0 || !(r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return ""
		}
	}
	rest := raw[i+1:]
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		rest = rest[:end]
	}
	if rest != "" && strings.Trim(rest, "0123456789") == "" && !strings.HasPrefix(raw[i+1:], "//") {
		return "" // HOST:PORT
	}
	return name
}

func hasScheme(raw string) bool { return schemeName(raw) != "" }

// checkScheme refuses, with a message that says what the URL is, every
// scheme but http and https, and an http(s) URL without its "//" (a
// mistyped "http:/127.0.0.1/" would otherwise parse as a host named "http").
func checkScheme(raw string) error {
	name := schemeName(raw)
	switch strings.ToLower(name) {
	case "":
		return nil
	case "http", "https":
		if !strings.HasPrefix(raw[len(name)+1:], "//") {
			return refuse(raw, CodeInvalidURL, "the URL is missing the // after "+name+": write "+strings.ToLower(name)+"://host/")
		}
		return nil
	case "mailto":
		return refuse(raw, CodeScheme, "a mailto: URL is an e-mail address, not a web page; give the store's http or https address")
	case "javascript":
		return refuse(raw, CodeScheme, "a javascript: URL is a script, not a web page; give the store's http or https address")
	case "data":
		return refuse(raw, CodeScheme, "a data: URL holds its content inline and names no web page; give the store's http or https address")
	}
	return refuse(raw, CodeScheme, "only http and https URLs are allowed, not "+name+":")
}

// checkURL applies the static checks of ParseURL to an already parsed URL; the
// redirect policy calls it on every hop.
func checkURL(u *url.URL) error {
	_, err := canonicalURLHost(u)
	return err
}

// canonicalURLHost checks scheme, user-info and port of u and returns its
// host normalised: lower case, mapped to ASCII by UTS #46 (fullwidth
// letters and digits, ideographic full stops, ...), and an IPv4 address in
// any legacy form as a dotted quad, IPv6 without brackets. It refuses a host
// that normalises to a non-public address, to a malformed name, or to a
// loopback name.
func canonicalURLHost(u *url.URL) (string, error) {
	raw := u.Redacted()
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return "", refuse(raw, CodeInvalidURL, "the URL has no scheme; use http:// or https://")
	default:
		return "", refuse(raw, CodeScheme, "only http and https URLs are allowed, not "+u.Scheme+":")
	}
	if u.User != nil {
		return "", refuse(raw, CodeUserInfo, "URLs with a user name or password are not allowed")
	}
	host := u.Hostname()
	if host == "" {
		return "", refuse(raw, CodeInvalidURL, "the URL has no host")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", refuse(raw, CodeInvalidURL, "the port is not a number from 1 to 65535")
		}
	}
	name, err := CanonicalHost(host)
	if err != nil {
		return "", refuse(raw, CodeInvalidURL, err.Error())
	}
	if addr, err := netip.ParseAddr(name); err == nil {
		if r := BlockedReason(addr); r != "" {
			return "", refuse(raw, CodeBlockedAddress, "the host is "+article(r)+" "+r)
		}
		return name, nil
	}
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return "", refuse(raw, CodeBlockedAddress, "the host is a loopback name")
	}
	return name, nil
}

// CanonicalHost normalises a host name or IP literal the way a browser's URL
// parser does (WHATWG URL, host parsing): an IPv6 literal (with or without
// brackets) to its canonical text; anything else is mapped to ASCII by
// UTS #46 (lower case, fullwidth forms and the ideographic full stop
// folded, internationalised labels to A-labels), and only then, if its last
// label is a number, read as an IPv4 address in any inet_aton form
// ("0x7f.1", "2130706433", "0177.0.0.1") and written as a dotted quad. A
// trailing dot is dropped. The error says, in words for a user, why the
// host is not one.
func CanonicalHost(host string) (string, error) {
	h := strings.TrimSuffix(host, ".")
	if strings.Contains(h, ":") {
		a, err := netip.ParseAddr(strings.Trim(h, "[]"))
		if err != nil {
			return "", errString("the IPv6 address does not parse")
		}
		return a.WithZone("").String(), nil
	}
	name, err := idna.Lookup.ToASCII(strings.ToLower(h))
	if err != nil {
		return "", errString("the host name is not a valid domain name")
	}
	name = strings.TrimSuffix(name, ".")
	if name == "" || strings.Contains(name, "..") || strings.HasPrefix(name, ".") {
		return "", errString("the host name is malformed")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_') {
			return "", errString("the host name has a character that is not allowed: " + strconv.QuoteRune(r))
		}
	}
	if addr, ok, err := hostIP(name); err != nil {
		return "", err
	} else if ok {
		return addr.String(), nil
	}
	return name, nil
}

// hostIP reports whether host is an IP literal, accepting every spelling that
// a resolver or browser turns into an address: bracketed IPv6, dotted quads,
// and the legacy inet_aton forms (decimal "2130706433", octal "0177.0.0.1",
// hex "0x7f.1", fewer than four parts). Following the WHATWG URL standard, a
// host whose last label is numeric must be an IPv4 address, or it is invalid.
func hostIP(host string) (netip.Addr, bool, error) {
	h := strings.TrimSuffix(host, ".")
	if strings.Contains(h, ":") {
		a, err := netip.ParseAddr(strings.Trim(h, "[]"))
		if err != nil {
			return netip.Addr{}, false, errString("the IPv6 address does not parse")
		}
		return a, true, nil
	}
	labels := strings.Split(h, ".")
	if !numericLabel(labels[len(labels)-1]) {
		return netip.Addr{}, false, nil
	}
	a, ok := parseLooseIPv4(labels)
	if !ok {
		return netip.Addr{}, false, errString("the host looks like an IPv4 address but is not a valid one")
	}
	return a, true, nil
}

// article is "a" or "an" for the phrase that follows it.
func article(phrase string) string {
	if phrase != "" && strings.ContainsRune("aeiouAEIOU", rune(phrase[0])) {
		return "an"
	}
	return "a"
}

type errString string

func (e errString) Error() string { return string(e) }

func numericLabel(s string) bool {
	if s == "" {
		return false
	}
	if len(s) > 1 && (s[:2] == "0x" || s[:2] == "0X") {
		for _, r := range s[2:] {
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return false
			}
		}
		return true
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// parseLooseIPv4 parses the inet_aton forms: one to four parts, each decimal,
// octal (leading 0) or hex (0x); the last part fills the remaining bytes.
func parseLooseIPv4(parts []string) (netip.Addr, bool) {
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		if !numericLabel(p) && p != "0x" && p != "0X" {
			return netip.Addr{}, false
		}
		var n uint64
		var err error
		switch {
		case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
			if len(p) == 2 {
				n = 0
			} else {
				n, err = strconv.ParseUint(p[2:], 16, 64)
			}
		case len(p) > 1 && p[0] == '0':
			n, err = strconv.ParseUint(p[1:], 8, 64)
		default:
			n, err = strconv.ParseUint(p, 10, 64)
		}
		if err != nil {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	last := nums[len(nums)-1]
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
	}
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	var v uint32
	for i, n := range nums[:len(nums)-1] {
		v |= uint32(n) << (24 - 8*i)
	}
	v |= uint32(last)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}
