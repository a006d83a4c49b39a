package publish_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/datasets"
	"svc/publish"
	"svc/publish/bucket"
	"svc/publish/bucket/buckettest"
)

// The tests below run Publish on the bucket store against a fake S3
// server, with the snapshots of publish_test.go: the same gate, the same
// frozen files, the same bytes as on a DirStore.

func newBucketStore(t testing.TB, b *bucket.Bucket) *bucket.Store {
	t.Helper()
	st, err := bucket.NewStore(b, "public", bucket.StoreOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// objects returns every object of the bucket by key.
func objects(t testing.TB, b *bucket.Bucket) map[string]string {
	t.Helper()
	ctx := context.Background()
	objs, err := b.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, o := range objs {
		r, _, err := b.Get(ctx, o.Key)
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[o.Key] = string(data)
	}
	return out
}

func publishOK(t testing.TB, st publish.Store, snap *publish.Snapshot) *publish.Result {
	t.Helper()
	res, err := publish.Publish(context.Background(), st, snap)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Publishing to a bucket writes the same files, byte for byte, as
// publishing to a folder; only data/latest differs (a pointer object and
// copies of the small files instead of a symlink).
func TestBucketSameBytesAsDir(t *testing.T) {
	_, b := buckettest.New(t, "prod")
	bst := newBucketStore(t, b)
	dst, err := publish.NewDirStore(filepath.Join(t.TempDir(), "public"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"2026-05-04", "2026-05-11"} {
		for _, st := range []publish.Store{dst, bst} {
			res := publishOK(t, st, publish.SnapshotForTest(t, v))
			if !res.Created || !res.LatestMoved {
				t.Errorf("%s: created %v latest moved %v", v, res.Created, res.LatestMoved)
			}
		}
	}
	want := map[string]string{}
	err = filepath.WalkDir(dst.Root(), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dst.Root(), p)
		want["public/"+filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"ATTRIBUTION.txt", "datapackage.json", "manifest.json"} {
		want["public/data/latest/"+f] = want["public/data/2026-05-11/"+f]
	}
	want["public/data/latest.json"] = "{\n  \"version\": \"2026-05-11\",\n  \"manifest\": \"data/2026-05-11/manifest.json\"\n}\n"
	got := objects(t, b)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bucket tree vs folder tree (-dir +bucket):\n%.3000s", diff)
	}

	// Readers: both versions verify, latest resolves, tables read back.
	ctx := context.Background()
	for _, v := range []string{"2026-05-04", "2026-05-11"} {
		if _, err := publish.Verify(ctx, bst, v); err != nil {
			t.Error(err)
		}
	}
	r, err := bst.Open(ctx, "data/latest/store_answers.parquet")
	if err != nil {
		t.Fatal(err)
	}
	pq, _ := io.ReadAll(r)
	r.Close()
	cols, err := datasets.ReadParquet(strings.NewReader(string(pq)), int64(len(pq)), datasets.StoreAnswers)
	if err != nil || cols.Len() != 300 {
		t.Errorf("latest store_answers.parquet: %v rows, %v", cols.Len(), err)
	}

	// Re-publishing the latest version is a no-op.
	res := publishOK(t, bst, publish.SnapshotForTest(t, "2026-05-11"))
	if res.Created || res.LatestMoved || len(res.Wrote) != 0 {
		t.Errorf("re-publish: created %v, latest moved %v, wrote %v; want a no-op", res.Created, res.LatestMoved, res.Wrote)
	}
	if diff := cmp.Diff(got, objects(t, b)); diff != "" {
		t.Errorf("re-publish changed the bucket (-before +after):\n%.3000s", diff)
	}
}

func TestBucketGate(t *testing.T) {
	ctx := context.Background()
	putObj := func(t *testing.T, b *bucket.Bucket, key, body string) {
		if _, err := b.Put(ctx, key, strings.NewReader(body), int64(len(body))); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		tamper func(t *testing.T, b *bucket.Bucket)
		snap   func(t *testing.T) *publish.Snapshot
		want   error
	}{
		{
			name: "older version",
			snap: func(t *testing.T) *publish.Snapshot { return publish.SnapshotForTest(t, "2026-05-03") },
			want: publish.ErrGate,
		},
		{
			name: "older than a committed version latest does not name",
			tamper: func(t *testing.T, b *bucket.Bucket) {
				putObj(t, b, "public/data/2026-05-20/manifest.json", "{}")
			},
			snap: func(t *testing.T) *publish.Snapshot { return publish.SnapshotForTest(t, "2026-05-11") },
			want: publish.ErrGate,
		},
		{
			name: "table disappears",
			snap: func(t *testing.T) *publish.Snapshot {
				s := publish.SnapshotForTest(t, "2026-05-11")
				s.Tables = s.Tables[1:]
				return s
			},
			want: publish.ErrGate,
		},
		{
			name: "previous version file changed",
			tamper: func(t *testing.T, b *bucket.Bucket) {
				putObj(t, b, "public/data/2026-05-04/stores.csv", "host\r\n")
			},
			snap: func(t *testing.T) *publish.Snapshot { return publish.SnapshotForTest(t, "2026-05-11") },
			want: publish.ErrGate,
		},
		{
			name: "previous version file removed",
			tamper: func(t *testing.T, b *bucket.Bucket) {
				if err := b.Delete(ctx, "public/data/2026-05-04/stores.parquet"); err != nil {
					t.Fatal(err)
				}
			},
			snap: func(t *testing.T) *publish.Snapshot { return publish.SnapshotForTest(t, "2026-05-11") },
			want: publish.ErrGate,
		},
		{
			name: "frozen edition changed in the bucket",
			tamper: func(t *testing.T, b *bucket.Bucket) {
				putObj(t, b, "public/api/weekly/agent-checkout/2026-05-04.json", `{}`)
			},
			snap: func(t *testing.T) *publish.Snapshot { return publish.SnapshotForTest(t, "2026-05-11") },
			want: publish.ErrGate,
		},
		{
			name: "same version, other content",
			snap: func(t *testing.T) *publish.Snapshot {
				s := publish.SnapshotForTest(t, "2026-05-04")
				s.Tables[1] = publish.ColumnsForTest(t, datasets.StoreAnswers, publish.StoreRowsForTest(301, "2026-05-04"))
				return s
			},
			want: publish.ErrVersionExists,
		},
		{
			name: "frozen edition rewritten",
			snap: func(t *testing.T) *publish.Snapshot {
				s := publish.SnapshotForTest(t, "2026-05-11")
				s.Weekly = &publish.Edition{Date: "2026-05-04", Body: []byte(`{"changed":true}`)}
				return s
			},
			want: publish.ErrFrozen,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, b := buckettest.New(t, "prod")
			st := newBucketStore(t, b)
			publishOK(t, st, publish.SnapshotForTest(t, "2026-05-04"))
			if tc.tamper != nil {
				tc.tamper(t, b)
			}
			before := objects(t, b)
			_, err := publish.Publish(ctx, st, tc.snap(t))
			if !errors.Is(err, tc.want) {
				t.Fatalf("Publish() = %v, want %v", err, tc.want)
			}
			t.Logf("refused: %v", err)
			if diff := cmp.Diff(before, objects(t, b)); diff != "" {
				t.Errorf("a refused publish changed the bucket (-before +after):\n%.2000s", diff)
			}
			if v, err := st.Latest(ctx); err != nil || v != "2026-05-04" {
				t.Errorf("latest = %q, %v; want 2026-05-04", v, err)
			}
		})
	}
}

func TestBucketWeeklyEditions(t *testing.T) {
	ctx := context.Background()
	_, b := buckettest.New(t, "prod")
	st := newBucketStore(t, b)
	read := func(name string) string {
		r, err := st.Open(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		data, _ := io.ReadAll(r)
		return string(data)
	}
	for _, s := range []struct{ version, date, body, alias string }{
		{"2026-05-04", "2026-05-04", `{"a":1}`, `{"a":1}`},
		{"2026-05-11", "2026-05-11", `{"b":2}`, `{"b":2}`},
		{"2026-05-12", "2026-04-27", `{"c":3}`, `{"b":2}`}, // older edition: alias stays
	} {
		snap := publish.SnapshotForTest(t, s.version)
		snap.Weekly = &publish.Edition{Date: s.date, Body: []byte(s.body)}
		publishOK(t, st, snap)
		if got := read(publish.WeeklyDir + "/" + s.date + ".json"); got != s.body {
			t.Errorf("%s: edition = %s", s.version, got)
		}
		if got := read(publish.WeeklyLatest); got != s.alias {
			t.Errorf("%s: alias = %s, want %s", s.version, got, s.alias)
		}
	}
}

// A crash leaves the bucket in one of a few states; the next publish
// completes from each.
func TestBucketRecovers(t *testing.T) {
	ctx := context.Background()
	_, b := buckettest.New(t, "prod")
	st := newBucketStore(t, b)
	publishOK(t, st, publish.SnapshotForTest(t, "2026-05-04"))

	// Killed while writing 2026-05-11's files, holding the lock: a partial
	// table, a temporary, and a lease that has not expired yet.
	for k, v := range map[string]string{
		"public/data/2026-05-11/store_answers.csv": "partial",
		"public/api/.tmp-protocols.json-01":        "{",
	} {
		if _, err := b.Put(ctx, k, strings.NewReader(v), int64(len(v))); err != nil {
			t.Fatal(err)
		}
	}
	leaseJSON := func(expires string) string {
		return fmt.Sprintf(`{"owner":"dead","host":"h","expires":%q}`, expires)
	}
	lease := leaseJSON(time.Now().Add(time.Minute).UTC().Format(time.RFC3339))
	if _, err := b.Put(ctx, "public.lock", strings.NewReader(lease), int64(len(lease))); err != nil {
		t.Fatal(err)
	}
	if names, _ := st.List(ctx, "data"); strings.Join(names, ",") != "2026-05-04,latest,latest.json,svc-100" {
		t.Errorf("List(data) = %v: want the uncommitted version hidden", names)
	}
	if _, err := publish.Publish(ctx, st, publish.SnapshotForTest(t, "2026-05-11")); !errors.Is(err, publish.ErrLocked) {
		t.Fatalf("Publish under a live lease = %v, want ErrLocked", err)
	}
	// The lease expires (a short one here); the next publish breaks it,
	// clears the leftovers and completes.
	expired := leaseJSON("2026-01-01T00:00:00Z")
	if _, err := b.Put(ctx, "public.lock", strings.NewReader(expired), int64(len(expired))); err != nil {
		t.Fatal(err)
	}
	res := publishOK(t, st, publish.SnapshotForTest(t, "2026-05-11"))
	if !res.Created || !res.LatestMoved || res.Previous != "2026-05-04" {
		t.Errorf("result = %+v", res)
	}
	for k := range objects(t, b) {
		if strings.Contains(k, ".tmp-") || k == "public.lock" {
			t.Errorf("%s left after a clean publish", k)
		}
	}
	if _, err := publish.Verify(ctx, st, "2026-05-11"); err != nil {
		t.Error(err)
	}

	// Killed after the commit, before latest moved: a re-run moves it.
	failing := &failSetLatest{Store: st}
	if _, err := publish.Publish(ctx, failing, publish.SnapshotForTest(t, "2026-05-18")); err == nil {
		t.Fatal("SetLatest did not fail")
	}
	if v, _ := st.Latest(ctx); v != "2026-05-11" {
		t.Errorf("latest = %s", v)
	}
	res = publishOK(t, st, publish.SnapshotForTest(t, "2026-05-18"))
	if res.Created || !res.LatestMoved {
		t.Errorf("re-run after a crash before SetLatest: created %v latest moved %v; want false, true", res.Created, res.LatestMoved)
	}
	if v, _ := st.Latest(ctx); v != "2026-05-18" {
		t.Errorf("latest = %s", v)
	}
}

type failSetLatest struct{ *bucket.Store }

func (f *failSetLatest) SetLatest(context.Context, string) error { return errors.New("killed") }

// The crash test of crash_test.go, on a bucket: a helper process publishes
// in a loop to the fake server of this process, and is killed with
// SIGKILL at random moments. After every kill, latest.json names a
// complete version, and every committed version verifies. The next helper
// breaks the dead one's lease once it expires.
const (
	bucketCrashEnv = "SVC_PUBLISH_BUCKET_CRASH_ENDPOINT"
	bucketCrashURL = "s3://svc-test/prod"
	crashLease     = 400 * time.Millisecond
)

func TestBucketCrashHelper(t *testing.T) {
	endpoint := os.Getenv(bucketCrashEnv)
	if endpoint == "" {
		t.Skip("helper process for TestBucketCrashSafety")
	}
	ctx := context.Background()
	b, err := bucket.Open(ctx, bucketCrashURL, bucket.Options{Endpoint: endpoint, AccessKeyID: "k", SecretAccessKey: "s"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := bucket.NewStore(b, "public", bucket.StoreOptions{Lease: crashLease, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for {
		latest, err := st.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = publish.Publish(ctx, st, publish.CrashSnapshotForTest(t, publish.NextVersionForTest(latest)))
		if errors.Is(err, publish.ErrLocked) {
			time.Sleep(crashLease / 4) // the killed helper's lease
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestBucketCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a helper process 10 times")
	}
	ctx := context.Background()
	srv := buckettest.NewServer(t, "svc-test")
	b := srv.Open(t, bucketCrashURL)
	st := newBucketStore(t, b)
	rng := rand.New(rand.NewPCG(3, 4))
	seen := map[string]bool{}
	for i := range 10 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBucketCrashHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), bucketCrashEnv+"="+srv.URL)
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(200+rng.IntN(800)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != -1 {
			t.Fatalf("kill %d: helper ended on its own (%v):\n%s", i, err, out)
		}
		latest, err := st.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if latest != "" {
			m, err := publish.Verify(ctx, st, latest)
			if err != nil {
				t.Fatalf("kill %d: latest %s: %v", i, latest, err)
			}
			for _, f := range m.Files {
				r, err := st.Open(ctx, "data/latest/"+f.Path)
				if err != nil {
					t.Fatalf("kill %d: through latest: %v", i, err)
				}
				r.Close()
			}
			// The copy a CDN serves names a committed version, latest
			// or (after a kill between the copy and the pointer) newer.
			data, _, err := b.ReadSmall(ctx, "public/data/latest/manifest.json", 1<<20)
			var cp struct{ Version string }
			if err == nil {
				err = json.Unmarshal(data, &cp)
			}
			if err != nil || publish.CompareVersions(cp.Version, latest) < 0 {
				t.Fatalf("kill %d: data/latest/manifest.json names %q (latest %s): %v", i, cp.Version, latest, err)
			}
			if _, err := publish.Verify(ctx, st, cp.Version); err != nil {
				t.Fatalf("kill %d: data/latest/manifest.json: %v", i, err)
			}
		}
		names, err := st.List(ctx, "data")
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if publish.ValidVersion(n) {
				if _, err := publish.Verify(ctx, st, n); err != nil {
					t.Fatalf("kill %d: committed version %s is incomplete: %v", i, n, err)
				}
			}
		}
		seen[latest] = true
		t.Logf("kill %d: latest = %q", i, latest)
	}
	if len(seen) < 3 {
		t.Errorf("latest moved through only %d versions in 10 kills: the kills did not interleave with publishing", len(seen))
	}
}
