package cli

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The docs tests hold every README.md of the repository to the code beside
// it: links resolve, the front page stays a front page and links every folder
// README, and every svc command line, make target, test name and repository
// path a README shows exists. They read files only: no network, no build.

// frontPageMaxLines is the front page's budget (~200 lines, with slack).
const frontPageMaxLines = 220

// mdDoc is one README, split into what the checks need.
type mdDoc struct {
	rel     string   // path from the repository root, slash-separated
	lines   []string // every line
	fenced  []fence  // fenced code blocks
	prose   []string // paragraphs outside code blocks, lines joined by a space
	anchors map[string]bool
}

type fence struct {
	info  string // the info string after the opening fence (sh, yaml, ...)
	line  int    // 1-based line of the opening fence
	lines []string
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}

// skipDir reports folders that hold no README of the repository's own:
// hidden ones, build output, local data trees and installed packages.
func skipDir(rel, name string) bool {
	if rel == "." {
		return false
	}
	if strings.HasPrefix(name, ".") || name == "node_modules" {
		return true
	}
	top := !strings.Contains(rel, "/")
	return top && (name == "bin" || strings.HasPrefix(name, "var"))
}

func readDocs(t *testing.T, root string) map[string]*mdDoc {
	t.Helper()
	docs := map[string]*mdDoc{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if skipDir(rel, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != "README.md" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		docs[rel] = parseMarkdown(rel, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if docs["README.md"] == nil {
		t.Fatal("no README.md at the repository root")
	}
	return docs
}

var fenceRE = regexp.MustCompile("^\\s*(```+|~~~+)\\s*([^`\\s]*)")

func parseMarkdown(rel, text string) *mdDoc {
	d := &mdDoc{rel: rel, lines: strings.Split(strings.TrimRight(text, "\n"), "\n"), anchors: map[string]bool{}}
	seen := map[string]int{}
	var cur *fence
	var marker string
	var para []string
	flush := func() {
		if len(para) > 0 {
			d.prose = append(d.prose, strings.Join(para, " "))
			para = nil
		}
	}
	for i, line := range d.lines {
		if cur != nil {
			if m := fenceRE.FindStringSubmatch(line); m != nil && strings.HasPrefix(m[1], marker) && strings.TrimSpace(line) == m[1] {
				d.fenced = append(d.fenced, *cur)
				cur = nil
				continue
			}
			cur.lines = append(cur.lines, line)
			continue
		}
		if m := fenceRE.FindStringSubmatch(line); m != nil {
			flush()
			cur, marker = &fence{info: m[2], line: i + 1}, m[1]
			continue
		}
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		if h, ok := headingText(line); ok {
			flush()
			slug := slugify(h)
			if n := seen[slug]; n > 0 {
				d.anchors[slug+"-"+strconv.Itoa(n)] = true
			} else {
				d.anchors[slug] = true
			}
			seen[slug]++
			d.prose = append(d.prose, h)
			continue
		}
		para = append(para, line)
	}
	flush()
	if cur != nil {
		d.fenced = append(d.fenced, *cur)
	}
	return d
}

var headingRE = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)

func headingText(line string) (string, bool) {
	m := headingRE.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	return m[1], true
}

var mdLinkRE = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]*)\)`)

// slugify is the anchor the code host gives a heading: its text without
// markup, lower-cased, punctuation dropped, spaces made hyphens.
func slugify(h string) string {
	h = mdLinkRE.ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var codeSpanRE = regexp.MustCompile("`([^`]+)`")

// links are the link targets of a document's prose, outside code spans.
func (d *mdDoc) links() []string {
	var out []string
	for _, p := range d.prose {
		p = codeSpanRE.ReplaceAllString(p, "code")
		for _, m := range mdLinkRE.FindAllStringSubmatch(p, -1) {
			out = append(out, m[2])
		}
	}
	return out
}

// codeSpans are the inline code spans of a document's prose, with a table's
// escaped pipes unescaped.
func (d *mdDoc) codeSpans() []string {
	var out []string
	for _, p := range d.prose {
		for _, m := range codeSpanRE.FindAllStringSubmatch(p, -1) {
			out = append(out, strings.ReplaceAll(m[1], `\|`, "|"))
		}
	}
	return out
}

// resolve checks one link of doc; "" when it resolves.
func resolve(root string, docs map[string]*mdDoc, doc *mdDoc, link string) string {
	if link == "" {
		return "empty link"
	}
	if i := strings.Index(link, ":"); i > 0 && !strings.ContainsAny(link[:i], "/#.") {
		return "" // a scheme: https:, mailto:
	}
	target, anchor, _ := strings.Cut(link, "#")
	rel := doc.rel
	if target != "" {
		if strings.HasPrefix(target, "/") {
			return "absolute path: the code host resolves it against its own root"
		}
		rel = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(doc.rel), target)))
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return "leaves the repository"
		}
		if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
			return "no such file or folder: " + rel
		}
	}
	if anchor == "" {
		return ""
	}
	if target == "" {
		if !doc.anchors[anchor] {
			return "no heading with anchor #" + anchor
		}
		return ""
	}
	if !strings.HasSuffix(rel, ".md") {
		return "an anchor into a file that is not Markdown"
	}
	to := docs[rel]
	if to == nil {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return err.Error()
		}
		to = parseMarkdown(rel, string(b))
	}
	if !to.anchors[anchor] {
		return "no heading with anchor #" + anchor + " in " + rel
	}
	return ""
}

func TestDocsLinksResolve(t *testing.T) {
	root := repoRoot(t)
	docs := readDocs(t, root)
	for _, rel := range sortedKeys(docs) {
		d := docs[rel]
		for _, l := range d.links() {
			if why := resolve(root, docs, d, l); why != "" {
				t.Errorf("%s: link (%s): %s", rel, l, why)
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestDocsFrontPage holds README.md to being the front page: the two
// commands first, within its line budget, and a link to every folder
// README outside test data.
func TestDocsFrontPage(t *testing.T) {
	root := repoRoot(t)
	docs := readDocs(t, root)
	front := docs["README.md"]
	if n := len(front.lines); n > frontPageMaxLines {
		t.Errorf("README.md has %d lines; the front page's budget is %d: move the reference into the folder README it describes", n, frontPageMaxLines)
	}
	// It starts with the two commands: the first code block, before any
	// section heading, holds make demo and make test.
	first := -1
	for i, l := range front.lines {
		if strings.HasPrefix(l, "## ") {
			break
		}
		if fenceRE.MatchString(l) {
			first = i + 1
			break
		}
	}
	if first < 0 || len(front.fenced) == 0 || front.fenced[0].line != first {
		t.Errorf("README.md does not start with a code block before its first section")
	} else {
		var cmds []string
		for _, l := range front.fenced[0].lines {
			if f := strings.Fields(l); len(f) >= 2 {
				cmds = append(cmds, f[0]+" "+f[1])
			}
		}
		if len(cmds) < 2 || cmds[0] != "make demo" || cmds[1] != "make test" {
			t.Errorf("README.md's first code block runs %q; want make demo, then make test", cmds)
		}
	}
	linked := map[string]bool{}
	for _, l := range front.links() {
		target, _, _ := strings.Cut(l, "#")
		linked[filepath.ToSlash(filepath.Clean(target))] = true
	}
	for _, rel := range sortedKeys(docs) {
		if rel == "README.md" || strings.Contains("/"+rel, "/testdata/") {
			continue
		}
		if !linked[rel] {
			t.Errorf("README.md does not link %s", rel)
		}
	}
}

// invocation is one svc command line a README shows.
type invocation struct {
	where string
	args  []string
}

var envAssignRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

func isSvc(tok string) bool {
	return tok == "svc" || tok == "bin/svc" || tok == "./bin/svc"
}

func isShellOp(tok string) bool {
	switch tok {
	case "|", "||", "&&", ";", "&", "(", ")", "$(":
		return true
	}
	return strings.HasPrefix(tok, ">") || strings.HasPrefix(tok, "2>") || strings.HasPrefix(tok, "<")
}

// shellWords splits a line as a shell would, well enough for docs: quotes
// group, an unquoted # starts a comment, operators stand alone. With
// notation, a | is the usage notation's "or" (svc fixtures serve|list), as
// in the inline code of the commands table, not a pipe.
func shellWords(line string, notation bool) []string {
	var out []string
	var b strings.Builder
	in := false
	var quote rune
	emit := func() {
		if in {
			out = append(out, b.String())
			b.Reset()
			in = false
		}
	}
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				b.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '#' && !in:
			return out
		case unicode.IsSpace(r):
			emit()
		case r == '|' && notation:
			b.WriteRune(r)
			in = true
		case r == '|' || r == ';' || r == '&':
			emit()
			op := string(r)
			if i+1 < len(rs) && (rs[i+1] == '|' || rs[i+1] == '&') {
				op += string(rs[i+1])
				i++
			}
			out = append(out, op)
		default:
			b.WriteRune(r)
			in = true
		}
	}
	emit()
	return out
}

// svcCommands finds the svc command lines in a list of words: svc as a
// command word (first, after environment assignments or an operator), up to
// the next operator.
func svcCommands(words []string) [][]string {
	var out [][]string
	cmdStart := true
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case isShellOp(w):
			cmdStart = true
		case cmdStart && envAssignRE.MatchString(w):
		case cmdStart && isSvc(w):
			j := i + 1
			for j < len(words) && !isShellOp(words[j]) {
				j++
			}
			out = append(out, words[i+1:j])
			i = j - 1
			cmdStart = false
		default:
			cmdStart = false
		}
	}
	return out
}

var yamlArgsRE = regexp.MustCompile(`(?s)\bargs:\s*\[(.*?)\]`)
var quotedRE = regexp.MustCompile(`"([^"]*)"`)

// invocations are every svc command line of a document: in its shell code
// blocks (a trailing backslash continues a line), in its YAML blocks (the
// args of a container whose image is svc's: its entrypoint is svc), and in
// its inline code spans.
func (d *mdDoc) invocations() []invocation {
	var out []invocation
	for _, f := range d.fenced {
		if f.info == "yaml" || f.info == "yml" {
			body := strings.Join(f.lines, "\n")
			for _, m := range yamlArgsRE.FindAllStringSubmatch(body, -1) {
				var args []string
				for _, q := range quotedRE.FindAllStringSubmatch(m[1], -1) {
					args = append(args, q[1])
				}
				out = append(out, invocation{where: d.rel + " (yaml block at line " + strconv.Itoa(f.line) + ")", args: args})
			}
			continue
		}
		for i := 0; i < len(f.lines); i++ {
			line, at := f.lines[i], f.line+1+i
			for strings.HasSuffix(line, `\`) && i+1 < len(f.lines) {
				i++
				line = strings.TrimSuffix(line, `\`) + " " + f.lines[i]
			}
			for _, args := range svcCommands(shellWords(line, false)) {
				out = append(out, invocation{where: d.rel + ":" + strconv.Itoa(at), args: args})
			}
		}
	}
	for _, span := range d.codeSpans() {
		for _, args := range svcCommands(shellWords(span, true)) {
			out = append(out, invocation{where: d.rel + " (`" + span + "`)", args: args})
		}
	}
	return out
}

func findSub(c *cobra.Command, name string) *cobra.Command {
	for _, s := range c.Commands() {
		if s.Name() == name || s.HasAlias(name) {
			return s
		}
	}
	return nil
}

var flagTokRE = regexp.MustCompile(`^[\[(]*(--?)([A-Za-z][A-Za-z0-9-]*)`)

func lookupFlag(c *cobra.Command, dashes, name string) *pflag.Flag {
	sets := []*pflag.FlagSet{c.Flags(), c.InheritedFlags(), c.PersistentFlags()}
	for _, s := range sets {
		if dashes == "--" {
			if f := s.Lookup(name); f != nil {
				return f
			}
		} else if len(name) == 1 {
			if f := s.ShorthandLookup(name); f != nil {
				return f
			}
		}
	}
	return nil
}

// checkInvocation walks args down the command tree and checks every flag;
// it returns what does not exist.
func checkInvocation(root *cobra.Command, args []string) []string {
	var problems []string
	cmds := []*cobra.Command{root}
	i := 0
	// The subcommand path: words naming subcommands; "a|b|c" names several
	// (the commands table's notation), a <placeholder> ends the path.
	for ; i < len(args) && len(cmds) == 1; i++ {
		c := cmds[0]
		if !c.HasSubCommands() {
			break
		}
		w := strings.Trim(args[i], "[]()")
		if strings.HasPrefix(w, "<") || strings.HasPrefix(w, "-") {
			break
		}
		if s := findSub(c, w); s != nil {
			cmds = []*cobra.Command{s}
			continue
		}
		if parts := strings.Split(w, "|"); len(parts) > 1 {
			var subs []*cobra.Command
			for _, p := range parts {
				if s := findSub(c, p); s != nil {
					subs = append(subs, s)
				} else {
					problems = append(problems, "no command "+c.CommandPath()+" "+p)
				}
			}
			if len(subs) > 0 {
				cmds = subs
			}
			continue
		}
		if c == root {
			problems = append(problems, "no command svc "+w)
			return problems
		}
		break
	}
	for ; i < len(args); i++ {
		m := flagTokRE.FindStringSubmatch(args[i])
		if m == nil || (m[1] == "--" && m[2] == "help") || (m[1] == "-" && m[2] == "h") {
			continue
		}
		for _, c := range cmds {
			if lookupFlag(c, m[1], m[2]) == nil {
				problems = append(problems, c.CommandPath()+" has no flag "+m[1]+m[2])
			}
		}
	}
	return problems
}

func docsRoot() *cobra.Command {
	return newRoot(&globals{context: context.Background(), out: io.Discard, errOut: io.Discard})
}

// TestDocsCommandsExist holds every svc command line a README shows to the
// command tree: each subcommand and each flag must exist.
func TestDocsCommandsExist(t *testing.T) {
	root := repoRoot(t)
	docs := readDocs(t, root)
	cmd := docsRoot()
	n := 0
	for _, rel := range sortedKeys(docs) {
		for _, inv := range docs[rel].invocations() {
			n++
			for _, p := range checkInvocation(cmd, inv.args) {
				t.Errorf("%s: svc %s: %s", inv.where, strings.Join(inv.args, " "), p)
			}
		}
	}
	// The front page's commands table alone shows some twenty.
	if n < 20 {
		t.Errorf("found %d svc command lines in the READMEs; the parser has lost them", n)
	}
}

// TestDocsCheckerCatchesMistakes makes sure the checks above can fail.
func TestDocsCheckerCatchesMistakes(t *testing.T) {
	cmd := docsRoot()
	for _, tc := range []struct {
		line string
		bad  bool
	}{
		{"svc crawl --stores s.csv --shard 2/8", false},
		{"svc crawl --no-such-flag", true},
		{"svc frobnicate", true},
		{"svc fixtures serve|list|score", false},
		{"svc fixtures serve|lsit", true},
		{"svc demo [--addr A] [--exit]", false},
		{"svc demo [--adress A]", true},
		{"svc <command> --help", false},
		{"svc serve --data s3://x --fixture-addr 127.0.0.1:1", false}, // persistent flags
	} {
		cmds := svcCommands(shellWords(tc.line, true))
		if len(cmds) != 1 {
			t.Fatalf("%q: found %d svc command lines", tc.line, len(cmds))
		}
		if got := len(checkInvocation(cmd, cmds[0])) > 0; got != tc.bad {
			t.Errorf("%q: problems found = %v, want %v", tc.line, got, tc.bad)
		}
	}
	d := parseMarkdown("x/README.md", "# T\n\n```sh\nFOO=1 bin/svc probe \\\n  --json x # comment --nope\nmake nope\n```\n\nSee [y](#t) and [z](#missing) and `svc sql --bogus`.\n")
	invs := d.invocations()
	if len(invs) != 2 || strings.Join(invs[0].args, " ") != "probe --json x" || strings.Join(invs[1].args, " ") != "sql --bogus" {
		t.Errorf("invocations = %+v", invs)
	}
	if got := resolve(t.TempDir(), nil, d, "#missing"); got == "" {
		t.Error("a link to a missing anchor resolved")
	}
	if got := resolve(t.TempDir(), nil, d, "#t"); got != "" {
		t.Errorf("a link to the heading #t: %s", got)
	}
	if got := resolve(t.TempDir(), nil, d, "nope.md"); got == "" {
		t.Error("a link to a missing file resolved")
	}
	if targets := makeTargetsIn(d); len(targets) != 1 || targets[0] != "nope" {
		t.Errorf("make targets = %q", targets)
	}
	if got := slugify("The shoppers (`svc shop`)"); got != "the-shoppers-svc-shop" {
		t.Errorf("slug = %q", got)
	}
}

var makeRE = regexp.MustCompile(`(?:^|[\s;&|(])make\s+([a-z][A-Za-z0-9_-]*)`)

// makeTargetsIn are the make targets a document's code runs.
func makeTargetsIn(d *mdDoc) []string {
	var out []string
	texts := d.codeSpans()
	for _, f := range d.fenced {
		for _, l := range f.lines {
			if w := shellWords(l, false); len(w) > 0 {
				texts = append(texts, strings.Join(w, " "))
			}
		}
	}
	for _, s := range texts {
		for _, m := range makeRE.FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

var makeTargetRE = regexp.MustCompile(`(?m)^([A-Za-z][A-Za-z0-9_-]*)\s*:([^=]|$)`)

// TestDocsMakeTargetsExist holds every make target a README runs to the
// Makefile.
func TestDocsMakeTargetsExist(t *testing.T) {
	root := repoRoot(t)
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range makeTargetRE.FindAllStringSubmatch(string(mk), -1) {
		targets[m[1]] = true
	}
	if !targets["demo"] || !targets["test"] {
		t.Fatalf("Makefile targets %v: the parser has lost demo or test", sortedKeys(targets))
	}
	docs := readDocs(t, root)
	for _, rel := range sortedKeys(docs) {
		for _, tg := range makeTargetsIn(docs[rel]) {
			if !targets[tg] {
				t.Errorf("%s: make %s: no such target in the Makefile", rel, tg)
			}
		}
	}
}

var testNameRE = regexp.MustCompile(`\b((?:Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*)`)
var funcNameRE = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz)[A-Za-z0-9_]*)\(`)

// repoPathRE is an inline code span that names a path of the repository.
var repoPathRE = regexp.MustCompile(`^(\.ci|cmd|pipeline|serve|publish|datasets|sql|fixtures|internal)(/[A-Za-z0-9_.-]+)*/?$`)

// TestDocsNamesExist holds the tests and benchmarks a README names, and the
// repository paths it shows in code, to the tree.
func TestDocsNamesExist(t *testing.T) {
	root := repoRoot(t)
	funcs := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if skipDir(filepath.ToSlash(rel), d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range funcNameRE.FindAllStringSubmatch(string(b), -1) {
			funcs[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !funcs["TestDocsNamesExist"] {
		t.Fatal("the walk of the test files has lost this very test")
	}
	docs := readDocs(t, root)
	for _, rel := range sortedKeys(docs) {
		d := docs[rel]
		texts := append([]string{}, d.prose...)
		for _, f := range d.fenced {
			texts = append(texts, f.lines...)
		}
		for _, s := range texts {
			for _, m := range testNameRE.FindAllStringSubmatch(s, -1) {
				if !funcs[m[1]] {
					t.Errorf("%s names %s: no such test, benchmark or fuzz target", rel, m[1])
				}
			}
		}
		for _, span := range d.codeSpans() {
			if repoPathRE.MatchString(span) {
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(span))); err != nil {
					t.Errorf("%s shows `%s`: no such file or folder", rel, span)
				}
			}
		}
	}
}
