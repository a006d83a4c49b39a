package detect

// Parsing a robots.txt (RFC 9309, with Google's leniency): lines, keys,
// groups and rules, each rule's pattern compiled once.

import (
	"bytes"
	"strings"
)

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
