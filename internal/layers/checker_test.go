package layers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestViolationsCatchUpwardImports feeds the checker a fake import graph:
// every rule reports an import that runs back up, and lets the downward
// ones through.
func TestViolationsCatchUpwardImports(t *testing.T) {
	up := []edge{
		{From: "svc/serve", To: "svc/cmd/cli", File: "serve/x.go"},
		{From: "svc/pipeline/check", To: "svc/cmd/cli", File: "pipeline/check/x.go"},
		{From: "svc/pipeline/leaderboard", To: "svc/serve", File: "pipeline/leaderboard/x.go"},
		{From: "svc/pipeline", To: "svc/serve/state", File: "pipeline/submitted.go"}, // the import item 1 removed
		{From: "svc/publish/pages", To: "svc/pipeline/ucp", File: "publish/pages/x.go"},
		{From: "svc/publish", To: "svc/serve", File: "publish/x.go"},
		{From: "svc/datasets", To: "svc/pipeline", File: "datasets/x.go"},
		{From: "svc/sql", To: "svc/serve", File: "sql/x.go"},
		{From: "svc/serve", To: "svc/fixtures", File: "serve/x.go"},
		{From: "svc/pipeline/ucp", To: "svc/fixtures/truth", File: "pipeline/ucp/x.go"},
	}
	for _, e := range up {
		if got := violations([]edge{e}, nil); len(got) != 1 || !strings.Contains(got[0], e.From+" imports "+e.To) {
			t.Errorf("%s -> %s: %q, want one violation", e.From, e.To, got)
		}
	}
	down := []edge{
		{From: "svc/cmd/cli", To: "svc/serve"},
		{From: "svc/cmd/cli", To: "svc/fixtures"},
		{From: "svc/cmd/svc", To: "svc/cmd/cli"},
		{From: "svc/serve", To: "svc/pipeline/inbox"},
		{From: "svc/serve", To: "svc/publish"},
		{From: "svc/pipeline", To: "svc/publish"},
		{From: "svc/pipeline", To: "svc/datasets"},
		{From: "svc/publish", To: "svc/datasets"},
		{From: "svc/datasets", To: "svc/sql"},
		{From: "svc/fixtures/truth", To: "svc/pipeline"},
		{From: "svc/fixtures", To: "svc/fixtures/shops"},
		{From: "svc/pipelinex", To: "svc/servex"}, // a prefix is not a folder
	}
	if got := violations(down, nil); len(got) != 0 {
		t.Errorf("downward imports reported: %q", got)
	}
	// A pending exception holds its edge; one no edge needs is reported.
	allowed := map[string]bool{"svc/publish -> svc/serve": true, "svc/sql -> svc/pipeline": true}
	got := violations([]edge{{From: "svc/publish", To: "svc/serve", File: "publish/x.go"}}, allowed)
	if diff := cmp.Diff([]string{`pending "svc/sql -> svc/pipeline" no longer occurs: delete it`}, got); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
}

// TestProductEdgesReadsEveryProductFile builds a small module on disk: a
// file behind a build tag counts, test files and testdata do not.
func TestProductEdgesReadsEveryProductFile(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module svc\n")
	write("pipeline/a.go", "package pipeline\nimport (\n\t\"fmt\"\n\t\"svc/publish\"\n)\n")
	write("pipeline/b_windows.go", "//go:build windows\n\npackage pipeline\nimport _ \"svc/serve\"\n")
	write("pipeline/a_test.go", "package pipeline\nimport \"svc/cmd/cli\"\n")
	write("pipeline/testdata/c.go", "package c\nimport \"svc/serve\"\n")
	write("main.go", "package main\nimport \"svc/cmd/cli\"\n")
	edges, err := productEdges(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []edge{
		{From: "svc", To: "svc/cmd/cli", File: "main.go"},
		{From: "svc/pipeline", To: "svc/publish", File: "pipeline/a.go"},
		{From: "svc/pipeline", To: "svc/serve", File: "pipeline/b_windows.go"},
	}
	if diff := cmp.Diff(want, edges); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}
	got := violations(edges, nil)
	if len(got) != 2 {
		t.Errorf("violations %q, want the root's import of cmd and the tagged import of serve", got)
	}
}
