package runfiles

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"svc/publish"
	"svc/publish/bucket"
	"svc/publish/bucket/buckettest"
)

// Moved from cmd/cli/storage_test.go with the code it tests.

func TestLocal(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	s := &Files{Local: data}
	if err := s.Pull(ctx, "r1", "run.json"); err != nil {
		t.Error(err)
	}
	if err := s.Push(ctx, "r1"); err != nil {
		t.Error(err)
	}
	st, err := s.PublishStore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ds, ok := st.(*publish.DirStore); !ok || ds.Root() != filepath.Join(data, "public") {
		t.Errorf("publish store = %T %v", st, st)
	}
	if err := s.Pull(ctx, "../r1"); err == nil {
		t.Error("a bad run id was accepted")
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBucket(t *testing.T) {
	ctx := context.Background()
	srv := buckettest.NewServer(t, "svc-test")
	raw := srv.Open(t, "s3://svc-test/prod")
	a := &Files{Local: t.TempDir(), Bucket: raw}

	runDir := filepath.Join(a.Local, "work", "r1")
	writeFiles(t, runDir, map[string]string{
		"run.json":                  `{"id":"r1"}`,
		"checks.parquet":            "PAR1",
		"out/tables/stores.parquet": "PAR1 stores",
		"out/files/api/a.json":      `{}`,
	})
	if err := a.Push(ctx, "r1", "run.json", "out"); err != nil {
		t.Fatal(err)
	}
	if err := a.Push(ctx, "r1", "missing.parquet"); err == nil {
		t.Error("pushing a missing file succeeded")
	}
	objs, err := raw.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.Key)
	}
	want := []string{"work/r1/out/files/api/a.json", "work/r1/out/tables/stores.parquet", "work/r1/run.json"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("bucket after push (-want +got):\n%s", diff)
	}
	if err := a.Push(ctx, "r1"); err != nil { // the whole run
		t.Fatal(err)
	}

	// Another machine pulls what it needs.
	b := &Files{Local: t.TempDir(), Bucket: raw}
	if err := b.Pull(ctx, "r1", "run.json", "out/tables", "not-there.parquet"); err != nil {
		t.Fatal(err)
	}
	bRun := filepath.Join(b.Local, "work", "r1")
	for name, want := range map[string]string{"run.json": `{"id":"r1"}`, "out/tables/stores.parquet": "PAR1 stores"} {
		if got, err := os.ReadFile(filepath.Join(bRun, filepath.FromSlash(name))); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v", name, got, err)
		}
	}
	if _, err := os.Stat(filepath.Join(bRun, "checks.parquet")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("checks.parquet pulled without being asked for: %v", err)
	}
	if err := b.Pull(ctx, "r1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(bRun, "checks.parquet")); err != nil {
		t.Errorf("whole-run pull: %v", err)
	}
	if err := b.Pull(ctx, "r1", "../x"); err == nil {
		t.Error("a path out of the run was accepted")
	}

	// Two jobs start run r2: the first run.json wins everywhere.
	writeFiles(t, filepath.Join(a.Local, "work", "r2"), map[string]string{"run.json": `{"started":"a"}`})
	writeFiles(t, filepath.Join(b.Local, "work", "r2"), map[string]string{"run.json": `{"started":"b"}`})
	if replaced, err := a.pushOnce(ctx, "r2", "run.json"); err != nil || replaced {
		t.Errorf("first pushRunFileOnce = %v, %v", replaced, err)
	}
	if replaced, err := b.pushOnce(ctx, "r2", "run.json"); err != nil || !replaced {
		t.Errorf("second pushRunFileOnce = %v, %v", replaced, err)
	}
	if got, _ := os.ReadFile(filepath.Join(b.Local, "work", "r2", "run.json")); string(got) != `{"started":"a"}` {
		t.Errorf("second job's run.json = %s", got)
	}

	st, err := a.PublishStore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.(*bucket.Store); !ok {
		t.Errorf("publish store = %T", st)
	}
	if v, err := st.Latest(ctx); err != nil || v != "" {
		t.Errorf("Latest() = %q, %v", v, err)
	}
}
