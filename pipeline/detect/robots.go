package detect

import (
	"bytes"
	"fmt"
	"net/url"
	"strconv"
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
	Agents []string     `json:"agents"`
	Rules  []RobotsRule `json:"rules"`
}

// RobotsRule is one Allow or Disallow line.
type RobotsRule struct {
	Allow bool `json:"allow"`
	// Pattern is the path pattern as written.
	Pattern string `json:"pattern"`
	Line    int    `json:"line"`

	norm     string   // percent-normalised pattern; its length is the priority
	segs     []string // norm split at '*', without a trailing '$'
	anchored bool     // norm ends in '$'
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

// ParseRobots parses a robots.txt body (RFC 9309). It never fails: lines it
// does not understand are skipped, as the RFC requires.
func ParseRobots(body []byte) *Robots {
	r := &Robots{State: RobotsParsed, byAgent: map[string][]int{}}
	if len(body) > MaxRobotsBytes {
		body = body[:MaxRobotsBytes]
		// Drop the cut-off last line: half a path would be a rule the site
		// never wrote, e.g. "Disallow: /p" from "Disallow: /private".
		if i := bytes.LastIndexAny(body, "\r\n"); i >= 0 {
			body = body[:i]
		}
		r.Truncated = true
	}
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	r.LooksLikeHTML = looksLikeHTML(body)

	cur := -1             // current group index
	collectingUA := false // the previous directive line was a user-agent line
	seenSitemap := map[string]bool{}
	lineNo := 0
	for len(body) > 0 {
		var line []byte
		i := bytes.IndexAny(body, "\r\n")
		if i < 0 {
			line, body = body, nil
		} else {
			line = body[:i]
			if body[i] == '\r' && i+1 < len(body) && body[i+1] == '\n' {
				i++
			}
			body = body[i+1:]
		}
		lineNo++
		if j := bytes.IndexByte(line, '#'); j >= 0 {
			line = line[:j]
		}
		key, val, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		k := strings.ToLower(string(bytes.TrimSpace(key)))
		v := string(bytes.TrimSpace(val))
		switch k {
		case "user-agent", "useragent", "user agent":
			tok := productToken(v)
			if tok == "" {
				continue
			}
			if !collectingUA || cur < 0 {
				r.Groups = append(r.Groups, RobotsGroup{})
				cur = len(r.Groups) - 1
			}
			collectingUA = true
			r.Groups[cur].Agents = append(r.Groups[cur].Agents, tok)
			lk := strings.ToLower(tok)
			if ix := r.byAgent[lk]; len(ix) == 0 || ix[len(ix)-1] != cur {
				r.byAgent[lk] = append(ix, cur)
			}
		case "allow", "disallow", "dissallow", "dissalow", "disalow", "disallaw":
			collectingUA = false
			if cur < 0 {
				continue // a rule before any user-agent line belongs to no group
			}
			rule := RobotsRule{Allow: k == "allow", Pattern: v, Line: lineNo}
			if v == "" {
				// An empty Allow or Disallow matches no path: it says
				// nothing, as in Google's reference parser. The group still
				// exists, so "User-agent: X / Disallow:" shields X from the
				// "*" group, and X gets NoRule, which permits everything.
				continue
			}
			rule.norm = normalizeRobotsPath(v)
			p := rule.norm
			if strings.HasSuffix(p, "$") {
				rule.anchored = true
				p = p[:len(p)-1]
			}
			rule.segs = strings.Split(p, "*")
			r.Groups[cur].Rules = append(r.Groups[cur].Rules, rule)
		case "sitemap", "site-map":
			if v != "" && !seenSitemap[v] && len(r.Sitemaps) < 1000 {
				seenSitemap[v] = true
				r.Sitemaps = append(r.Sitemaps, v)
			}
		default:
			// Other records (crawl-delay, host, clean-param...) neither end
			// nor start a group (RFC 9309 section 2.2.4).
		}
	}
	return r
}

// productToken returns the product token of a user-agent value: "*", or
// the leading run of letters, '_' and '-' (RFC 9309 section 2.2.1), so that
// "GPTBot/1.0" names GPTBot.
func productToken(v string) string {
	if strings.HasPrefix(v, "*") {
		return "*"
	}
	end := 0
	for end < len(v) {
		c := v[end]
		if c == '-' || c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') {
			end++
			continue
		}
		break
	}
	return v[:end]
}

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
	tok := strings.ToLower(productToken(strings.TrimSpace(agent)))
	group := productToken(strings.TrimSpace(agent))
	groups := r.byAgent[tok]
	if tok == "" || tok == "*" || len(groups) == 0 {
		groups, group = r.byAgent["*"], "*"
	}
	if len(groups) == 0 {
		return RobotsMatch{Verdict: NoRule}
	}
	p := normalizeRobotsPath(robotsTarget(path))
	var best *RobotsRule
	bestLen := -1
	for _, gi := range groups {
		for i := range r.Groups[gi].Rules {
			rule := &r.Groups[gi].Rules[i]
			if !rule.matches(p) {
				continue
			}
			n := len(rule.norm)
			if n > bestLen || (n == bestLen && rule.allowed() && !best.allowed()) {
				best, bestLen = rule, n
			}
		}
	}
	if best == nil {
		return RobotsMatch{Verdict: NoRule, Group: group}
	}
	v := Disallowed
	if best.allowed() {
		v = Allowed
	}
	return RobotsMatch{Verdict: v, Group: group, Rule: best.String(), Line: best.Line}
}

func (r *RobotsRule) allowed() bool { return r.Allow }

// matches reports whether the normalised path p matches the rule. Patterns
// hold only '*' (any run of characters) and a final '$' (end of path), so
// matching each literal segment at its leftmost place is exact and runs in
// linear time: hostile patterns with many '*' cannot make it backtrack.
func (r *RobotsRule) matches(p string) bool {
	segs := r.segs
	if !strings.HasPrefix(p, segs[0]) {
		return false
	}
	pos := len(segs[0])
	if len(segs) == 1 {
		return !r.anchored || pos == len(p)
	}
	for _, s := range segs[1 : len(segs)-1] {
		j := strings.Index(p[pos:], s)
		if j < 0 {
			return false
		}
		pos += j + len(s)
	}
	last := segs[len(segs)-1]
	if r.anchored {
		return len(p)-len(last) >= pos && strings.HasSuffix(p, last)
	}
	return strings.Contains(p[pos:], last)
}

// robotsTarget turns the caller's path or URL into path?query.
func robotsTarget(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		if u, err := url.Parse(s); err == nil {
			s = u.EscapedPath()
			if u.RawQuery != "" {
				s += "?" + u.RawQuery
			}
		}
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	if s == "" || s[0] != '/' {
		s = "/" + s
	}
	return s
}

// normalizeRobotsPath brings a path or pattern to the form RFC 9309 section
// 2.2.2 compares: octets outside printable US-ASCII percent-encoded,
// percent-encoded unreserved characters decoded, hex digits upper-cased.
// Reserved characters keep their encoding, so "/a%2Fb" and "/a/b" differ.
// The same function serves paths and patterns, so '*' and '$' stay literal
// here and only the matcher gives them meaning.
func normalizeRobotsPath(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '%' || c <= ' ' || c >= 0x7f {
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
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if isUnreserved(byte(v)) {
				b.WriteByte(byte(v))
			} else {
				b.WriteByte('%')
				b.WriteByte(hex[v>>4])
				b.WriteByte(hex[v&15])
			}
			i += 2
		case c == '%' || c <= ' ' || c >= 0x7f:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func isUnreserved(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') ||
		c == '-' || c == '.' || c == '_' || c == '~'
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
