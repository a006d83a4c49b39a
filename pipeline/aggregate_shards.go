package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"svc/datasets"
	svcsql "svc/sql"
)

// runInputs are the crawl and validate tables aggregate reads: one file of
// each for an unsharded run, one per partition, in shard order, for a
// sharded one.
type runInputs struct {
	shards      int // 0: unsharded
	checks, ucp []string
}

// readRunInputs finds the run's input tables and refuses a run aggregate
// cannot read whole: a missing table (or a shard missing one), partitions
// of different shard counts, or an unsharded table beside partitions. The
// errors name the shard and the command that fixes it. Hosts sitting in the
// wrong partition are found later, in DuckDB (checkPartitions).
func readRunInputs(dir string) (runInputs, error) {
	id := filepath.Base(dir)
	sharded := false
	for _, stage := range []string{ChecksPartitions, UCPPartitions} {
		if fi, err := os.Stat(filepath.Join(dir, stage)); err == nil && fi.IsDir() {
			sharded = true
		}
	}
	if !sharded {
		for _, in := range []struct{ file, stage string }{{ChecksFile, "crawl"}, {UCPFile, "validate"}} {
			if _, err := os.Stat(filepath.Join(dir, in.file)); err != nil {
				if errors.Is(err, os.ErrNotExist) {
					return runInputs{}, fmt.Errorf("no %s in %s: run `svc %s --run %s` first", in.file, dir, in.stage, id)
				}
				return runInputs{}, err
			}
		}
		return runInputs{checks: []string{filepath.Join(dir, ChecksFile)}, ucp: []string{filepath.Join(dir, UCPFile)}}, nil
	}

	for _, f := range []string{ChecksFile, JournalName, UCPFile, ValidateJournal} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return runInputs{}, fmt.Errorf("run %s holds both an unsharded %s and shard partitions (%s/, %s/): a run is sharded or not; "+
				"move one of them away, or crawl again under a new --run id", id, f, ChecksPartitions, UCPPartitions)
		}
	}
	// Every shard count present, with one partition of each to name.
	var counts []int
	example := map[int]string{}
	for _, stage := range []string{ChecksPartitions, UCPPartitions} {
		parts, err := partitions(dir, stage)
		if err != nil {
			return runInputs{}, err
		}
		for _, p := range parts {
			if _, ok := example[p.N]; !ok {
				counts = append(counts, p.N)
				example[p.N] = filepath.Join(stage, p.Dir())
			}
		}
	}
	slices.Sort(counts)
	switch {
	case len(counts) == 0:
		return runInputs{}, fmt.Errorf("run %s has a %s/ folder but no partition in it: run `svc crawl --run %s --shard i/n` for every shard i of n first", id, ChecksPartitions, id)
	case len(counts) > 1:
		var names []string
		for _, n := range counts {
			names = append(names, fmt.Sprintf("%d shards (%s)", n, example[n]))
		}
		return runInputs{}, fmt.Errorf("run %s mixes partitions of %s: a run has one shard count; "+
			"remove the partitions of the wrong count, or crawl again under a new --run id", id, strings.Join(names, " and "))
	}
	in := runInputs{shards: counts[0]}
	var missing []error
	for i := range in.shards {
		s := Shard{I: i, N: in.shards}
		for _, st := range []struct {
			dir, file, stage string
			files            *[]string
		}{
			{ChecksDir(dir, s), ChecksFile, "crawl", &in.checks},
			{UCPDir(dir, s), UCPFile, "validate", &in.ucp},
		} {
			path := filepath.Join(st.dir, st.file)
			if _, err := os.Stat(path); err != nil {
				if !errors.Is(err, os.ErrNotExist) {
					return runInputs{}, err
				}
				rel, _ := filepath.Rel(dir, path)
				missing = append(missing, fmt.Errorf("shard %s of run %s has no %s: run `svc %s --run %s --shard %s` first", s, id, rel, st.stage, id, s))
				continue
			}
			*st.files = append(*st.files, path)
		}
	}
	if len(missing) > 0 {
		return runInputs{}, errors.Join(missing...)
	}
	return in, nil
}

// checkPartitions refuses a sharded run where a partition holds a host
// that does not hash into its shard: this is how a partition copied or
// renamed to another shard (a duplicated shard) shows up, and it also
// rules out a host counted twice. DuckDB reads only the host column of
// each partition, so the check costs little beside the aggregation.
func (a *aggregator) checkPartitions(ctx context.Context) error {
	if a.in.shards == 0 {
		return nil
	}
	var values []string
	for _, files := range [][]string{a.in.checks, a.in.ucp} {
		for i, f := range files {
			values = append(values, fmt.Sprintf("(%s, %d, %d)", sqlLiteral(f), i, a.in.shards))
		}
	}
	if err := a.exec(ctx, "shard check", "CREATE OR REPLACE TEMP TABLE shard_files (file VARCHAR, shard BIGINT, shards BIGINT)"); err != nil {
		return err
	}
	if err := a.exec(ctx, "shard check", "INSERT INTO shard_files VALUES "+strings.Join(values, ", ")); err != nil {
		return err
	}
	for _, st := range []struct {
		files []string
		stage string
	}{{a.in.checks, "crawl"}, {a.in.ucp, "validate"}} {
		quoted := make([]string, len(st.files))
		for i, f := range st.files {
			quoted[i] = sqlLiteral(f)
		}
		if err := a.exec(ctx, "shard check", "CREATE OR REPLACE TEMP VIEW shard_rows AS SELECT host, filename FROM read_parquet(["+
			strings.Join(quoted, ", ")+"], filename = true)"); err != nil {
			return err
		}
		res, err := a.duck.query(ctx, svcsql.Text("aggregate_shard_misplaced.sql"))
		if err != nil {
			return fmt.Errorf("shard check: %w", err)
		}
		if len(res.rows) == 0 {
			continue
		}
		var file, host string
		var shard, belongs int64
		if err := scanRow(res.rows[0], &file, &host, &shard, &belongs); err != nil {
			return fmt.Errorf("shard check: %w", err)
		}
		rel, _ := filepath.Rel(a.dir, file)
		s := Shard{I: int(shard), N: a.in.shards}
		return fmt.Errorf("%s holds host %s, which belongs in shard %d/%d, not %s: the partition was written by another shard "+
			"(copied or renamed?); remove %s and run `svc %s --run %s --shard %s` again",
			rel, host, belongs, a.in.shards, s, filepath.Dir(rel), st.stage, filepath.Base(a.dir), s)
	}
	return a.exec(ctx, "shard check", "DROP VIEW shard_rows; DROP TABLE shard_files")
}

// inputTables publishes the crawl and validate tables. An unsharded run's
// files are copied byte for byte (copyTable). A sharded run's partitions
// are read back through their DuckDB views in key order and written with
// the same datasets writer, which sorts by key and depends only on the set
// of rows: the bytes are those of an unsharded run over the same stores.
// Unlike the copy, this holds the table in memory once, as WriteChecks
// does for an unsharded crawl. The last table may still be being encoded
// on return (addTable).
func (a *aggregator) inputTables(ctx context.Context) error {
	for _, c := range []struct {
		t    *datasets.Table
		file string
	}{{datasets.Checks, ChecksFile}, {datasets.UCPValidations, UCPFile}} {
		if a.in.shards == 0 {
			if err := a.copyTable(c.t, c.file); err != nil {
				return err
			}
			continue
		}
		cols, err := a.duck.queryColumns(ctx, c.t, "SELECT * FROM "+sqlIdent(c.t.Name)+" ORDER BY host")
		if err != nil {
			return fmt.Errorf("%s partitions: %w", c.t.Name, err)
		}
		if err := a.addTable(cols); err != nil {
			return err
		}
	}
	return nil
}
