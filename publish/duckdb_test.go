package publish

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"svc/datasets"
)

// TestDuckDBReadsPublished reads every published table through the
// analyst views over data/latest/, as svc sql will: DuckDB must count the
// manifest's rows, and each table's CSV must hold the same rows as its
// Parquet.
func TestDuckDBReadsPublished(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	mustPublish(t, st, testSnapshot(t, "2026-05-04"))
	m, err := Verify(ctx, st, "2026-05-04")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "?autoinstall_known_extensions=false&autoload_known_extensions=false")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	latest := filepath.Join(st.Root(), "data", "latest")
	defs := map[string]*datasets.Table{}
	var tables []*datasets.Table
	for _, tb := range datasets.All() {
		defs[tb.Name] = tb
	}
	for _, e := range m.Tables {
		tables = append(tables, defs[e.Name])
	}
	views, err := datasets.ViewsSQL(latest, tables)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, views); err != nil {
		t.Fatalf("views: %v", err)
	}
	for _, e := range m.Tables {
		var n int64
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+e.Name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != e.Rows {
			t.Errorf("%s: DuckDB counts %d rows, manifest says %d", e.Name, n, e.Rows)
		}
		cols := make([]string, len(e.Columns))
		for i, c := range e.Columns {
			cols[i] = fmt.Sprintf("'%s': '%s'", c.Name, duckType(c.Type))
		}
		csv := fmt.Sprintf("read_csv('%s', header = true, allow_quoted_nulls = false, columns = {%s})",
			filepath.Join(latest, e.CSV.Path), strings.Join(cols, ", "))
		for _, q := range []string{
			"SELECT count(*) FROM (SELECT * FROM " + e.Name + " EXCEPT ALL SELECT * FROM " + csv + ")",
			"SELECT count(*) FROM (SELECT * FROM " + csv + " EXCEPT ALL SELECT * FROM " + e.Name + ")",
		} {
			if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("%s: %d rows differ between CSV and Parquet", e.Name, n)
			}
		}
	}
}

func duckType(typ string) string {
	return map[string]string{
		"string": "VARCHAR", "json": "VARCHAR", "bool": "BOOLEAN", "int64": "BIGINT",
		"float64": "DOUBLE", "timestamp": "TIMESTAMPTZ", "date": "DATE",
	}[typ]
}
