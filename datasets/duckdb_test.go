package datasets

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// duckDSN opens an in-memory DuckDB that never reaches for the network.
const duckDSN = "?autoinstall_known_extensions=false&autoload_known_extensions=false"

func openDuck(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", duckDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// duckType is the DuckDB type read_csv should give a column.
func duckType(typ Type) string {
	return map[Type]string{
		String: "VARCHAR", JSON: "VARCHAR", Bool: "BOOLEAN", Int64: "BIGINT",
		Float64: "DOUBLE", Timestamp: "TIMESTAMPTZ", Date: "DATE",
	}[typ]
}

// csvColumns is the columns={...} argument of read_csv for t.
func csvColumns(t *Table) string {
	parts := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		parts[i] = quoteLiteral(c.Name) + ": " + quoteLiteral(duckType(c.Type))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func writeFiles(t testing.TB, dir string, tb *Table, rows []Row) (pq, cs string) {
	t.Helper()
	c := mustColumns(t, tb, rows)
	pq = filepath.Join(dir, tb.Name+".parquet")
	cs = filepath.Join(dir, tb.Name+".csv")
	for _, f := range []struct {
		path  string
		write func(*os.File) error
	}{
		{pq, func(f *os.File) error { return WriteParquet(f, c) }},
		{cs, func(f *os.File) error { return WriteCSV(f, c) }},
	} {
		out, err := os.Create(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.write(out); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return pq, cs
}

func queryRows(t testing.TB, db *sql.DB, n int, q string) []Row {
	t.Helper()
	rs, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	var out []Row
	for rs.Next() {
		r := make(Row, n)
		ptrs := make([]any, n)
		for i := range r {
			ptrs[i] = &r[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func queryInt(t testing.TB, db *sql.DB, q string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// TestDuckDBReads checks that DuckDB, an independent reader, sees the same
// rows, types and nulls in the Parquet file as we wrote, through the
// generated view, and that the CSV holds the same rows as the Parquet.
func TestDuckDBReads(t *testing.T) {
	dir := t.TempDir()
	want := edgeRows()
	pq, cs := writeFiles(t, dir, allTypes, clone(want))
	db := openDuck(t)

	views, err := ViewsSQL(dir, []*Table{allTypes})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(views); err != nil {
		t.Fatalf("create view: %v\n%s", err, views)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM all_types"); n != int64(len(want)) {
		t.Errorf("DuckDB counts %d rows, want %d", n, len(want))
	}
	got := queryRows(t, db, len(allTypes.Columns), "SELECT * FROM all_types")
	// DuckDB returns TIMESTAMPTZ and DATE as time.Time in its own form;
	// a round trip through Columns brings them to ours. File order is key
	// order.
	if diff := diffRows(want, mustColumns(t, allTypes, got).Rows()); diff != "" {
		t.Errorf("DuckDB rows (-want +got):\n%s", diff)
	}

	var typ, comment string
	err = db.QueryRow(`SELECT data_type, comment FROM duckdb_columns() WHERE table_name = 'all_types' AND column_name = 'ts'`).Scan(&typ, &comment)
	if err != nil {
		t.Fatal(err)
	}
	if typ != "TIMESTAMP WITH TIME ZONE" || comment != "nullable timestamp" {
		t.Errorf("column ts: type %q comment %q, want TIMESTAMP WITH TIME ZONE and its description", typ, comment)
	}

	csv := fmt.Sprintf("read_csv(%s, header = true, allow_quoted_nulls = false, columns = %s)", quoteLiteral(cs), csvColumns(allTypes))
	for _, q := range []string{
		fmt.Sprintf("SELECT count(*) FROM (SELECT * FROM read_parquet(%s) EXCEPT ALL SELECT * FROM %s)", quoteLiteral(pq), csv),
		fmt.Sprintf("SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM read_parquet(%s))", csv, quoteLiteral(pq)),
	} {
		if n := queryInt(t, db, q); n != 0 {
			t.Errorf("%d rows differ between CSV and Parquet: %s", n, q)
		}
	}
}

// TestDuckDBReadsLarge reads a multi-row-group file.
func TestDuckDBReadsLarge(t *testing.T) {
	n := RowGroupRows + 1000
	if testing.Short() {
		n = 3000
	}
	dir := t.TempDir()
	pq, cs := writeFiles(t, dir, StoreAnswers, synthRows(n))
	db := openDuck(t)
	if got := queryInt(t, db, fmt.Sprintf("SELECT count(*) FROM read_parquet(%s)", quoteLiteral(pq))); got != int64(n) {
		t.Errorf("DuckDB counts %d rows, want %d", got, n)
	}
	csv := fmt.Sprintf("read_csv(%s, header = true, allow_quoted_nulls = false, columns = %s)", quoteLiteral(cs), csvColumns(StoreAnswers))
	q := fmt.Sprintf("SELECT count(*) FROM (SELECT * FROM read_parquet(%s) EXCEPT ALL SELECT * FROM %s)", quoteLiteral(pq), csv)
	if d := queryInt(t, db, q); d != 0 {
		t.Errorf("%d rows differ between CSV and Parquet", d)
	}
	// Nulls stay nulls: score is null for every ninth row.
	nulls := queryInt(t, db, fmt.Sprintf("SELECT count(*) FROM read_parquet(%s) WHERE score IS NULL", quoteLiteral(pq)))
	if want := int64((n + 8) / 9); nulls != want {
		t.Errorf("%d null scores, want %d", nulls, want)
	}
}
