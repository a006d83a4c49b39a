// Package httpsig signs svc's UCP requests with HTTP Message Signatures
// (RFC 9421) and Content-Digest (RFC 9530), as the official UCP
// specification's Message Signatures page asks
// (github.com/Universal-Commerce-Protocol/ucp, docs/specification/
// signatures.md): ES256 (ECDSA P-256 with SHA-256, the one algorithm every
// UCP verifier must support), the signature label sig1, the keyid of a key
// published in svc's platform profile as a JWK. It holds svc's own key
// (Key), builds signature bases and signs; it is a leaf that imports
// nothing of svc, so the pipeline (which signs) and `svc serve` (which
// publishes the public key) share it.
package httpsig

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"strings"
)

// Key is svc's signing key: an ECDSA P-256 private key and its key id, the
// RFC 7638 SHA-256 thumbprint of its public JWK (what Web Bot Auth
// verifiers look keys up by, and a stable id for any other verifier).
// Formatting a Key (%v, %+v, %#v, slog) shows the key id only: the private
// key never reaches a log.
type Key struct {
	priv *ecdsa.PrivateKey
	pub  JWK
}

// ErrKey is a key svc cannot sign with: not P-256, not a private key, or
// not parseable.
var ErrKey = errors.New("not an ECDSA P-256 private key")

// GenerateKey makes a fresh key.
func GenerateKey() (*Key, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate signing key: %w", err)
	}
	return newKey(priv)
}

func newKey(priv *ecdsa.PrivateKey) (*Key, error) {
	if priv == nil || priv.Curve != elliptic.P256() {
		return nil, ErrKey
	}
	pt, err := priv.PublicKey.Bytes() // 0x04 || x || y
	if err != nil || len(pt) != 65 {
		return nil, ErrKey
	}
	j := JWK{Kty: "EC", Crv: "P-256",
		X: base64.RawURLEncoding.EncodeToString(pt[1:33]), Y: base64.RawURLEncoding.EncodeToString(pt[33:]),
		Use: "sig", Alg: "ES256"}
	j.Kid, err = Thumbprint(map[string]string{"kty": j.Kty, "crv": j.Crv, "x": j.X, "y": j.Y})
	if err != nil {
		return nil, err
	}
	return &Key{priv: priv, pub: j}, nil
}

// ParseKey reads a key from a PEM block (PKCS #8 "PRIVATE KEY" or SEC 1 "EC
// PRIVATE KEY") or from a JWK with its private member d (kty EC, crv
// P-256). The error never quotes the input.
func ParseKey(b []byte) (*Key, error) {
	s := strings.TrimSpace(string(b))
	if strings.HasPrefix(s, "{") {
		return parseJWK([]byte(s))
	}
	block, _ := pem.Decode([]byte(s))
	if block == nil {
		return nil, fmt.Errorf("parse signing key: %w: want PEM or a JWK", ErrKey)
	}
	var priv any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		priv, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		priv, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("parse signing key: %w: PEM block %q", ErrKey, block.Type)
	}
	ec, ok := priv.(*ecdsa.PrivateKey)
	if err != nil || !ok {
		return nil, fmt.Errorf("parse signing key: %w", ErrKey)
	}
	k, err := newKey(ec)
	if err != nil {
		return nil, fmt.Errorf("parse signing key: %w", err)
	}
	return k, nil
}

func parseJWK(b []byte) (*Key, error) {
	var j struct{ Kty, Crv, X, Y, D string }
	if json.Unmarshal(b, &j) != nil || j.Kty != "EC" || j.Crv != "P-256" || j.D == "" {
		return nil, fmt.Errorf("parse signing key: %w: want a JWK with kty EC, crv P-256 and d", ErrKey)
	}
	d, err := base64.RawURLEncoding.DecodeString(j.D)
	if err != nil || len(d) != 32 {
		return nil, fmt.Errorf("parse signing key: %w: d is not 32 bytes of base64url", ErrKey)
	}
	priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d)
	if err != nil {
		return nil, fmt.Errorf("parse signing key: %w", ErrKey)
	}
	k, err := newKey(priv)
	if err != nil {
		return nil, err
	}
	// A JWK that names x and y must name this key's.
	if (j.X != "" || j.Y != "") && (j.X != k.pub.X || j.Y != k.pub.Y) {
		return nil, fmt.Errorf("parse signing key: %w: x and y are not the public key of d", ErrKey)
	}
	return k, nil
}

// MarshalPEM is the key as a PKCS #8 PEM block, the form the state store
// keeps. The bytes hold the private key: write them only where the key is
// kept (mode 0600), never to a log or an answer.
func (k *Key) MarshalPEM() ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k.priv)
	if err != nil {
		return nil, fmt.Errorf("marshal signing key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// KeyID is the key's kid: its RFC 7638 SHA-256 thumbprint.
func (k *Key) KeyID() string { return k.pub.Kid }

// PublicJWK is the public key as the platform profile publishes it (UCP
// signatures.md "Key Format (JWK)": kid, kty EC, crv P-256, x, y, use sig,
// alg ES256). JWK has no private member, so none can be published.
func (k *Key) PublicJWK() JWK { return k.pub }

// Public is the public key.
func (k *Key) Public() *ecdsa.PublicKey { return &k.priv.PublicKey }

// String names the key by its id only.
func (k *Key) String() string { return "ES256 key " + k.pub.Kid }

// GoString is String, for %#v.
func (k *Key) GoString() string { return k.String() }

// LogValue is the key id, for slog.
func (k *Key) LogValue() slog.Value { return slog.StringValue(k.String()) }

// JWK is a public JSON Web Key (RFC 7517) of the kinds UCP profiles
// publish. It has no member for private key material.
type JWK struct {
	Kid string `json:"kid"`
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y,omitempty"`
	Use string `json:"use,omitempty"`
	Alg string `json:"alg,omitempty"`
}

// thumbprintMembers are the required members of each key type, the only
// ones an RFC 7638 thumbprint hashes (RFC 7638 section 3.2; RFC 8037
// section 2 for OKP).
var thumbprintMembers = map[string][]string{
	"EC":  {"crv", "kty", "x", "y"},
	"OKP": {"crv", "kty", "x"},
	"RSA": {"e", "kty", "n"},
}

// Thumbprint is the RFC 7638 SHA-256 thumbprint of a JWK given as its
// string members, base64url without padding: the SHA-256 of the JSON
// object of the key type's required members in lexicographic order, with
// no whitespace (RFC 7638 section 3).
func Thumbprint(members map[string]string) (string, error) {
	names, ok := thumbprintMembers[members["kty"]]
	if !ok {
		return "", fmt.Errorf("jwk thumbprint: key type %q", members["kty"])
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, name := range names { // already in lexicographic order
		v, ok := members[name]
		if !ok || v == "" {
			return "", fmt.Errorf("jwk thumbprint: %s key without %s", members["kty"], name)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		q, _ := json.Marshal(v) // members are base64url and short names: no escaping happens
		b.WriteString(`"` + name + `":`)
		b.Write(q)
	}
	b.WriteByte('}')
	sum := sha256.Sum256([]byte(b.String()))
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}
