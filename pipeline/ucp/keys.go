package ucp

import (
	"crypto/ecdh"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"unsafe"
)

// privateMembers are JWK members that carry private key material.
var privateMembers = []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"}

// keys checks the published signing keys. From 2026-08-25 verifiers read the
// top-level keys array; before, signing_keys. Private material is reported in
// either array, the other rules apply to the one verifiers read.
func (c *checker) keys() {
	canonical, other := "keys", "signing_keys"
	modern := atLeast(c.release, "2026-08-25")
	if !modern {
		canonical, other = other, canonical
	}
	main, _ := c.doc[canonical].([]any)
	alt, _ := c.doc[other].([]any)
	switch {
	case modern && len(alt) > 0 && len(main) == 0:
		c.fs.rule(ruleKeysLocation, "/signing_keys", "signing keys must be published in the top-level keys array (a JWK Set) from UCP 2026-08-25; verifiers do not read signing_keys")
	case modern && len(alt) > 0:
		c.add(SevWarning, ruleKeysLocation, "/signing_keys", "signing_keys is ignored from UCP 2026-08-25; verifiers read only the top-level keys array")
	case !modern && len(alt) > 0 && len(main) == 0:
		c.add(SevWarning, ruleKeysLocation, "/keys", "UCP %s verifiers read signing keys from signing_keys; the top-level keys array is the 2026-08-25 location", c.release)
	}
	for i, v := range alt {
		if m, ok := v.(map[string]any); ok {
			k := readJWK(m)
			c.noPrivate("/"+other+"/"+itoa(i), &k)
		}
	}
	usable := 0
	es256 := false
	var kids firstPaths[string, string]
	for i, v := range main {
		m, ok := v.(map[string]any)
		if !ok {
			continue // the schema reports it
		}
		k := readJWK(m)
		p := "/" + canonical + "/" + itoa(i)
		c.noPrivate(p, &k)
		c.keyShape(p, &k)
		kty, _ := k.kty.(string)
		crv, _ := k.crv.(string)
		if kty == "EC" && crv == "P-256" {
			es256 = true
		}
		if kid, ok := k.kid.(string); ok {
			if first, dup := kids.get(kid); dup {
				c.fs.rule(ruleKidUnique, p+"/kid", "kid %q is also used at %s/kid; verifiers select keys by kid", kid, first)
			} else {
				kids.put(kid, p)
			}
			c.thumbprint(p, kid, &k)
		}
		if use, _ := k.use.(string); use == "enc" {
			continue
		}
		if ops, ok := k.keyOps.([]any); ok && !containsString(ops, "verify") {
			continue
		}
		usable++
	}
	if len(main) > 0 && !es256 {
		c.fs.rule(ruleES256, "/"+canonical, "no published key is EC P-256 (ES256), the one algorithm every verifier must support")
	}
	if len(main) > 0 && usable == 0 {
		c.fs.rule(ruleUnusable, "/"+canonical, "no published key is usable for signature verification (each is marked use \"enc\" or has key_ops without \"verify\")")
	}
	if c.capabilities["dev.ucp.shopping.order"] != nil && usable == 0 {
		c.fs.rule(ruleWebhookKeys, "/ucp/capabilities/dev.ucp.shopping.order", "order webhooks must be signed, and platforms find the verification keys only in the profile, which publishes no usable key in %s", canonical)
	}
}

// jwk is a published key with the members the rules read, each looked up
// once; a member that is absent is nil.
type jwk struct {
	kid, kty, crv, x, y, alg, use, keyOps any
	// present has a bit for each of the members above that is present,
	// private one for each of privateMembers.
	present, private uint8
}

// Bits of jwk.present.
const (
	jwkKid = 1 << iota
	jwkKty
	jwkCrv
	jwkX
	jwkY
	jwkAlg
	jwkUse
)

func readJWK(m map[string]any) jwk {
	var k jwk
	known := 0 // members found so far
	get := func(name string, bit uint8) any {
		v, ok := m[name]
		if ok {
			k.present |= bit
			known++
		}
		return v
	}
	k.kid, k.kty, k.crv = get("kid", jwkKid), get("kty", jwkKty), get("crv", jwkCrv)
	k.x, k.y, k.alg, k.use = get("x", jwkX), get("y", jwkY), get("alg", jwkAlg), get("use", jwkUse)
	k.keyOps = get("key_ops", 0)
	if known == len(m) {
		return k // no other member, so no private one
	}
	for i, name := range privateMembers {
		if _, ok := m[name]; ok {
			k.private |= 1 << i
		}
	}
	return k
}

// member returns the member of k named by one of the jwk bits.
func (k *jwk) member(bit uint8) (name string, v any, present bool) {
	switch bit {
	case jwkKid:
		name, v = "kid", k.kid
	case jwkKty:
		name, v = "kty", k.kty
	case jwkCrv:
		name, v = "crv", k.crv
	case jwkX:
		name, v = "x", k.x
	case jwkY:
		name, v = "y", k.y
	case jwkAlg:
		name, v = "alg", k.alg
	case jwkUse:
		name, v = "use", k.use
	}
	return name, v, k.present&bit != 0
}

// noPrivate reports private key members.
func (c *checker) noPrivate(p string, k *jwk) {
	if k.private == 0 {
		return
	}
	var buf [8]string
	found := buf[:0]
	for i, m := range privateMembers {
		if k.private&(1<<i) != 0 {
			found = append(found, m)
		}
	}
	if len(found) > 0 {
		c.fs.rule(ruleKeysPrivate, p, "the key contains private key material (%s); a profile publishes public keys only — remove it and rotate the key", strings.Join(found, ", "))
	}
}

// curveBytes is the coordinate length of each well-known curve.
var curveBytes = map[string]int{"P-256": 32, "P-384": 48, "Ed25519": 32}

// curveAlg is the algorithm each well-known curve pairs with.
var curveAlg = map[string]string{"P-256": "ES256", "P-384": "ES384", "Ed25519": "EdDSA"}

// keyShape checks the JWK members the spec requires, the curve/algorithm
// pairing and the coordinate encoding.
func (c *checker) keyShape(p string, k *jwk) {
	var missingBuf [5]string
	missing := missingBuf[:0]
	need := []uint8{jwkKid, jwkKty, jwkCrv, jwkX, jwkY}
	switch k.kty {
	case "EC":
	case "OKP":
		need = need[:4]
	default:
		need = need[:2]
	}
	for _, bit := range need {
		if m, _, ok := k.member(bit); !ok {
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		c.fs.rule(ruleKeysShape, p, "the key is missing %s", strings.Join(missing, ", "))
	}
	for _, bit := range []uint8{jwkKid, jwkKty, jwkCrv, jwkX, jwkY, jwkAlg, jwkUse} {
		if m, v, ok := k.member(bit); ok {
			if _, isString := v.(string); !isString {
				c.fs.rule(ruleKeysShape, p+"/"+m, "%s must be a string", m)
			}
		}
	}
	crv, _ := k.crv.(string)
	if alg, ok := k.alg.(string); ok {
		if want, known := curveAlg[crv]; known && alg != want {
			c.fs.rule(ruleKeysShape, p+"/alg", "a %s key must use alg %s, not %s", crv, want, alg)
		}
	}
	kty, _ := k.kty.(string)
	n, known := curveBytes[crv]
	if !known || (kty != "EC" && kty != "OKP") {
		return
	}
	coords := []uint8{jwkX, jwkY}
	if kty != "EC" {
		coords = coords[:1]
	}
	// point is the uncompressed point 0x04 || x || y; the coordinates are
	// decoded into it.
	var point [1 + 2*48]byte
	point[0] = 4
	off := 1
	for _, bit := range coords {
		m, v, _ := k.member(bit)
		s, ok := v.(string)
		if !ok {
			return
		}
		b, err := decodeBase64URL(point[off:], s)
		switch {
		case err != nil:
			c.fs.rule(ruleKeysEncoding, p+"/"+m, "%s is not unpadded base64url", m)
			return
		case len(b) != n:
			c.fs.rule(ruleKeysEncoding, p+"/"+m, "%s decodes to %d bytes; a %s coordinate has %d", m, len(b), crv, n)
			return
		}
		off += copy(point[off:], b) // in place, unless s was too long to decode there
	}
	if kty == "EC" {
		curve := ecdh.P256()
		if crv == "P-384" {
			curve = ecdh.P384()
		} else if crv != "P-256" {
			return
		}
		if _, err := curve.NewPublicKey(point[:off]); err != nil {
			c.fs.rule(ruleKeysEncoding, p, "x and y are not a point on %s", crv)
		}
	}
}

// thumbprint reports a kid that looks like an RFC 7638 SHA-256 thumbprint
// but is not this key's: it would break Web Bot Auth verification.
func (c *checker) thumbprint(p, kid string, k *jwk) {
	if len(kid) != 43 {
		return
	}
	for i := 0; i < len(kid); i++ {
		if c := kid[i]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return
		}
	}
	var members []uint8
	switch k.kty {
	case "EC":
		members = []uint8{jwkCrv, jwkKty, jwkX, jwkY}
	case "OKP":
		members = []uint8{jwkCrv, jwkKty, jwkX}
	default:
		return
	}
	var buf [256]byte
	b := append(buf[:0], '{')
	for i, bit := range members {
		m, v, _ := k.member(bit)
		s, ok := v.(string)
		if !ok {
			return
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, '"'), m...), `":`...)
		if plainJSONString(s) {
			b = append(append(append(b, '"'), s...), '"')
		} else {
			q, _ := json.Marshal(s)
			b = append(b, q...)
		}
	}
	b = append(b, '}')
	sum := sha256.Sum256(b)
	var enc [43]byte // base64url of 32 bytes
	base64.RawURLEncoding.Encode(enc[:], sum[:])
	if string(enc[:]) != kid {
		c.fs.rule(ruleThumbprint, p+"/kid", "the kid looks like a JWK thumbprint but this key's RFC 7638 thumbprint is %s; Web Bot Auth signatures look keys up by thumbprint", string(enc[:]))
	}
}

// decodeBase64URL is base64.RawURLEncoding.DecodeString(s), decoded into
// buf when it is large enough.
func decodeBase64URL(buf []byte, s string) ([]byte, error) {
	if base64.RawURLEncoding.DecodedLen(len(s)) > len(buf) {
		return base64.RawURLEncoding.DecodeString(s)
	}
	// Decode only reads its source: a view of s will do.
	n, err := base64.RawURLEncoding.Decode(buf, unsafe.Slice(unsafe.StringData(s), len(s)))
	return buf[:n], err
}

func containsString(list []any, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// plainJSONString reports whether s needs no escaping in JSON (and none of
// the HTML escaping json.Marshal adds).
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
