package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"svc/fixtures"
	"svc/pipeline"
	"svc/publish"
)

// TestValidateAndAggregateCommands runs crawl, validate and aggregate over
// part of the fixture world through the command line, then checks the
// errors that name the stage to run first.
func TestValidateAndAggregateCommands(t *testing.T) {
	srv, ca, stores, _ := worldStores(t, 40)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	fx := []string{"--data", data, "--fixture-addr", srv.Addr(), "--fixture-ca", ca}
	if d := fixtures.UCPSchemaDir(); d != "" {
		fx = append(fx, "--ucp-schema-dir", d)
	}
	run := func(want int, args ...string) (string, string) {
		t.Helper()
		code, stdout, stderr := runSvc(t, args...)
		if code != want {
			t.Fatalf("svc %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, stdout, stderr)
		}
		return stdout, stderr
	}

	_, stderr := run(ExitFailed, "validate", "--data", data, "--run", "r1", "--agent-paths=false")
	if !strings.Contains(stderr, "svc crawl --run r1") {
		t.Errorf("validate before crawl: %s", stderr)
	}
	run(ExitOK, append([]string{"crawl", "--stores", stores, "--run", "r1"}, fx...)...)
	_, stderr = run(ExitFailed, "aggregate", "--data", data, "--run", "r1")
	if !strings.Contains(stderr, "svc validate --run r1") {
		t.Errorf("aggregate before validate: %s", stderr)
	}
	stdout, _ := run(ExitOK, append([]string{"validate", "--run", "r1", "--agent-paths=false"}, fx...)...)
	if !strings.Contains(stdout, "validate r1: 40 stores") {
		t.Errorf("validate output: %s", stdout)
	}
	stdout, _ = run(ExitOK, "aggregate", "--data", data, "--run", "r1", "--base-url", "https://svc.example")
	for _, want := range []string{"store_answers", "compared with run none", publish.AdoptionPath} {
		if !strings.Contains(stdout, want) {
			t.Errorf("aggregate output lacks %q:\n%s", want, stdout)
		}
	}
	runDir := pipeline.RunDir(data, "r1")
	ri, err := pipeline.ReadRun(data, "r1")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		filepath.Join(pipeline.OutTables, "store_answers.parquet"),
		filepath.Join(pipeline.OutFiles, publish.AdoptionPath),
		filepath.Join(pipeline.OutFiles, publish.ProtocolsPath),
		filepath.Join(pipeline.OutWeekly, ri.Date+".json"),
	} {
		if _, err := os.Stat(filepath.Join(runDir, p)); err != nil {
			t.Error(err)
		}
	}
	var wk publish.WeeklyEdition
	b, _ := os.ReadFile(filepath.Join(runDir, pipeline.OutWeekly, ri.Date+".json"))
	if err := json.Unmarshal(b, &wk); err != nil || !strings.HasPrefix(wk.Citation, "svc, ") || !strings.Contains(wk.Citation, "https://svc.example/") {
		t.Errorf("weekly edition: %v, citation %q", err, wk.Citation)
	}

	run(ExitUsage, "aggregate", "--data", data, "--run", "r1", "--previous", "r0", "--no-history")
	_, stderr = run(ExitUsage, "aggregate", "--data", data, "--run", "r1", "--previous", "r0")
	if !strings.Contains(stderr, "svc crawl --run r0") {
		t.Errorf("--previous of a missing run: %s", stderr)
	}
	run(ExitUsage, "validate", "--data", data, "--run", "../x")
}
