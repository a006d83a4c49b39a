package ucp

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"svc/fixtures"
)

// sharedDir is ../shared beside the repository, or "".
func sharedDir() string { return fixtures.SharedDir() }

// schemaDir is SVC_UCP_SCHEMA_DIR or ../shared/ucp/schema, or "".
func schemaDir() string { return fixtures.UCPSchemaDir() }

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
