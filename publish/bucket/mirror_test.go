package bucket_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"svc/publish/bucket"
	"svc/publish/bucket/buckettest"
)

func putObjects(t *testing.T, b *bucket.Bucket, objs map[string]string) {
	t.Helper()
	for k, v := range objs {
		if _, err := b.Put(context.Background(), k, bytes.NewReader([]byte(v)), int64(len(v))); err != nil {
			t.Fatal(err)
		}
	}
}

func pointer(v string) string {
	return `{"version": "` + v + `", "manifest": "data/` + v + `/manifest.json"}`
}

func readLocal(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// A mirror copies the version latest.json names and the tree beside the
// versions, then moves data/latest; it reads only latest.json while that
// does not change, follows each new version, keeps the one before and
// removes older ones, and never moves data/latest to a version that is not
// committed.
func TestMirrorFollowsLatest(t *testing.T) {
	srv, b := buckettest.New(t, "prod")
	var requests, other atomic.Int64 // all requests; those not for latest.json
	srv.Wrap(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			if !strings.HasSuffix(r.URL.Path, "/data/latest.json") {
				other.Add(1)
			}
			next.ServeHTTP(w, r)
		})
	})
	ctx := context.Background()
	putObjects(t, b, map[string]string{
		"public/data/2026-05-04/manifest.json": "m4",
		"public/data/2026-05-04/stores.csv":    "host\na.example\n",
		"public/data/latest.json":              pointer("2026-05-04"),
		"public/data/latest/manifest.json":     "m4",
		"public/data/svc-100/v1/schema.json":   "{}",
		"public/data/2026-05-11/stores.csv":    "half written", // no manifest: not committed
		"public/data/.tmp-x/stores.csv":        "leftover",
		"public/api/adoption.json":             "a4",
		"public/index.html":                    "<p>4</p>",
		"work/2026-05-04/run.json":             "not public",
	})
	local := filepath.Join(t.TempDir(), "public")
	m := bucket.NewMirror(b, "public", local)
	v, moved, err := m.Sync(ctx)
	if err != nil || v != "2026-05-04" || !moved {
		t.Fatalf("first sync: %q %v %v", v, moved, err)
	}
	for rel, want := range map[string]string{
		"data/latest/stores.csv":        "host\na.example\n",
		"data/2026-05-04/manifest.json": "m4",
		"data/svc-100/v1/schema.json":   "{}",
		"api/adoption.json":             "a4",
		"index.html":                    "<p>4</p>",
		"data/2026-05-11/stores.csv":    "<open " + filepath.Join(local, "data/2026-05-11/stores.csv") + ": no such file or directory>",
		"data/.tmp-x/stores.csv":        "<open " + filepath.Join(local, "data/.tmp-x/stores.csv") + ": no such file or directory>",
		"../work/2026-05-04/run.json":   "<open " + filepath.Join(local, "../work/2026-05-04/run.json") + ": no such file or directory>",
	} {
		if got := readLocal(t, local, rel); got != want {
			t.Errorf("%s: %q, want %q", rel, got, want)
		}
	}
	if target, err := os.Readlink(filepath.Join(local, "data", "latest")); err != nil || target != "2026-05-04" {
		t.Fatalf("data/latest: %q %v, want a symlink to 2026-05-04", target, err)
	}

	requests.Store(0)
	other.Store(0)
	if v, moved, err := m.Sync(ctx); err != nil || v != "2026-05-04" || moved {
		t.Fatalf("unchanged sync: %q %v %v", v, moved, err)
	}
	if n, o := requests.Load(), other.Load(); n == 0 || n > 2 || o != 0 {
		t.Errorf("an unchanged latest.json cost %d requests (%d not for latest.json), want its read only", n, o)
	}

	// latest.json naming a version that is not committed moves nothing.
	putObjects(t, b, map[string]string{"public/data/latest.json": pointer("2026-05-11")})
	if _, moved, err := m.Sync(ctx); err == nil || moved {
		t.Fatalf("followed an uncommitted version: moved %v %v", moved, err)
	}
	putObjects(t, b, map[string]string{"public/data/latest.json": "not json"})
	if _, moved, err := m.Sync(ctx); err == nil || moved {
		t.Fatalf("followed a broken pointer: moved %v %v", moved, err)
	}
	if target, _ := os.Readlink(filepath.Join(local, "data", "latest")); target != "2026-05-04" {
		t.Fatalf("data/latest moved to %q", target)
	}

	// Two new versions: each followed; the oldest removed after the second.
	for _, v := range []string{"2026-05-11", "2026-05-18"} {
		putObjects(t, b, map[string]string{
			"public/data/" + v + "/stores.csv":    "host\n" + v + ".example\n",
			"public/data/" + v + "/manifest.json": "m " + v,
			"public/api/adoption.json":            "a " + v,
		})
		putObjects(t, b, map[string]string{"public/data/latest.json": pointer(v)})
		got, moved, err := m.Sync(ctx)
		if err != nil || got != v || !moved {
			t.Fatalf("sync to %s: %q %v %v", v, got, moved, err)
		}
		if s := readLocal(t, local, "data/latest/stores.csv"); s != "host\n"+v+".example\n" {
			t.Errorf("%s: data/latest/stores.csv %q", v, s)
		}
		if s := readLocal(t, local, "api/adoption.json"); s != "a "+v {
			t.Errorf("%s: api/adoption.json %q", v, s)
		}
	}
	ents, _ := os.ReadDir(filepath.Join(local, "data"))
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "2026-05-11 2026-05-18 latest svc-100" && got != "2026-05-11 2026-05-18 latest latest.json svc-100" {
		t.Errorf("local data/: %s, want the last two versions", got)
	}

	// A new process over the same cache starts from its data/latest.
	m2 := bucket.NewMirror(b, "public", local)
	requests.Store(0)
	other.Store(0)
	if v, moved, err := m2.Sync(ctx); err != nil || v != "2026-05-18" || moved {
		t.Fatalf("restart: %q %v %v", v, moved, err)
	}
	if n, o := requests.Load(), other.Load(); n == 0 || n > 2 || o != 0 {
		t.Errorf("a restart over a current cache cost %d requests (%d not for latest.json), want its read only", n, o)
	}
}
