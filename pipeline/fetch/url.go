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
// spellings a resolver accepts) that points at a non-public address. A bare
// host such as "shop.example" is taken as https://shop.example/.
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
	if !strings.Contains(raw, "://") && !strings.HasPrefix(raw, "//") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, refuse(raw, CodeInvalidURL, "the URL does not parse: "+strings.TrimPrefix(err.Error(), "parse "))
	}
	if err := checkURL(u); err != nil {
		return nil, err
	}
	// Dial and send the A-label form of an internationalised name.
	if h := u.Hostname(); !isASCII(h) {
		a, _ := idna.Lookup.ToASCII(h) // checkURL accepted it
		if p := u.Port(); p != "" {
			a += ":" + p
		}
		u.Host = a
	}
	return u, nil
}

// checkURL applies the static checks of ParseURL to an already parsed URL; the
// redirect policy calls it on every hop.
func checkURL(u *url.URL) error {
	raw := u.Redacted()
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return refuse(raw, CodeInvalidURL, "the URL has no scheme; use http:// or https://")
	default:
		return refuse(raw, CodeScheme, "only http and https URLs are allowed, not "+u.Scheme+":")
	}
	if u.User != nil {
		return refuse(raw, CodeUserInfo, "URLs with a user name or password are not allowed")
	}
	host := u.Hostname()
	if host == "" {
		return refuse(raw, CodeInvalidURL, "the URL has no host")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return refuse(raw, CodeInvalidURL, "the port is not a number from 1 to 65535")
		}
	}
	if addr, ok, err := hostIP(host); err != nil {
		return refuse(raw, CodeInvalidURL, err.Error())
	} else if ok {
		if r := BlockedReason(addr); r != "" {
			return refuse(raw, CodeBlockedAddress, "the host is a "+r)
		}
		return nil
	}
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if a, err := idna.Lookup.ToASCII(name); err == nil {
		name = a
	} else {
		return refuse(raw, CodeInvalidURL, "the host name is not a valid domain name")
	}
	if name == "" || strings.Contains(name, "..") || strings.HasPrefix(name, ".") {
		return refuse(raw, CodeInvalidURL, "the host name is malformed")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_') {
			return refuse(raw, CodeInvalidURL, "the host name has a character that is not allowed: "+strconv.QuoteRune(r))
		}
	}
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return refuse(raw, CodeBlockedAddress, "the host is a loopback name")
	}
	return nil
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

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
