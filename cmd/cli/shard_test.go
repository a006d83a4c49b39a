package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"svc/datasets"
	"svc/fixtures"
	"svc/pipeline"
	"svc/publish/bucket"
)

// TestShardFlag: a bad --shard (or SVC_SHARD) is a usage error, exit 64,
// with a message that says what to pass; a good one reaches the stage.
func TestShardFlag(t *testing.T) {
	data := t.TempDir()
	stores := filepath.Join(data, "stores.csv")
	if err := os.WriteFile(stores, []byte("host\na.test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		value, want string
	}{
		{"4/4", "index must be 0 to 3"},
		{"-1/4", "index must be 0 to 3"},
		{"0/0", "count must be 1 to 1024"},
		{"1/1025", "count must be 1 to 1024"},
		{"2", "want i/n"},
		{"a/b", "want i/n"},
		{"1/2/3", "want i/n"},
	} {
		for _, cmd := range [][]string{
			{"crawl", "--stores", stores},
			{"validate", "--agent-paths=false"},
		} {
			args := append(append([]string{}, cmd...), "--data", data, "--run", "r", "--shard", tc.value)
			code, _, stderr := runSvc(t, args...)
			if code != ExitUsage || !strings.Contains(stderr, "--shard: ") || !strings.Contains(stderr, tc.want) {
				t.Errorf("svc %s: exit %d, want %d with %q\n%s", strings.Join(args, " "), code, ExitUsage, tc.want, stderr)
			}
		}
	}
	t.Setenv("SVC_SHARD", "5/4")
	if code, _, stderr := runSvc(t, "validate", "--data", data, "--run", "r"); code != ExitUsage || !strings.Contains(stderr, "index must be 0 to 3") {
		t.Errorf("SVC_SHARD=5/4: exit %d\n%s", code, stderr)
	}
	// A good value gets past the flags: the run does not exist.
	t.Setenv("SVC_SHARD", "")
	code, _, stderr := runSvc(t, "validate", "--data", data, "--run", "r", "--shard", "1/4")
	if code != ExitFailed || !strings.Contains(stderr, "run r does not exist") {
		t.Errorf("validate --shard 1/4 of a missing run: exit %d\n%s", code, stderr)
	}
}

// worldStores starts the fixture world and writes a stores CSV of its first
// max stores that answer (those that time out take the client's full 6 s);
// it returns the server, the CA file, the CSV and the number of stores in
// it.
func worldStores(t *testing.T, max int) (*fixtures.Server, string, string, int) {
	t.Helper()
	world := fixtures.Generate(1, fixtures.DefaultStores)
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{CAOut: ca, Slow: 8 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	stores := filepath.Join(dir, "stores.csv")
	f, err := os.Create(stores)
	if err != nil {
		t.Fatal(err)
	}
	cw := csv.NewWriter(f)
	cw.Write([]string{"host", "name", "category", "source"})
	n := 0
	for _, s := range world.Stores {
		if n < max && !slices.Contains(s.Traits, "unreachable:timeout") {
			cw.Write([]string{s.Host, s.Name, s.Category, s.Source})
			n++
		}
	}
	cw.Flush()
	f.Close()
	return srv, ca, stores, n
}

// TestShardedCommands runs a 2-shard run through the command line: crawl
// and validate per shard, aggregate refusing while a shard is missing and
// then reading both partitions.
func TestShardedCommands(t *testing.T) {
	srv, ca, stores, n := worldStores(t, 16)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	fx := []string{"--data", data, "--fixture-addr", srv.Addr(), "--fixture-ca", ca, "--run", "s1"}
	var schema []string
	if d := fixtures.UCPSchemaDir(); d != "" {
		schema = []string{"--ucp-schema-dir", d}
	}
	run := func(want int, args ...string) (string, string) {
		t.Helper()
		args = append(args, fx...)
		if args[0] != "aggregate" {
			args = append(args, schema...)
		}
		code, stdout, stderr := runSvc(t, args...)
		if code != want {
			t.Fatalf("svc %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, stdout, stderr)
		}
		return stdout, stderr
	}
	total := 0
	for _, s := range []string{"0/2", "1/2"} {
		stdout, _ := run(ExitOK, "crawl", "--stores", stores, "--shard", s)
		if !strings.Contains(stdout, "crawl s1 (shard "+s+"): ") || !strings.Contains(stdout, filepath.Join("checks", "shard=")) {
			t.Errorf("crawl --shard %s output: %s", s, stdout)
		}
		sh, _ := pipeline.ParseShard(s)
		total += len(sh.Select(readStores(t, stores)))
	}
	if total != n {
		t.Errorf("the shards crawled %d stores between them, want %d", total, n)
	}
	run(ExitOK, "validate", "--agent-paths=false", "--shard", "0/2")
	_, stderr := run(ExitFailed, "aggregate")
	if !strings.Contains(stderr, "shard 1/2 of run s1 has no") || !strings.Contains(stderr, "svc validate --run s1 --shard 1/2") {
		t.Errorf("aggregate with shard 1/2 unvalidated: %s", stderr)
	}
	_, stderr = run(ExitFailed, "crawl", "--stores", stores)
	if !strings.Contains(stderr, "is sharded into 2 partitions") {
		t.Errorf("unsharded crawl of a sharded run: %s", stderr)
	}
	run(ExitOK, "validate", "--agent-paths=false", "--shard", "1/2")
	stdout, _ := run(ExitOK, "aggregate")
	if !strings.Contains(stdout, "checks") || !strings.Contains(stdout, "store_answers") {
		t.Errorf("aggregate output: %s", stdout)
	}
	cols, err := pipeline.ReadTableFile(filepath.Join(pipeline.RunDir(data, "s1"), pipeline.OutTables, "checks.parquet"), datasets.Checks)
	if err != nil {
		t.Fatal(err)
	}
	if cols.Len() != n {
		t.Errorf("published checks has %d rows, want %d", cols.Len(), n)
	}
}

func readStores(t *testing.T, path string) []pipeline.Store {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := pipeline.ReadStores(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestShardedRunOnBucket runs a 2-shard run with --data s3://... against
// an S3-compatible server on loopback. Every process has its own cache
// folder, so the shards, aggregate and snapshot share nothing but the
// bucket, as pods of an Indexed Job would.
func TestShardedRunOnBucket(t *testing.T) {
	srv, ca, stores, n := worldStores(t, 16)
	s3 := bucketEnv(t)
	const data = "s3://svc-test/weekly"
	var schema []string
	if d := fixtures.UCPSchemaDir(); d != "" {
		schema = []string{"--ucp-schema-dir", d}
	}
	run := func(want int, args ...string) string {
		t.Helper()
		args = append(args, "--data", data, "--cache-dir", t.TempDir(), "--run", "b1")
		if args[0] == "crawl" || args[0] == "validate" {
			args = append(append(args, "--fixture-addr", srv.Addr(), "--fixture-ca", ca), schema...)
		}
		code, stdout, stderr := runSvc(t, args...)
		if code != want {
			t.Fatalf("svc %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, stdout, stderr)
		}
		return stdout + stderr
	}
	for _, sh := range []string{"0/2", "1/2"} {
		run(ExitOK, "crawl", "--stores", stores, "--shard", sh)
	}
	run(ExitOK, "validate", "--agent-paths=false", "--shard", "0/2")
	if out := run(ExitFailed, "aggregate"); !strings.Contains(out, "svc validate --run b1 --shard 1/2") {
		t.Errorf("aggregate with shard 1/2 missing from the bucket: %s", out)
	}
	run(ExitOK, "validate", "--agent-paths=false", "--shard", "1/2")
	run(ExitOK, "aggregate")
	if out := run(ExitOK, "snapshot"); !strings.Contains(out, "published") {
		t.Errorf("snapshot: %s", out)
	}
	if out := run(ExitOK, "snapshot"); !strings.Contains(out, "already published") {
		t.Errorf("second snapshot of the same run: %s", out)
	}

	// The bucket holds the partitions, the run's output and one version,
	// and its checks table has a row for every store of both shards.
	b := s3.Open(t, data)
	ctx := t.Context()
	for _, key := range []string{
		"work/b1/run.json",
		"work/b1/checks/shard=0-of-2/checks.parquet", "work/b1/checks/shard=1-of-2/checks.parquet",
		"work/b1/ucp_validations/shard=1-of-2/ucp_validations.parquet",
		"work/b1/out/tables/checks.parquet",
		"public/data/latest.json",
	} {
		if _, err := b.Stat(ctx, key); err != nil {
			t.Errorf("bucket: %s: %v", key, err)
		}
	}
	latest, _, err := b.ReadSmall(ctx, "public/data/latest.json", 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	var ptr struct{ Version string }
	if err := json.Unmarshal(latest, &ptr); err != nil || ptr.Version == "" {
		t.Fatalf("latest.json %s: %v", latest, err)
	}
	rc, _, err := b.Get(ctx, "public/data/"+ptr.Version+"/checks.parquet")
	if err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(t.TempDir(), "checks.parquet")
	body, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(local, body, 0o644); err != nil {
		t.Fatal(err)
	}
	cols, err := pipeline.ReadTableFile(local, datasets.Checks)
	if err != nil {
		t.Fatal(err)
	}
	if cols.Len() != n {
		t.Errorf("published checks in the bucket has %d rows, want %d", cols.Len(), n)
	}

	serveFromBucket(t, data, b, ptr.Version)

	// Commands that read a local tree say so rather than misreading the URL.
	for _, args := range [][]string{{"sql", "SELECT 1"}} {
		code, _, stderr := runSvc(t, append(args, "--data", data)...)
		if code != ExitUsage || !strings.Contains(stderr, "works on a local folder") {
			t.Errorf("svc %s --data %s: exit %d\n%s", args[0], data, code, stderr)
		}
	}
}

// serveFromBucket runs svc serve --data s3://… over the tree a run
// published there: the server answers from a copy in its own cache, then
// follows latest.json to a new version without a restart.
func serveFromBucket(t *testing.T, data string, b *bucket.Bucket, version string) {
	ctx := t.Context()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan int, 1)
	var errOut syncBuffer
	cache := t.TempDir()
	go func() {
		done <- Run(sctx, []string{"serve", "--data", data, "--cache-dir", cache, "--addr", addr, "--sync-every", "200ms"}, io.Discard, &errOut)
	}()
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	waitFor := func(what, path string) string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			code, body := get(path)
			if code == http.StatusOK {
				return body
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: GET %s: %d %.300s\nserve log: %s", what, path, code, body, errOut.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	manifest := waitFor("serving the bucket's version", "/data/"+version+"/manifest.json")
	if !strings.Contains(manifest, version) {
		t.Errorf("manifest of %s served: %.200s", version, manifest)
	}
	if code, body := get("/api/agent-checkout/adoption"); code != http.StatusOK {
		t.Errorf("adoption from the bucket's copy: %d %.200s", code, body)
	}
	// A new version appears in the bucket (a copy of this one under the
	// next name, manifest last, then latest.json): the server follows.
	next := version + ".1"
	objs, err := b.List(ctx, "public/data/"+version+"/")
	if err != nil {
		t.Fatal(err)
	}
	last := func(o bucket.Object) int { // the manifest commits the version: copied last
		if strings.HasSuffix(o.Key, "/manifest.json") {
			return 1
		}
		return 0
	}
	slices.SortFunc(objs, func(x, y bucket.Object) int { return cmp.Compare(last(x), last(y)) })
	for _, o := range objs {
		if err := b.Copy(ctx, o.Key, strings.Replace(o.Key, "/"+version+"/", "/"+next+"/", 1)); err != nil {
			t.Fatal(err)
		}
	}
	ptr := `{"version": "` + next + `", "manifest": "data/` + next + `/manifest.json"}`
	if _, err := b.Put(ctx, "public/data/latest.json", strings.NewReader(ptr), int64(len(ptr))); err != nil {
		t.Fatal(err)
	}
	waitFor("following latest.json", "/data/"+next+"/manifest.json")
	stop()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("serve exit %d\n%s", code, errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}

// syncBuffer is a bytes.Buffer a server's goroutines may write to while
// the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
