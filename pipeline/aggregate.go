package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

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

// CheckoutWebMCP is the join point of Checkout WebMCP as the browser
// shoppers measured it (CheckoutWebMCPByHost reads it from the shop
// stage's journals): a host listed as Measured gets status measured with
// what was seen at its checkout page; a host listed unmeasured keeps the
// crawl's platform inference, its reason saying no shopper reached
// checkout; a host not listed, and every host when it is nil, keeps the
// crawl's value.
var CheckoutWebMCP func(runDir string) (map[string]CheckoutWebMCPSeen, error)

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
	// CheckoutWebMCP overrides the package variable CheckoutWebMCP when set.
	CheckoutWebMCP func(runDir string) (map[string]CheckoutWebMCPSeen, error)
	Log            *slog.Logger
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
