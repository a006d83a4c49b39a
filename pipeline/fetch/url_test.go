package fetch

import (
	"strings"
	"testing"
)

// TestParseURLHostsAsBrowsersParseThem holds ParseURL to the WHATWG URL
// standard's host parser: a host is mapped to ASCII (UTS #46) first and read
// as an IPv4 address after, so Unicode spellings of a private address are
// that address. Every input and the host the standard gives it ("" for a
// parse failure) is ported from web-platform-tests,
// url/resources/urltestdata.json (github.com/web-platform-tests/wpt, commit
// 04f8022e43aeac33a2f8ca248333cb5e8571b160), except the four marked "issue 17",
// which are the spellings of the hostile-input audit. The last column is
// what svc does with it: the public host it keeps, or the refusal code.
func TestParseURLHostsAsBrowsersParseThem(t *testing.T) {
	for _, tc := range []struct {
		in, whatwg string // whatwg: the host the standard parses, "" = failure
		host, code string // ours: the host kept, or the refusal code
	}{
		// "Fullwidth and escaped UTF-8 fullwidth should still be treated as IP"
		{"http://０Ｘｃ０．０２５０．０１", "192.168.0.1", "", CodeBlockedAddress},
		// "Escaped numbers should be treated like IP addresses if they are."
		// Go's URL parser refuses percent-escaped ASCII in a host outright.
		{"http://%30%78%63%30%2e%30%32%35%30.01", "192.168.0.1", "", CodeInvalidURL},
		{"http://%30%78%63%30%2e%30%32%35%30.01%2e", "192.168.0.1", "", CodeInvalidURL},
		{"http://192.168.0.257", "", "", CodeInvalidURL},
		// "Ideographic full stop ... should be treated as a dot"
		{"http://www.foo。bar.com", "www.foo.bar.com", "www.foo.bar.com", ""},
		// "Test name prepping, fullwidth input should be converted to ASCII"
		{"http://Ｇｏ.com", "go.com", "go.com", ""},
		{"http://％４１.com", "", "", CodeInvalidURL},
		{"http://%ef%bc%85%ef%bc%94%ef%bc%91.com", "", "", CodeInvalidURL},
		{"http://％００.com", "", "", CodeInvalidURL},
		// "U+3000 is mapped to U+0020 (space) which is disallowed"
		{"http://GOO\u00a0\u3000goo.com", "", "", CodeInvalidURL},
		// "U+200B, U+2060, and U+FEFF, are ignored"
		{"http://GOO\u200b\u2060\ufeffgoo.com", "googoo.com", "googoo.com", ""},
		{"http://\ufdd0zyx.com", "", "", CodeInvalidURL},
		{"http://a.b.c.xn--pokxncvks", "", "", CodeInvalidURL},
		{"http://10.0.0.xn--pokxncvks", "", "", CodeInvalidURL},
		{"http://你好你好", "xn--6qqa088eba", "xn--6qqa088eba", ""},
		{"https://faß.ExAmPlE/", "xn--fa-hia.example", "xn--fa-hia.example", ""},
		{"https://%e2%98%83", "xn--n3h", "xn--n3h", ""},
		// "# IPv4 parsing"
		{"http://1.2.3.4./", "1.2.3.4", "1.2.3.4", ""},
		{"http://192.168.257", "192.168.1.1", "", CodeBlockedAddress},
		{"http://192.168.257.com", "192.168.257.com", "192.168.257.com", ""},
		{"http://256", "0.0.1.0", "", CodeBlockedAddress},
		{"http://999999999", "59.154.201.255", "59.154.201.255", ""},
		{"http://999999999.", "59.154.201.255", "59.154.201.255", ""},
		{"http://10000000000", "", "", CodeInvalidURL},
		{"http://4294967295", "255.255.255.255", "", CodeBlockedAddress},
		{"http://4294967296", "", "", CodeInvalidURL},
		{"http://0xffffffff", "255.255.255.255", "", CodeBlockedAddress},
		{"http://0xffffffff1", "", "", CodeInvalidURL},
		{"http://256.256.256.256", "", "", CodeInvalidURL},
		{"https://0x.0x.0", "0.0.0.0", "", CodeBlockedAddress},
		{"https://0x100000000/test", "", "", CodeInvalidURL},
		{"https://256.0.0.1/test", "", "", CodeInvalidURL},
		// "Invalid IPv4 radix digits": the last label is not a number, so
		// the host is a domain name.
		{"http://0x7f.0.0.0x7g", "0x7f.0.0.0x7g", "0x7f.0.0.0x7g", ""},
		{"http://[::127.0.0.0.1]", "", "", CodeInvalidURL},
		// issue 17: the audit's spellings of loopback.
		{"http://127。0。0。1/", "127.0.0.1", "", CodeBlockedAddress},
		{"http://１２７.０.０.１/", "127.0.0.1", "", CodeBlockedAddress},
		{"http://0x7f｡1/", "127.0.0.1", "", CodeBlockedAddress},
		{"１０。０。０。１", "10.0.0.1", "", CodeBlockedAddress},
	} {
		u, err := ParseURL(tc.in)
		if tc.code != "" {
			r, ok := IsRefused(err)
			if !ok || r.Code != tc.code {
				t.Errorf("ParseURL(%q) = %v, %v; want refusal %s (the standard's host: %q)", tc.in, u, err, tc.code, tc.whatwg)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseURL(%q): %v, want host %q", tc.in, err, tc.host)
			continue
		}
		if got := u.Hostname(); got != tc.host {
			t.Errorf("ParseURL(%q) host = %q, want %q", tc.in, got, tc.host)
		}
	}
}

// TestParseURLSchemes: a URL of another scheme is refused with a message
// that says what it is (issue 16.8: "mailto:" used to get "user name or
// password", "javascript:" and "data:" "invalid port"), and a mistyped
// http URL is refused rather than read as a host named "http" (issue 17.7).
func TestParseURLSchemes(t *testing.T) {
	for _, tc := range []struct{ in, code, want string }{
		{"mailto:orders@shop.example", CodeScheme, "mailto: URL is an e-mail address"},
		{"MAILTO:orders@shop.example", CodeScheme, "e-mail address"},
		{"javascript:alert(1)", CodeScheme, "javascript: URL is a script"},
		{"data:text/html,<h1>hi</h1>", CodeScheme, "data: URL holds its content inline"},
		{"ftp://shop.example/", CodeScheme, "only http and https"},
		{"tel:+15555550100", CodeScheme, "only http and https URLs are allowed, not tel:"},
		{"http:/127.0.0.1/", CodeInvalidURL, "missing the // after http:"},
		{"https:shop.example", CodeInvalidURL, "missing the // after https:"},
		{"http://user:pw@shop.example/", CodeUserInfo, "user name or password"},
	} {
		_, err := ParseURL(tc.in)
		r, ok := IsRefused(err)
		if !ok || r.Code != tc.code || !strings.Contains(r.Reason, tc.want) {
			t.Errorf("ParseURL(%q) = %v, want %s saying %q", tc.in, err, tc.code, tc.want)
			continue
		}
		for _, wrong := range []string{"invalid port", "user name or password"} {
			if wrong != tc.want && strings.Contains(r.Reason, wrong) {
				t.Errorf("ParseURL(%q): misleading %q", tc.in, r.Reason)
			}
		}
	}
	// A host with a port is a host, not a scheme.
	for in, want := range map[string]string{
		"shop.example:8443":            "https://shop.example:8443",
		"shop.example:8443/p?x=1":      "https://shop.example:8443/p?x=1",
		"shop.example/r?u=https://x.y": "https://shop.example/r?u=https://x.y",
	} {
		u, err := ParseURL(in)
		if err != nil || u.String() != want {
			t.Errorf("ParseURL(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
}
