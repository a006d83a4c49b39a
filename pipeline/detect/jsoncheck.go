package detect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// Why a body asked for as JSON is or is not JSON.
const (
	JSONOK = "ok"
	// JSONSoft404: a 2xx HTML page where JSON was asked for, the typical
	// single-page app answering every path.
	JSONSoft404 = "soft_404"
	// JSONNotJSON: a body that is neither JSON nor HTML.
	JSONNotJSON = "not_json"
	// JSONEmpty: an empty body.
	JSONEmpty = "empty"
	// JSONStatus: a non-2xx status; the body was not judged.
	JSONStatus = "http_status"
)

// JSONCheck says whether a response claimed or asked for as JSON really is.
type JSONCheck struct {
	OK     bool   `json:"ok"`
	Reason string `json:"reason"`
	// ContentType is the media type sent, lower case, without parameters.
	ContentType string `json:"contentType,omitempty"`
	// ContentTypeMismatch: the body is valid JSON but was not labelled as
	// JSON (or the reverse for a failed check). Stores can fix the label.
	ContentTypeMismatch bool `json:"contentTypeMismatch,omitempty"`
}

// CheckJSON judges a response to a request for JSON (products.json, a
// Store API list, /.well-known files). The body decides, not the label:
// parse the body before calling anything found, because a single-page app
// answers 200 text/html for every path.
func CheckJSON(status int, header http.Header, body []byte) JSONCheck {
	ct := mediaType(header)
	labelled := ct == "application/json" || strings.HasSuffix(ct, "+json") || ct == "text/json"
	out := JSONCheck{ContentType: ct}
	if status < 200 || status > 299 {
		out.Reason = JSONStatus
		return out
	}
	b := bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")))
	switch {
	case len(b) == 0:
		out.Reason = JSONEmpty
	case ct == "text/html" || ct == "application/xhtml+xml" || looksLikeHTML(b):
		out.Reason = JSONSoft404
		out.ContentTypeMismatch = labelled
	case json.Valid(b):
		out.OK, out.Reason = true, JSONOK
		out.ContentTypeMismatch = !labelled
	default:
		out.Reason = JSONNotJSON
		out.ContentTypeMismatch = labelled
	}
	return out
}

func mediaType(h http.Header) string {
	if h == nil {
		return ""
	}
	v := h.Get("Content-Type")
	if v == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(v)
	if err != nil {
		mt, _, _ = strings.Cut(v, ";")
	}
	return strings.ToLower(strings.TrimSpace(mt))
}

// Throttle says whether a catalog answer was throttled rather than empty.
type Throttle struct {
	Throttled bool `json:"throttled"`
	// RetryAfter is the Retry-After header as sent, when present.
	RetryAfter string   `json:"retryAfter,omitempty"`
	Evidence   []string `json:"evidence,omitempty"`
}

// DetectThrottle tells a throttled catalog answer from a real one. A 429 is
// throttled whatever the body. A 2xx with an empty product list (empty is
// the caller's finding) is throttled when the headers say the client is at
// its limit: a Retry-After, a Shopify-style call-limit header at or near
// its ceiling ("40/40"), or a rate-limit remaining count of 0. An answer
// with products is never throttled: it answered.
func DetectThrottle(status int, header http.Header, empty bool) Throttle {
	var out Throttle
	if header == nil {
		header = http.Header{}
	}
	if ra := header.Get("Retry-After"); ra != "" {
		out.RetryAfter = truncateUTF8(ra, 64)
	}
	if status == http.StatusTooManyRequests {
		out.Throttled = true
		out.Evidence = append(out.Evidence, "status 429")
		if out.RetryAfter != "" {
			out.Evidence = append(out.Evidence, "header Retry-After: "+out.RetryAfter)
		}
		return out
	}
	if !empty {
		return out
	}
	var ev []string
	if out.RetryAfter != "" {
		ev = append(ev, "header Retry-After: "+out.RetryAfter)
	}
	for _, k := range []string{"X-Shopify-Shop-Api-Call-Limit", "X-Shopify-Api-Call-Limit"} {
		if v := header.Get(k); v != "" {
			if used, limit, ok := parseCallLimit(v); ok && limit > 0 && used*10 >= limit*9 {
				ev = append(ev, fmt.Sprintf("header %s: %s", k, truncateUTF8(v, 32)))
			}
		}
	}
	for _, k := range []string{"X-RateLimit-Remaining", "RateLimit-Remaining", "X-Rate-Limit-Remaining"} {
		if v := strings.TrimSpace(header.Get(k)); v == "0" {
			ev = append(ev, "header "+k+": 0")
		}
	}
	// The IETF draft's structured RateLimit header: `"default";r=0;t=30`.
	if v := header.Get("RateLimit"); v != "" {
		for _, part := range strings.Split(v, ";") {
			if strings.TrimSpace(part) == "r=0" {
				ev = append(ev, "header RateLimit: "+truncateUTF8(v, 64))
				break
			}
		}
	}
	if len(ev) > 0 {
		out.Throttled = true
		out.Evidence = append([]string{"empty catalog answer"}, ev...)
	}
	return out
}

// parseCallLimit reads "used/limit".
func parseCallLimit(v string) (used, limit int, ok bool) {
	a, b, found := strings.Cut(strings.TrimSpace(v), "/")
	if !found {
		return 0, 0, false
	}
	u, err1 := strconv.Atoi(strings.TrimSpace(a))
	l, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || u < 0 || l < 0 || u > 1<<30 || l > 1<<30 {
		return 0, 0, false
	}
	return u, l, true
}
