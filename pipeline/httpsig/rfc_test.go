package httpsig

import (
	"bufio"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The test vectors of this file are the standards' own, each named where
// it is used. ECDSA signatures are randomized, so an RFC's ECDSA signature
// is verified, never reproduced; the signature bases are reproduced byte
// for byte.

// RFC 9421 Appendix B.1.3, test-key-ecc-p256: the private key as the RFC
// prints it (SEC 1 PEM), and its public coordinates and d as a JWK (the
// same key in the JWK form other test suites use, e.g. authlete's
// http-message-signatures RFC9421Test, cross-checked below).
const (
	rfcECCPrivatePEM = `-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIFKbhfNZfpDsW43+0+JjUr9K+bTeuxopu653+hBaXGA7oAoGCCqGSM49
AwEHoUQDQgAEqIVYZVLCrPZHGHjP17CTW0/+D9Lfw0EkjqF7xB4FivAxzic30tMM
4GF+hR6Dxh71Z50VGGdldkkDXZCnTNnoXQ==
-----END EC PRIVATE KEY-----`
	rfcECCX = "qIVYZVLCrPZHGHjP17CTW0_-D9Lfw0EkjqF7xB4FivA"
	rfcECCY = "Mc4nN9LTDOBhfoUeg8Ye9WedFRhnZXZJA12Qp0zZ6F0"
	rfcECCD = "UpuF81l-kOxbjf7T4mNSv0r5tN67Gim7rnf6EFpcYDs"
)

// TestRFC9421ResponseECDSA is RFC 9421 Appendix B.2.4, "Signing a Response
// Using ecdsa-p256-sha256": our signature base of the RFC's test-response
// (Appendix B.2) is the RFC's byte for byte, the RFC's signature verifies
// over it with test-key-ecc-p256, and it fails over a base one byte off.
func TestRFC9421ResponseECDSA(t *testing.T) {
	k, err := ParseKey([]byte(rfcECCPrivatePEM))
	if err != nil {
		t.Fatal(err)
	}
	if j := k.PublicJWK(); j.X != rfcECCX || j.Y != rfcECCY {
		t.Fatalf("the RFC's PEM gives x %s y %s, want the RFC's JWK %s %s", j.X, j.Y, rfcECCX, rfcECCY)
	}
	kj, err := ParseKey([]byte(`{"kty":"EC","crv":"P-256","x":"` + rfcECCX + `","y":"` + rfcECCY + `","d":"` + rfcECCD + `"}`))
	if err != nil || kj.KeyID() != k.KeyID() {
		t.Fatalf("the JWK form of the key: %v, kid %v vs %s", err, kj, k.KeyID())
	}
	// test-response of Appendix B.2.
	resp := Message{Status: 200, Header: http.Header{
		"Date":           {"Tue, 20 Apr 2021 02:07:56 GMT"},
		"Content-Type":   {"application/json"},
		"Content-Digest": {"sha-512=:mEWXIS7MaLRuGgxOBdODa3xqM1XdEvxoYhvlCFJ41QJgJc4GTsPp29l5oGX69wWdXymyU0rjJuahq4l5aGgfLQ==:"},
		"Content-Length": {"23"},
	}}
	comps := []string{"@status", "content-type", "content-digest", "content-length"}
	p := Params{Created: 1618884473, KeyID: "test-key-ecc-p256"}
	want := `"@status": 200
"content-type": application/json
"content-digest": sha-512=:mEWXIS7MaLRuGgxOBdODa3xqM1XdEvxoYhvlCFJ41QJgJc4GTsPp29l5oGX69wWdXymyU0rjJuahq4l5aGgfLQ==:
"content-length": 23
"@signature-params": ("@status" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-ecc-p256"`
	base, err := SignatureBase(resp, comps, p)
	if err != nil {
		t.Fatal(err)
	}
	if string(base) != want {
		t.Fatalf("signature base:\n%s\nwant the RFC's:\n%s", base, want)
	}
	if in := "sig-b24=" + p.serialize(comps); in != `sig-b24=("@status" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-ecc-p256"` {
		t.Errorf("Signature-Input %s", in)
	}
	sig, _ := base64.StdEncoding.DecodeString("wNmSUAhwb5LxtOtOpNa6W5xj067m5hFrj0XQ4fvpaCLx0NKocgPquLgyahnzDnDAUy5eCdlYUEkLIj+32oiasw==")
	if !VerifyES256(k.Public(), base, sig) {
		t.Fatal("the RFC's signature does not verify over our base")
	}
	off := append([]byte(nil), base...)
	off[len(off)-2] = 'x'
	if VerifyES256(k.Public(), off, sig) {
		t.Error("the RFC's signature verifies over another base: the check cannot fail")
	}
	// Our own signature of the same base verifies; another key's does not.
	own, err := k.sign(base)
	if err != nil || len(own) != 64 || !VerifyES256(k.Public(), base, own) {
		t.Fatalf("own signature: %v, %d bytes", err, len(own))
	}
	other, _ := GenerateKey()
	if VerifyES256(other.Public(), base, own) {
		t.Error("a signature verifies under another key")
	}
	// The response digest is the body's (RFC 9530 computation).
	sum := sha512.Sum512([]byte(`{"message": "good dog"}`))
	if got := DigestField("sha-512", sum[:]); got != resp.Header.Get("Content-Digest") {
		t.Errorf("digest of the test-response body %s, want the RFC's", got)
	}
}

// rfcTestRequest is the test-request of RFC 9421 Appendix B.2.
const rfcTestRequest = "POST /foo?param=Value&Pet=dog HTTP/1.1\r\n" +
	"Host: example.com\r\n" +
	"Date: Tue, 20 Apr 2021 02:07:55 GMT\r\n" +
	"Content-Type: application/json\r\n" +
	"Content-Digest: sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:\r\n" +
	"Content-Length: 18\r\n" +
	"\r\n" +
	`{"hello": "world"}`

// rfcRequest parses the test-request into a Message, its target the URL
// the request names on its Host.
func rfcRequest(t *testing.T) (Message, []byte) {
	t.Helper()
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(rfcTestRequest)))
	if err != nil {
		t.Fatal(err)
	}
	u := *req.URL
	u.Scheme, u.Host = "https", req.Host
	body := make([]byte, req.ContentLength)
	if _, err := req.Body.Read(body); err != nil && len(body) == 0 {
		t.Fatal(err)
	}
	return Message{Method: req.Method, URL: &u, Header: req.Header}, body
}

// TestRFC9421RequestBase is RFC 9421 Appendix B.2.6, "Signing a Request
// Using ed25519": our signature base of the test-request over the
// example's components (derived @method, @path, @authority among fields)
// is the RFC's byte for byte, and the RFC's Ed25519 signature, made with
// test-key-ed25519 (Appendix B.1.4), verifies over it. Ed25519 is
// deterministic and svc does not sign with it; the stdlib verifier is the
// oracle that our base is the one the RFC signed.
func TestRFC9421RequestBase(t *testing.T) {
	m, body := rfcRequest(t)
	comps := []string{"date", "@method", "@path", "@authority", "content-type", "content-length"}
	p := Params{Created: 1618884473, KeyID: "test-key-ed25519"}
	want := `"date": Tue, 20 Apr 2021 02:07:55 GMT
"@method": POST
"@path": /foo
"@authority": example.com
"content-type": application/json
"content-length": 18
"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`
	base, err := SignatureBase(m, comps, p)
	if err != nil {
		t.Fatal(err)
	}
	if string(base) != want {
		t.Fatalf("signature base:\n%s\nwant the RFC's:\n%s", base, want)
	}
	// test-key-ed25519's public key (RFC 9421 Appendix B.1.4), as the JWK x
	// the UCP specification's OKP example publishes (signatures.md "Key
	// Format (JWK)").
	pub, _ := base64.RawURLEncoding.DecodeString("JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs")
	sig, _ := base64.StdEncoding.DecodeString("wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==")
	if !ed25519.Verify(pub, base, sig) {
		t.Fatal("the RFC's Ed25519 signature does not verify over our base")
	}
	// The request's Content-Digest is its body's (RFC 9530 computation).
	sum := sha512.Sum512(body)
	if got := DigestField("sha-512", sum[:]); got != m.Header.Get("Content-Digest") {
		t.Errorf("digest of the test-request body %s, want the RFC's", got)
	}
}

// TestDerivedComponents: the derived components' values of RFC 9421
// section 2.2's examples.
func TestDerivedComponents(t *testing.T) {
	for _, c := range []struct{ target, name, want string }{
		{"https://www.example.com/path?param=value", "@authority", "www.example.com"},                                      // 2.2.3
		{"https://www.example.com:443/path?param=value", "@authority", "www.example.com"},                                  // default port dropped
		{"https://www.example.com:8443/path", "@authority", "www.example.com:8443"},                                        // other ports kept
		{"https://www.example.com/path?param=value", "@path", "/path"},                                                     // 2.2.6
		{"https://www.example.com", "@path", "/"},                                                                          // 2.2.6: empty path
		{"https://www.example.com/path?param=value&foo=bar&baz=bat%2Dman", "@query", "?param=value&foo=bar&baz=bat%2Dman"}, // 2.2.7
		{"https://www.example.com/path?queryString", "@query", "?queryString"},                                             // 2.2.7
		{"https://www.example.com/path", "@query", "?"},                                                                    // 2.2.7: no query
	} {
		u, _ := url.Parse(c.target)
		got, err := componentValue(Message{Method: "GET", URL: u}, c.name)
		if err != nil || got != c.want {
			t.Errorf("%s of %s: %q %v, want %q", c.name, c.target, got, err, c.want)
		}
	}
	// Section 2.1: several field lines join with ", ", each trimmed.
	got, err := componentValue(Message{Header: http.Header{"Cache-Control": {"   max-age=60", "must-revalidate  "}}}, "cache-control")
	if err != nil || got != "max-age=60, must-revalidate" {
		t.Errorf("combined field %q %v", got, err)
	}
	for _, bad := range []string{"@target-uri", "Content-Type", "", "x-missing"} {
		if _, err := componentValue(Message{Method: "GET", URL: &url.URL{Host: "a"}, Header: http.Header{}}, bad); err == nil {
			t.Errorf("component %q: no error", bad)
		}
	}
}

// TestContentDigestRFC9530: Content-Digest of the RFC 9530 examples. The
// body {"hello": "world"} followed by a line feed is the representation of
// RFC 9530's examples: sha-512 as in its section 2, sha-256 as in its
// Appendix B (and in the UCP specification's signed MCP request,
// signatures.md "MCP Transport"); without the line feed it is RFC 9421's
// test-request body, whose sha-256 digest the UCP specification's signed
// REST request begins with (X48E9q...).
func TestContentDigestRFC9530(t *testing.T) {
	nl := []byte("{\"hello\": \"world\"}\n")
	if got := ContentDigest(nl); got != "sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:" {
		t.Errorf("sha-256 %s", got)
	}
	sum := sha512.Sum512(nl)
	if got := DigestField("sha-512", sum[:]); got != "sha-512=:YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg==:" {
		t.Errorf("sha-512 %s", got)
	}
	if got := ContentDigest([]byte(`{"hello": "world"}`)); got != "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:" {
		t.Errorf("sha-256 without the line feed %s", got)
	}
	empty := sha256.Sum256(nil)
	if got := ContentDigest(nil); got != DigestField("sha-256", empty[:]) {
		t.Errorf("empty body %s", got)
	}
}

// TestThumbprint: RFC 7638 thumbprints of public test vectors.
func TestThumbprint(t *testing.T) {
	for _, c := range []struct {
		source  string
		members map[string]string
		want    string
	}{
		{"RFC 7638 section 3.1 (RSA)", map[string]string{"kty": "RSA", "e": "AQAB", "alg": "RS256", "kid": "2011-04-29",
			"n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"},
			"NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"},
		// golang.org/x/crypto/acme jws_test.go TestJWKThumbprintEC: the
		// P-521 key of RFC 7520 section 3.1.
		{"x/crypto acme TestJWKThumbprintEC (EC P-521)", map[string]string{"kty": "EC", "crv": "P-521",
			"x": "AHKZLLOsCOzz5cY97ewNUajB957y-C-U88c3v13nmGZx6sYl_oJXu9A5RkTKqjqvjyekWF-7ytDyRXYgCF5cj0Kt",
			"y": "AdymlHvOiLxXkEhayXQnNCvDX4h9htZaCJN34kfmC6pV5OhQHiraVySsUdaQkAgDPrwQrJmbnX9cwlGfP-HqHZR1"},
			"dHri3SADZkrush5HU_50AoRhcKFryN-PI6jPBtPL55M"},
		{"RFC 8037 Appendix A.3 (OKP Ed25519)", map[string]string{"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
			"kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"},
		// UCP signatures.md "Key Format (JWK)": the OKP example (RFC 9421's
		// test-key-ed25519) carries its thumbprint as kid.
		{"UCP signatures.md OKP example", map[string]string{"kty": "OKP", "crv": "Ed25519", "x": "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs", "use": "sig"},
			"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"},
	} {
		got, err := Thumbprint(c.members)
		if err != nil || got != c.want {
			t.Errorf("%s: %s %v, want %s", c.source, got, err, c.want)
		}
	}
	for _, bad := range []map[string]string{{"kty": "oct", "k": "AA"}, {"kty": "EC", "crv": "P-256", "x": "AA"}, {}} {
		if _, err := Thumbprint(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
