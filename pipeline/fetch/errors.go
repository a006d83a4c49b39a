package fetch

import (
	"errors"
	"fmt"
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
