package detect

import (
	"bytes"
	"strings"
)

// MaxRobotsBytes is how much of a robots.txt is parsed. RFC 9309 section
// 2.5 asks crawlers to parse at least 500 KiB; everything after is ignored,
// as the RFC allows.
const MaxRobotsBytes = 500 * 1024

// Verdict is what a robots.txt says about one agent and one path.
type Verdict string

// The three verdicts. NoRule is kept apart from Allowed because "nobody
// wrote a rule" and "the site said yes" are different findings for a store
// owner, even though a crawler may fetch in both cases.
const (
	Allowed    Verdict = "allowed"
	Disallowed Verdict = "disallowed"
	NoRule     Verdict = "no_rule"
)

// RobotsState says how the robots.txt answer was taken, following RFC 9309
// section 2.3.1.
type RobotsState string

// The robots.txt states.
const (
	// RobotsParsed: a 2xx answer whose body was parsed.
	RobotsParsed RobotsState = "parsed"
	// RobotsUnavailable: a 4xx answer (404 included) or a redirect chain that
	// did not end; the crawler may access everything, so every verdict is
	// NoRule.
	RobotsUnavailable RobotsState = "unavailable"
	// RobotsUnreachable: a 5xx answer or no answer at all; the crawler must
	// assume complete disallow, so every verdict is Disallowed.
	RobotsUnreachable RobotsState = "unreachable"
)

// Robots is a parsed robots.txt.
type Robots struct {
	State RobotsState `json:"state"`
	// HTTPStatus is the status the file was served with; 0 when unknown or
	// unreachable.
	HTTPStatus int           `json:"httpStatus,omitempty"`
	Groups     []RobotsGroup `json:"groups,omitempty"`
	// Sitemaps lists the Sitemap lines in file order, duplicates removed.
	Sitemaps []string `json:"sitemaps,omitempty"`
	// Truncated reports that the file was longer than MaxRobotsBytes.
	Truncated bool `json:"truncated,omitempty"`
	// LooksLikeHTML reports a body that is an HTML page, typically a
	// single-page app answering 200 for every path. It parses to nothing.
	LooksLikeHTML bool `json:"looksLikeHtml,omitempty"`

	// byAgent maps a lower-cased product token to its groups, in file order.
	byAgent map[string][]int
}

// RobotsGroup is one group as written: its user-agent lines and its rules.
type RobotsGroup struct {
	// Agents holds, per user-agent line, the product token it names ("*"
	// for the wildcard), or the value as written when it names none (such
	// as "008"): that line matches no crawler.
	Agents []string     `json:"agents"`
	Rules  []RobotsRule `json:"rules"`
}

// RobotsRule is one Allow or Disallow line.
type RobotsRule struct {
	Allow bool `json:"allow"`
	// Pattern is the path pattern as written.
	Pattern string `json:"pattern"`
	Line    int    `json:"line"`

	pat  robotsGlob  // the pattern in the normal form of normalizeRobotsPattern
	dir  *robotsGlob // for an Allow of ".../index.htm*": the directory itself
	norm string      // pat as one string, for the fuzz target's cross-check
}

// robotsGlob is a compiled path pattern: literal segments between '*'
// wildcards, whether a final '$' anchors it at the end of the path, and its
// priority (the pattern's length in Google's escaped form: RFC 9309 section
// 2.2.2 lets the match with the most octets win).
type robotsGlob struct {
	segs     []string
	anchored bool
	prio     int
}

// String gives the rule as a robots.txt line, for evidence.
func (r RobotsRule) String() string {
	if r.Allow {
		return "Allow: " + r.Pattern
	}
	return strings.TrimSpace("Disallow: " + r.Pattern)
}

// RobotsMatch is the verdict for one agent and path with what decided it.
type RobotsMatch struct {
	Verdict Verdict `json:"verdict"`
	// Group is the product token of the group obeyed: the agent's own token,
	// "*", or "" when no group applied.
	Group string `json:"group,omitempty"`
	// Rule is the winning line, e.g. "Disallow: /checkout"; "" when none.
	Rule string `json:"rule,omitempty"`
	Line int    `json:"line,omitempty"`
	// Reason explains verdicts that come from the status code, not a rule.
	Reason string `json:"reason,omitempty"`
}

// RobotsFromResponse applies RFC 9309 section 2.3.1 to a robots.txt answer.
// status 0 means the file could not be fetched at all (DNS, connect, TLS or
// timeout failure).
//
// A 429 is a 4xx and so, by the RFC's letter, means no restrictions; Google
// instead treats it as a server error. We follow the RFC, which is what the
// report promises; the wall detector reports the rate limit separately.
func RobotsFromResponse(status int, body []byte) *Robots {
	switch {
	case status >= 200 && status < 300:
		r := ParseRobots(body)
		r.HTTPStatus = status
		return r
	case status >= 300 && status < 500:
		// 3xx here means the redirects did not end in a file (the RFC says
		// follow at least five, then treat as unavailable).
		return &Robots{State: RobotsUnavailable, HTTPStatus: status}
	case status >= 500 && status < 600:
		return &Robots{State: RobotsUnreachable, HTTPStatus: status}
	default:
		return &Robots{State: RobotsUnreachable}
	}
}

// looksLikeHTML sniffs the start of a body for an HTML document.
func looksLikeHTML(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n\xef\xbb\xbf")
	if len(b) == 0 || b[0] != '<' {
		return false
	}
	head := b[:min(len(b), 512)]
	for _, m := range []string{"<!doctype html", "<html", "<head", "<body", "<script", "<meta", "<title", "<div", "<!--"} {
		if containsFold(head, m) {
			return true
		}
	}
	return false
}
