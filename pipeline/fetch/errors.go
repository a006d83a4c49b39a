package fetch

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
)

// Codes of a RefusedError: stable strings callers may show or map.
const (
	CodeInvalidURL     = "invalid_url"
	CodeScheme         = "unsupported_scheme"
	CodeUserInfo       = "userinfo_not_allowed"
	CodeBlockedAddress = "blocked_address"
	CodeTooManyRedir   = "too_many_redirects"
)

// ErrRefused is matched (errors.Is) by every RefusedError: the request was
// never sent because the URL or its destination is not allowed. Callers turn
// it into a 400-style answer with the error's message.
var ErrRefused = errors.New("request refused")

// Failures after a request was allowed; callers usually map these to
// "store unreachable".
var (
	ErrTooLarge = errors.New("response body over the size limit")
	ErrTimeout  = errors.New("request timed out")
)

// RefusedError says which URL was refused and why, in words a user can act on.
type RefusedError struct {
	URL    string // redacted
	Code   string // one of the Code* constants
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused %s: %s", e.URL, e.Reason)
}

// Is makes errors.Is(err, ErrRefused) true for every RefusedError.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

func refuse(url, code, reason string) error {
	return &RefusedError{URL: url, Code: code, Reason: reason}
}

// IsRefused reports whether err is a refusal and returns it.
func IsRefused(err error) (*RefusedError, bool) {
	var r *RefusedError
	ok := errors.As(err, &r)
	return r, ok
}

// Classes of a NetError: what went wrong, in words that hold no address,
// resolver, port or raw error text, so they may be shown to anyone.
const (
	ClassDNS        = "DNS lookup failed"
	ClassRefused    = "connection refused"
	ClassReset      = "connection reset"
	ClassClosed     = "connection closed before an answer"
	ClassUnreach    = "network unreachable"
	ClassTimeout    = "timed out"
	ClassTLS        = "TLS handshake failed"
	ClassCert       = "TLS certificate not valid for this host"
	ClassProtocol   = "the answer was not valid HTTP"
	ClassConnection = "connection failed"
)

// NetError is a request that was allowed but got no usable answer. Its
// Error names the URL and a class (ClassDNS, ...), never the underlying
// error, which can carry the resolver's address ("lookup x on
// 10.0.0.2:53"), local ports or peer addresses; Detail gives that for the
// log. errors.Is and errors.As see the underlying error.
type NetError struct {
	URL   string // redacted
	Class string
	Err   error
}

func (e *NetError) Error() string { return "get " + e.URL + ": " + e.Class }

// Unwrap returns the underlying error.
func (e *NetError) Unwrap() error { return e.Err }

// Detail is the underlying error's text: for logs only.
func (e *NetError) Detail() string { return e.Err.Error() }

// TLS reports whether the TLS handshake or the certificate failed.
func (e *NetError) TLS() bool { return e.Class == ClassTLS || e.Class == ClassCert }

// Detail returns the text of err for a log: the underlying error of a
// NetError (which Error leaves out), else err's own text.
func Detail(err error) string {
	var ne *NetError
	if errors.As(err, &ne) {
		return ne.Detail()
	}
	return err.Error()
}

// netClass sorts a transport error into one of the Class constants.
func netClass(err error) string {
	var dns *net.DNSError
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	var rh tls.RecordHeaderError
	var alert tls.AlertError
	var ne net.Error
	switch {
	case errors.As(err, &dns), errors.Is(err, errNoAddresses):
		return ClassDNS
	case errors.As(err, &cv), errors.As(err, &ua), errors.As(err, &he), errors.As(err, &ci):
		return ClassCert
	case errors.As(err, &rh), errors.As(err, &alert):
		return ClassTLS
	case errors.Is(err, syscall.ECONNREFUSED):
		return ClassRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return ClassReset
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return ClassUnreach
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return ClassClosed
	case errors.As(err, &ne) && ne.Timeout():
		return ClassTimeout
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "tls: "):
		return ClassTLS
	case strings.Contains(msg, "malformed HTTP"), strings.Contains(msg, "http2: "):
		return ClassProtocol
	}
	return ClassConnection
}

// errNoAddresses is a name that resolved to nothing.
var errNoAddresses = errors.New("no addresses")
