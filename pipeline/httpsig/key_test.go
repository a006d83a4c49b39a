package httpsig

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestKeyRoundTrip: a generated key survives its PEM form with its kid,
// the kid is the thumbprint of the published JWK, and the JWK has no
// private member.
func TestKeyRoundTrip(t *testing.T) {
	k, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	p, err := k.MarshalPEM()
	if err != nil || !bytes.HasPrefix(p, []byte("-----BEGIN PRIVATE KEY-----")) {
		t.Fatalf("PEM %v", err)
	}
	back, err := ParseKey(p)
	if err != nil || back.KeyID() != k.KeyID() || back.PublicJWK() != k.PublicJWK() {
		t.Fatalf("round trip: %v %v", err, back)
	}
	j := k.PublicJWK()
	tp, err := Thumbprint(map[string]string{"kty": j.Kty, "crv": j.Crv, "x": j.X, "y": j.Y})
	if err != nil || tp != j.Kid || len(j.Kid) != 43 {
		t.Errorf("kid %s, thumbprint %s %v", j.Kid, tp, err)
	}
	b, _ := json.Marshal(j)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	for _, priv := range []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"} {
		if _, ok := m[priv]; ok {
			t.Errorf("the published JWK has %q: %s", priv, b)
		}
	}
	if m["kty"] != "EC" || m["crv"] != "P-256" || m["alg"] != "ES256" || m["use"] != "sig" {
		t.Errorf("JWK %s", b)
	}
}

// TestKeyNeverPrinted: every way a key is formatted or logged shows its
// id and none of its private scalar.
func TestKeyNeverPrinted(t *testing.T) {
	k, err := ParseKey([]byte(rfcECCPrivatePEM))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := base64.RawURLEncoding.DecodeString(rfcECCD)
	secrets := []string{rfcECCD, base64.StdEncoding.EncodeToString(d), fmt.Sprintf("%x", d), "MHcCAQEEIFKbhfNZ"}
	dec := new(strings.Builder)
	for _, b := range d[:8] {
		fmt.Fprintf(dec, "%d", b)
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("signing", "key", k)
	slog.New(slog.NewTextHandler(&buf, nil)).Info("signing", "key", k)
	outs := []string{fmt.Sprint(k), fmt.Sprintf("%v %+v %#v %s", k, k, k, k), fmt.Sprintf("%v", []*Key{k}), buf.String()}
	for _, out := range outs {
		if !strings.Contains(out, k.KeyID()) {
			t.Errorf("%q does not name the key id", out)
		}
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%q shows the private key", out)
			}
		}
	}
}

// TestParseKeyRefuses: what is not a P-256 private key is refused, and the
// error never echoes the input.
func TestParseKeyRefuses(t *testing.T) {
	for name, in := range map[string]string{
		"empty":        "",
		"text":         "not a key",
		"public PEM":   "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEqIVYZVLCrPZHGHjP17CTW0/+D9Lf\nw0EkjqF7xB4FivAxzic30tMM4GF+hR6Dxh71Z50VGGdldkkDXZCnTNnoXQ==\n-----END PUBLIC KEY-----\n",
		"public JWK":   `{"kty":"EC","crv":"P-256","x":"` + rfcECCX + `","y":"` + rfcECCY + `"}`,
		"P-384 JWK":    `{"kty":"EC","crv":"P-384","d":"` + rfcECCD + `"}`,
		"short d":      `{"kty":"EC","crv":"P-256","d":"AAAA"}`,
		"x of another": `{"kty":"EC","crv":"P-256","d":"` + rfcECCD + `","x":"` + rfcECCY + `","y":"` + rfcECCX + `"}`,
		"bad PEM body": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
	} {
		_, err := ParseKey([]byte(in))
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if strings.Contains(err.Error(), rfcECCD) || strings.Contains(err.Error(), "AAAA") {
			t.Errorf("%s: error echoes the input: %v", name, err)
		}
	}
}

// TestSignRequest: a signed UCP request carries the components UCP
// requires (signatures.md "REST Request Signing"), a Content-Digest of
// the body, created and keyid but no alg, and the signature verifies over
// the base rebuilt from what was sent; a changed body or header does not.
func TestSignRequest(t *testing.T) {
	k, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_790_000_000, 0)
	for _, c := range []struct {
		method, target string
		body           []byte
		idem           bool
		want           string
	}{
		{http.MethodPost, "https://Shop.TEST:443/ucp/v1/checkout-sessions", []byte(`{"line_items":[]}`), true,
			`("@method" "@authority" "@path" "ucp-agent" "idempotency-key" "content-digest" "content-type")`},
		{http.MethodGet, "https://shop.test/ucp/v1/checkout-sessions/chk%2F1", nil, false, `("@method" "@authority" "@path" "ucp-agent")`},
		{http.MethodGet, "https://shop.test/ucp/v1/x?a=1", nil, false, `("@method" "@authority" "@path" "@query" "ucp-agent")`},
	} {
		u, _ := url.Parse(c.target)
		// Keys as a map literal writes them, not canonicalised: the UCP
		// path's headers are such literals, sent as written.
		h := http.Header{"UCP-Agent": {`profile="https://svc.example/.well-known/ucp"`}, "Request-Id": {"r"}}
		if c.idem {
			h.Set("Idempotency-Key", "550e8400-e29b-41d4-a716-446655440000")
		}
		if c.body != nil {
			h.Set("Content-Type", "application/json")
		}
		if err := k.SignRequest(c.method, u, h, c.body, now); err != nil {
			t.Fatal(err)
		}
		in := h.Get("Signature-Input")
		wantIn := Label + "=" + c.want + `;created=1790000000;keyid="` + k.KeyID() + `"`
		if in != wantIn {
			t.Errorf("%s %s: Signature-Input %s\nwant %s", c.method, c.target, in, wantIn)
		}
		if c.body != nil && h.Get("Content-Digest") != ContentDigest(c.body) {
			t.Errorf("Content-Digest %q", h.Get("Content-Digest"))
		}
		if strings.Contains(in, "alg=") || strings.Contains(in, "tag=") {
			t.Errorf("Signature-Input %s: UCP signs without alg or tag", in)
		}
		sv := h.Get("Signature")
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(sv, Label+"=:"), ":"))
		if err != nil || len(raw) != 64 {
			t.Fatalf("Signature %q: want 64 bytes r||s", sv)
		}
		comps := Components(c.method, u, h, c.body != nil)
		m := Message{Method: c.method, URL: u, Header: h}
		base, _ := SignatureBase(m, comps, Params{Created: now.Unix(), KeyID: k.KeyID()})
		if !VerifyES256(k.Public(), base, raw) {
			t.Fatalf("%s %s: the signature does not verify", c.method, c.target)
		}
		if !slices.Contains(strings.Split(string(base), "\n"), `"@authority": shop.test`) {
			t.Errorf("authority not normalised:\n%s", base)
		}
		h2 := h.Clone()
		h2["UCP-Agent"] = []string{`profile="https://evil.example/.well-known/ucp"`}
		base2, _ := SignatureBase(Message{Method: c.method, URL: u, Header: h2}, comps, Params{Created: now.Unix(), KeyID: k.KeyID()})
		if VerifyES256(k.Public(), base2, raw) {
			t.Errorf("%s %s: verifies with another UCP-Agent", c.method, c.target)
		}
	}
	// A body needs a Content-Type to be covered.
	u, _ := url.Parse("https://shop.test/ucp/v1/carts")
	if err := k.SignRequest(http.MethodPost, u, http.Header{}, []byte("{}"), now); err == nil {
		t.Error("a body without Content-Type was signed")
	}
}
