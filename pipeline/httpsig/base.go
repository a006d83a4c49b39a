package httpsig

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Message is what a signature base is built from (RFC 9421 section 2): a
// request (Method and URL) or a response (Status), and its header fields.
type Message struct {
	Method string
	URL    *url.URL // the target URI of a request
	Status int      // the status code of a response
	Header http.Header
}

// Params are the signature parameters (RFC 9421 section 2.3) svc uses,
// serialized in this order, each only when set: created, expires, keyid,
// nonce, tag. UCP wants no alg parameter (signatures.md "Signature
// Algorithms": the algorithm comes from the key's kty and crv).
type Params struct {
	Created int64 // Unix seconds; 0 leaves it out
	Expires int64
	KeyID   string
	Nonce   string
	Tag     string
}

// serialize is the inner list of components with the parameters, the
// value of a Signature-Input member and of the @signature-params line
// (RFC 9421 section 2.3).
func (p Params) serialize(components []string) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, c := range components {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(sfString(c))
	}
	b.WriteByte(')')
	if p.Created != 0 {
		b.WriteString(";created=" + strconv.FormatInt(p.Created, 10))
	}
	if p.Expires != 0 {
		b.WriteString(";expires=" + strconv.FormatInt(p.Expires, 10))
	}
	for _, sp := range []struct{ name, v string }{{"keyid", p.KeyID}, {"nonce", p.Nonce}, {"tag", p.Tag}} {
		if sp.v != "" {
			b.WriteString(";" + sp.name + "=" + sfString(sp.v))
		}
	}
	return b.String()
}

// sfString serializes an RFC 8941 sf-string: quoted, with " and \ escaped.
func sfString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// componentValue is the value of one covered component of m (RFC 9421
// section 2.1 for fields, 2.2 for the derived components svc signs).
func componentValue(m Message, name string) (string, error) {
	switch name {
	case "@method":
		if m.Method == "" {
			return "", fmt.Errorf("%s: not a request", name)
		}
		return m.Method, nil // case-sensitive, as sent (section 2.2.1)
	case "@authority":
		if m.URL == nil {
			return "", fmt.Errorf("%s: not a request", name)
		}
		return Authority(m.URL), nil
	case "@path":
		if m.URL == nil {
			return "", fmt.Errorf("%s: not a request", name)
		}
		if p := m.URL.EscapedPath(); p != "" {
			return p, nil
		}
		return "/", nil // an empty path is "/" (section 2.2.6)
	case "@query":
		if m.URL == nil {
			return "", fmt.Errorf("%s: not a request", name)
		}
		return "?" + m.URL.RawQuery, nil // "?" alone for none (section 2.2.7)
	case "@status":
		if m.Status == 0 {
			return "", fmt.Errorf("%s: not a response", name)
		}
		return strconv.Itoa(m.Status), nil
	}
	if strings.HasPrefix(name, "@") || name != strings.ToLower(name) || name == "" {
		return "", fmt.Errorf("component %q: not one svc signs", name)
	}
	vs, ok := fieldLines(m.Header, name)
	if !ok {
		return "", fmt.Errorf("component %q: the message has no such field", name)
	}
	// Section 2.1: each field line's value with leading and trailing
	// whitespace removed, the lines joined with ", ".
	trimmed := make([]string, len(vs))
	for i, v := range vs {
		trimmed[i] = strings.Trim(v, " \t")
	}
	return strings.Join(trimmed, ", "), nil
}

// fieldLines are the lines of the header field name (lower case) in h,
// found whatever the case of h's keys: a map literal such as
// http.Header{"UCP-Agent": ...} is sent as written, not canonicalised.
func fieldLines(h http.Header, name string) ([]string, bool) {
	if vs, ok := h[http.CanonicalHeaderKey(name)]; ok {
		return vs, true
	}
	var out []string
	found := false
	for k, vs := range h {
		if strings.EqualFold(k, name) {
			out, found = append(out, vs...), true
		}
	}
	return out, found
}

// Authority is the @authority of a target URI (RFC 9421 section 2.2.3):
// host and port in lower case, the port left out when it is the scheme's
// default.
func Authority(u *url.URL) string {
	host := strings.ToLower(u.Host)
	switch {
	case u.Scheme == "https" && strings.HasSuffix(host, ":443"):
		host = strings.TrimSuffix(host, ":443")
	case u.Scheme == "http" && strings.HasSuffix(host, ":80"):
		host = strings.TrimSuffix(host, ":80")
	}
	return host
}

// SignatureBase builds the signature base of m over components with params
// (RFC 9421 section 2.5): one line `"<component>": <value>` per component,
// then `"@signature-params": <inner list>`, joined by LF with none at the
// end. A component svc does not support, one named twice, or a field m
// lacks is an error.
func SignatureBase(m Message, components []string, p Params) ([]byte, error) {
	var b strings.Builder
	seen := map[string]bool{}
	for _, c := range components {
		if seen[c] {
			return nil, fmt.Errorf("signature base: component %q twice", c)
		}
		seen[c] = true
		v, err := componentValue(m, c)
		if err != nil {
			return nil, fmt.Errorf("signature base: %w", err)
		}
		if strings.ContainsAny(v, "\r\n") {
			return nil, fmt.Errorf("signature base: component %q: value holds a line break", c)
		}
		b.WriteString(sfString(c) + ": " + v + "\n")
	}
	b.WriteString(`"@signature-params": ` + p.serialize(components))
	return []byte(b.String()), nil
}

// ContentDigest is the Content-Digest field value of body with SHA-256,
// the one algorithm UCP uses (signatures.md "Headers": implementations
// MUST use sha-256): an RFC 8941 dictionary member whose value is the
// byte sequence of the digest (RFC 9530 section 2).
func ContentDigest(body []byte) string {
	sum := sha256.Sum256(body)
	return DigestField("sha-256", sum[:])
}

// DigestField is one Content-Digest member: algorithm=:base64(digest):.
func DigestField(alg string, digest []byte) string {
	return alg + "=:" + base64.StdEncoding.EncodeToString(digest) + ":"
}
