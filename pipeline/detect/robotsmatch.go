package detect

// Matching an agent and a path against a parsed robots.txt: the group
// that applies, the longest rule that matches, and the normalising of
// paths and patterns both are compared in.

import (
	"fmt"
	"strings"
)

// Match returns the verdict of r for a crawler whose product token is agent
// (e.g. "GPTBot"; a full User-Agent is cut to its leading token) and a path
// (with query, or a full URL whose path and query are used).
//
// Group selection (RFC 9309 section 2.2.1): the groups whose user-agent
// equals the token case-insensitively, all merged; else the groups for "*",
// merged; else none (NoRule). Among the matching rules the longest pattern
// wins and Allow wins a tie. An empty Disallow matches nothing, so a group
// that only says "Disallow:" yields NoRule (everything permitted).
func (r *Robots) Match(agent, path string) RobotsMatch {
	switch r.State {
	case RobotsUnavailable:
		return RobotsMatch{Verdict: NoRule, Reason: fmt.Sprintf("robots.txt answered %d: no restrictions (RFC 9309 2.3.1.3)", r.HTTPStatus)}
	case RobotsUnreachable:
		reason := "robots.txt unreachable: complete disallow assumed (RFC 9309 2.3.1.4)"
		if r.HTTPStatus != 0 {
			reason = fmt.Sprintf("robots.txt answered %d: complete disallow assumed (RFC 9309 2.3.1.4)", r.HTTPStatus)
		}
		return RobotsMatch{Verdict: Disallowed, Reason: reason}
	}
	group := groupAgent(trimASCIISpace(agent))
	groups := r.byAgent[strings.ToLower(group)]
	if group == "" || group == "*" || len(groups) == 0 {
		groups, group = r.byAgent["*"], "*"
	}
	if len(groups) == 0 {
		return RobotsMatch{Verdict: NoRule}
	}
	p := normalizeRobotsPath(robotsTarget(path))
	var best *RobotsRule
	bestPrio := -1
	for _, gi := range groups {
		for i := range r.Groups[gi].Rules {
			rule := &r.Groups[gi].Rules[i]
			n := rule.matches(p)
			if n < 0 {
				continue
			}
			if n > bestPrio || (n == bestPrio && rule.Allow && !best.Allow) {
				best, bestPrio = rule, n
			}
		}
	}
	if best == nil {
		return RobotsMatch{Verdict: NoRule, Group: group}
	}
	v := Disallowed
	if best.Allow {
		v = Allowed
	}
	return RobotsMatch{Verdict: v, Group: group, Rule: best.String(), Line: best.Line}
}

// matches returns the rule's priority when it matches the normalised path
// p, else -1.
func (r *RobotsRule) matches(p string) int {
	if r.pat.matches(p) {
		return r.pat.prio
	}
	if r.dir != nil && r.dir.matches(p) {
		return r.dir.prio
	}
	return -1
}

// matches reports whether the normalised path p matches the glob. Patterns
// hold only '*' (any run of characters) and a final '$' (end of path), so
// matching each literal segment at its leftmost place is exact and runs in
// linear time: hostile patterns with many '*' cannot make it backtrack.
func (g *robotsGlob) matches(p string) bool {
	segs := g.segs
	if !strings.HasPrefix(p, segs[0]) {
		return false
	}
	pos := len(segs[0])
	if len(segs) == 1 {
		return !g.anchored || pos == len(p)
	}
	for _, s := range segs[1 : len(segs)-1] {
		j := strings.Index(p[pos:], s)
		if j < 0 {
			return false
		}
		pos += j + len(s)
	}
	last := segs[len(segs)-1]
	if g.anchored {
		return len(p)-len(last) >= pos && strings.HasSuffix(p, last)
	}
	return strings.Contains(p[pos:], last)
}

// robotsTarget turns the caller's path or URL into path?query: for a URL
// with a scheme ("https://host/p?q") or a network-path reference
// ("//host/p"), what follows the authority; then the fragment is dropped and
// a leading '/' ensured.
func robotsTarget(s string) string {
	s = trimASCIISpace(s)
	rest, isURL := "", false
	if strings.HasPrefix(s, "//") {
		rest, isURL = s[2:], true
	} else if i := strings.Index(s, "://"); i > 0 && isScheme(s[:i]) {
		rest, isURL = s[i+3:], true
	}
	if isURL {
		j := strings.IndexAny(rest, "/?#")
		if j < 0 {
			return "/"
		}
		s = rest[j:]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	if s == "" || s[0] != '/' {
		s = "/" + s
	}
	return s
}

// isScheme reports whether s is a URI scheme (RFC 3986 section 3.1).
func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z'):
		case i > 0 && (('0' <= c && c <= '9') || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// normalizeRobotsPath brings a URL path to the one form in which paths and
// patterns are compared (RFC 9309 sections 2.2.2 and 2.2.3): every octet is
// taken for what it stands for, whether written raw or percent-encoded, and
// written back raw when it is unreserved (RFC 3986: letters, digits, "-._~")
// and percent-encoded with upper-case hex otherwise. So "%62" matches "b",
// "%2A" matches a literal "*", "%3A" matches ":", and characters that URL
// parsers escape ('<', '>', '"', space, non-ASCII) compare equal in either
// form. '/' and '?' are the exception: written raw they give the path its
// segments and its query, so a raw one and an encoded one ("%2F", "%3F") are
// different characters and stay apart.
func normalizeRobotsPath(s string) string { return normalizeRobots(s, false) }

// normalizeRobotsPattern is normalizeRobotsPath for an Allow or Disallow
// pattern: a raw '*' stays the wildcard and a raw final '$' the end anchor,
// while their encoded forms ("%2A", "%24") are the literal characters.
func normalizeRobotsPattern(s string) string { return normalizeRobots(s, true) }

func normalizeRobots(s string, pattern bool) string {
	clean := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isUnreserved(c) && c != '/' && c != '?' && !(pattern && (c == '*' || (c == '$' && i == len(s)-1))) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c, encoded := s[i], false
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			c, encoded = unhex(s[i+1])<<4|unhex(s[i+2]), true
			i += 2
		}
		switch {
		case isUnreserved(c):
			b.WriteByte(c)
		case !encoded && (c == '/' || c == '?'):
			b.WriteByte(c)
		case pattern && !encoded && (c == '*' || (c == '$' && i == len(s)-1)):
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func isUnreserved(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') ||
		c == '-' || c == '.' || c == '_' || c == '~'
}
