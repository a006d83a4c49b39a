package readlayer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"svc/datasets"
	"svc/datasets/duck"
	svcsql "svc/sql"
)

// The read layer of one snapshot (DESIGN section 4: "load what is looked
// up per request; scan what is aggregated"):
//
//   - per-host reads (precheck, store card, the scalar fields of product
//     data) look the host up in a rowStore built when the snapshot loads:
//     the lookup columns of store_answers, checks, stores, ucp_validations
//     and product_data, merged by host and compressed in memory;
//   - the per-host JSON documents of product_data and agent_facts are
//     read at the host's row numbers from row caches: the rows of both
//     tables, copied at load into small snappy blocks of an unlinked
//     scratch file (rowcache.go); the store page's checks.result_json and
//     UCP report are read from the Parquet pages at their rows;
//   - reads that filter or scan (the directory, a category's agent facts)
//     query an in-process DuckDB with the analyst views
//     (datasets.ViewsSQL) over the version's Parquet files, opened with
//     extension auto-install and auto-load off so it never reaches for the
//     network, and with a memory limit.
//
// Each snapshot has its own read layer. Requests hold a reference while
// they read; a newer snapshot replaces the layer at once, and the old one
// is closed when the last request reading it is done, so a reload never
// fails a request in flight.
type Layer struct {
	version string
	dir     string
	rows    *rowStore
	product *parquetRows // product_data, read at a host's row; nil without the table
	facts   *parquetRows // agent_facts, likewise
	checks  *parquetRows // checks.result_json, for the store page
	ucp     *parquetRows // ucp_validations.report, for the store page
	db      *sql.DB
	stmts   map[string]*sql.Stmt
	loaded  time.Duration
	// cacheErr is why product_data or agent_facts are read from Parquet
	// pages rather than a row cache built at load; nil when cached or
	// not asked for.
	cacheErr error

	refs   atomic.Int64 // the server's reference plus one per request
	closed chan struct{}
	once   sync.Once
}

// duckSettings are the DuckDB settings of a read layer: bounded memory and
// threads (the server shares its CPUs), UTC throughout.
var duckSettings = map[string]string{
	"memory_limit":             "128MB",
	"threads":                  "2",
	"preserve_insertion_order": "false",
}

// The statements a read layer prepares, by SQL file.
const (
	sqlDirectory      = "serve_directory.sql"
	sqlFactsCategory  = "serve_agent_facts_category.sql"
	readLayerOpenTime = 10 * time.Minute
)

// The columns read from Parquet by row.
var (
	productColumns = []string{"product_url", "source", "product_data", "vendor_readiness", "checked_at"}
	factColumns    = []string{"host", "fact", "value", "confidence", "evidence_sha256", "evidence", "source_url", "checked_at", "note"}
	checkColumns   = []string{"result_json"}
	ucpColumns     = []string{"report"}
)

// ErrNoTables is Open's answer for a version folder without
// store_answers.parquet: there is nothing to read yet.
var ErrNoTables = errors.New("no store_answers.parquet in the snapshot")

// Options tune Open.
type Options struct {
	// TempDir is where the row caches of product_data and agent_facts are
	// written (removed at once, kept open); "" for the system's.
	TempDir string
	// NoRowCache reads product_data and agent_facts from their Parquet
	// pages, as before the row caches (for comparison in tests).
	NoRowCache bool
}

// Open builds the read layer of a published version folder.
func Open(ctx context.Context, dir, version string) (*Layer, error) {
	return OpenWith(ctx, dir, version, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, dir, version string, opt Options) (*Layer, error) {
	if _, err := os.Stat(filepath.Join(dir, datasets.StoreAnswers.Name+".parquet")); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, ErrNoTables
		}
		return nil, fmt.Errorf("read layer %s: %w", version, err)
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, readLayerOpenTime)
	defer cancel()
	rl := &Layer{version: version, dir: dir, stmts: map[string]*sql.Stmt{}, closed: make(chan struct{})}
	for _, pr := range []struct {
		t    *datasets.Table
		cols []string
		dst  **parquetRows
	}{
		{datasets.ProductData, productColumns, &rl.product}, {datasets.AgentFacts, factColumns, &rl.facts},
		{datasets.Checks, checkColumns, &rl.checks}, {datasets.UCPValidations, ucpColumns, &rl.ucp},
	} {
		p, err := openParquetRows(dir, pr.t, pr.cols)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			rl.closeFiles()
			return nil, fmt.Errorf("read layer %s: %w", version, err)
		}
		*pr.dst = p
	}
	// The row caches of the per-host documents are copied while the
	// lookup records load.
	var caching sync.WaitGroup
	cacheErrs := make([]error, 2)
	cctx, stopCaching := context.WithCancel(ctx)
	defer stopCaching()
	if !opt.NoRowCache {
		for i, p := range []*parquetRows{rl.product, rl.facts} {
			if p == nil {
				continue
			}
			caching.Go(func() {
				c, err := buildRowCache(cctx, p, opt.TempDir)
				p.cache, cacheErrs[i] = c, err
			})
		}
	}
	// A load decodes every lookup column of the snapshot: hundreds of
	// megabytes of short-lived garbage at a million stores, which the
	// default GC pacing lets grow to twice the live heap. Collect more
	// often while it runs, and hand the garbage back to the OS when it is
	// done: snapshots change weekly, and RSS would otherwise stay at the
	// load's peak.
	defer debug.FreeOSMemory()
	gc := debug.SetGCPercent(20)
	rows, err := loadRows(ctx, dir)
	if err != nil {
		stopCaching()
	}
	caching.Wait()
	debug.SetGCPercent(gc)
	if err == nil {
		// Past the load's deadline the snapshot fails, as it did before
		// the caches, rather than serving with a cache cut short.
		err = ctx.Err()
	}
	if err != nil {
		rl.closeFiles()
		return nil, fmt.Errorf("read layer %s: %w", version, err)
	}
	rl.rows = rows
	// A cache that could not be built (no room for the scratch file, say)
	// leaves that table read from its pages: slower, the same answers.
	rl.cacheErr = errors.Join(cacheErrs...)
	db, err := duck.OpenDatasets(ctx, dir, duckSettings)
	if err != nil {
		rl.rows.free()
		rl.closeFiles()
		return nil, fmt.Errorf("read layer %s: %w", version, err)
	}
	rl.db = db
	tables := map[string]bool{}
	for _, t := range duck.PublishedTables(dir) {
		tables[t.Name] = true
	}
	for file, needs := range map[string][]string{
		sqlDirectory:     {"store_answers"},
		sqlFactsCategory: {"agent_facts", "stores"},
	} {
		ok := true
		for _, t := range needs {
			ok = ok && tables[t]
		}
		if !ok {
			continue // the answer that needs it says the data is unavailable
		}
		st, err := db.PrepareContext(ctx, svcsql.Text(file))
		if err != nil {
			db.Close()
			rl.rows.free()
			rl.closeFiles()
			return nil, fmt.Errorf("read layer %s: prepare %s: %w", version, file, err)
		}
		rl.stmts[file] = st
	}
	rl.loaded = time.Since(start)
	rl.refs.Store(1)
	return rl, nil
}

// Acquire takes a reference for one request; false when the layer is
// already closing (the caller then reads the newer snapshot).
func (rl *Layer) Acquire() bool {
	for {
		n := rl.refs.Load()
		if n <= 0 {
			return false
		}
		if rl.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// Release drops a reference; the last one closes the layer.
func (rl *Layer) Release() {
	if rl.refs.Add(-1) == 0 {
		rl.once.Do(func() {
			for _, st := range rl.stmts {
				st.Close()
			}
			rl.db.Close()
			rl.closeFiles()
			rl.rows.free()
			rl.rows = nil
			close(rl.closed)
		})
	}
}

func (rl *Layer) closeFiles() {
	for _, p := range []*parquetRows{rl.product, rl.facts, rl.checks, rl.ucp} {
		if p != nil {
			p.close()
		}
	}
}

// Lookup returns the snapshot's row of host, or nil.
func (rl *Layer) Lookup(host string) (*Row, error) {
	r, ok, err := rl.rows.lookup(host)
	if err != nil || !ok {
		return nil, err
	}
	return r, nil
}
