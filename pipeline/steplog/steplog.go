// Package steplog is the step log of an agent run, shared by the browser
// shoppers (pipeline/shop) and the plain-HTTP agent paths
// (pipeline/leaderboard), so the leaderboard's three kinds of path read
// alike. It is a leaf: it imports nothing of svc.
package steplog

import (
	"net/url"
	"regexp"
	"strings"
)

// Step is one action of a run. URL has no query or fragment, and on a
// checkout page it is withheld; a protocol path names the operation's
// endpoint with every id replaced by {id}.
type Step struct {
	N      int    `json:"n"`
	Action string `json:"action"`
	// Role and Name describe the element acted on, as the shopper saw it.
	Role  string `json:"role,omitempty"`
	Name  string `json:"name,omitempty"`
	Title string `json:"title,omitempty"`
	URL   string `json:"url,omitempty"`
	// Status is the HTTP status of a protocol operation (0: no answer).
	Status int `json:"status,omitempty"`
	// RPC is the JSON-RPC outcome of an MCP operation: "result",
	// "tool_error" or "error <code>".
	RPC string `json:"rpc,omitempty"`
	// Codes are the protocol's error or message codes seen in the answer
	// (UCP error codes such as version_unsupported), sorted, never free
	// text from the store.
	Codes []string `json:"codes,omitempty"`
	// Note says what came of the action, or why it was not taken.
	Note string `json:"note,omitempty"`
}

// idSegment matches a path segment that carries an identifier rather than
// a fixed name: digits, or letters mixed with digits, or a long token.
var idSegment = regexp.MustCompile(`^(?:[0-9]+|.*[0-9].*[A-Za-z_-].*|.*[A-Za-z_-].*[0-9].*|.{24,})$`)

// apiVersion is a version segment such as "v1", which is no identifier.
var apiVersion = regexp.MustCompile(`^v[0-9]{1,2}$`)

// RedactURL keeps scheme, host and the fixed words of a path and replaces
// every segment that looks like an identifier with {id}; query and
// fragment are dropped. A URL that does not parse is withheld ("").
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	segs := strings.Split(u.EscapedPath(), "/")
	for i, s := range segs {
		if s != "" && !apiVersion.MatchString(s) && idSegment.MatchString(s) {
			segs[i] = "{id}"
		}
	}
	return u.Scheme + "://" + u.Host + strings.Join(segs, "/")
}
