package ucp

import (
	"errors"
	"regexp"
	"strings"
)

// The "uri" format is asserted the way ajv-formats (full mode) asserts it,
// because ajv is the reference the JSON Schema part must agree with: an
// RFC 3986 absolute URI, ASCII only. The library's own check (Go's
// url.Parse) is more lenient: it accepts spaces, braces, non-ASCII
// characters and a second "#".
//
// ajv uses one regular expression; isURI is the same grammar written out by
// hand, about forty times faster than Go's regexp on it (the schema checks
// a dozen URIs per profile). uri_test.go checks the two agree.
var errNotURI = errors.New("not an absolute URI (RFC 3986)")

// validateURIFormat is the "uri" format assertion.
func validateURIFormat(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	if !isURI(s) {
		return errNotURI
	}
	return nil
}

// isURI reports whether s is scheme ":" hier-part ["?" query] ["#" fragment]
// with ajv's character sets, matched case-insensitively.
func isURI(s string) bool {
	// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
	i := 0
	for ; i < len(s) && s[i] != ':'; i++ {
		c := lower(s[i])
		if !(c >= 'a' && c <= 'z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	if i == 0 || i == len(s) {
		return false
	}
	rest := s[i+1:]
	// Nearly every URL in a profile is "//" and path characters alone: an
	// empty authority and a path, as far as the grammar below is concerned.
	if len(rest) >= 2 && rest[0] == '/' && rest[1] == '/' {
		j := 2
		for j < len(rest) && uriClasses[rest[j]]&pathClass != 0 {
			j++
		}
		if j == len(rest) {
			return true
		}
	}
	// The hier-part ends at the first "?" or "#", which it cannot contain.
	end := 0
	for end < len(rest) && rest[end] != '?' && rest[end] != '#' {
		end++
	}
	hier, tail := rest[:end], rest[end:]
	if !hierPart(hier) {
		return false
	}
	if strings.HasPrefix(tail, "?") {
		q := tail[1:]
		if j := strings.IndexByte(q, '#'); j >= 0 {
			q, tail = q[:j], q[j:]
		} else {
			tail = ""
		}
		if !scan(q, queryClass) {
			return false
		}
	}
	if strings.HasPrefix(tail, "#") {
		return scan(tail[1:], queryClass)
	}
	return tail == ""
}

// hierPart matches "/"? "/" authority path-abempty | path-absolute |
// path-rootless.
func hierPart(h string) bool {
	if h == "" {
		return false
	}
	if h[0] != '/' {
		return scan(h, pathClass) // rootless: its first segment is not empty
	}
	if authorityPath(h[1:]) || len(h) > 1 && h[1] == '/' && authorityPath(h[2:]) {
		return true
	}
	// path-absolute: "/" [ segment-nz *( "/" segment ) ]
	return (len(h) == 1 || h[1] != '/') && scan(h, pathClass)
}

// authorityPath matches [ userinfo "@" ] host [ ":" *DIGIT ] *( "/" segment ).
func authorityPath(x string) bool {
	auth, path := x, ""
	if j := strings.IndexByte(x, '/'); j >= 0 {
		auth, path = x[:j], x[j:]
	}
	if !scan(path, pathClass) {
		return false
	}
	if j := strings.IndexByte(auth, '@'); j >= 0 {
		if !scan(auth[:j], userinfoClass) {
			return false
		}
		auth = auth[j+1:]
	}
	host, port := auth, ""
	if strings.HasPrefix(auth, "[") {
		j := strings.IndexByte(auth, ']')
		if j < 0 || !ipLiteralRE.MatchString(auth[1:j]) {
			return false
		}
		host, port = "", auth[j+1:]
	} else if j := strings.IndexByte(auth, ':'); j >= 0 {
		host, port = auth[:j], auth[j:]
	}
	if !scan(host, regNameClass) {
		return false
	}
	if port == "" {
		return true
	}
	if port[0] != ':' {
		return false
	}
	for k := 1; k < len(port); k++ {
		if port[k] < '0' || port[k] > '9' {
			return false
		}
	}
	return true
}

// ipLiteralRE is the inside of "[" "]": an IPv6 address or IPvFuture. Only
// URIs with a bracketed host reach it.
var ipLiteralRE = func() *regexp.Regexp {
	const (
		h16  = `[0-9a-f]{1,4}`
		dec  = `(?:25[0-5]|2[0-4]\d|[01]?\d\d?)`
		ls32 = `(?:` + h16 + `:` + h16 + `|(?:` + dec + `\.){3}` + dec + `)`
	)
	ipv6 := `(?:(?:` + h16 + `:){6}|::(?:` + h16 + `:){5}|(?:` + h16 + `)?::(?:` + h16 + `:){4}|` +
		`(?:(?:` + h16 + `:){0,1}` + h16 + `)?::(?:` + h16 + `:){3}|(?:(?:` + h16 + `:){0,2}` + h16 + `)?::(?:` + h16 + `:){2}|` +
		`(?:(?:` + h16 + `:){0,3}` + h16 + `)?::` + h16 + `:|(?:(?:` + h16 + `:){0,4}` + h16 + `)?::)` + ls32 + `|` +
		`(?:(?:` + h16 + `:){0,5}` + h16 + `)?::` + h16 + `|(?:(?:` + h16 + `:){0,6}` + h16 + `)?::`
	return regexp.MustCompile(`(?i)^(?:` + ipv6 + `|v[0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)$`)
}()

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Character classes of RFC 3986 as ajv spells them, one table each.
const (
	regNameClass  = 1 << iota // unreserved, sub-delims
	userinfoClass             // + ":"
	pathClass                 // + ":" "@" "/"
	queryClass                // + "?"
)

var uriClasses = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		l := lower(b)
		if l >= 'a' && l <= 'z' || b >= '0' && b <= '9' || strings.IndexByte("-._~!$&'()*+,;=", b) >= 0 {
			t[c] = regNameClass | userinfoClass | pathClass | queryClass
		}
	}
	t[':'] |= userinfoClass | pathClass | queryClass
	t['@'] |= pathClass | queryClass
	t['/'] |= pathClass | queryClass
	t['?'] |= queryClass
	return t
}()

// scan reports whether s is made of characters of class and %XX escapes.
func scan(s string, class uint8) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if uriClasses[c]&class != 0 {
			continue
		}
		if c != '%' || i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return false
		}
		i += 2
	}
	return true
}

func isHex(c byte) bool {
	c = lower(c)
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f'
}
