package pipeline

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // the DuckDB driver

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

// Paths of the precomputed files under public/ (and out/files/).
const (
	AdoptionPath  = "api/agent-checkout/adoption.json"
	ProtocolsPath = "api/protocols.json"
)

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
	Dir string // DIR/work/<run-id>: reads run.json, checks.parquet, ucp_validations.parquet; writes out/
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
	Log         *slog.Logger
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

// duckDSN opens an in-memory DuckDB that never reaches for the network.
const duckDSN = "?autoinstall_known_extensions=false&autoload_known_extensions=false"

// Aggregate runs the aggregate stage over one run folder. It needs the
// crawl's checks.parquet and the validate stage's ucp_validations.parquet;
// a missing one is an error that says which command to run first.
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
	for _, in := range []struct{ file, stage string }{{ChecksFile, "crawl"}, {UCPFile, "validate"}} {
		if _, err := os.Stat(filepath.Join(dir, in.file)); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("aggregate %s: no %s in %s: run `svc %s --run %s` first", id, in.file, dir, in.stage, id)
			}
			return nil, fmt.Errorf("aggregate %s: %w", id, err)
		}
	}
	a := &aggregator{opts: opts, dir: dir, run: ri, out: map[string][]byte{}, copies: map[string]string{}}
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
	names := append(sortedKeys(a.out), sortedKeys(a.copies)...)
	slices.Sort(names)
	for _, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("aggregate %s: %w", id, err)
		}
		if src, ok := a.copies[name]; ok {
			err = copyFileAtomic(src, path)
		} else {
			err = durable.WriteFileAtomic(path, a.out[name], 0o644)
		}
		if err != nil {
			return nil, fmt.Errorf("aggregate %s: %w", id, err)
		}
		res.Files = append(res.Files, name)
	}
	opts.Log.Info("aggregate finished", "run", id, "previous", a.prev.ID, "files", len(res.Files))
	return res, nil
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
	conn    *sql.Conn
	out     map[string][]byte // path relative to the run folder → bytes
	copies  map[string]string // path relative to the run folder → file copied there
	tables  []TableCount
}

func (a *aggregator) hasPrev() bool { return a.prevDir != "" }

// build computes every output into a.out.
func (a *aggregator) build(ctx context.Context) error {
	db, err := sql.Open("duckdb", duckDSN)
	if err != nil {
		return fmt.Errorf("open duckdb: %w", err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open duckdb: %w", err)
	}
	defer conn.Close()
	a.conn = conn
	if err := a.setup(ctx); err != nil {
		return err
	}

	// The tables, in dependency order: signals feeds store_answers, which
	// feeds changes.
	if err := a.exec(ctx, "aggregate_signals.sql", svcsql.Text("aggregate_signals.sql")); err != nil {
		return err
	}
	for _, step := range []struct {
		t    *datasets.Table
		file string
	}{
		{datasets.StoreAnswers, "aggregate_store_answers.sql"},
		{datasets.Stores, "aggregate_stores.sql"},
		{datasets.AgentFacts, "aggregate_agent_facts.sql"},
		{datasets.ProductData, "aggregate_product_data.sql"},
		{datasets.Policies, "aggregate_policies.sql"},
		{datasets.Changes, "aggregate_changes.sql"},
	} {
		if err := a.derivedTable(ctx, step.t, step.file); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		t    *datasets.Table
		file string
	}{{datasets.Checks, ChecksFile}, {datasets.UCPValidations, UCPFile}} {
		if err := a.copyTable(c.t, c.file); err != nil {
			return err
		}
	}
	slices.SortFunc(a.tables, func(x, y TableCount) int {
		return tableOrder(x.Name) - tableOrder(y.Name)
	})
	return a.figures(ctx)
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
		t    *datasets.Table
		file string
	}{{datasets.Checks, ChecksFile}, {datasets.UCPValidations, UCPFile}} {
		s, err := v.t.ViewSQL(filepath.Join(a.dir, v.file))
		if err != nil {
			return err
		}
		stmts = append(stmts, s)
	}
	stmts = append(stmts,
		"CREATE TEMP TABLE browser_lane (host VARCHAR PRIMARY KEY, reached BOOLEAN)",
		"CREATE TEMP TABLE svc100 (host VARCHAR PRIMARY KEY, id VARCHAR)",
	)
	for _, t := range []*datasets.Table{datasets.StoreAnswers, datasets.Stores, datasets.Changes} {
		stmts = append(stmts, createTableSQL("prev_"+t.Name, t))
	}
	for _, s := range stmts {
		if err := a.exec(ctx, "setup", s); err != nil {
			return err
		}
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

// loadHooks fills browser_lane and svc100 from the join-point functions.
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
		if err := insertRows(ctx, a.conn, "INSERT INTO browser_lane VALUES (?, ?)", m, func(v *bool) any {
			if v == nil {
				return nil
			}
			return *v
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
		if err := insertRows(ctx, a.conn, "INSERT INTO svc100 VALUES (?, ?)", m, func(v string) any { return v }); err != nil {
			return fmt.Errorf("svc-100 ids: %w", err)
		}
	}
	return nil
}

// insertRows inserts a host-keyed map in one transaction, hosts lower-cased.
func insertRows[V any](ctx context.Context, conn *sql.Conn, stmt string, m map[string]V, val func(V) any) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ps, err := tx.PrepareContext(ctx, stmt)
	if err != nil {
		return err
	}
	defer ps.Close()
	seen := map[string]bool{}
	for _, h := range sortedKeys(m) {
		host := strings.TrimSuffix(strings.ToLower(h), ".")
		if seen[host] {
			continue
		}
		seen[host] = true
		if _, err := ps.ExecContext(ctx, host, val(m[h])); err != nil {
			return fmt.Errorf("%s: %w", host, err)
		}
	}
	return tx.Commit()
}

// loadPrevious fills prev_<table> from the previous run's output, reading
// only the columns its file and the current definition share, and returns
// them. A previous run without the file leaves the table empty.
func (a *aggregator) loadPrevious(ctx context.Context, t *datasets.Table) ([]string, error) {
	path := filepath.Join(a.prevDir, OutTables, t.Name+".parquet")
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return []string{}, nil
	}
	rows, err := a.conn.QueryContext(ctx, "SELECT * FROM read_parquet("+sqlLiteral(path)+") LIMIT 0")
	if err != nil {
		return nil, fmt.Errorf("previous run %s: %w", path, err)
	}
	have, err := rows.Columns()
	rows.Close()
	if err != nil {
		return nil, fmt.Errorf("previous run %s: %w", path, err)
	}
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

// derivedTable creates the table from its SQL file, reads it back in key
// order and encodes it.
func (a *aggregator) derivedTable(ctx context.Context, t *datasets.Table, file string) error {
	if err := a.exec(ctx, file, "CREATE OR REPLACE TEMP TABLE "+sqlIdent(t.Name)+" AS "+svcsql.Text(file)); err != nil {
		return err
	}
	cols, err := queryColumns(ctx, a.conn, t, "SELECT * FROM "+sqlIdent(t.Name))
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return a.addTable(cols)
}

// copyTable republishes a stage's table file byte for byte: it was
// written by the same datasets writer, and it is streamed rather than
// decoded so a million stores' results never sit in memory. (The SQL has
// already read it through the definition's view, and snapshot reads it
// back whole.)
func (a *aggregator) copyTable(t *datasets.Table, file string) error {
	src := filepath.Join(a.dir, file)
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	n, err := datasets.ParquetNumRows(f, fi.Size())
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	a.copies[filepath.ToSlash(filepath.Join(OutTables, t.Name+".parquet"))] = src
	a.tables = append(a.tables, TableCount{Name: t.Name, Rows: int(n)})
	return nil
}

// copyFileAtomic streams src to a temporary file beside dst, fsyncs it and
// renames it into place, like durable.WriteFileAtomic.
func copyFileAtomic(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	f, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after the rename
	if _, err := io.Copy(f, in); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		return err
	}
	return durable.SyncDir(filepath.Dir(dst))
}

func (a *aggregator) addTable(cols *datasets.Columns) error {
	var buf bytes.Buffer
	if err := datasets.WriteParquet(&buf, cols); err != nil {
		return err
	}
	a.out[filepath.ToSlash(filepath.Join(OutTables, cols.Table().Name+".parquet"))] = buf.Bytes()
	a.tables = append(a.tables, TableCount{Name: cols.Table().Name, Rows: cols.Len()})
	return nil
}

func (a *aggregator) exec(ctx context.Context, what, stmt string) error {
	if _, err := a.conn.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// ReadTableFile reads a Parquet file written for t, such as a run's
// checks.parquet or out/tables/<name>.parquet.
func ReadTableFile(path string, t *datasets.Table) (*datasets.Columns, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	cols, err := datasets.ReadParquet(f, fi.Size(), t)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return cols, nil
}

// queryColumns runs query and collects its rows as t's columns; the result
// must have t's column names in t's order.
func queryColumns(ctx context.Context, conn *sql.Conn, t *datasets.Table, query string) (*datasets.Columns, error) {
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if want := t.ColumnNames(); !slices.Equal(names, want) {
		return nil, fmt.Errorf("table %s: the query returns columns %v, want %v", t.Name, names, want)
	}
	cols, err := datasets.NewColumns(t, 0)
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(names))
	ptrs := make([]any, len(names))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		clear(vals)
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		if err := cols.AppendRow(vals); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return cols, nil
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
