package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"svc/publish"
	"svc/publish/bucket"
	"svc/publish/bucket/buckettest"
)

func TestStorageLocal(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	s, err := (&globals{data: data}).openStorage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.local != data || s.bucket != nil {
		t.Errorf("storage = %+v", s)
	}
	if err := s.pullRunFiles(ctx, "r1", "run.json"); err != nil {
		t.Error(err)
	}
	if err := s.pushRunFiles(ctx, "r1"); err != nil {
		t.Error(err)
	}
	st, err := s.publishStore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ds, ok := st.(*publish.DirStore); !ok || ds.Root() != filepath.Join(data, "public") {
		t.Errorf("publish store = %T %v", st, st)
	}
	if err := s.pullRunFiles(ctx, "../r1"); err == nil {
		t.Error("a bad run id was accepted")
	}
}

// bucketEnv points the s3:// storage at a fake server.
func bucketEnv(t *testing.T) *buckettest.Server {
	srv := buckettest.NewServer(t, "svc-test")
	for k, v := range srv.Env() {
		t.Setenv(k, v)
	}
	t.Setenv("AWS_SESSION_TOKEN", "")
	return srv
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

func TestStorageBucket(t *testing.T) {
	ctx := context.Background()
	srv := bucketEnv(t)
	open := func(cache string) *storage {
		t.Helper()
		s, err := (&globals{data: "s3://svc-test/prod", cacheDir: cache}).openStorage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cache := t.TempDir()
	a := open(cache)
	if a.bucket == nil || !strings.HasPrefix(a.local, filepath.Join(cache, "svc-test")+string(filepath.Separator)) {
		t.Fatalf("storage = %+v", a)
	}
	// The cache is per bucket and prefix.
	if other := open(cache); other.local != a.local {
		t.Errorf("one prefix, two cache folders: %s and %s", a.local, other.local)
	}
	staging, err := (&globals{data: "s3://svc-test/staging", cacheDir: cache}).openStorage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if staging.local == a.local {
		t.Error("two prefixes share a cache folder")
	}

	runDir := filepath.Join(a.local, "work", "r1")
	writeFiles(t, runDir, map[string]string{
		"run.json":                  `{"id":"r1"}`,
		"checks.parquet":            "PAR1",
		"out/tables/stores.parquet": "PAR1 stores",
		"out/files/api/a.json":      `{}`,
	})
	if err := a.pushRunFiles(ctx, "r1", "run.json", "out"); err != nil {
		t.Fatal(err)
	}
	if err := a.pushRunFiles(ctx, "r1", "missing.parquet"); err == nil {
		t.Error("pushing a missing file succeeded")
	}
	raw := srv.Open(t, "s3://svc-test/prod")
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
	if err := a.pushRunFiles(ctx, "r1"); err != nil { // the whole run
		t.Fatal(err)
	}

	// Another machine pulls what it needs.
	b := open(t.TempDir())
	if err := b.pullRunFiles(ctx, "r1", "run.json", "out/tables", "not-there.parquet"); err != nil {
		t.Fatal(err)
	}
	bRun := filepath.Join(b.local, "work", "r1")
	for name, want := range map[string]string{"run.json": `{"id":"r1"}`, "out/tables/stores.parquet": "PAR1 stores"} {
		if got, err := os.ReadFile(filepath.Join(bRun, filepath.FromSlash(name))); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v", name, got, err)
		}
	}
	if _, err := os.Stat(filepath.Join(bRun, "checks.parquet")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("checks.parquet pulled without being asked for: %v", err)
	}
	if err := b.pullRunFiles(ctx, "r1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(bRun, "checks.parquet")); err != nil {
		t.Errorf("whole-run pull: %v", err)
	}
	if err := b.pullRunFiles(ctx, "r1", "../x"); err == nil {
		t.Error("a path out of the run was accepted")
	}

	// Two jobs start run r2: the first run.json wins everywhere.
	writeFiles(t, filepath.Join(a.local, "work", "r2"), map[string]string{"run.json": `{"started":"a"}`})
	writeFiles(t, filepath.Join(b.local, "work", "r2"), map[string]string{"run.json": `{"started":"b"}`})
	if replaced, err := a.pushRunFileOnce(ctx, "r2", "run.json"); err != nil || replaced {
		t.Errorf("first pushRunFileOnce = %v, %v", replaced, err)
	}
	if replaced, err := b.pushRunFileOnce(ctx, "r2", "run.json"); err != nil || !replaced {
		t.Errorf("second pushRunFileOnce = %v, %v", replaced, err)
	}
	if got, _ := os.ReadFile(filepath.Join(b.local, "work", "r2", "run.json")); string(got) != `{"started":"a"}` {
		t.Errorf("second job's run.json = %s", got)
	}

	st, err := a.publishStore(ctx)
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

func TestStorageErrors(t *testing.T) {
	ctx := context.Background()
	bucketEnv(t)
	cache := t.TempDir()
	tests := []struct {
		name string
		data string
		env  map[string]string
		code int
	}{
		{"malformed URL", "s3://Bad_Bucket/x", nil, ExitUsage},
		{"no credentials", "s3://svc-test", map[string]string{"AWS_ACCESS_KEY_ID": ""}, ExitUsage},
		{"missing bucket", "s3://no-such-bucket", nil, ExitUnreachable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err := (&globals{data: tc.data, cacheDir: cache}).openStorage(ctx)
			var ue *usageError
			var ee *exitError
			switch {
			case err == nil:
				t.Fatal("openStorage succeeded")
			case tc.code == ExitUsage && !errors.As(err, &ue):
				t.Errorf("openStorage = %v, want a usage error", err)
			case tc.code == ExitUnreachable && (!errors.As(err, &ee) || ee.code != ExitUnreachable):
				t.Errorf("openStorage = %v, want exit code %d", err, ExitUnreachable)
			}
			t.Log(err)
		})
	}
	// Without --cache-dir, the user's cache folder.
	xdg := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", xdg)
	s, err := (&globals{data: "s3://svc-test/prod"}).openStorage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.local, filepath.Join(xdg, "svc", "svc-test")) {
		t.Errorf("default cache folder = %s", s.local)
	}
}
