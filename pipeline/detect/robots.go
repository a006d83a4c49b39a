package detect

import (
	"bytes"
	"fmt"
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

// maxRobotsLine is how much of one line is read; the rest of the line is
// ignored. It is the limit of Google's reference parser (8 times the 2083
// bytes browsers allow in a URL, less its terminating NUL), so a very long
// line gives the same rule there and here.
const maxRobotsLine = 8*2083 - 1

// ParseRobots parses a robots.txt body (RFC 9309). It never fails: lines it
// does not understand are skipped, as the RFC requires.
//
// Where the RFC is silent it reads what Google's reference parser
// (github.com/google/robotstxt) reads, since that is what sites are written
// and tested against: a byte-order mark or any leading part of one is
// skipped; a line is cut at maxRobotsLine bytes; a key may be followed by
// whitespace instead of a colon when the line holds just the key and one
// value ("Disallow /"); keys are recognised by their start, case-insensitively,
// including the common misspellings of "user-agent" and "disallow".
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
	body = skipBOM(body)
	r.LooksLikeHTML = looksLikeHTML(body)

	cur := -1        // current group index
	newGroup := true // the next user-agent line starts a group
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
		key, v, ok := robotsLine(line)
		if !ok {
			continue
		}
		kind := robotsKey(key)
		switch kind {
		case keyUserAgent:
			// A user-agent line always starts or extends a group, even when
			// its value names no product token ("008", "360Spider", a quoted
			// name): such a group matches no crawler, and the rules under it
			// bind only it. Skipping the line instead would hand its rules
			// to the group before, often "*".
			if newGroup {
				r.Groups = append(r.Groups, RobotsGroup{})
				cur = len(r.Groups) - 1
				newGroup = false
			}
			tok := groupAgent(v)
			name := tok
			if name == "" {
				name = v // kept as written, for evidence; it matches nobody
			}
			r.Groups[cur].Agents = append(r.Groups[cur].Agents, name)
			if tok != "" {
				lk := strings.ToLower(tok)
				if ix := r.byAgent[lk]; len(ix) == 0 || ix[len(ix)-1] != cur {
					r.byAgent[lk] = append(ix, cur)
				}
			}
		case keyAllow, keyDisallow:
			if cur < 0 {
				continue // a rule before any user-agent line belongs to no group
			}
			newGroup = true
			if v == "" {
				// An empty Allow or Disallow matches no path: it says
				// nothing, as in Google's reference parser. The group still
				// exists, so "User-agent: X / Disallow:" shields X from the
				// "*" group, and X gets NoRule, which permits everything.
				continue
			}
			r.Groups[cur].Rules = append(r.Groups[cur].Rules, newRobotsRule(kind == keyAllow, v, lineNo))
		case keySitemap:
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

// skipBOM drops a UTF-8 byte-order mark, or any leading part of one, from
// the start of b, as Google's parser does.
func skipBOM(b []byte) []byte {
	const bom = "\xef\xbb\xbf"
	n := 0
	for n < len(bom) && n < len(b) && b[n] == bom[n] {
		n++
	}
	return b[n:]
}

// robotsLine splits one line into key and value. It returns ok false for
// blank lines, comments and lines that hold no directive.
func robotsLine(line []byte) (key, val string, ok bool) {
	if i := bytes.IndexByte(line, 0); i >= 0 {
		line = line[:i] // Google's parser reads lines as C strings
	}
	if len(line) > maxRobotsLine {
		line = line[:maxRobotsLine]
	}
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	s := trimASCIISpace(string(line))
	if s == "" {
		return "", "", false
	}
	k, v, found := strings.Cut(s, ":")
	if !found {
		// A missing colon: "Disallow /" is read when whitespace separates
		// exactly two words.
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			return "", "", false
		}
		k, v = s[:i], strings.TrimLeft(s[i:], " \t")
		if strings.ContainsAny(v, " \t") {
			return "", "", false
		}
	}
	k = trimASCIISpace(k)
	if k == "" {
		return "", "", false
	}
	return k, trimASCIISpace(v), true
}

// trimASCIISpace trims the ASCII white space of C's isspace; unlike
// strings.TrimSpace it leaves Unicode spaces, which are part of a value.
func trimASCIISpace(s string) string {
	isSpace := func(c byte) bool { return c == ' ' || ('\t' <= c && c <= '\r') }
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

type robotsKeyKind int

const (
	keyOther robotsKeyKind = iota
	keyUserAgent
	keyAllow
	keyDisallow
	keySitemap
)

// robotsKey classifies a key by how it starts, ignoring case, as Google's
// parser does: "User-agents" is a user-agent line and "Dissalow" a
// disallow line. The misspellings are the ones Google accepts.
func robotsKey(k string) robotsKeyKind {
	has := func(prefixes ...string) bool {
		for _, p := range prefixes {
			if len(k) >= len(p) && strings.EqualFold(k[:len(p)], p) {
				return true
			}
		}
		return false
	}
	switch {
	case has("user-agent", "useragent", "user agent"):
		return keyUserAgent
	case has("allow"):
		return keyAllow
	case has("disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"):
		return keyDisallow
	case has("sitemap", "site-map"):
		return keySitemap
	}
	return keyOther
}

// groupAgent returns what a user-agent line's value names: "*" when the
// value is a star alone or followed by white space (so "*WordPress*" is not
// the wildcard), else its product token, the leading run of letters, '_'
// and '-' (RFC 9309 section 2.2.1), so that "GPTBot/1.0" names GPTBot. It
// returns "" when the value starts with anything else ("008", "360Spider",
// "\"GPTBot\""): such a line names no crawler.
func groupAgent(v string) string {
	if v == "*" || (len(v) > 1 && v[0] == '*' && (v[1] == ' ' || ('\t' <= v[1] && v[1] <= '\r'))) {
		return "*"
	}
	return productToken(v)
}

// productToken returns the leading run of letters, '_' and '-' of v.
func productToken(v string) string {
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

// newRobotsRule compiles an Allow or Disallow value.
func newRobotsRule(allow bool, v string, line int) RobotsRule {
	esc := escapeRobotsPattern(v)
	rule := RobotsRule{Allow: allow, Pattern: v, Line: line}
	rule.norm = normalizeRobotsPattern(v)
	rule.pat = compileRobotsGlob(rule.norm, len(esc))
	// Google's parser reads "Allow: /dir/index.html" as allowing "/dir/"
	// itself too (the pattern "/dir/$"), since a directory URL serves its
	// index page.
	if allow {
		if i := strings.LastIndexByte(esc, '/'); i >= 0 && strings.HasPrefix(esc[i:], "/index.htm") {
			d := esc[:i+1] + "$"
			g := compileRobotsGlob(normalizeRobotsPattern(d), len(d))
			rule.dir = &g
		}
	}
	return rule
}

func compileRobotsGlob(norm string, prio int) robotsGlob {
	g := robotsGlob{prio: prio}
	if strings.HasSuffix(norm, "$") {
		g.anchored = true
		norm = norm[:len(norm)-1]
	}
	g.segs = strings.Split(norm, "*")
	return g
}

// escapeRobotsPattern gives a pattern the form Google's parser compares and
// measures: octets outside ASCII percent-encoded, hex digits of existing
// escapes upper-cased. Its length is the rule's priority (RFC 9309 section
// 2.2.2: the most specific match is the one with the most octets).
func escapeRobotsPattern(s string) string {
	const hex = "0123456789ABCDEF"
	clean := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] == '%' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte('%')
			b.WriteByte(upperHex(s[i+1]))
			b.WriteByte(upperHex(s[i+2]))
			i += 2
		case c >= 0x80:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func upperHex(c byte) byte {
	if 'a' <= c && c <= 'f' {
		return c - 'a' + 'A'
	}
	return c
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
