package detect

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	temoto "github.com/temoto/robotstxt"
)

// The differential test runs our robots.txt reader side by side with an
// independent, maintained one, github.com/temoto/robotstxt (a test-only
// dependency), over real robots.txt files: every AI agent we report, several
// paths, every file of testdata/robots (see its README.md for where the files
// come from and how they were chosen).
//
// Where the two differ, the answer of Google's reference parser
// (github.com/google/robotstxt, robots.cc) decides. Each such case was run
// through that parser, built outside this repository, and is listed in
// robotsOracleDiffs with Google's answer, which must be ours, and the reason
// the oracle answers otherwise. Any other disagreement fails the test, and so
// does a listed case where the oracle no longer disagrees, so the list stays
// exact.

// robotsDiffPaths are the paths asked of every file: the home page the
// report covers and the kinds of page a shop has.
var robotsDiffPaths = []string{"/", "/products/example-item", "/collections/all?page=2", "/search?q=shoes",
	"/cart", "/checkout", "/account/login", "/blog/2024/01/post.html"}

// Why the oracle departs from Google's reference parser.
const (
	whyPrefixAgent = "temoto obeys a group whose user-agent is a prefix of the crawler's token (Applebot for " +
		"Applebot-Extended, google or \"Go 1.1 package http\" for Google-Extended); RFC 9309 2.2.1 and Google match the whole token"
	whyValueSplit = "temoto cuts a value at white space, so \"Disallow: /* jsessionid=$\" becomes \"Disallow: /*\" and " +
		"blocks everything; Google keeps the whole value, which matches no path here"
	whySpaceColon = "temoto misreads \"Disallow : /\" (white space before the colon); RFC 9309 2.2 and Google allow it"
	whyCrawlDelay = "temoto ends a group at a Crawl-delay line; RFC 9309 2.2.4 and Google: lines other than " +
		"user-agent, allow and disallow do not end a group, so the user-agent lines after it join the group"
	whyUnanchored = "temoto matches a pattern holding '*' or '$' anywhere in the path (\"/login$\" matches " +
		"\"/account/login\"); RFC 9309 2.2.2 and Google match from the path's start"
	whyAddSlash = "temoto puts a '/' before a pattern that lacks one; Google matches the pattern from the " +
		"path's first character, so \"Disallow: blog\" matches nothing"
)

// robotsOracleDiffs lists every case of the corpus where the oracle and we
// differ. allowed is the answer of Google's reference parser for each
// listed agent and path (nil agents: every agent of AIAgents; nil paths:
// every path of robotsDiffPaths); ours must equal it.
var robotsOracleDiffs = []struct {
	file    string
	agents  []string
	paths   []string
	allowed bool
	reason  string
}{
	{"bgp.he.net", []string{"Applebot-Extended"}, nil, true, whyPrefixAgent},
	{"flightaware.com", []string{"Applebot-Extended"}, []string{"/account/login"}, false, whyPrefixAgent},
	{"gothamist.com", []string{"Applebot-Extended"}, nil, false, whyPrefixAgent},
	{"timesofindia.indiatimes.com", []string{"Google-Extended"}, []string{"/search?q=shoes"}, false, whyPrefixAgent},
	{"whirlpool.net.au", []string{"Applebot-Extended"}, nil, false, whyPrefixAgent},
	{"www.autoblog.com_443", []string{"Applebot-Extended"}, []string{"/search?q=shoes"}, false, whyPrefixAgent},
	{"www.avsforum.com", []string{"Applebot-Extended"}, nil, true, whyPrefixAgent},
	{"www.cricbuzz.com", []string{"Applebot-Extended"}, []string{"/", "/products/example-item", "/collections/all?page=2", "/cart", "/checkout", "/account/login"}, false, whyPrefixAgent},
	{"www.facebook.com", []string{"Applebot-Extended"}, nil, false, whyPrefixAgent},
	{"www.governmentjobs.com", []string{"Google-Extended"}, nil, false, whyPrefixAgent},
	{"www.mobygames.com", []string{"Google-Extended"}, []string{"/", "/products/example-item", "/collections/all?page=2", "/cart", "/checkout", "/account/login", "/blog/2024/01/post.html"}, true, whyPrefixAgent},
	{"www.ohio.edu", []string{"Applebot-Extended"}, []string{"/search?q=shoes"}, false, whyPrefixAgent},
	{"www.sulekha.com", []string{"Applebot-Extended"}, nil, false, whyPrefixAgent},
	{"www.vwvortex.com", []string{"Applebot-Extended"}, nil, true, whyPrefixAgent},
	{"www.who.int", []string{"Applebot-Extended"}, nil, true, whyPrefixAgent},
	{"www.wordreference.com", []string{"Applebot-Extended"}, nil, true, whyPrefixAgent},
	{"www.wral.com", []string{"Google-Extended"}, nil, false, whyPrefixAgent},
	{"www.yelp.com", []string{"Applebot-Extended"}, nil, false, whyPrefixAgent},
	{"foreverliving.com", nil, nil, true, whyValueSplit},
	{"www.evanscycles.com", nil, []string{"/", "/products/example-item", "/collections/all?page=2", "/cart", "/checkout", "/account/login", "/blog/2024/01/post.html"}, true, whyValueSplit},
	{"www.mylife.com", nil, []string{"/", "/products/example-item", "/cart", "/checkout", "/account/login"}, true, whyValueSplit},
	{"www.webjet.com.au", nil, nil, true, whyValueSplit},
	{"www.mofa.go.kr", nil, nil, false, whySpaceColon},
	{"bitbucket.org", nil, []string{"/", "/products/example-item", "/collections/all?page=2", "/cart", "/checkout", "/account/login", "/blog/2024/01/post.html"}, false, whyCrawlDelay},
	{"www.eventbrite.com", []string{"CCBot"}, nil, false, whyCrawlDelay},
	{"www.twitch.tv", nil, []string{"/account/login"}, true, whyUnanchored},
	{"www.wickes.co.uk", nil, []string{"/account/login"}, true, whyUnanchored},
	{"www.epa.gov", nil, []string{"/blog/2024/01/post.html"}, true, whyAddSlash},
}

// robotsOracleRefuses lists the corpus files the oracle refuses to parse at
// all, with the reason; they are still parsed by us (the fuzz target and
// the table tests cover that nothing breaks).
var robotsOracleRefuses = map[string]string{
	"globalresearch.ca":       whyRefusesDelay,
	"www.kxan.com":            whyRefusesDelay,
	"warwick.ac.uk":           whyRefusesOrphan,
	"www.cheaperthandirt.com": whyRefusesOrphan,
	"www.eliteprospects.com":  whyRefusesOrphan,
	"www.goldmansachs.com":    whyRefusesOrphan,
	"www.harley-davidson.com": whyRefusesOrphan,
	"www.liberty.edu":         whyRefusesOrphan,
	"www.olympic.org":         whyRefusesOrphan,
	"www.talbots.com":         whyRefusesOrphan,
	"www.tvnz.co.nz":          whyRefusesOrphan,
	"www.wtatennis.com":       whyRefusesOrphan,
	"www.x-plane.org":         whyRefusesOrphan,
}

const (
	whyRefusesOrphan = "temoto refuses the whole file when an Allow, Disallow or Crawl-delay line comes before " +
		"any user-agent line; RFC 9309 2.2 and Google ignore that line and read the rest"
	whyRefusesDelay = "temoto refuses the whole file for a Crawl-delay value that is not a number; Crawl-delay " +
		"is not part of RFC 9309 and Google ignores it"
)

func TestRobotsDifferential(t *testing.T) {
	files := loadRobotsCorpus(t)
	if len(files) < 1000 {
		t.Fatalf("corpus holds %d files, want at least 1000", len(files))
	}
	type key struct{ file, agent, path string }
	listed := map[key]int{} // index into robotsOracleDiffs
	for i, d := range robotsOracleDiffs {
		agentsOf := d.agents
		if agentsOf == nil {
			for _, a := range AIAgents() {
				agentsOf = append(agentsOf, a.Token)
			}
		}
		pathsOf := d.paths
		if pathsOf == nil {
			pathsOf = robotsDiffPaths
		}
		for _, a := range agentsOf {
			for _, p := range pathsOf {
				listed[key{d.file, a, p}] = i
			}
		}
	}
	seen := map[key]bool{}
	refused := map[string]bool{}
	var compared, agree int
	for _, f := range files {
		ours := ParseRobots(f.body)
		theirs, err := temoto.FromBytes(f.body)
		if err != nil {
			if robotsOracleRefuses[f.name] == "" {
				t.Errorf("%s: the oracle refuses the file (%.100s) and robotsOracleRefuses does not list it", f.name, err)
			}
			refused[f.name] = true
			continue
		}
		for _, a := range AIAgents() {
			for _, p := range robotsDiffPaths {
				got := ours.Match(a.Token, p).Verdict != Disallowed
				oracle := theirs.TestAgent(p, a.Token)
				compared++
				k := key{f.name, a.Token, p}
				i, ok := listed[k]
				switch {
				case ok:
					seen[k] = true
					d := robotsOracleDiffs[i]
					if got != d.allowed {
						t.Errorf("%s %s %s: allowed = %v, Google's reference parser says %v", f.name, a.Token, p, got, d.allowed)
					}
					if oracle == d.allowed {
						t.Errorf("%s %s %s: listed as a disagreement (%s) but the oracle agrees", f.name, a.Token, p, d.reason)
					}
				case got != oracle:
					t.Errorf("%s %s %s: allowed = %v, the oracle says %v, and robotsOracleDiffs does not explain it",
						f.name, a.Token, p, got, oracle)
				}
				if got == oracle {
					agree++
				}
			}
		}
	}
	for k := range listed {
		if !seen[k] {
			t.Errorf("robotsOracleDiffs lists %v, which the corpus did not produce", k)
		}
	}
	for name := range robotsOracleRefuses {
		if !refused[name] {
			t.Errorf("robotsOracleRefuses lists %s, which the oracle parsed", name)
		}
	}
	t.Logf("%d files (%d refused by the oracle), %d answers compared, %d agree (%.2f%%), %d listed with Google's answer",
		len(files), len(refused), compared, agree, 100*float64(agree)/float64(compared), len(listed))
}

type robotsCorpusFile struct {
	name string // the host whose robots.txt it is
	body []byte
}

// loadRobotsCorpus reads every file of the txtar archives under
// testdata/robots. A file is named by its path in the repository it came
// from; its host name (the last element) names it here.
func loadRobotsCorpus(t *testing.T) []robotsCorpusFile {
	t.Helper()
	archives, err := filepath.Glob(filepath.Join("testdata", "robots", "*.txtar"))
	if err != nil || len(archives) == 0 {
		t.Fatalf("no corpus archives under testdata/robots (%v)", err)
	}
	var out []robotsCorpusFile
	names := map[string]bool{}
	for _, a := range archives {
		data, err := os.ReadFile(a)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range splitTxtar(data) {
			name := f.name[strings.LastIndexByte(f.name, '/')+1:]
			if names[name] {
				t.Fatalf("%s: %s appears twice in the corpus", a, name)
			}
			names[name] = true
			out = append(out, robotsCorpusFile{name: name, body: f.body})
		}
	}
	slices.SortFunc(out, func(a, b robotsCorpusFile) int { return strings.Compare(a.name, b.name) })
	return out
}

// splitTxtar splits a txtar archive: a comment, then files, each introduced
// by a line "-- NAME --". It is the format of golang.org/x/tools/txtar.
func splitTxtar(data []byte) []robotsCorpusFile {
	var out []robotsCorpusFile
	cur := -1
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		if n, ok := txtarMarker(line); ok {
			out = append(out, robotsCorpusFile{name: n})
			cur = len(out) - 1
			continue
		}
		if cur >= 0 {
			out[cur].body = append(out[cur].body, line...)
		}
	}
	return out
}

func txtarMarker(line []byte) (string, bool) {
	s := strings.TrimSuffix(string(line), "\n")
	if !strings.HasPrefix(s, "-- ") || !strings.HasSuffix(s, " --") || len(s) < 7 {
		return "", false
	}
	return strings.TrimSpace(s[3 : len(s)-3]), true
}
