package cli

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"svc/publish/bucket/buckettest"
)

func TestStorageLocal(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	s, err := (&globals{data: data}).openStorage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Local != data || s.Bucket != nil {
		t.Errorf("storage = %+v", s)
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

func TestStorageBucket(t *testing.T) {
	ctx := context.Background()
	bucketEnv(t)
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
	if a.Bucket == nil || !strings.HasPrefix(a.Local, filepath.Join(cache, "svc-test")+string(filepath.Separator)) {
		t.Fatalf("storage = %+v", a)
	}
	// The cache is per bucket and prefix.
	if other := open(cache); other.Local != a.Local {
		t.Errorf("one prefix, two cache folders: %s and %s", a.Local, other.Local)
	}
	staging, err := (&globals{data: "s3://svc-test/staging", cacheDir: cache}).openStorage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if staging.Local == a.Local {
		t.Error("two prefixes share a cache folder")
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
	if !strings.HasPrefix(s.Local, filepath.Join(xdg, "svc", "svc-test")) {
		t.Errorf("default cache folder = %s", s.Local)
	}
}
