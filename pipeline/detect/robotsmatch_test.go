package detect

// Tests of matching agents and paths against a robots.txt, and of the
// normalising of paths and patterns.

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRobotsMatch(t *testing.T) {
	tests := []struct {
		name  string
		robot string
		agent string
		path  string
		want  RobotsMatch
	}{
		{
			name:  "no file content",
			robot: "",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: NoRule},
		},
		{
			name:  "star group applies",
			robot: "User-agent: *\nDisallow: /checkout\n",
			agent: "GPTBot", path: "/checkout/123",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /checkout", Line: 2},
		},
		{
			name:  "star group, no rule matches",
			robot: "User-agent: *\nDisallow: /checkout\n",
			agent: "GPTBot", path: "/products/x",
			want: RobotsMatch{Verdict: NoRule, Group: "*"},
		},
		{
			name:  "specific group beats star",
			robot: "User-agent: *\nDisallow: /\n\nUser-agent: GPTBot\nAllow: /\n",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: Allowed, Group: "GPTBot", Rule: "Allow: /", Line: 5},
		},
		{
			name:  "specific group without matching rule does not fall back to star",
			robot: "User-agent: *\nDisallow: /\n\nUser-agent: GPTBot\nDisallow: /private\n",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: NoRule, Group: "GPTBot"},
		},
		{
			name:  "agent token case-insensitive",
			robot: "user-agent: gptbot\ndisallow: /\n",
			agent: "GPTBot", path: "/a",
			want: RobotsMatch{Verdict: Disallowed, Group: "GPTBot", Rule: "Disallow: /", Line: 2},
		},
		{
			name:  "version suffix on user-agent line",
			robot: "User-agent: GPTBot/1.1\nDisallow: /\n",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: Disallowed, Group: "GPTBot", Rule: "Disallow: /", Line: 2},
		},
		{
			name:  "full user-agent string is cut to its token",
			robot: "User-agent: ClaudeBot\nDisallow: /\n",
			agent: "ClaudeBot/1.0; +claudebot@anthropic.com", path: "/",
			want: RobotsMatch{Verdict: Disallowed, Group: "ClaudeBot", Rule: "Disallow: /", Line: 2},
		},
		{
			name:  "prefix of token is a different agent",
			robot: "User-agent: Claude\nDisallow: /\n",
			agent: "ClaudeBot", path: "/",
			want: RobotsMatch{Verdict: NoRule},
		},
		{
			name:  "several user-agent lines share a group",
			robot: "User-agent: GPTBot\nUser-agent: ClaudeBot\nDisallow: /cart\n",
			agent: "ClaudeBot", path: "/cart",
			want: RobotsMatch{Verdict: Disallowed, Group: "ClaudeBot", Rule: "Disallow: /cart", Line: 3},
		},
		{
			name:  "blank line between user-agent lines does not split the group",
			robot: "User-agent: GPTBot\n\nUser-agent: *\nDisallow: /\n",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: Disallowed, Group: "GPTBot", Rule: "Disallow: /", Line: 4},
		},
		{
			name:  "groups for the same agent merge",
			robot: "User-agent: GPTBot\nDisallow: /a\n\nUser-agent: *\nDisallow: /\n\nUser-agent: gptbot\nAllow: /a/b\n",
			agent: "GPTBot", path: "/a/b/c",
			want: RobotsMatch{Verdict: Allowed, Group: "GPTBot", Rule: "Allow: /a/b", Line: 8},
		},
		{
			name:  "star groups merge",
			robot: "User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n",
			agent: "CCBot", path: "/b",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /b", Line: 5},
		},
		{
			name:  "longest match wins",
			robot: "User-agent: *\nAllow: /p\nDisallow: /products/\n",
			agent: "GPTBot", path: "/products/shoe",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /products/", Line: 3},
		},
		{
			name:  "longer allow beats shorter disallow",
			robot: "User-agent: *\nDisallow: /\nAllow: /products\n",
			agent: "GPTBot", path: "/products/shoe",
			want: RobotsMatch{Verdict: Allowed, Group: "*", Rule: "Allow: /products", Line: 3},
		},
		{
			name:  "allow wins a tie",
			robot: "User-agent: *\nDisallow: /page\nAllow: /page\n",
			agent: "GPTBot", path: "/page",
			want: RobotsMatch{Verdict: Allowed, Group: "*", Rule: "Allow: /page", Line: 3},
		},
		{
			name:  "allow wins a tie whatever the order",
			robot: "User-agent: *\nAllow: /page\nDisallow: /page\n",
			agent: "GPTBot", path: "/page",
			want: RobotsMatch{Verdict: Allowed, Group: "*", Rule: "Allow: /page", Line: 2},
		},
		{
			name:  "empty disallow says nothing (no rule: all permitted)",
			robot: "User-agent: GPTBot\nDisallow:\n",
			agent: "GPTBot", path: "/anything",
			want: RobotsMatch{Verdict: NoRule, Group: "GPTBot"},
		},
		{
			name:  "empty disallow loses to any real rule",
			robot: "User-agent: *\nDisallow:\nDisallow: /cart\n",
			agent: "GPTBot", path: "/cart",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /cart", Line: 3},
		},
		{
			name:  "empty allow says nothing",
			robot: "User-agent: *\nAllow:\n",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: NoRule, Group: "*"},
		},
		{
			name:  "wildcard in the middle",
			robot: "User-agent: *\nDisallow: /*/checkout\n",
			agent: "GPTBot", path: "/en/checkout/1",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /*/checkout", Line: 2},
		},
		{
			name:  "end anchor matches",
			robot: "User-agent: *\nDisallow: /*.json$\n",
			agent: "GPTBot", path: "/products.json",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /*.json$", Line: 2},
		},
		{
			name:  "end anchor does not match longer path",
			robot: "User-agent: *\nDisallow: /*.json$\n",
			agent: "GPTBot", path: "/products.json?page=2",
			want: RobotsMatch{Verdict: NoRule, Group: "*"},
		},
		{
			name:  "exact path anchor",
			robot: "User-agent: *\nDisallow: /$\n",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /$", Line: 2},
		},
		{
			name:  "exact path anchor, other path",
			robot: "User-agent: *\nDisallow: /$\n",
			agent: "GPTBot", path: "/x",
			want: RobotsMatch{Verdict: NoRule, Group: "*"},
		},
		{
			name:  "query is part of the match",
			robot: "User-agent: *\nDisallow: /*?q=\n",
			agent: "GPTBot", path: "/search?q=shoes",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /*?q=", Line: 2},
		},
		{
			name:  "dollar in the middle is literal",
			robot: "User-agent: *\nDisallow: /a$b\n",
			agent: "GPTBot", path: "/a$bc",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /a$b", Line: 2},
		},
		{
			name:  "matching is case-sensitive on paths",
			robot: "User-agent: *\nDisallow: /Cart\n",
			agent: "GPTBot", path: "/cart",
			want: RobotsMatch{Verdict: NoRule, Group: "*"},
		},
		{
			name:  "percent-encoded unreserved chars decoded in path",
			robot: "User-agent: *\nDisallow: /foo/bar/baz\n",
			agent: "GPTBot", path: "/foo/bar/%62%61%7A",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /foo/bar/baz", Line: 2},
		},
		{
			name:  "UTF-8 pattern matches encoded path",
			robot: "User-agent: *\nDisallow: /foo/bar/ツ\n",
			agent: "GPTBot", path: "/foo/bar/%E3%83%84",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /foo/bar/ツ", Line: 2},
		},
		{
			name:  "lower-case hex in pattern",
			robot: "User-agent: *\nDisallow: /foo/bar/%e3%83%84\n",
			agent: "GPTBot", path: "/foo/bar/ツ",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /foo/bar/%e3%83%84", Line: 2},
		},
		{
			name:  "encoded slash stays distinct",
			robot: "User-agent: *\nDisallow: /a/b\n",
			agent: "GPTBot", path: "/a%2Fb",
			want: RobotsMatch{Verdict: NoRule, Group: "*"},
		},
		{
			name:  "full URL as path",
			robot: "User-agent: *\nDisallow: /products/\n",
			agent: "GPTBot", path: "https://shop.example/products/a?x=1#top",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /products/", Line: 2},
		},
		{
			name:  "comments, CRLF, BOM and odd spacing",
			robot: "\ufeff# hello\r\nUSER-AGENT :  GPTBot  # the bot\r\nDISALLOW:/private # no\r\n",
			agent: "GPTBot", path: "/private/x",
			want: RobotsMatch{Verdict: Disallowed, Group: "GPTBot", Rule: "Disallow: /private", Line: 3},
		},
		{
			name:  "rules before any user-agent are ignored",
			robot: "Disallow: /\nUser-agent: *\nAllow: /x\n",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: NoRule, Group: "*"},
		},
		{
			name:  "sitemap and crawl-delay do not end a group",
			robot: "User-agent: GPTBot\nCrawl-delay: 5\nSitemap: https://s.example/sitemap.xml\nDisallow: /\n",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: Disallowed, Group: "GPTBot", Rule: "Disallow: /", Line: 4},
		},
		{
			name:  "user-agent after rules starts a new group",
			robot: "User-agent: GPTBot\nDisallow: /\nUser-agent: CCBot\nAllow: /\n",
			agent: "CCBot", path: "/",
			want: RobotsMatch{Verdict: Allowed, Group: "CCBot", Rule: "Allow: /", Line: 4},
		},
		{
			name:  "common typo of disallow",
			robot: "User-agent: *\nDissallow: /x\n",
			agent: "GPTBot", path: "/x",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /x", Line: 2},
		},
		{
			name:  "pattern without leading slash never matches",
			robot: "User-agent: *\nDisallow: private\n",
			agent: "GPTBot", path: "/private",
			want: RobotsMatch{Verdict: NoRule, Group: "*"},
		},
		{
			name:  "leading star pattern",
			robot: "User-agent: *\nDisallow: *checkout\n",
			agent: "GPTBot", path: "/a/checkout",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: *checkout", Line: 2},
		},
		// A user-agent line whose value names no product token still
		// starts a group; the rules under it bind nobody (Google's
		// reference parser, robots.cc HandleUserAgent). Reading it as
		// nothing gave its "Disallow: /" to the "*" group before it.
		{
			name:  "user-agent 008 starts its own group",
			robot: "User-agent: *\nDisallow: /cart\n\nUser-agent: 008\nDisallow: /\n",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: NoRule, Group: "*"},
		},
		{
			name:  "user-agent 80bot, 360Spider and a quoted name",
			robot: "User-agent: *\nDisallow: /cart\n\nUser-agent: 80bot\nUser-agent: 360Spider\nUser-agent: \"GPTBot\"\nDisallow: /\n",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: NoRule, Group: "*"},
		},
		{
			name:  "user-agent without a token at the start of the file",
			robot: "User-agent: 008\nDisallow: /\n",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: NoRule},
		},
		{
			name:  "empty user-agent starts a group too",
			robot: "User-agent: *\nDisallow: /cart\nUser-agent:\nDisallow: /\n",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: NoRule, Group: "*"},
		},
		{
			name:  "tokenless user-agent line inside a group extends it",
			robot: "User-agent: GPTBot\nUser-agent: 008\nDisallow: /\n",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: Disallowed, Group: "GPTBot", Rule: "Disallow: /", Line: 3},
		},
		{
			name:  "star inside a name is not the wildcard",
			robot: "User-agent: *WordPress*\nDisallow: /\n",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: NoRule},
		},
		{
			name:  "star glued to a version is not the wildcard",
			robot: "User-agent: */1.0\nDisallow: /\n",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: NoRule},
		},
		{
			name:  "star followed by white space is the wildcard",
			robot: "User-agent: * everyone\nDisallow: /\n",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /", Line: 2},
		},
		// What Google's parser accepts in the wild (robots.cc).
		{
			name:  "missing colon after the key",
			robot: "User-agent GPTBot\nDisallow /private\n",
			agent: "GPTBot", path: "/private/x",
			want: RobotsMatch{Verdict: Disallowed, Group: "GPTBot", Rule: "Disallow: /private", Line: 2},
		},
		{
			name:  "missing colon with more than one value word is no directive",
			robot: "User-agent: GPTBot\nDisallow / private\n",
			agent: "GPTBot", path: "/private",
			want: RobotsMatch{Verdict: NoRule, Group: "GPTBot"},
		},
		{
			name:  "misspelt disallow: diasllow",
			robot: "User-agent: *\nDiasllow: /x\n",
			agent: "GPTBot", path: "/x",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /x", Line: 2},
		},
		{
			name:  "misspelt disallow: disalow",
			robot: "User-agent: *\nDisalow: /x\n",
			agent: "GPTBot", path: "/x",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /x", Line: 2},
		},
		{
			name:  "user agent with a space, and a key read by its start",
			robot: "User agent: GPTBot\nDisallowed: /x\n",
			agent: "GPTBot", path: "/x/y",
			want: RobotsMatch{Verdict: Disallowed, Group: "GPTBot", Rule: "Disallow: /x", Line: 2},
		},
		{
			name:  "partial byte-order mark",
			robot: "\xef\xbbUser-agent: GPTBot\nDisallow: /\n",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: Disallowed, Group: "GPTBot", Rule: "Disallow: /", Line: 2},
		},
		{
			name:  "NUL ends a line, as in Google's C-string parser",
			robot: "User-agent: *\nDisallow: /a\x00bc\n",
			agent: "GPTBot", path: "/a",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /a", Line: 2},
		},
		{
			name:  "allow of an index page allows its directory (Google)",
			robot: "User-agent: *\nDisallow: /\nAllow: /shop/index.html\n",
			agent: "GPTBot", path: "/shop/",
			want: RobotsMatch{Verdict: Allowed, Group: "*", Rule: "Allow: /shop/index.html", Line: 3},
		},
		// RFC 9309 2.2.3: a percent-encoded character matches its raw form
		// and the reverse. (Google's parser compares the bytes as given
		// and would not match these.)
		{
			name:  "encoded star in the pattern matches a literal star",
			robot: "User-agent: *\nDisallow: /path/file-with-a-%2A.html\n",
			agent: "GPTBot", path: "https://www.example.com/path/file-with-a-*.html",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /path/file-with-a-%2A.html", Line: 2},
		},
		{
			name:  "encoded star is not a wildcard",
			robot: "User-agent: *\nDisallow: /a%2Ab\n",
			agent: "GPTBot", path: "/axxb",
			want: RobotsMatch{Verdict: NoRule, Group: "*"},
		},
		{
			name:  "encoded dollar in the pattern matches a literal dollar",
			robot: "User-agent: *\nDisallow: /path/foo-%24\n",
			agent: "GPTBot", path: "https://www.example.com/path/foo-$",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /path/foo-%24", Line: 2},
		},
		{
			name:  "encoded dollar is not an anchor",
			robot: "User-agent: *\nDisallow: /foo%24\n",
			agent: "GPTBot", path: "/foo",
			want: RobotsMatch{Verdict: NoRule, Group: "*"},
		},
		{
			name:  "encoded colon in the pattern matches a raw colon",
			robot: "User-agent: *\nDisallow: /wiki%3AArticle_wizard\n",
			agent: "GPTBot", path: "/wiki:Article_wizard",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /wiki%3AArticle_wizard", Line: 2},
		},
		{
			name:  "raw colon in the pattern matches an encoded colon",
			robot: "User-agent: *\nDisallow: /wiki:Article_wizard\n",
			agent: "GPTBot", path: "/wiki%3aArticle_wizard",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /wiki:Article_wizard", Line: 2},
		},
		{
			name:  "angle brackets and quotes compare in one form",
			robot: "User-agent: *\nDisallow: /q/<b>\"x\"\n",
			agent: "GPTBot", path: "https://s.example/q/%3Cb%3E%22x%22",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /q/<b>\"x\"", Line: 2},
		},
		{
			name:  "encoded angle brackets match raw ones in the URL",
			robot: "User-agent: *\nDisallow: /q/%3cb%3e\n",
			agent: "GPTBot", path: "https://s.example/q/<b>",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /q/%3cb%3e", Line: 2},
		},
		{
			name:  "a space in the pattern matches an encoded one",
			robot: "User-agent: *\nDisallow: /my page\n",
			agent: "GPTBot", path: "/my%20page.html",
			want: RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /my page", Line: 2},
		},
		{
			name:  "an encoded question mark is not the query",
			robot: "User-agent: *\nDisallow: /a%3Fb\n",
			agent: "GPTBot", path: "/a?b",
			want: RobotsMatch{Verdict: NoRule, Group: "*"},
		},
		{
			name:  "html soft 404 as robots.txt",
			robot: "<!doctype html><html><head><title>Shop</title></head><body>Disallow: /</body></html>",
			agent: "GPTBot", path: "/",
			want: RobotsMatch{Verdict: NoRule},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseRobots([]byte(tt.robot)).Match(tt.agent, tt.path)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Match(%q, %q) mismatch (-want +got):\n%s", tt.agent, tt.path, diff)
			}
		})
	}
}

func TestNormalizeRobotsPattern(t *testing.T) {
	tests := map[string]string{
		"/*.json$":    "/*.json$",
		"/a$b$":       "/a%24b$",
		"/a%2A%24":    "/a%2A%24",
		"*%2a*":       "*%2A*",
		"/%7Euser/ツ$": "/~user/%E3%83%84$",
	}
	for in, want := range tests {
		if got := normalizeRobotsPattern(in); got != want {
			t.Errorf("normalizeRobotsPattern(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRobotsRuleMatchesHostilePatterns(t *testing.T) {
	// Many wildcards must not make matching slow: the segment matcher is
	// linear, so this finishes at once.
	pat := "/" + strings.Repeat("a*", 5000) + "b$"
	r := ParseRobots([]byte("User-agent: *\nDisallow: " + pat + "\n"))
	path := "/" + strings.Repeat("a", 100000)
	if got := r.Match("x", path); got.Verdict != NoRule {
		t.Errorf("hostile pattern matched: %+v", got)
	}
	if got := r.Match("x", path+"b"); got.Verdict != Disallowed {
		t.Errorf("hostile pattern did not match: %+v", got)
	}
}

func TestNormalizeRobotsPath(t *testing.T) {
	tests := map[string]string{
		"/a b":            "/a%20b",
		"/%7euser":        "/~user",
		"/%2fx":           "/%2Fx",
		"/100%":           "/100%25",
		"/%zz":            "/%25zz",
		"/ä":              "/%C3%A4",
		"/plain/path?q=1": "/plain/path?q%3D1",
		"/*.json$":        "/%2A.json%24", // in a path, '*' and '$' are plain characters
		"/a%2a%24":        "/a%2A%24",
		"/a:b<c>":         "/a%3Ab%3Cc%3E",
		"/a%3Fb?c":        "/a%3Fb?c",
	}
	for in, want := range tests {
		if got := normalizeRobotsPath(in); got != want {
			t.Errorf("normalizeRobotsPath(%q) = %q, want %q", in, got, want)
		}
	}
}
