// Package layers holds the test that keeps svc's imports one-way
// (pkgsite's internal/tests/deps is the model): data flows
// stores → checks → tables → files → responses, and the packages import
// downwards only,
//
//	cmd → serve → pipeline → publish → datasets → sql
//
// with the fixture world beside them for tests and for the commands that
// serve it. The rules apply to product code (non-test files, under every
// build tag); tests may reach up to build their inputs, as the end-to-end
// tests that pin the published bytes do.
package layers

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// module is the module path of go.mod.
const module = "svc"

// An edge is one import of one product file.
type edge struct {
	From string // importing package, e.g. svc/pipeline
	To   string // imported package
	File string // the file, relative to the module root
}

// A rule forbids the packages under any of From (minus those under
// Except) to import a package under any of Not.
type rule struct {
	From, Except, Not []string
	Why               string
}

// rules are the layers. Each names why, for the message of a violation.
var rules = []rule{
	{From: []string{module}, Except: []string{"svc/cmd"}, Not: []string{"svc/cmd"},
		Why: "commands sit on top: nothing below cmd imports cmd"},
	{From: []string{"svc/pipeline"}, Not: []string{"svc/serve"},
		Why: "the pipeline runs without the server: pipeline never imports serve"},
	{From: []string{"svc/publish", "svc/datasets", "svc/sql"}, Not: []string{"svc/pipeline", "svc/serve"},
		Why: "publish, datasets and sql sit below the stages: they import neither pipeline nor serve"},
	{From: []string{module}, Except: []string{"svc/cmd", "svc/fixtures"}, Not: []string{"svc/fixtures"},
		Why: "product code never imports the fixture world (only its commands in cmd do)"},
}

// pending are edges that break a rule today and are being moved, as
// "from -> to". An entry that no longer occurs fails the test, so the list
// only shrinks. Empty: keep it so.
var pending = map[string]bool{}

// under reports whether pkg is p or below it.
func under(pkg, p string) bool {
	return pkg == p || strings.HasPrefix(pkg, p+"/")
}

func underAny(pkg string, ps []string) bool {
	for _, p := range ps {
		if under(pkg, p) {
			return true
		}
	}
	return false
}

// violations returns one line per edge a rule forbids that allowed does
// not hold, and one per entry of allowed that no edge needs, sorted.
func violations(edges []edge, allowed map[string]bool) []string {
	var out []string
	used := map[string]bool{}
	for _, e := range edges {
		for _, r := range rules {
			if underAny(e.From, r.From) && !underAny(e.From, r.Except) && underAny(e.To, r.Not) {
				if k := e.From + " -> " + e.To; allowed[k] {
					used[k] = true
					continue
				}
				out = append(out, fmt.Sprintf("%s imports %s (%s): %s", e.From, e.To, e.File, r.Why))
			}
		}
	}
	for k := range allowed {
		if !used[k] {
			out = append(out, fmt.Sprintf("pending %q no longer occurs: delete it", k))
		}
	}
	sort.Strings(out)
	return out
}

// productEdges parses the imports of every non-test Go file of the module
// under root, whatever its build tags, skipping testdata and hidden folders.
func productEdges(root string) ([]edge, error) {
	var edges []edge
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		from := module
		if dir := filepath.ToSlash(filepath.Dir(rel)); dir != "." {
			from += "/" + dir
		}
		for _, imp := range f.Imports {
			to, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			if under(to, module) {
				edges = append(edges, edge{From: from, To: to, File: filepath.ToSlash(rel)})
			}
		}
		return nil
	})
	return edges, err
}

// moduleRoot is the folder of go.mod above this test's folder.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			if !strings.HasPrefix(string(b), "module "+module+"\n") {
				t.Fatalf("%s/go.mod is not module %s", dir, module)
			}
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

// TestLayers fails when an import of product code runs back up.
func TestLayers(t *testing.T) {
	edges, err := productEdges(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	// The walk must see the packages it judges, or it proves nothing.
	seen := map[string]bool{}
	for _, e := range edges {
		seen[e.From] = true
	}
	for _, p := range []string{"svc/cmd/cli", "svc/serve", "svc/pipeline", "svc/publish", "svc/datasets"} {
		if !seen[p] {
			t.Errorf("no imports read for %s: the walk missed it", p)
		}
	}
	for _, v := range violations(edges, pending) {
		t.Error(v)
	}
}
