package ucp

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// sharedDir finds ../shared next to the repository root (the directory
// holding go.mod), or "" when it is absent.
func sharedDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			s := filepath.Join(dir, "..", "shared")
			if _, err := os.Stat(s); err == nil {
				return s
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// schemaDir is SVC_UCP_SCHEMA_DIR or ../shared/ucp/schema.
func schemaDir() string {
	if d := os.Getenv("SVC_UCP_SCHEMA_DIR"); d != "" {
		return d
	}
	if s := sharedDir(); s != "" {
		return filepath.Join(s, "ucp", "schema")
	}
	return ""
}

// examplesDir is ../shared/ucp/examples, or "".
func examplesDir() string {
	if s := sharedDir(); s != "" {
		if _, err := os.Stat(filepath.Join(s, "ucp", "examples", "manifest.json")); err == nil {
			return filepath.Join(s, "ucp", "examples")
		}
	}
	return ""
}

var (
	sharedOnce sync.Once
	sharedV    *Validator
	sharedErr  error
)

// testValidator is one Validator over the shared schema folder for the
// whole test binary; tests skip when the folder is absent.
func testValidator(tb testing.TB) *Validator {
	tb.Helper()
	dir := schemaDir()
	if dir == "" {
		tb.Skip("no UCP schema folder: set SVC_UCP_SCHEMA_DIR or provide ../shared/ucp/schema")
	}
	sharedOnce.Do(func() {
		sharedV, sharedErr = New(context.Background(), Config{SchemaDir: dir})
	})
	if sharedErr != nil {
		tb.Fatal(sharedErr)
	}
	return sharedV
}

func readExample(tb testing.TB, name string) []byte {
	tb.Helper()
	dir := examplesDir()
	if dir == "" {
		tb.Skip("no ../shared/ucp/examples")
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
