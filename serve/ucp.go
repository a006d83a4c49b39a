package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
)

// maxValidateBody bounds a POST /api/ucp/validate body: a 256 KB profile
// inside a JSON string can take up to six bytes per byte when escaped.
const maxValidateBody = 6*ucp.MaxProfileBytes + 4096

// ValidateUCP is the validation shared by GET and POST /api/ucp/validate and
// the validate_ucp_profile tool. A pasted profile is validated without any
// fetch and without a limit; a URL is fetched (300 a day per network).
func (s *Server) ValidateUCP(ctx context.Context, caller, rawURL string, profile []byte) (*ucp.Report, error) {
	if profile != nil {
		if s.cfg.UCP == nil {
			return nil, fail(ErrUnavailable, "UCP validation is unavailable on this server")
		}
		rep, err := s.cfg.UCP.Validate(ctx, profile)
		if errors.Is(err, ucp.ErrTooLarge) {
			return nil, fail(ErrTooLarge, "the profile is %d bytes; the limit is 256 KB", len(profile))
		}
		return rep, err
	}
	if strings.TrimSpace(rawURL) == "" {
		return nil, fail(ErrInvalid, "give a url (store host, homepage or profile URL) or, with POST, a profile")
	}
	if _, err := fetch.ParseURL(rawURL); err != nil {
		return nil, unsafeURL(err)
	}
	if s.cfg.UCP == nil {
		return nil, fail(ErrUnavailable, "UCP validation is unavailable on this server")
	}
	if err := s.limits.take(caller, 1, quotaUCPFetch); err != nil {
		return nil, err
	}
	rep, err := s.cfg.UCP.ValidateURL(ctx, rawURL, ucp.URLOptions{})
	switch {
	case errors.Is(err, fetch.ErrRefused):
		return nil, unsafeURL(err)
	case errors.Is(err, ucp.ErrTooLarge):
		return nil, fail(ErrTooLarge, "the profile at that URL is larger than 256 KB")
	case err != nil:
		return nil, fail(ErrUnavailable, "validation could not run; try again later")
	}
	if rep.FetchFailed() {
		// The answer says what failed by class; the raw error (it can name
		// our resolver or an address) is for the operator only.
		s.log.Info("ucp profile not fetched", "profile_url", rep.Source.ProfileURL, "class", rep.Source.FetchError, "detail", rep.FetchDetail())
	}
	return rep, nil
}

func (s *Server) ucpValidateGet(w http.ResponseWriter, r *http.Request) error {
	rep, err := s.ValidateUCP(r.Context(), s.caller(r), r.URL.Query().Get("url"), nil)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, rep)
}

// validateRequest is the POST body: a url, or a profile as a JSON object or
// as a string holding the profile's text.
type validateRequest struct {
	URL     string          `json:"url"`
	Profile json.RawMessage `json:"profile"`
}

func (s *Server) ucpValidatePost(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxValidateBody+1))
	if err != nil {
		return fail(ErrInvalid, "the body could not be read")
	}
	if len(body) > maxValidateBody {
		return fail(ErrTooLarge, "the body is larger than the limit; a profile may be at most 256 KB")
	}
	var req validateRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		return fail(ErrInvalid, `the body must be JSON: {"url": "https://shop.example/"} or {"profile": {...}}`)
	}
	profile, err := profileBytes(req.Profile)
	if err != nil {
		return err
	}
	if profile == nil && strings.TrimSpace(req.URL) == "" {
		return fail(ErrInvalid, `give "url" or "profile": neither was in the body`)
	}
	rep, err := s.ValidateUCP(r.Context(), s.caller(r), req.URL, profile)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, rep)
}

// profileBytes returns the profile to validate: a JSON string's content, or
// the raw JSON of anything else; nil when absent or null.
func profileBytes(raw json.RawMessage) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fail(ErrInvalid, "profile is not a valid JSON string")
		}
		if len(s) > ucp.MaxProfileBytes {
			return nil, fail(ErrTooLarge, "the profile is %d bytes; the limit is 256 KB", len(s))
		}
		return []byte(s), nil
	}
	if len(raw) > ucp.MaxProfileBytes {
		return nil, fail(ErrTooLarge, "the profile is %d bytes; the limit is 256 KB", len(raw))
	}
	return raw, nil
}
