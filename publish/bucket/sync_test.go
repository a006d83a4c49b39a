package bucket_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"svc/publish/bucket"
	"svc/publish/bucket/buckettest"
)

// writeTree writes files (relative slash paths) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
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

// readTree returns every regular file under dir by relative slash path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPushPull(t *testing.T) {
	ctx := context.Background()
	srv, b := buckettest.New(t, "pre")
	src := t.TempDir()
	files := map[string]string{
		"run.json":                   `{"id":"r1"}`,
		"checks.parquet":             "PAR1...PAR1",
		"out/tables/stores.parquet":  "PAR1 stores PAR1",
		"out/files/api/a.json":       `{"a":1}`,
		"out/files/.well-known/x.js": `{}`,
	}
	writeTree(t, src, files)
	// Not pushed: temporaries of atomic writes, unfinished folders, symlinks.
	writeTree(t, src, map[string]string{
		".run.json.tmp-123":         "partial",
		"out/.tmp-tables-1/x":       "partial",
		"out/files/api/.a.json.tmp": "partial",
	})
	if err := os.Symlink("run.json", filepath.Join(src, "link.json")); err != nil {
		t.Fatal(err)
	}

	st, err := bucket.Push(ctx, b, src, "work/r1")
	if err != nil {
		t.Fatal(err)
	}
	if st.Copied != 5 || st.Skipped != 0 {
		t.Errorf("first push: %+v", st)
	}
	want := map[string]string{}
	for k, v := range files {
		want["work/r1/"+k] = v
	}
	got := map[string]string{}
	objs, err := b.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		got[o.Key] = get(t, b, o.Key)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bucket after push (-want +got):\n%s", diff)
	}

	// Unchanged files are skipped; a changed one (same size) is sent.
	if st, err := bucket.Push(ctx, b, src, "work/r1"); err != nil || st.Copied != 0 || st.Skipped != 5 {
		t.Errorf("second push: %+v, %v", st, err)
	}
	writeTree(t, src, map[string]string{"run.json": `{"id":"r2"}`})
	if st, err := bucket.Push(ctx, b, src, "work/r1"); err != nil || st.Copied != 1 || st.Skipped != 4 {
		t.Errorf("push after a change: %+v, %v", st, err)
	}
	files["run.json"] = `{"id":"r2"}`

	// Pull into a fresh folder, and again.
	dst := t.TempDir()
	writeTree(t, dst, map[string]string{"local-only.txt": "kept"})
	if st, err := bucket.Pull(ctx, b, "work/r1", dst); err != nil || st.Copied != 5 {
		t.Errorf("first pull: %+v, %v", st, err)
	}
	wantLocal := map[string]string{"local-only.txt": "kept"}
	for k, v := range files {
		wantLocal[k] = v
	}
	if diff := cmp.Diff(wantLocal, readTree(t, dst)); diff != "" {
		t.Errorf("pulled tree (-want +got):\n%s", diff)
	}
	if st, err := bucket.Pull(ctx, b, "work/r1", dst); err != nil || st.Copied != 0 || st.Skipped != 5 {
		t.Errorf("second pull: %+v, %v", st, err)
	}
	// A local file of the same size but other bytes is replaced.
	writeTree(t, dst, map[string]string{"out/files/api/a.json": `{"a":2}`})
	if st, err := bucket.Pull(ctx, b, "work/r1", dst); err != nil || st.Copied != 1 || st.Skipped != 4 {
		t.Errorf("pull over a changed file: %+v, %v", st, err)
	}
	if diff := cmp.Diff(wantLocal, readTree(t, dst)); diff != "" {
		t.Errorf("pulled tree (-want +got):\n%s", diff)
	}

	// Objects in an unfinished folder or with a temporary's name are not
	// pulled.
	put(t, b, "work/r1/.tmp-x/y", "partial")
	put(t, b, "work/r1/.z.tmp", "partial")
	if st, err := bucket.Pull(ctx, b, "work/r1", dst); err != nil || st.Copied != 0 || st.Skipped != 5 {
		t.Errorf("pull with temporaries in the bucket: %+v, %v", st, err)
	}

	// A whole-bucket pull, and bad prefixes.
	all := t.TempDir()
	if st, err := bucket.Pull(ctx, srv.Open(t, "s3://svc-test/pre/work"), "", all); err != nil || st.Copied != 5 {
		t.Errorf("pull of everything: %+v, %v", st, err)
	}
	for _, bad := range []string{"../x", "/x", "a/"} {
		if _, err := bucket.Pull(ctx, b, bad, dst); !errors.Is(err, bucket.ErrInvalid) {
			t.Errorf("Pull(%q) = %v", bad, err)
		}
		if _, err := bucket.Push(ctx, b, src, bad); !errors.Is(err, bucket.ErrInvalid) {
			t.Errorf("Push(%q) = %v", bad, err)
		}
	}
}

// A local file name that is not a clean key stops Push before it sends
// anything.
func TestPushRefusesUncleanNames(t *testing.T) {
	ctx := context.Background()
	_, b := buckettest.New(t, "pre")
	src := t.TempDir()
	writeTree(t, src, map[string]string{"a.json": "{}", `b\c.json`: "{}"})
	if _, err := bucket.Push(ctx, b, src, "work"); !errors.Is(err, bucket.ErrInvalid) {
		t.Fatalf("Push = %v, want ErrInvalid", err)
	}
	if objs, _ := b.List(ctx, ""); len(objs) != 0 {
		t.Errorf("Push sent %v", objs)
	}
}

func TestPushPullFile(t *testing.T) {
	ctx := context.Background()
	_, b := buckettest.New(t, "pre")
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"run.json": `{"id":"r1"}`})
	if st, err := bucket.PushFile(ctx, b, filepath.Join(dir, "run.json"), "work/r1/run.json"); err != nil || st.Copied != 1 {
		t.Fatalf("PushFile = %+v, %v", st, err)
	}
	if st, err := bucket.PushFile(ctx, b, filepath.Join(dir, "run.json"), "work/r1/run.json"); err != nil || st.Skipped != 1 {
		t.Errorf("PushFile again = %+v, %v", st, err)
	}
	out := filepath.Join(t.TempDir(), "new", "run.json")
	if st, err := bucket.PullFile(ctx, b, "work/r1/run.json", out); err != nil || st.Copied != 1 {
		t.Fatalf("PullFile = %+v, %v", st, err)
	}
	if st, err := bucket.PullFile(ctx, b, "work/r1/run.json", out); err != nil || st.Skipped != 1 {
		t.Errorf("PullFile again = %+v, %v", st, err)
	}
	if data, _ := os.ReadFile(out); string(data) != `{"id":"r1"}` {
		t.Errorf("pulled %q", data)
	}
	if _, err := bucket.PullFile(ctx, b, "work/r1/missing.json", out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("PullFile of a missing object = %v", err)
	}
}

// A file larger than a part goes up as a multipart upload and is still
// recognised as unchanged afterwards.
func TestPushPullMultipart(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 17 MiB")
	}
	ctx := context.Background()
	_, b := buckettest.New(t, "pre")
	src, dst := t.TempDir(), t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef"), (bucket.PartSize+1000)/16)
	if err := os.WriteFile(filepath.Join(src, "big.parquet"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := bucket.Push(ctx, b, src, "w"); err != nil || st.Copied != 1 || st.Bytes != int64(len(big)) {
		t.Fatalf("Push = %+v, %v", st, err)
	}
	if st, err := bucket.Push(ctx, b, src, "w"); err != nil || st.Skipped != 1 {
		t.Errorf("Push again = %+v, %v", st, err)
	}
	if st, err := bucket.Pull(ctx, b, "w", dst); err != nil || st.Copied != 1 {
		t.Fatalf("Pull = %+v, %v", st, err)
	}
	if st, err := bucket.Pull(ctx, b, "w", dst); err != nil || st.Skipped != 1 {
		t.Errorf("Pull again = %+v, %v", st, err)
	}
	got, _ := os.ReadFile(filepath.Join(dst, "big.parquet"))
	if !bytes.Equal(got, big) {
		t.Errorf("pulled bytes differ: %d vs %d; first diff at %d", len(got), len(big), firstDiff(got, big))
	}
	if strings.Contains(strings.Join(dirNames(t, dst), ","), ".pull-") {
		t.Error("temporary left behind")
	}
}

func dirNames(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
