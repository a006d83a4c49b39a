package detect

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The cases below are ported from the test suite of Google's reference
// robots.txt parser: github.com/google/robotstxt, file robots_test.cc
// (commit 22b355ff855419e6a3ff8ff09c0ad7fdb17116f9). Each group names the
// TEST it comes from; each check is one EXPECT_TRUE (allowed) or
// EXPECT_FALSE (disallowed) of it. Where we answer otherwise on purpose,
// differ says why; every other check must give Google's answer.

type googleCheck struct {
	agent, url string
	google     bool   // Google's expectation: true for allowed
	differ     string // why we answer !google; "" when we agree
}

// Reasons we depart from Google's reference parser.
const (
	// RFC 9309 section 2.2.2: octets outside US-ASCII are percent-encoded in
	// both URL and pattern before they are compared, and percent-encoded
	// unreserved characters are decoded. Google's library leaves that to
	// its caller and compares the bytes it is given.
	differEncoding = "RFC 9309 2.2.2 compares URL and pattern after percent-encoding normalisation; Google compares raw bytes"
	// Match takes a crawler's product token and cuts a full User-Agent
	// string to it, so "Foo Bar" is the crawler Foo.
	differCallerToken = "Match cuts the caller's user agent to its product token"
)

var googleRobotsTests = []struct {
	test   string
	robots string
	checks []googleCheck
}{
	{"GoogleOnly_SystemTest", "", []googleCheck{
		{"FooBot", "", true, ""},
		{"", "", true, ""},
	}},
	{"GoogleOnly_SystemTest", "user-agent: FooBot\ndisallow: /\n", []googleCheck{
		{"", "", true, ""},
		{"FooBot", "", false, ""}, // an empty URL is "/"
	}},
	{"ID_LineSyntax_Line", "user-agent: FooBot\ndisallow: /\n", []googleCheck{
		{"FooBot", "http://foo.bar/x/y", false, ""},
	}},
	{"ID_LineSyntax_Line", "foo: FooBot\nbar: /\n", []googleCheck{
		{"FooBot", "http://foo.bar/x/y", true, ""},
	}},
	{"ID_LineSyntax_Line", "user-agent FooBot\ndisallow /\n", []googleCheck{
		{"FooBot", "http://foo.bar/x/y", false, ""},
	}},
	{"ID_LineSyntax_Groups", "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\nuser-agent: BarBot\n" +
		"disallow: /\nallow: /y/\n\n\nallow: /w/\nuser-agent: BazBot\n\nuser-agent: FooBot\nallow: /z/\ndisallow: /\n", []googleCheck{
		{"FooBot", "http://foo.bar/x/b", true, ""},
		{"FooBot", "http://foo.bar/z/d", true, ""},
		{"FooBot", "http://foo.bar/y/c", false, ""},
		{"BarBot", "http://foo.bar/y/c", true, ""},
		{"BarBot", "http://foo.bar/w/a", true, ""},
		{"BarBot", "http://foo.bar/z/d", false, ""},
		{"BazBot", "http://foo.bar/z/d", true, ""},
		{"FooBot", "http://foo.bar/foo/bar/", false, ""},
		{"BarBot", "http://foo.bar/foo/bar/", false, ""},
		{"BazBot", "http://foo.bar/foo/bar/", false, ""},
	}},
	{"ID_LineSyntax_Groups_OtherRules", "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n", []googleCheck{
		{"FooBot", "http://foo.bar/", false, ""},
		{"BarBot", "http://foo.bar/", false, ""},
	}},
	{"ID_LineSyntax_Groups_OtherRules", "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n", []googleCheck{
		{"FooBot", "http://foo.bar/", false, ""},
		{"BarBot", "http://foo.bar/", false, ""},
	}},
	{"ID_REPLineNamesCaseInsensitive", "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n", []googleCheck{
		{"FooBot", "http://foo.bar/x/y", true, ""},
		{"FooBot", "http://foo.bar/a/b", false, ""},
	}},
	{"ID_REPLineNamesCaseInsensitive", "user-agent: FooBot\nallow: /x/\ndisallow: /\n", []googleCheck{
		{"FooBot", "http://foo.bar/x/y", true, ""},
		{"FooBot", "http://foo.bar/a/b", false, ""},
	}},
	{"ID_REPLineNamesCaseInsensitive", "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n", []googleCheck{
		{"FooBot", "http://foo.bar/x/y", true, ""},
		{"FooBot", "http://foo.bar/a/b", false, ""},
	}},
	{"ID_UserAgentValueCaseInsensitive", "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n", []googleCheck{
		{"Foo", "http://foo.bar/x/y", true, ""},
		{"Foo", "http://foo.bar/a/b", false, ""},
		{"foo", "http://foo.bar/x/y", true, ""},
		{"foo", "http://foo.bar/a/b", false, ""},
	}},
	{"ID_UserAgentValueCaseInsensitive", "User-Agent: foo bar\nAllow: /x/\nDisallow: /\n", []googleCheck{
		{"Foo", "http://foo.bar/x/y", true, ""},
		{"Foo", "http://foo.bar/a/b", false, ""},
		{"foo", "http://foo.bar/x/y", true, ""},
		{"foo", "http://foo.bar/a/b", false, ""},
	}},
	{"ID_UserAgentValueCaseInsensitive", "User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n", []googleCheck{
		{"Foo", "http://foo.bar/x/y", true, ""},
		{"Foo", "http://foo.bar/a/b", false, ""},
		{"foo", "http://foo.bar/x/y", true, ""},
		{"foo", "http://foo.bar/a/b", false, ""},
	}},
	{"GoogleOnly_AcceptUserAgentUpToFirstSpace", "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n", []googleCheck{
		{"Foo", "http://foo.bar/x/y", true, ""},
		{"Foo Bar", "http://foo.bar/x/y", false, differCallerToken},
	}},
	{"ID_GlobalGroups_Secondary", "", []googleCheck{
		{"FooBot", "http://foo.bar/x/y", true, ""},
	}},
	{"ID_GlobalGroups_Secondary", "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n", []googleCheck{
		{"FooBot", "http://foo.bar/x/y", false, ""},
		{"BarBot", "http://foo.bar/x/y", true, ""},
	}},
	{"ID_GlobalGroups_Secondary", "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n", []googleCheck{
		{"QuxBot", "http://foo.bar/x/y", true, ""},
	}},
	{"ID_AllowDisallow_Value_CaseSensitive", "user-agent: FooBot\ndisallow: /x/\n", []googleCheck{
		{"FooBot", "http://foo.bar/x/y", false, ""},
	}},
	{"ID_AllowDisallow_Value_CaseSensitive", "user-agent: FooBot\ndisallow: /X/\n", []googleCheck{
		{"FooBot", "http://foo.bar/x/y", true, ""},
	}},
	{"ID_LongestMatch", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n", []googleCheck{
		{"FooBot", "http://foo.bar/x/page.html", false, ""},
	}},
	{"ID_LongestMatch", "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", []googleCheck{
		{"FooBot", "http://foo.bar/x/page.html", true, ""},
		{"FooBot", "http://foo.bar/x/", false, ""},
	}},
	{"ID_LongestMatch", "user-agent: FooBot\ndisallow: \nallow: \n", []googleCheck{
		{"FooBot", "http://foo.bar/x/page.html", true, ""},
	}},
	{"ID_LongestMatch", "user-agent: FooBot\ndisallow: /\nallow: /\n", []googleCheck{
		{"FooBot", "http://foo.bar/x/page.html", true, ""},
	}},
	{"ID_LongestMatch", "user-agent: FooBot\ndisallow: /x\nallow: /x/\n", []googleCheck{
		{"FooBot", "http://foo.bar/x", false, ""},
		{"FooBot", "http://foo.bar/x/", true, ""},
	}},
	{"ID_LongestMatch", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n", []googleCheck{
		{"FooBot", "http://foo.bar/x/page.html", true, ""},
	}},
	{"ID_LongestMatch", "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", []googleCheck{
		{"FooBot", "http://foo.bar/page.html", false, ""},
		{"FooBot", "http://foo.bar/page", true, ""},
	}},
	{"ID_LongestMatch", "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", []googleCheck{
		{"FooBot", "http://foo.bar/x/page.html", true, ""},
		{"FooBot", "http://foo.bar/x/y.html", false, ""},
	}},
	{"ID_LongestMatch", "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", []googleCheck{
		{"FooBot", "http://foo.bar/x/page", true, ""},
		{"FooBot", "http://foo.bar/y/page", false, ""},
	}},
	{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n", []googleCheck{
		{"FooBot", "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par", true, ""},
	}},
	{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n", []googleCheck{
		{"FooBot", "http://foo.bar/foo/bar/%E3%83%84", true, ""},
		{"FooBot", "http://foo.bar/foo/bar/ツ", false, differEncoding},
	}},
	{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n", []googleCheck{
		{"FooBot", "http://foo.bar/foo/bar/%E3%83%84", true, ""},
		{"FooBot", "http://foo.bar/foo/bar/ツ", false, differEncoding},
	}},
	{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", []googleCheck{
		// RFC 9309 2.2.2's own table: /foo/bar/%62%61%7A matches /foo/bar/baz.
		{"FooBot", "http://foo.bar/foo/bar/baz", false, differEncoding},
		{"FooBot", "http://foo.bar/foo/bar/%62%61%7A", true, ""},
	}},
	{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", []googleCheck{
		{"FooBot", "http://foo.bar/foo/bar/quz", false, ""},
		{"FooBot", "http://foo.bar/foo/quz", true, ""},
		{"FooBot", "http://foo.bar/foo//quz", true, ""},
		{"FooBot", "http://foo.bar/foo/bax/quz", true, ""},
	}},
	{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", []googleCheck{
		{"FooBot", "http://foo.bar/foo/bar", false, ""},
		{"FooBot", "http://foo.bar/foo/bar/qux", true, ""},
		{"FooBot", "http://foo.bar/foo/bar/", true, ""},
		{"FooBot", "http://foo.bar/foo/bar/baz", true, ""},
	}},
	{"ID_SpecialCharacters", "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n", []googleCheck{
		{"FooBot", "http://foo.bar/foo/bar", true, ""},
		{"FooBot", "http://foo.bar/foo/quz", false, ""},
	}},
	{"GoogleOnly_IndexHTMLisDirectory", "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n", []googleCheck{
		{"foobot", "http://foo.com/allowed-slash/", true, ""},
		{"foobot", "http://foo.com/allowed-slash/index.htm", false, ""},
		{"foobot", "http://foo.com/allowed-slash/index.html", true, ""},
		{"foobot", "http://foo.com/anyother-url", false, ""},
	}},
	{"GoogleOnly_DocumentationChecks", "user-agent: FooBot\ndisallow: /\nallow: /fish\n", []googleCheck{
		{"FooBot", "http://foo.bar/bar", false, ""},
		{"FooBot", "http://foo.bar/fish", true, ""},
		{"FooBot", "http://foo.bar/fish.html", true, ""},
		{"FooBot", "http://foo.bar/fish/salmon.html", true, ""},
		{"FooBot", "http://foo.bar/fishheads", true, ""},
		{"FooBot", "http://foo.bar/fishheads/yummy.html", true, ""},
		{"FooBot", "http://foo.bar/fish.html?id=anything", true, ""},
		{"FooBot", "http://foo.bar/Fish.asp", false, ""},
		{"FooBot", "http://foo.bar/catfish", false, ""},
		{"FooBot", "http://foo.bar/?id=fish", false, ""},
	}},
	{"GoogleOnly_DocumentationChecks", "user-agent: FooBot\ndisallow: /\nallow: /fish*\n", []googleCheck{
		{"FooBot", "http://foo.bar/bar", false, ""},
		{"FooBot", "http://foo.bar/fish", true, ""},
		{"FooBot", "http://foo.bar/fish.html", true, ""},
		{"FooBot", "http://foo.bar/fish/salmon.html", true, ""},
		{"FooBot", "http://foo.bar/fishheads", true, ""},
		{"FooBot", "http://foo.bar/fishheads/yummy.html", true, ""},
		{"FooBot", "http://foo.bar/fish.html?id=anything", true, ""},
		{"FooBot", "http://foo.bar/Fish.bar", false, ""},
		{"FooBot", "http://foo.bar/catfish", false, ""},
		{"FooBot", "http://foo.bar/?id=fish", false, ""},
	}},
	{"GoogleOnly_DocumentationChecks", "user-agent: FooBot\ndisallow: /\nallow: /fish/\n", []googleCheck{
		{"FooBot", "http://foo.bar/bar", false, ""},
		{"FooBot", "http://foo.bar/fish/", true, ""},
		{"FooBot", "http://foo.bar/fish/salmon", true, ""},
		{"FooBot", "http://foo.bar/fish/?salmon", true, ""},
		{"FooBot", "http://foo.bar/fish/salmon.html", true, ""},
		{"FooBot", "http://foo.bar/fish/?id=anything", true, ""},
		{"FooBot", "http://foo.bar/fish", false, ""},
		{"FooBot", "http://foo.bar/fish.html", false, ""},
		{"FooBot", "http://foo.bar/Fish/Salmon.html", false, ""},
	}},
	{"GoogleOnly_DocumentationChecks", "user-agent: FooBot\ndisallow: /\nallow: /*.php\n", []googleCheck{
		{"FooBot", "http://foo.bar/bar", false, ""},
		{"FooBot", "http://foo.bar/filename.php", true, ""},
		{"FooBot", "http://foo.bar/folder/filename.php", true, ""},
		{"FooBot", "http://foo.bar/folder/filename.php?parameters", true, ""},
		{"FooBot", "http://foo.bar//folder/any.php.file.html", true, ""},
		{"FooBot", "http://foo.bar/filename.php/", true, ""},
		{"FooBot", "http://foo.bar/index?f=filename.php/", true, ""},
		{"FooBot", "http://foo.bar/php/", false, ""},
		{"FooBot", "http://foo.bar/index?php", false, ""},
		{"FooBot", "http://foo.bar/windows.PHP", false, ""},
	}},
	{"GoogleOnly_DocumentationChecks", "user-agent: FooBot\ndisallow: /\nallow: /*.php$\n", []googleCheck{
		{"FooBot", "http://foo.bar/bar", false, ""},
		{"FooBot", "http://foo.bar/filename.php", true, ""},
		{"FooBot", "http://foo.bar/folder/filename.php", true, ""},
		{"FooBot", "http://foo.bar/filename.php?parameters", false, ""},
		{"FooBot", "http://foo.bar/filename.php/", false, ""},
		{"FooBot", "http://foo.bar/filename.php5", false, ""},
		{"FooBot", "http://foo.bar/php/", false, ""},
		{"FooBot", "http://foo.bar/filename?php", false, ""},
		{"FooBot", "http://foo.bar/aaaphpaaa", false, ""},
		{"FooBot", "http://foo.bar//windows.PHP", false, ""},
	}},
	{"GoogleOnly_DocumentationChecks", "user-agent: FooBot\ndisallow: /\nallow: /fish*.php\n", []googleCheck{
		{"FooBot", "http://foo.bar/bar", false, ""},
		{"FooBot", "http://foo.bar/fish.php", true, ""},
		{"FooBot", "http://foo.bar/fishheads/catfish.php?parameters", true, ""},
		{"FooBot", "http://foo.bar/Fish.PHP", false, ""},
	}},
	{"GoogleOnly_DocumentationChecks", "user-agent: FooBot\nallow: /p\ndisallow: /\n", []googleCheck{
		{"FooBot", "http://example.com/page", true, ""},
	}},
	{"GoogleOnly_DocumentationChecks", "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n", []googleCheck{
		{"FooBot", "http://example.com/folder/page", true, ""},
	}},
	{"GoogleOnly_DocumentationChecks", "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n", []googleCheck{
		{"FooBot", "http://example.com/page.htm", false, ""},
	}},
	{"GoogleOnly_DocumentationChecks", "user-agent: FooBot\nallow: /$\ndisallow: /\n", []googleCheck{
		{"FooBot", "http://example.com/", true, ""},
		{"FooBot", "http://example.com/page.html", false, ""},
	}},
	// ID_UTF8ByteOrderMarkIsSkipped counts the directives Google's parser
	// reports; here the same files carry a Disallow so that the count shows
	// in the verdict.
	{"ID_UTF8ByteOrderMarkIsSkipped (full BOM)", "\xEF\xBB\xBFUser-Agent: foo\nDisallow: /AnyValue\n", []googleCheck{
		{"foo", "http://foo.bar/AnyValue", false, ""},
	}},
	{"ID_UTF8ByteOrderMarkIsSkipped (partial BOM, 2 bytes)", "\xEF\xBBUser-Agent: foo\nDisallow: /AnyValue\n", []googleCheck{
		{"foo", "http://foo.bar/AnyValue", false, ""},
	}},
	{"ID_UTF8ByteOrderMarkIsSkipped (partial BOM, 1 byte)", "\xEFUser-Agent: foo\nDisallow: /AnyValue\n", []googleCheck{
		{"foo", "http://foo.bar/AnyValue", false, ""},
	}},
	{"ID_UTF8ByteOrderMarkIsSkipped (broken BOM: the first line is garbage)", "\xEF\x11\xBFUser-Agent: foo\nDisallow: /AnyValue\n", []googleCheck{
		{"foo", "http://foo.bar/AnyValue", true, ""},
	}},
	{"ID_UTF8ByteOrderMarkIsSkipped (BOM inside the file: that line is garbage)", "User-Agent: foo\n\xEF\xBB\xBFDisallow: /AnyValue\n", []googleCheck{
		{"foo", "http://foo.bar/AnyValue", true, ""},
	}},
}

func TestRobotsGoogleReference(t *testing.T) {
	for _, tt := range googleRobotsTests {
		r := ParseRobots([]byte(tt.robots))
		for _, c := range tt.checks {
			want := c.google
			if c.differ != "" {
				want = !want
			}
			got := r.Match(c.agent, c.url)
			if (got.Verdict != Disallowed) != want {
				t.Errorf("robots_test.cc %s: %q %q on\n%s\ngot %+v, want allowed=%v (Google: %v; %s)",
					tt.test, c.agent, c.url, tt.robots, got, want, c.google, c.differ)
			}
		}
	}
}

// Source: robots_test.cc, GoogleOnly_LineTooLong. A line is read up to
// 8*2083 bytes; the rest of it is ignored, so a long rule is cut, not
// dropped.
func TestRobotsGoogleLineTooLong(t *testing.T) {
	const maxLine = 2083 * 8
	{
		longline := "/x/" + strings.Repeat("a", maxLine-2*len("/x/")-len("disallow: ")+len("\n"))
		r := ParseRobots([]byte("user-agent: FooBot\ndisallow: " + longline + "/qux\n"))
		if got := r.Match("FooBot", "http://foo.bar/fux"); got.Verdict == Disallowed {
			t.Errorf("/fux: %+v, want allowed", got)
		}
		if got := r.Match("FooBot", "http://foo.bar"+longline+"/fux"); got.Verdict != Disallowed {
			t.Errorf("the cut-off disallow rule did not match: %+v", got)
		}
	}
	{
		n := maxLine - 2*len("/x/") - len("allow: ") + len("\n")
		a, b := "/x/"+strings.Repeat("a", n), "/x/"+strings.Repeat("b", n)
		r := ParseRobots([]byte("user-agent: FooBot\ndisallow: /\nallow: " + a + "/qux\nallow: " + b + "/qux\n"))
		if got := r.Match("FooBot", "http://foo.bar/"); got.Verdict != Disallowed {
			t.Errorf("/: %+v, want disallowed", got)
		}
		if got := r.Match("FooBot", "http://foo.bar"+a+"/qux"); got.Verdict != Allowed {
			t.Errorf("exact long allow: %+v, want allowed", got)
		}
		if got := r.Match("FooBot", "http://foo.bar"+b+"/fux"); got.Verdict != Allowed {
			t.Errorf("cut-off long allow: %+v, want allowed", got)
		}
	}
}

// Source: robots_test.cc, ID_LinesNumbersAreCountedCorrectly. Every line
// ending (LF, CRLF, CR, none at the end, mixed) counts lines alike, so the
// rule reported as evidence has the line number Google reports.
func TestRobotsGoogleLineNumbers(t *testing.T) {
	files := map[string]string{
		"unix":     "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n",
		"dos":      "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
		"mac":      "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
		"no final": "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /",
		"mixed":    "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /",
	}
	for name, body := range files {
		r := ParseRobots([]byte(body))
		if got := r.Match("bar", "/x"); got.Line != 6 || got.Verdict != Disallowed {
			t.Errorf("%s: bar /x = %+v, want Disallow: / on line 6", name, got)
		}
		if got := r.Match("foo", "/some/path"); got.Line != 2 || got.Verdict != Allowed {
			t.Errorf("%s: foo /some/path = %+v, want Allow on line 2", name, got)
		}
	}
}

// Source: robots_test.cc, ID_NonStandardLineExample_Sitemap: a Sitemap line
// may stand anywhere.
func TestRobotsGoogleSitemap(t *testing.T) {
	const sm = "http://foo.bar/sitemap.xml"
	rest := "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\n"
	for _, body := range []string{rest + "Sitemap: " + sm + "\n", "Sitemap: " + sm + "\n" + rest} {
		if diff := cmp.Diff([]string{sm}, ParseRobots([]byte(body)).Sitemaps); diff != "" {
			t.Errorf("sitemaps of %q (-want +got):\n%s", body, diff)
		}
	}
}

// Source: robots_test.cc, TestGetPathParamsQuery. robotsTarget takes a path
// or a URL with a scheme; a bare "example.com/a" is a relative path to it,
// where Google's helper reads a host.
func TestRobotsGoogleTarget(t *testing.T) {
	const differBare = "a scheme-less, slash-less input is a relative path here, a host for Google"
	tests := []struct{ in, google, ours, differ string }{
		{"", "/", "", ""},
		{"http://www.example.com", "/", "", ""},
		{"http://www.example.com/", "/", "", ""},
		{"http://www.example.com/a", "/a", "", ""},
		{"http://www.example.com/a/", "/a/", "", ""},
		{"http://www.example.com/a/b?c=http://d.e/", "/a/b?c=http://d.e/", "", ""},
		{"http://www.example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f", "", ""},
		{"example.com", "/", "/example.com", differBare},
		{"example.com/", "/", "/example.com/", differBare},
		{"example.com/a", "/a", "/example.com/a", differBare},
		{"example.com/a/", "/a/", "/example.com/a/", differBare},
		{"example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f", "/example.com/a/b?c=d&e=f", differBare},
		{"a", "/", "/a", differBare},
		{"a/", "/", "/a/", differBare},
		{"/a", "/a", "", ""},
		{"a/b", "/b", "/a/b", differBare},
		{"example.com?a", "/?a", "/example.com?a", differBare},
		{"example.com/a;b#c", "/a;b", "/example.com/a;b", differBare},
		{"//a/b/c", "/b/c", "", ""},
	}
	for _, tt := range tests {
		want := tt.google
		if tt.differ != "" {
			want = tt.ours
		}
		if got := robotsTarget(tt.in); got != want {
			t.Errorf("robotsTarget(%q) = %q, want %q (Google: %q)", tt.in, got, want, tt.google)
		}
	}
}

// Source: robots_test.cc, TestMaybeEscapePattern: the form whose length is
// a rule's priority.
func TestRobotsGoogleEscapePattern(t *testing.T) {
	for in, want := range map[string]string{
		"http://www.example.com": "http://www.example.com",
		"/a/b/c":                 "/a/b/c",
		"á":                      "%C3%A1",
		"%aa":                    "%AA",
		"/SanJoséSellers":        "/SanJos%C3%A9Sellers", // the example of robots.cc's comment
	} {
		if got := escapeRobotsPattern(in); got != want {
			t.Errorf("escapeRobotsPattern(%q) = %q, want %q", in, got, want)
		}
	}
}
