package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"svc/datasets"
	"svc/pipeline/durable"
	svcsql "svc/sql"
)

// The aggregate stage turns a run's crawl and validate outputs into every
// published store table and the precomputed store figures, with DuckDB SQL
// from sql/aggregate_*.sql:
//
//	out/tables/store_answers.parquet  one plain answer per store (score, lanes, verdict)
//	out/tables/stores.parquet         the directory with source
//	out/tables/checks.parquet         the crawl's table, as is
//	out/tables/ucp_validations.parquet the validate stage's table, as is
//	out/tables/agent_facts.parquet    typed decisions with evidence hashes
//	out/tables/product_data.parquet   product data and vendor readiness
//	out/tables/policies.parquet       policy pages, four rows per store
//	out/tables/changes.parquet        week-over-week changes, with history
//	out/files/api/agent-checkout/adoption.json  spec 2.8
//	out/files/api/protocols.json                spec 2.9
//	out/weekly/<date>.json                      spec 2.13, this run's edition
//
// Nothing here reads the wall clock: times come from run.json and the
// checks, rows are sorted by key and JSON keys are in a fixed order, so the
// same inputs give the same bytes.

// StoreTables are the tables aggregate writes, in publishing order.
// leaderboard_results is written by the leaderboard step.
var StoreTables = []*datasets.Table{
	datasets.StoreAnswers, datasets.Stores, datasets.Checks, datasets.UCPValidations,
	datasets.AgentFacts, datasets.ProductData, datasets.Policies, datasets.Changes,
}

// BrowserLane is the join point of the buy.browser lane: it returns, per
// host, whether the service's browser shoppers reached the cart or
// checkout in the runs imported for the run folder (nil = a run covered the
// store but the outcome was not measured). Hosts it does not list get a
// null lane. Nil (the default) means no browser data: every buy_browser is
// null. The leaderboard step sets it, for example with
// BrowserLaneFromBools(BrowserLaneByHost).
var BrowserLane func(runDir string) (map[string]*bool, error)

// SVC100IDs returns the SVC-100 v1 id (svc100-v1-NNN) of each test-set
// host, for stores.svc100_id. Nil (the default) leaves the column null.
var SVC100IDs func(runDir string) (map[string]string, error)

// UCPPathResult is how the service's own UCP agent path ended at one store:
// a leaderboard outcome and the path's reason code.
type UCPPathResult struct {
	Outcome, Reason string
}

// UCPPath is the join point of the UCP agent path: per host, how the path
// ended in the run folder (UCPPathByHost reads it from agent_runs/). Hosts
// it does not list, and every host when it is nil, were not covered by the
// path; store_answers.ucp_checkout_link then rests on the crawl's UCP
// profile alone.
var UCPPath func(runDir string) (map[string]UCPPathResult, error)

// BrowserLaneFromBools adapts a host → reached function to BrowserLane.
func BrowserLaneFromBools(f func(runDir string) (map[string]bool, error)) func(string) (map[string]*bool, error) {
	return func(runDir string) (map[string]*bool, error) {
		m, err := f(runDir)
		if err != nil {
			return nil, err
		}
		out := make(map[string]*bool, len(m))
		for h, v := range m {
			out[h] = &v
		}
		return out, nil
	}
}

// AggregateOptions configure the aggregate stage.
type AggregateOptions struct {
	Dir string // DIR/work/<run-id>: reads run.json, checks.parquet, ucp_validations.parquet (or their partitions); writes out/
	// Previous is the run folder compared with for changes, the adoption
	// series, rechecks and the weekly comparison. Empty: the latest earlier
	// run that was aggregated (FindPreviousRun).
	Previous string
	// NoHistory reads no previous run: changes holds no rows, rechecks and
	// changes in adoption.json are null, the series has one point.
	NoHistory bool
	// BaseURL prefixes svc_url and the citation links, for example
	// "https://svc.example"; empty gives root-relative links.
	BaseURL string
	// BrowserLane and SVC100IDs override the package variables of the same
	// names when set.
	BrowserLane func(runDir string) (map[string]*bool, error)
	SVC100IDs   func(runDir string) (map[string]string, error)
	// UCPPath overrides the package variable UCPPath when set.
	UCPPath func(runDir string) (map[string]UCPPathResult, error)
	Log     *slog.Logger
}

// TableCount is one table aggregate wrote.
type TableCount struct {
	Name string
	Rows int
}

// AggregateResult reports what aggregate wrote.
type AggregateResult struct {
	Run      RunInfo
	Previous string // id of the run read for history; "" when none
	Tables   []TableCount
	Files    []string // every file written, relative to the run folder, sorted
}

// duckDSN opens an in-memory DuckDB that never reaches for the network
// through database/sql (the tests read outputs back with it); the stage
// itself opens DuckDB with the same settings through openDuck.
const duckDSN = "?autoinstall_known_extensions=false&autoload_known_extensions=false"

// Aggregate runs the aggregate stage over one run folder. It needs the
// crawl's checks.parquet and the validate stage's ucp_validations.parquet,
// or, for a sharded run, both files of every partition; a missing one is an
// error that says which command to run first. Over the same stores a
// sharded run gives the same bytes as an unsharded one.
func Aggregate(ctx context.Context, opts AggregateOptions) (*AggregateResult, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	dir := filepath.Clean(opts.Dir)
	id := filepath.Base(dir)
	ri, err := ReadRun(filepath.Dir(filepath.Dir(dir)), id)
	if err != nil {
		return nil, err
	}
	in, err := readRunInputs(dir)
	if err != nil {
		return nil, fmt.Errorf("aggregate %s: %w", id, err)
	}
	a := &aggregator{opts: opts, dir: dir, run: ri, in: in, out: map[string][]byte{}, copies: map[string]string{}}
	if !opts.NoHistory {
		a.prevDir = opts.Previous
		if a.prevDir == "" {
			if a.prevDir, err = FindPreviousRun(dir, ri); err != nil {
				return nil, err
			}
		}
		if a.prevDir != "" {
			if a.prev, err = ReadRun(filepath.Dir(filepath.Dir(a.prevDir)), filepath.Base(a.prevDir)); err != nil {
				return nil, fmt.Errorf("aggregate %s: previous run: %w", id, err)
			}
			if a.prev.Date >= ri.Date {
				return nil, fmt.Errorf("aggregate %s: previous run %s is dated %s, not before %s", id, a.prev.ID, a.prev.Date, ri.Date)
			}
		}
	}
	if err := a.build(ctx); err != nil {
		return nil, fmt.Errorf("aggregate %s: %w", id, err)
	}
	res := &AggregateResult{Run: ri, Previous: a.prev.ID, Tables: a.tables}
	start := time.Now()
	names := append(sortedKeys(a.out), sortedKeys(a.copies)...)
	slices.Sort(names)
	if err := a.writeFiles(names); err != nil {
		return nil, fmt.Errorf("aggregate %s: %w", id, err)
	}
	res.Files = names
	opts.Log.Debug("aggregate wrote files", "took", time.Since(start))
	opts.Log.Info("aggregate finished", "run", id, "previous", a.prev.ID, "files", len(res.Files))
	return res, nil
}

// writeFiles writes the outputs, each file in a goroutine of its own:
// most of a file's time is the wait for its fsync, and the waits overlap.
// Every file is attempted; the error is the first in name order.
func (a *aggregator) writeFiles(names []string) error {
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { errs[i] = a.writeFile(name) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// writeFile writes one output, name relative to the run folder.
func (a *aggregator) writeFile(name string) error {
	path := filepath.Join(a.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if src, ok := a.copies[name]; ok {
		return durable.CopyFileAtomic(src, path, 0o644)
	}
	return durable.WriteFileAtomic(path, a.out[name], 0o644)
}

// FindPreviousRun returns the folder of the latest run before cur (by
// snapshot date, then start time) under the same work folder that has
// aggregate output, or "" when there is none.
func FindPreviousRun(dir string, cur RunInfo) (string, error) {
	work := filepath.Dir(filepath.Clean(dir))
	entries, err := os.ReadDir(work)
	if err != nil {
		return "", fmt.Errorf("find previous run in %s: %w", work, err)
	}
	var best RunInfo
	bestDir := ""
	for _, e := range entries {
		if !e.IsDir() || e.Name() == cur.ID {
			continue
		}
		d := filepath.Join(work, e.Name())
		b, err := os.ReadFile(filepath.Join(d, RunInfoFile))
		if err != nil {
			continue
		}
		var ri RunInfo
		if json.Unmarshal(b, &ri) != nil || ri.Date == "" || ri.Date >= cur.Date {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, OutTables, datasets.StoreAnswers.Name+".parquet")); err != nil {
			continue
		}
		if bestDir == "" || ri.Date > best.Date || ri.Date == best.Date &&
			(ri.Started.After(best.Started) || ri.Started.Equal(best.Started) && ri.ID > best.ID) {
			best, bestDir = ri, d
		}
	}
	return bestDir, nil
}

// aggregator holds one aggregate run's state.
type aggregator struct {
	opts    AggregateOptions
	dir     string
	run     RunInfo
	prevDir string
	prev    RunInfo // zero when no history is read
	in      runInputs
	duck    *duckConn
	out     map[string][]byte // path relative to the run folder → bytes
	copies  map[string]string // path relative to the run folder → file copied there
	tables  []TableCount
	pending chan encodedTable // the table being encoded, if any (addTable)
}

func (a *aggregator) hasPrev() bool { return a.prevDir != "" }

// build computes every output into a.out.
func (a *aggregator) build(ctx context.Context) error {
	duck, err := openDuck()
	if err != nil {
		return err
	}
	defer duck.Close()
	a.duck = duck
	defer a.waitTable() // on an early return; its error is not the first
	if err := a.setup(ctx); err != nil {
		return err
	}

	// The tables: signals feeds them all, and store_answers feeds changes.
	// Each table's rows are encoded in the background while the next ones
	// are queried (addTable), so the order is chosen for overlap:
	// agent_facts, the largest, is read into Go (on one CPU) while
	// product_data is encoded, and encoded while the smaller tables are
	// queried.
	start := time.Now()
	if err := a.exec(ctx, "aggregate_signals.sql", svcsql.Text("aggregate_signals.sql")); err != nil {
		return err
	}
	a.opts.Log.Debug("aggregate signals", "took", time.Since(start))
	for _, step := range []struct {
		t       *datasets.Table
		file    string
		keep    bool            // later SQL reads the table
		derived []derivedColumn // computed as the rows are read
	}{
		{datasets.ProductData, "aggregate_product_data.sql", false, nil},
		{datasets.AgentFacts, "aggregate_agent_facts.sql", false, []derivedColumn{evidenceSHA256}},
		{datasets.StoreAnswers, "aggregate_store_answers.sql", a.hasPrev(), nil}, // read by aggregate_changes.sql
		{datasets.Stores, "aggregate_stores.sql", false, nil},
		{datasets.Policies, "aggregate_policies.sql", false, nil},
		{datasets.Changes, "aggregate_changes.sql", true, nil}, // read by aggregate_change_counts.sql
	} {
		if step.t == datasets.Changes && !a.hasPrev() {
			// Without a previous run every input of the changes SQL but
			// store_answers is empty, and so is its result.
			cols, err := datasets.NewColumns(datasets.Changes, 0)
			if err != nil {
				return err
			}
			if err := a.addTable(cols); err != nil {
				return err
			}
			continue
		}
		if err := a.derivedTable(ctx, step.t, step.file, step.keep, step.derived...); err != nil {
			return err
		}
	}
	if err := a.inputTables(ctx); err != nil {
		return err
	}
	start = time.Now()
	if err := a.figures(ctx); err != nil { // while the last table is encoded
		return err
	}
	a.opts.Log.Debug("aggregate figures", "took", time.Since(start))
	if err := a.waitTable(); err != nil {
		return err
	}
	slices.SortFunc(a.tables, func(x, y TableCount) int {
		return tableOrder(x.Name) - tableOrder(y.Name)
	})
	return nil
}

func tableOrder(name string) int {
	for i, t := range StoreTables {
		if t.Name == name {
			return i
		}
	}
	return len(StoreTables)
}

// setup registers the inputs: views over the run's tables, the browser
// lane and SVC-100 ids, the previous run's tables (empty without history)
// and the variables the SQL reads.
func (a *aggregator) setup(ctx context.Context) error {
	stmts := []string{"SET TimeZone = 'UTC'"}
	for _, v := range []struct {
		t     *datasets.Table
		files []string
	}{{datasets.Checks, a.in.checks}, {datasets.UCPValidations, a.in.ucp}} {
		s, err := v.t.ViewSQL(v.files...)
		if err != nil {
			return err
		}
		stmts = append(stmts, s)
	}
	stmts = append(stmts,
		"CREATE TEMP TABLE browser_lane (host VARCHAR PRIMARY KEY, reached BOOLEAN)",
		"CREATE TEMP TABLE svc100 (host VARCHAR PRIMARY KEY, id VARCHAR)",
		"CREATE TEMP TABLE ucp_path (host VARCHAR PRIMARY KEY, outcome VARCHAR, reason VARCHAR)",
	)
	for _, t := range []*datasets.Table{datasets.StoreAnswers, datasets.Stores, datasets.Changes} {
		stmts = append(stmts, createTableSQL("prev_"+t.Name, t))
	}
	for _, s := range stmts {
		if err := a.exec(ctx, "setup", s); err != nil {
			return err
		}
	}
	if err := a.checkPartitions(ctx); err != nil {
		return err
	}
	if err := a.loadHooks(ctx); err != nil {
		return err
	}
	prevColumns := []string{}
	if a.hasPrev() {
		for _, t := range []*datasets.Table{datasets.StoreAnswers, datasets.Stores, datasets.Changes} {
			cols, err := a.loadPrevious(ctx, t)
			if err != nil {
				return err
			}
			if t == datasets.StoreAnswers {
				prevColumns = cols
			}
		}
	}
	quoted := make([]string, len(prevColumns))
	for i, c := range prevColumns {
		quoted[i] = sqlLiteral(c)
	}
	vars := []string{
		"SET VARIABLE run_date = DATE " + sqlLiteral(a.run.Date),
		"SET VARIABLE base_url = " + sqlLiteral(strings.TrimSuffix(a.opts.BaseURL, "/")),
		fmt.Sprintf("SET VARIABLE have_prev = %t", a.hasPrev()),
		"SET VARIABLE prev_columns = [" + strings.Join(quoted, ", ") + "]::VARCHAR[]",
	}
	for _, s := range vars {
		if err := a.exec(ctx, "setup", s); err != nil {
			return err
		}
	}
	return nil
}

// loadHooks fills browser_lane, svc100 and ucp_path from the join-point
// functions.
func (a *aggregator) loadHooks(ctx context.Context) error {
	lane := a.opts.BrowserLane
	if lane == nil {
		lane = BrowserLane
	}
	if lane != nil {
		m, err := lane(a.dir)
		if err != nil {
			return fmt.Errorf("browser lane: %w", err)
		}
		if err := insertHosts(ctx, a.duck, "INSERT INTO browser_lane VALUES (?, ?)", m, func(ps mapping.PreparedStatement, v *bool) mapping.State {
			if v == nil {
				return mapping.BindNull(ps, 2)
			}
			return mapping.BindBoolean(ps, 2, *v)
		}); err != nil {
			return fmt.Errorf("browser lane: %w", err)
		}
	}
	ids := a.opts.SVC100IDs
	if ids == nil {
		ids = SVC100IDs
	}
	if ids != nil {
		m, err := ids(a.dir)
		if err != nil {
			return fmt.Errorf("svc-100 ids: %w", err)
		}
		if err := insertHosts(ctx, a.duck, "INSERT INTO svc100 VALUES (?, ?)", m, func(ps mapping.PreparedStatement, v string) mapping.State {
			return mapping.BindVarcharLength(ps, 2, v, mapping.IdxT(len(v)))
		}); err != nil {
			return fmt.Errorf("svc-100 ids: %w", err)
		}
	}
	up := a.opts.UCPPath
	if up == nil {
		up = UCPPath
	}
	if up != nil {
		m, err := up(a.dir)
		if err != nil {
			return fmt.Errorf("ucp path: %w", err)
		}
		if err := insertHosts(ctx, a.duck, "INSERT INTO ucp_path VALUES (?, ?, ?)", m, func(ps mapping.PreparedStatement, v UCPPathResult) mapping.State {
			if st := mapping.BindVarcharLength(ps, 2, v.Outcome, mapping.IdxT(len(v.Outcome))); st != mapping.StateSuccess {
				return st
			}
			if v.Reason == "" {
				return mapping.BindNull(ps, 3)
			}
			return mapping.BindVarcharLength(ps, 3, v.Reason, mapping.IdxT(len(v.Reason)))
		}); err != nil {
			return fmt.Errorf("ucp path: %w", err)
		}
	}
	return nil
}

// insertHosts inserts a host-keyed map in one transaction, hosts
// lower-cased and without a trailing dot; bind binds the value as the
// second parameter.
func insertHosts[V any](ctx context.Context, d *duckConn, stmt string, m map[string]V, bind func(mapping.PreparedStatement, V) mapping.State) error {
	var hosts []string
	var vals []V
	seen := map[string]bool{}
	for _, h := range sortedKeys(m) {
		host := strings.TrimSuffix(strings.ToLower(h), ".")
		if seen[host] {
			continue
		}
		seen[host] = true
		hosts, vals = append(hosts, host), append(vals, m[h])
	}
	return d.insertRows(ctx, stmt, func(ps mapping.PreparedStatement, i int) (bool, error) {
		if i == len(hosts) {
			return false, nil
		}
		if err := errors.Join(
			bindState(mapping.BindVarcharLength(ps, 1, hosts[i], mapping.IdxT(len(hosts[i]))), hosts[i]),
			bindState(bind(ps, vals[i]), hosts[i])); err != nil {
			return false, err
		}
		return true, nil
	})
}

// loadPrevious fills prev_<table> from the previous run's output, reading
// only the columns its file and the current definition share, and returns
// them. A previous run without the file leaves the table empty.
func (a *aggregator) loadPrevious(ctx context.Context, t *datasets.Table) ([]string, error) {
	path := filepath.Join(a.prevDir, OutTables, t.Name+".parquet")
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return []string{}, nil
	}
	head, err := a.duck.query(ctx, "SELECT * FROM read_parquet("+sqlLiteral(path)+") LIMIT 0")
	if err != nil {
		return nil, fmt.Errorf("previous run %s: %w", path, err)
	}
	have := head.names
	var shared []string
	for _, c := range t.ColumnNames() {
		if slices.Contains(have, c) {
			shared = append(shared, sqlIdent(c))
		}
	}
	for _, k := range t.Key {
		if !slices.Contains(have, k) {
			return nil, fmt.Errorf("previous run %s: no key column %s", path, k)
		}
	}
	list := strings.Join(shared, ", ")
	if err := a.exec(ctx, "previous "+t.Name, "INSERT INTO "+sqlIdent("prev_"+t.Name)+" ("+list+") SELECT "+list+
		" FROM read_parquet("+sqlLiteral(path)+")"); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(shared))
	for _, c := range t.ColumnNames() {
		if slices.Contains(have, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// derivedTable runs the table's SQL file, reads the rows and encodes them.
// The rows come in key order, so the writer's sort is one check: a file
// that reads signals alone keeps its host order (aggregate_signals.sql),
// the others end in ORDER BY the key. (Rows out of order would cost a
// sort, never a byte.) The derived columns, which the SQL leaves null, are
// computed as the rows are read. A table that later SQL reads (keep) is
// created in DuckDB first and read back from there.
func (a *aggregator) derivedTable(ctx context.Context, t *datasets.Table, file string, keep bool, derived ...derivedColumn) error {
	start := time.Now()
	query := svcsql.Text(file)
	if keep {
		if err := a.exec(ctx, file, "CREATE OR REPLACE TEMP TABLE "+sqlIdent(t.Name)+" AS "+query); err != nil {
			return err
		}
		query = "SELECT * FROM " + sqlIdent(t.Name)
	}
	cols, err := a.duck.queryColumns(ctx, t, query, derived...)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	a.opts.Log.Debug("aggregate queried", "table", t.Name, "rows", cols.Len(), "took", time.Since(start))
	return a.addTable(cols)
}

// evidenceSHA256 is agent_facts.evidence_sha256, the sha256 of the
// evidence text in lower-case hex as DuckDB's sha256 gives it, computed as
// the rows are read: DuckDB's sha256 took a third of the table's query,
// Go's uses the CPU's SHA instructions.
var evidenceSHA256 = derivedColumn{column: "evidence_sha256", from: "evidence", value: appendSHA256Hex}

// appendSHA256Hex appends the sha256 of s in lower-case hex to buf.
func appendSHA256Hex(buf []byte, s string) []byte {
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(s), len(s)))
	return hex.AppendEncode(buf, sum[:])
}

// copyTable republishes a stage's table file byte for byte: it was
// written by the same datasets writer, and it is streamed rather than
// decoded so a million stores' results never sit in memory. (The SQL has
// already read it through the definition's view, and snapshot reads it
// back whole.)
func (a *aggregator) copyTable(t *datasets.Table, file string) error {
	src := filepath.Join(a.dir, file)
	var n int64
	err := withFile(src, func(r io.ReaderAt, size int64) (err error) {
		n, err = datasets.ParquetNumRows(r, size)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	a.copies[filepath.ToSlash(filepath.Join(OutTables, t.Name+".parquet"))] = src
	a.tables = append(a.tables, TableCount{Name: t.Name, Rows: int(n)})
	return nil
}

// addTable encodes cols as Parquet into a.out. The encoding runs in the
// background while DuckDB computes the next table, which shares the CPUs
// better than taking turns; one table at a time, so at most two tables'
// rows are in memory. waitTable collects it.
func (a *aggregator) addTable(cols *datasets.Columns) error {
	if err := a.waitTable(); err != nil {
		return err
	}
	done := make(chan encodedTable, 1)
	a.pending = done
	go func() {
		start := time.Now()
		var buf bytes.Buffer
		err := datasets.WriteParquet(&buf, cols)
		a.opts.Log.Debug("aggregate encoded", "table", cols.Table().Name, "rows", cols.Len(), "took", time.Since(start))
		done <- encodedTable{name: cols.Table().Name, rows: cols.Len(), data: buf.Bytes(), err: err}
	}()
	return nil
}

// encodedTable is one table's Parquet bytes.
type encodedTable struct {
	name string
	rows int
	data []byte
	err  error
}

// waitTable waits for the table being encoded, if any, and adds it to the
// outputs.
func (a *aggregator) waitTable() error {
	if a.pending == nil {
		return nil
	}
	e := <-a.pending
	a.pending = nil
	if e.err != nil {
		return e.err
	}
	a.out[filepath.ToSlash(filepath.Join(OutTables, e.name+".parquet"))] = e.data
	a.tables = append(a.tables, TableCount{Name: e.name, Rows: e.rows})
	return nil
}

func (a *aggregator) exec(ctx context.Context, what, stmt string) error {
	if err := a.duck.exec(ctx, stmt); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// ReadTableFile reads a Parquet file written for t, such as a run's
// checks.parquet or out/tables/<name>.parquet.
func ReadTableFile(path string, t *datasets.Table) (*datasets.Columns, error) {
	var cols *datasets.Columns
	err := withFile(path, func(r io.ReaderAt, size int64) (err error) {
		cols, err = datasets.ReadParquet(r, size, t)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return cols, nil
}

// withFile opens the file at path and hands fn a reader of it and its
// size, the way the datasets Parquet readers take a file.
func withFile(path string, fn func(r io.ReaderAt, size int64) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return fn(f, fi.Size())
}

// createTableSQL is the DuckDB DDL of an empty table shaped like t.
func createTableSQL(name string, t *datasets.Table) string {
	parts := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		parts[i] = sqlIdent(c.Name) + " " + duckType(c.Type)
	}
	return "CREATE TEMP TABLE " + sqlIdent(name) + " (" + strings.Join(parts, ", ") + ")"
}

func duckType(t datasets.Type) string {
	switch t {
	case datasets.Bool:
		return "BOOLEAN"
	case datasets.Int64:
		return "BIGINT"
	case datasets.Float64:
		return "DOUBLE"
	case datasets.Timestamp:
		return "TIMESTAMPTZ"
	case datasets.Date:
		return "DATE"
	}
	return "VARCHAR"
}

func sqlIdent(s string) string   { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func sqlLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// encodeJSON encodes v with two-space indents and a final newline.
func encodeJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// runTime is a run's times in the JSON files: UTC, microseconds.
func runTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
