package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"svc/datasets"
)

// Loading the run's inputs into DuckDB: the crawl and validate tables, the
// join points' per-host results (hooks) and the previous run's tables.

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
		"CREATE TEMP TABLE checkout_webmcp (host VARCHAR PRIMARY KEY, measured BOOLEAN, detected BOOLEAN, tools VARCHAR, reason VARCHAR)",
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

// loadHooks fills browser_lane, svc100, ucp_path and checkout_webmcp from the join-point
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
	cw := a.opts.CheckoutWebMCP
	if cw == nil {
		cw = CheckoutWebMCP
	}
	if cw != nil {
		m, err := cw(a.dir)
		if err != nil {
			return fmt.Errorf("checkout webmcp: %w", err)
		}
		if err := insertHosts(ctx, a.duck, "INSERT INTO checkout_webmcp VALUES (?, ?, ?, ?, ?)", m, func(ps mapping.PreparedStatement, v CheckoutWebMCPSeen) mapping.State {
			tools := v.Tools
			if tools == nil {
				tools = []string{}
			}
			tj, _ := json.Marshal(tools)
			for _, st := range []mapping.State{
				mapping.BindBoolean(ps, 2, v.Measured),
				mapping.BindBoolean(ps, 3, v.Detected),
				mapping.BindVarcharLength(ps, 4, string(tj), mapping.IdxT(len(tj))),
				mapping.BindVarcharLength(ps, 5, v.Reason, mapping.IdxT(len(v.Reason))),
			} {
				if st != mapping.StateSuccess {
					return st
				}
			}
			return mapping.StateSuccess
		}); err != nil {
			return fmt.Errorf("checkout webmcp: %w", err)
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
