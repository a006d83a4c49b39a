package httpsig

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"time"
)

// Label is the signature label of svc's requests, the one the
// specification's examples use (signatures.md "REST Request Signing").
const Label = "sig1"

// Components are what a UCP request signature covers (signatures.md, "REST
// Request Signing", Signed Components, and overview "Identity Resolution
// Algorithm" step 5, which verifiers enforce): the request target
// (@method, @authority, @path; @query when there is a query), ucp-agent
// and idempotency-key when the request carries them, and the body when
// there is one (content-digest, content-type). The order is the
// specification's sign_rest_request.
func Components(method string, u *url.URL, h http.Header, hasBody bool) []string {
	c := []string{"@method", "@authority", "@path"}
	if u.RawQuery != "" || u.ForceQuery {
		c = append(c, "@query")
	}
	for _, f := range []string{"ucp-agent", "idempotency-key"} {
		if _, ok := fieldLines(h, f); ok {
			c = append(c, f)
		}
	}
	if hasBody {
		c = append(c, "content-digest", "content-type")
	}
	return c
}

// SignRequest signs a request of method to u with body, as UCP asks
// (signatures.md "REST Request Signing"; the MCP binding the same, its
// JSON-RPC message being the body): it sets Content-Digest (SHA-256 of the
// raw body) when there is a body, then Signature-Input and Signature under
// Label, covering Components with created (now) and keyid. h must already
// hold every header to be covered (UCP-Agent, Idempotency-Key,
// Content-Type). The signature is ES256 in the fixed-width r||s form of
// RFC 9421 section 3.3.4, never DER.
func (k *Key) SignRequest(method string, u *url.URL, h http.Header, body []byte, now time.Time) error {
	hasBody := len(body) > 0
	if hasBody {
		if _, ok := fieldLines(h, "content-type"); !ok {
			return fmt.Errorf("sign %s %s: a body without Content-Type", method, u.Redacted())
		}
		h.Set("Content-Digest", ContentDigest(body))
	}
	comps := Components(method, u, h, hasBody)
	p := Params{Created: now.Unix(), KeyID: k.KeyID()}
	base, err := SignatureBase(Message{Method: method, URL: u, Header: h}, comps, p)
	if err != nil {
		return fmt.Errorf("sign %s %s: %w", method, u.Redacted(), err)
	}
	sig, err := k.sign(base)
	if err != nil {
		return fmt.Errorf("sign %s %s: %w", method, u.Redacted(), err)
	}
	h.Set("Signature-Input", Label+"="+p.serialize(comps))
	h.Set("Signature", Label+"=:"+base64.StdEncoding.EncodeToString(sig)+":")
	return nil
}

// sign is ecdsa-p256-sha256 over base (RFC 9421 section 3.3.4): r and s,
// each big-endian and zero-padded to 32 bytes, concatenated.
func (k *Key) sign(base []byte) ([]byte, error) {
	sum := sha256.Sum256(base)
	r, s, err := ecdsa.Sign(rand.Reader, k.priv, sum[:])
	if err != nil {
		return nil, err
	}
	out := make([]byte, 64)
	r.FillBytes(out[:32])
	s.FillBytes(out[32:])
	return out, nil
}

// VerifyES256 reports whether sig is a valid ecdsa-p256-sha256 signature
// (64 bytes, r||s) of base by pub (RFC 9421 section 3.3.4).
func VerifyES256(pub *ecdsa.PublicKey, base, sig []byte) bool {
	if pub == nil || len(sig) != 64 {
		return false
	}
	sum := sha256.Sum256(base)
	r := new(big.Int).SetBytes(sig[:32])
	s := new(big.Int).SetBytes(sig[32:])
	return ecdsa.Verify(pub, sum[:], r, s)
}
