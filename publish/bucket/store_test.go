package bucket_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/publish"
	"svc/publish/bucket"
	"svc/publish/bucket/buckettest"
)

// fakeClock is an injected clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newStore(t *testing.T, b *bucket.Bucket, clock *fakeClock) *bucket.Store {
	t.Helper()
	opts := bucket.StoreOptions{TempDir: t.TempDir(), Lease: time.Hour}
	if clock != nil {
		opts.Now = clock.Now
	}
	st, err := bucket.NewStore(b, "public", opts)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestLease(t *testing.T) {
	ctx := context.Background()
	_, b := buckettest.New(t, "pre")
	clock := &fakeClock{t: time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)}
	a, other := newStore(t, b, clock), newStore(t, b, clock)

	unlockA, err := a.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Stat(ctx, "public.lock"); err != nil {
		t.Fatalf("no lock object beside the tree: %v", err)
	}
	if _, err := other.Lock(ctx); !errors.Is(err, publish.ErrLocked) {
		t.Fatalf("second Lock = %v, want ErrLocked", err)
	}
	// Before expiry the lease holds; after it, the next writer breaks it.
	clock.Add(59 * time.Minute)
	if _, err := other.Lock(ctx); !errors.Is(err, publish.ErrLocked) {
		t.Fatalf("Lock before expiry = %v, want ErrLocked", err)
	}
	clock.Add(2 * time.Minute)
	unlockB, err := other.Lock(ctx)
	if err != nil {
		t.Fatalf("Lock after expiry: %v", err)
	}
	// The first holder finds out, and leaves the new lease alone.
	if err := unlockA(); err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("unlock of a broken lease = %v", err)
	}
	if _, err := b.Stat(ctx, "public.lock"); err != nil {
		t.Fatalf("the old holder's unlock removed the new lease: %v", err)
	}
	if err := unlockB(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Stat(ctx, "public.lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock after unlock: %v", err)
	}
	// Free again.
	unlock, err := a.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
}

func TestLeaseRenewal(t *testing.T) {
	ctx := context.Background()
	_, b := buckettest.New(t, "pre")
	clock := &fakeClock{t: time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)}
	st, err := bucket.NewStore(b, "public", bucket.StoreOptions{Lease: 300 * time.Millisecond, Now: clock.Now, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := st.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	read := func() string {
		data, _, err := b.ReadSmall(ctx, "public.lock", 4096)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	first := read()
	clock.Add(time.Hour)
	deadline := time.Now().Add(10 * time.Second)
	for read() == first {
		if time.Now().After(deadline) {
			t.Fatal("the lease was not renewed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(read(), `"expires":"2026-05-04T13:00:00.3Z"`) {
		t.Errorf("renewed lease = %s", read())
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
}

// A lock object that is not a lease (garbage, or hostile) lasts Lease
// from its last write, and is then broken like any other.
func TestLeaseGarbage(t *testing.T) {
	ctx := context.Background()
	_, b := buckettest.New(t, "pre")
	put(t, b, "public.lock", "not json")
	clock := &fakeClock{t: time.Now()}
	st := newStore(t, b, clock)
	if _, err := st.Lock(ctx); !errors.Is(err, publish.ErrLocked) {
		t.Fatalf("Lock over a fresh unknown lock = %v, want ErrLocked", err)
	}
	clock.Add(2 * time.Hour)
	unlock, err := st.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	put(t, b, "public.lock", strings.Repeat("x", 10000))
	if _, err := st.Lock(ctx); !errors.Is(err, bucket.ErrTooLarge) {
		t.Fatalf("Lock over a huge lock object = %v, want ErrTooLarge", err)
	}
}

// A server that ignores If-None-Match would let two writers in; Lock
// finds out and refuses.
func TestLockNeedsConditionalPut(t *testing.T) {
	ctx := context.Background()
	srv, b := buckettest.New(t, "pre")
	srv.Wrap(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Header.Del("If-None-Match")
			next.ServeHTTP(w, r)
		})
	})
	st := newStore(t, b, nil)
	_, err := st.Lock(ctx)
	if err == nil || !strings.Contains(err.Error(), "If-None-Match") {
		t.Fatalf("Lock on a server without conditional PUT = %v", err)
	}
	if _, err := b.Stat(ctx, "public.lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock object left behind: %v", err)
	}
}

func TestStoreVersions(t *testing.T) {
	ctx := context.Background()
	_, b := buckettest.New(t, "pre")
	st := newStore(t, b, nil)

	write := func(vw publish.VersionWriter, name, body string) {
		t.Helper()
		w, err := vw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, body)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	vw, err := st.NewVersion(ctx, "2026-05-04")
	if err != nil {
		t.Fatal(err)
	}
	write(vw, "t.csv", "a\r\n")
	if _, err := vw.Create("t.csv"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create twice = %v", err)
	}
	for _, bad := range []string{"", "a/b", "..", ".tmp-x", `a\b`} {
		if _, err := vw.Create(bad); !errors.Is(err, publish.ErrInvalid) {
			t.Errorf("Create(%q) = %v", bad, err)
		}
	}
	// Not committed: invisible to List and Open, though its files are in
	// the bucket.
	if names, err := st.List(ctx, "data"); err != nil || len(names) != 0 {
		t.Errorf("List(data) before commit = %v, %v", names, err)
	}
	if _, err := st.Open(ctx, "data/2026-05-04/t.csv"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open before commit = %v", err)
	}
	if err := vw.Commit(ctx); err == nil {
		t.Error("Commit without manifest.json succeeded")
	}
	write(vw, "manifest.json", `{}`)
	r, err := vw.Open("t.csv")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(r); string(got) != "a\r\n" {
		t.Errorf("read back %q", got)
	}
	r.Close()
	if err := vw.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if names, err := st.List(ctx, "data"); err != nil || strings.Join(names, ",") != "2026-05-04" {
		t.Errorf("List(data) after commit = %v, %v", names, err)
	}

	// The same version again is staged aside and cannot be committed; its
	// Abort leaves the committed files alone.
	vw2, err := st.NewVersion(ctx, "2026-05-04")
	if err != nil {
		t.Fatal(err)
	}
	write(vw2, "t.csv", "other\r\n")
	write(vw2, "manifest.json", `{"other":1}`)
	if err := vw2.Commit(ctx); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Commit of an existing version = %v, want fs.ErrExist", err)
	}
	if err := vw2.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := get(t, b, "public/data/2026-05-04/t.csv"); got != "a\r\n" {
		t.Errorf("published file changed to %q", got)
	}
	objs, _ := b.List(ctx, "public/data/")
	if len(objs) != 2 {
		t.Errorf("objects after the abort: %v", objs)
	}

	// latest.
	if v, err := st.Latest(ctx); err != nil || v != "" {
		t.Errorf("Latest() before any = %q, %v", v, err)
	}
	if err := st.SetLatest(ctx, "2026-05-11"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("SetLatest of a missing version = %v", err)
	}
	if err := st.SetLatest(ctx, "2026-05-04"); err != nil {
		t.Fatal(err)
	}
	if v, err := st.Latest(ctx); err != nil || v != "2026-05-04" {
		t.Errorf("Latest() = %q, %v", v, err)
	}
	r, err = st.Open(ctx, "data/latest/t.csv")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(r); string(got) != "a\r\n" {
		t.Errorf("data/latest/t.csv = %q", got)
	}
	r.Close()
	if got := get(t, b, "public/data/latest/manifest.json"); got != `{}` {
		t.Errorf("copy of the manifest under data/latest/ = %q", got)
	}
	if got := get(t, b, "public/data/latest.json"); got != "{\n  \"version\": \"2026-05-04\",\n  \"manifest\": \"data/2026-05-04/manifest.json\"\n}\n" {
		t.Errorf("latest.json = %q", got)
	}

	// A hostile latest.json is an error, not a version.
	for _, body := range []string{`{"version":"../../etc"}`, `nope`, `{"version":"` + strings.Repeat("9", 5000) + `"}`} {
		put(t, b, "public/data/latest.json", body)
		if v, err := st.Latest(ctx); err == nil {
			t.Errorf("Latest() over %.40q = %q", body, v)
		}
	}
}

func TestStoreFiles(t *testing.T) {
	ctx := context.Background()
	_, b := buckettest.New(t, "pre")
	st := newStore(t, b, nil)
	if err := st.WriteFile(ctx, "api/a.json", []byte(`1`)); err != nil {
		t.Fatal(err)
	}
	if err := st.WriteFile(ctx, "api/a.json", []byte(`2`)); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateFile(ctx, "api/w/1.json", []byte(`1`)); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateFile(ctx, "api/w/1.json", []byte(`2`)); !errors.Is(err, fs.ErrExist) {
		t.Errorf("CreateFile over an existing file = %v", err)
	}
	for name, want := range map[string]string{"api/a.json": "2", "api/w/1.json": "1"} {
		r, err := st.Open(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(r)
		r.Close()
		if string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if _, err := st.Open(ctx, "api/missing.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing file = %v", err)
	}
	if names, err := st.List(ctx, "api"); err != nil || strings.Join(names, ",") != "a.json,w" {
		t.Errorf("List(api) = %v, %v", names, err)
	}
	if names, err := st.List(ctx, "nothing"); err != nil || len(names) != 0 {
		t.Errorf("List(nothing) = %v, %v", names, err)
	}
	for _, bad := range []string{"../x", "/x", "a//b", ""} {
		if err := st.WriteFile(ctx, bad, nil); !errors.Is(err, publish.ErrInvalid) {
			t.Errorf("WriteFile(%q) = %v", bad, err)
		}
	}
}

// Lock clears what a killed writer left: an uncommitted version's files
// and temporaries. Committed versions and other files stay.
func TestLockRemovesLeftovers(t *testing.T) {
	ctx := context.Background()
	_, b := buckettest.New(t, "pre")
	st := newStore(t, b, nil)
	for _, k := range []string{
		"public/data/2026-05-04/manifest.json", "public/data/2026-05-04/t.csv",
		"public/data/2026-05-11/t.csv", "public/data/2026-05-11/t.parquet", // no manifest: uncommitted
		"public/data/.tmp-2026-05-04-0011223344556677/t.csv",
		"public/api/.tmp-x.json", "public/api/x.json", "public/data/svc-100/v1/a.csv",
		"work/r1/checks.parquet", // outside the tree
	} {
		put(t, b, k, "x")
	}
	if names, err := st.List(ctx, "data"); err != nil || strings.Join(names, ",") != "2026-05-04,svc-100" {
		t.Errorf("List(data) = %v, %v: want leftovers hidden", names, err)
	}
	unlock, err := st.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	objs, err := b.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.Key)
	}
	want := []string{
		"public/api/x.json", "public/data/2026-05-04/manifest.json", "public/data/2026-05-04/t.csv",
		"public/data/svc-100/v1/a.csv", "work/r1/checks.parquet",
	}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("after Lock (-want +got):\n%s", diff)
	}
}
