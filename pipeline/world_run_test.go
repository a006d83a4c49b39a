package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"svc/fixtures"
	"svc/pipeline/check"
	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
)

// The validate and aggregate tests share one crawl and one validate run of
// the fixture world: they run once, their files are kept in memory, and
// each test writes them into a run folder of its own (worldRun.newRun).

// testStarted is the start time of every test run: an input, never the
// wall clock.
var testStarted = time.Date(2026, 5, 4, 6, 30, 0, 123456000, time.UTC)

type worldRunData struct {
	world     *fixtures.World
	schemaDir string
	files     map[string][]byte // run-folder file name → bytes
	crawl     map[string]CrawlRecord
	stats     ValidateStats
	err       error
}

var (
	worldOnce sync.Once
	worldData worldRunData
)

// worldFiles are the stage outputs copied into every test's run folder.
var worldFiles = []string{JournalName, ChecksFile, ValidateJournal, UCPFile}

// sharedWorld crawls and validates the fixture world once per test binary.
func sharedWorld(t testing.TB) *worldRunData {
	t.Helper()
	worldOnce.Do(func() { worldData = crawlWorld() })
	if worldData.err != nil {
		t.Fatal(worldData.err)
	}
	return &worldData
}

func crawlWorld() (d worldRunData) {
	ctx := context.Background()
	d.world = fixtures.Generate(1, fixtures.DefaultStores)
	d.schemaDir = fixtures.UCPSchemaDir()
	srv, err := fixtures.NewServer(d.world, fixtures.ServerOptions{Slow: 8 * time.Second})
	if err != nil {
		d.err = err
		return d
	}
	defer srv.Close()
	client, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM(), Timeout: 5 * time.Second})
	if err != nil {
		d.err = err
		return d
	}
	tmp, err := os.MkdirTemp("", "svc-world-run-")
	if err != nil {
		d.err = err
		return d
	}
	defer os.RemoveAll(tmp)
	// One validator for the engine and the validate stage, as the CLI
	// builds them from the same flags.
	v, err := ucp.New(ctx, ucp.Config{SchemaDir: d.schemaDir, Client: client, CacheDir: filepath.Join(tmp, "cache"), Offline: true})
	if err != nil {
		d.err = err
		return d
	}
	var in []Store
	for _, s := range d.world.Stores {
		in = append(in, Store{Host: s.Host, Name: s.Name, Category: s.Category, Source: s.Source})
	}
	dir := filepath.Join(tmp, "run")
	if _, err := Crawl(ctx, CrawlOptions{Stores: in, Dir: dir, Concurrency: 16,
		Checker: check.New(check.Options{Client: client, UCP: v})}); err != nil {
		d.err = err
		return d
	}
	if _, err := WriteChecks(dir); err != nil {
		d.err = err
		return d
	}
	d.stats, err = Validate(ctx, ValidateOptions{Dir: dir, Concurrency: 16, Validator: v})
	if err != nil {
		d.err = err
		return d
	}
	if _, err := WriteUCPValidations(dir); err != nil {
		d.err = err
		return d
	}
	d.files = map[string][]byte{}
	for _, f := range worldFiles {
		if d.files[f], err = os.ReadFile(filepath.Join(dir, f)); err != nil {
			d.err = err
			return d
		}
	}
	d.crawl = map[string]CrawlRecord{}
	d.err = ReadJournal(filepath.Join(dir, JournalName), func(r CrawlRecord) { d.crawl[r.Store.Host] = r })
	return d
}

// newRun writes the shared stage outputs into a fresh run folder
// DATA/work/<id> dated date, and returns the folder.
func (d *worldRunData) newRun(t testing.TB, data, id, date string) string {
	t.Helper()
	started, err := time.Parse(time.DateOnly, date)
	if err != nil {
		t.Fatal(err)
	}
	started = started.Add(testStarted.Sub(testStarted.Truncate(24 * time.Hour)))
	if _, err := OpenRun(data, id, started); err != nil {
		t.Fatal(err)
	}
	dir := RunDir(data, id)
	for _, f := range worldFiles {
		if err := os.WriteFile(filepath.Join(dir, f), d.files[f], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// needSchema skips a test whose answers depend on UCP verdicts when the
// UCP schemas are not available (a fresh clone without ../shared).
func (d *worldRunData) needSchema(t testing.TB) {
	t.Helper()
	if d.schemaDir == "" {
		t.Skip("UCP schema folder not found (set SVC_UCP_SCHEMA_DIR): UCP verdicts cannot match the fixture truth")
	}
}
