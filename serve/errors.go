package serve

import (
	"errors"
	"fmt"
	"net/http"
)

// Sentinel errors of the read API. Handlers wrap them (with %w and a message
// that says what to fix); errorStatus maps them to HTTP statuses in one place.
var (
	ErrInvalid     = errors.New("invalid_request")
	ErrNotFound    = errors.New("not_found")
	ErrLimited     = errors.New("rate_limited")
	ErrBusy        = errors.New("check_in_progress")
	ErrTooLarge    = errors.New("too_large")
	ErrUnavailable = errors.New("unavailable")
	ErrMethod      = errors.New("method_not_allowed")
)

var errorStatus = []struct {
	err    error
	status int
}{
	{ErrInvalid, http.StatusBadRequest},
	{ErrNotFound, http.StatusNotFound},
	{ErrMethod, http.StatusMethodNotAllowed},
	{ErrTooLarge, http.StatusRequestEntityTooLarge},
	{ErrLimited, http.StatusTooManyRequests},
	{ErrBusy, http.StatusTooManyRequests},
	{ErrUnavailable, http.StatusServiceUnavailable},
}

// apiError is an error with the code and message of the error body.
type apiError struct {
	kind    error
	message string
	// retryAfter, in seconds, is sent as Retry-After with 429 and 503.
	retryAfter int
	// problems lists what is wrong with an invalid body, each at its path.
	problems []Problem
}

func (e *apiError) Error() string { return e.message }
func (e *apiError) Unwrap() error { return e.kind }

// fail builds an API error of kind with a message that says what to fix.
func fail(kind error, format string, args ...any) error {
	return &apiError{kind: kind, message: fmt.Sprintf(format, args...)}
}

// ErrorBody is the one error body of every endpoint:
// {"error": {"code": "...", "message": "..."}}.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the inside of ErrorBody. Problems is present only when a
// submitted body is invalid: one entry per problem, at its JSON path.
type ErrorDetail struct {
	Code     string    `json:"code"`
	Message  string    `json:"message"`
	Problems []Problem `json:"problems,omitempty"`
}

// Problem is one reason a submitted body is invalid, at a JSON path into
// the body ("$.results[3].id").
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// classify turns any error into a status and an error body. Unknown errors
// are 500s whose message says nothing about internals.
func classify(err error) (int, ErrorBody, int) {
	var ae *apiError
	retry := 0
	msg := "internal error; the problem was logged"
	var problems []Problem
	if errors.As(err, &ae) {
		msg = ae.message
		retry = ae.retryAfter
		problems = ae.problems
	}
	for _, m := range errorStatus {
		if errors.Is(err, m.err) {
			if ae == nil {
				msg = err.Error()
			}
			return m.status, ErrorBody{ErrorDetail{Code: m.err.Error(), Message: msg, Problems: problems}}, retry
		}
	}
	return http.StatusInternalServerError, ErrorBody{ErrorDetail{Code: "internal", Message: msg}}, 0
}
