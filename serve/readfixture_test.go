package serve

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"svc/fixtures"
	"svc/pipeline"
	"svc/pipeline/check"
	"svc/pipeline/fetch"
	"svc/pipeline/inbox"
	"svc/pipeline/ucp"
)

// The saved-data read tests serve a real snapshot: the fixture world
// crawled, validated, aggregated and published by the pipeline's own
// stages, once per test binary. Each test copies the published tree into
// a data folder of its own.

type readFixture struct {
	world   *fixtures.World
	public  map[string]treeEntry // the published tree every test writes out
	version string               // the snapshot's version
	crawled time.Time            // when the crawl ran (the checks' times are around it)
	err     error
}

var (
	readFixtureOnce sync.Once
	readFixtureData readFixture
)

// sharedReadFixture builds the fixture snapshot once per test binary.
func sharedReadFixture(t testing.TB) *readFixture {
	t.Helper()
	if testing.Short() {
		t.Skip("the fixture snapshot takes a crawl of the fixture world; skipped with -short")
	}
	readFixtureOnce.Do(func() { readFixtureData = buildReadFixture() })
	if readFixtureData.err != nil {
		t.Fatal(readFixtureData.err)
	}
	return &readFixtureData
}

func buildReadFixture() (d readFixture) {
	ctx := context.Background()
	d.world = fixtures.Generate(1, fixtures.DefaultStores)
	srv, err := fixtures.NewServer(d.world, fixtures.ServerOptions{Slow: 1500 * time.Millisecond})
	if err != nil {
		d.err = err
		return d
	}
	defer srv.Close()
	client, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM(), Timeout: time.Second})
	if err != nil {
		d.err = err
		return d
	}
	data, err := os.MkdirTemp("", "svc-serve-read-")
	if err != nil {
		d.err = err
		return d
	}
	defer os.RemoveAll(data)
	v, err := ucp.New(ctx, ucp.Config{SchemaDir: fixtures.UCPSchemaDir(), Client: client, CacheDir: filepath.Join(data, "cache")})
	if err != nil {
		d.err = err
		return d
	}
	d.crawled = time.Now().UTC()
	ri, err := pipeline.OpenRun(data, "r1", d.crawled)
	if err != nil {
		d.err = err
		return d
	}
	var stores []pipeline.Store
	for _, s := range d.world.Stores {
		stores = append(stores, pipeline.Store{Host: s.Host, Name: s.Name, Category: s.Category, Source: s.Source})
	}
	dir := pipeline.RunDir(data, "r1")
	steps := []func() error{
		func() error {
			_, err := pipeline.Crawl(ctx, pipeline.CrawlOptions{Stores: stores, Dir: dir, Concurrency: 16,
				Checker: check.New(check.Options{Client: client, UCP: v})})
			return err
		},
		func() error { _, err := pipeline.WriteChecks(dir); return err },
		func() error {
			_, err := pipeline.Validate(ctx, pipeline.ValidateOptions{Dir: dir, Concurrency: 16, Validator: v})
			return err
		},
		func() error { _, err := pipeline.WriteUCPValidations(dir); return err },
		func() error {
			_, err := pipeline.Aggregate(ctx, pipeline.AggregateOptions{Dir: dir, NoHistory: true})
			if err == nil {
				_, err = pipeline.AggregateLeaderboard(ctx, dir, filepath.Join(data, "state"))
			}
			return err
		},
		func() error {
			res, err := pipeline.Snapshot(ctx, pipeline.SnapshotOptions{DataDir: data, RunID: ri.ID})
			if err == nil {
				d.version = res.Manifest.Version
			}
			return err
		},
	}
	for _, step := range steps {
		if d.err = step(); d.err != nil {
			return d
		}
	}
	d.public, d.err = readTree(filepath.Join(data, "public"))
	return d
}

// treeEntry is one file (data) or symbolic link (link) of a tree in memory.
type treeEntry struct {
	data []byte
	link string
}

// readTree reads a folder's files and links into memory, by slash path.
func readTree(root string) (map[string]treeEntry, error) {
	out := map[string]treeEntry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			out[filepath.ToSlash(rel)] = treeEntry{link: target}
			return err
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = treeEntry{data: b}
		return err
	})
	return out, err
}

// writeTreeTo writes the fixture's published tree under dir/public.
func (f *readFixture) writeTreeTo(t testing.TB, dir string) {
	t.Helper()
	for rel, e := range f.public {
		p := filepath.Join(dir, "public", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if e.link != "" {
			err = os.Symlink(e.link, p)
		} else {
			err = os.WriteFile(p, e.data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// newServer copies the published tree into a fresh data folder and
// serves it.
func (f *readFixture) newServer(t *testing.T, cfg Config) *testServer {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
		f.writeTreeTo(t, cfg.DataDir)
	}
	return newTestServer(t, cfg)
}

// copyTree copies a folder, symbolic links as links.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, out)
		case d.IsDir():
			return os.MkdirAll(out, 0o755)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		o, err := os.Create(out)
		if err != nil {
			return err
		}
		if _, err := io.Copy(o, in); err != nil {
			o.Close()
			return err
		}
		return o.Close()
	})
}

// store returns the first world store for which ok holds.
func (f *readFixture) store(t *testing.T, what string, ok func(*fixtures.Store) bool) *fixtures.Store {
	t.Helper()
	for i := range f.world.Stores {
		if ok(&f.world.Stores[i]) {
			return &f.world.Stores[i]
		}
	}
	t.Fatalf("the fixture world has no store that %s", what)
	return nil
}

func isTrue(b *bool) bool  { return b != nil && *b }
func isFalse(b *bool) bool { return b != nil && !*b }

// appendState writes records into a data folder's state log before a
// server opens it.
func appendState(t *testing.T, dataDir string, recs ...stateRec) {
	t.Helper()
	l, err := inbox.Open(filepath.Join(dataDir, "state"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, r := range recs {
		if err := l.Append(context.Background(), r.typ, r.at, r.data); err != nil {
			t.Fatal(err)
		}
	}
}

type stateRec struct {
	typ  string
	at   time.Time
	data any
}

// getJSON GETs path and decodes a JSON body into v (when v is not nil).
func (ts *testServer) getJSON(t *testing.T, path string, v any, hdr ...string) (*http.Response, string) {
	t.Helper()
	resp, body := ts.get(t, path, hdr...)
	if v != nil && resp.StatusCode == 200 {
		if err := json.Unmarshal([]byte(body), v); err != nil {
			t.Fatalf("%s: %v\n%s", path, err, body)
		}
	}
	return resp, body
}

// hasKeys fails unless the JSON object body has every key.
func hasKeys(t *testing.T, what, body string, keys ...string) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("%s: no field %q in %s", what, k, strings.TrimSpace(body))
		}
	}
}
