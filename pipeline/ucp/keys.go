package ucp

import (
	"crypto/ecdh"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
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
		if k, ok := v.(map[string]any); ok {
			c.noPrivate("/"+other+"/"+itoa(i), k)
		}
	}
	usable := 0
	es256 := false
	kids := map[string]string{}
	for i, v := range main {
		k, ok := v.(map[string]any)
		if !ok {
			continue // the schema reports it
		}
		p := "/" + canonical + "/" + itoa(i)
		c.noPrivate(p, k)
		c.keyShape(p, k)
		kty, _ := k["kty"].(string)
		crv, _ := k["crv"].(string)
		if kty == "EC" && crv == "P-256" {
			es256 = true
		}
		if kid, ok := k["kid"].(string); ok {
			if first, dup := kids[kid]; dup {
				c.fs.rule(ruleKidUnique, p+"/kid", "kid %q is also used at %s; verifiers select keys by kid", kid, first)
			} else {
				kids[kid] = p + "/kid"
			}
			c.thumbprint(p, kid, k)
		}
		if use, _ := k["use"].(string); use == "enc" {
			continue
		}
		if ops, ok := k["key_ops"].([]any); ok && !containsString(ops, "verify") {
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

// noPrivate reports private key members.
func (c *checker) noPrivate(p string, k map[string]any) {
	var found []string
	for _, m := range privateMembers {
		if _, ok := k[m]; ok {
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
func (c *checker) keyShape(p string, k map[string]any) {
	var missing []string
	need := []string{"kid", "kty"}
	switch k["kty"] {
	case "EC":
		need = append(need, "crv", "x", "y")
	case "OKP":
		need = append(need, "crv", "x")
	}
	for _, m := range need {
		if _, ok := k[m]; !ok {
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		c.fs.rule(ruleKeysShape, p, "the key is missing %s", strings.Join(missing, ", "))
	}
	for _, m := range []string{"kid", "kty", "crv", "x", "y", "alg", "use"} {
		if v, ok := k[m]; ok {
			if _, isString := v.(string); !isString {
				c.fs.rule(ruleKeysShape, p+"/"+m, "%s must be a string", m)
			}
		}
	}
	crv, _ := k["crv"].(string)
	if alg, ok := k["alg"].(string); ok {
		if want, known := curveAlg[crv]; known && alg != want {
			c.fs.rule(ruleKeysShape, p+"/alg", "a %s key must use alg %s, not %s", crv, want, alg)
		}
	}
	kty, _ := k["kty"].(string)
	n, known := curveBytes[crv]
	if !known || (kty != "EC" && kty != "OKP") {
		return
	}
	coords := []string{"x"}
	if kty == "EC" {
		coords = append(coords, "y")
	}
	var raw [][]byte
	for _, m := range coords {
		s, ok := k[m].(string)
		if !ok {
			return
		}
		b, err := base64.RawURLEncoding.DecodeString(s)
		switch {
		case err != nil:
			c.fs.rule(ruleKeysEncoding, p+"/"+m, "%s is not unpadded base64url", m)
			return
		case len(b) != n:
			c.fs.rule(ruleKeysEncoding, p+"/"+m, "%s decodes to %d bytes; a %s coordinate has %d", m, len(b), crv, n)
			return
		}
		raw = append(raw, b)
	}
	if kty == "EC" {
		curve := ecdh.P256()
		if crv == "P-384" {
			curve = ecdh.P384()
		} else if crv != "P-256" {
			return
		}
		point := append(append([]byte{4}, raw[0]...), raw[1]...)
		if _, err := curve.NewPublicKey(point); err != nil {
			c.fs.rule(ruleKeysEncoding, p, "x and y are not a point on %s", crv)
		}
	}
}

// thumbprint reports a kid that looks like an RFC 7638 SHA-256 thumbprint
// but is not this key's: it would break Web Bot Auth verification.
func (c *checker) thumbprint(p, kid string, k map[string]any) {
	if len(kid) != 43 || strings.Trim(kid, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
		return
	}
	var members []string
	switch k["kty"] {
	case "EC":
		members = []string{"crv", "kty", "x", "y"}
	case "OKP":
		members = []string{"crv", "kty", "x"}
	default:
		return
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range members {
		s, ok := k[m].(string)
		if !ok {
			return
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + m + `":`)
		if plainJSONString(s) {
			b.WriteByte('"')
			b.WriteString(s)
			b.WriteByte('"')
		} else {
			q, _ := json.Marshal(s)
			b.Write(q)
		}
	}
	b.WriteByte('}')
	sum := sha256.Sum256([]byte(b.String()))
	if want := base64.RawURLEncoding.EncodeToString(sum[:]); want != kid {
		c.fs.rule(ruleThumbprint, p+"/kid", "the kid looks like a JWK thumbprint but this key's RFC 7638 thumbprint is %s; Web Bot Auth signatures look keys up by thumbprint", want)
	}
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
