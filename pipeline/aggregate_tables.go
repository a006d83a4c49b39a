package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unsafe"

	"svc/datasets"
	svcsql "svc/sql"
)

// The store tables' way out: a query's rows into datasets.Columns, encoded
// to Parquet beside the next query, and the DDL and names DuckDB needs.

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
