package pipeline

import (
	"bytes"
	"context"
	gosql "database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"svc/datasets"
	"svc/publish"
)

// snapshotWorld runs aggregate and snapshot over the shared fixture crawl
// into a fresh DATA folder and returns it.
func snapshotWorld(t *testing.T) (data string, res *publish.Result) {
	t.Helper()
	d := sharedWorld(t)
	data = t.TempDir()
	dir := d.newRun(t, data, "w1", "2026-05-04")
	if _, err := Aggregate(context.Background(), AggregateOptions{Dir: dir, NoHistory: true,
		BrowserLane: BrowserLaneFromBools(BrowserLaneByHost), SVC100IDs: SVC100IDsByHost}); err != nil {
		t.Fatal(err)
	}
	if _, err := AggregateLeaderboard(context.Background(), dir, filepath.Join(data, "state")); err != nil {
		t.Fatal(err)
	}
	res, err := Snapshot(context.Background(), SnapshotOptions{DataDir: data, RunID: "w1"})
	if err != nil {
		t.Fatal(err)
	}
	return data, res
}

// treeBytes reads every file under root (following the latest symlink as a
// name, not a folder), keyed by path.
func treeBytes(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.Type()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSnapshotsByteIdentical publishes the same inputs twice, into two
// DATA folders: every published byte is the same.
func TestSnapshotsByteIdentical(t *testing.T) {
	a, ra := snapshotWorld(t)
	b, _ := snapshotWorld(t)
	ta, tb := treeBytes(t, filepath.Join(a, "public")), treeBytes(t, filepath.Join(b, "public"))
	if len(ta) < 20 {
		t.Fatalf("only %d files published", len(ta))
	}
	for p, v := range ta {
		if tb[p] != v {
			t.Errorf("%s differs between two snapshots of the same inputs", p)
		}
	}
	for p := range tb {
		if _, ok := ta[p]; !ok {
			t.Errorf("%s published only once", p)
		}
	}
	// Publishing the same run again changes nothing.
	again, err := Snapshot(context.Background(), SnapshotOptions{DataDir: a, RunID: "w1"})
	if err != nil {
		t.Fatal(err)
	}
	if again.Created || again.Manifest.Version != ra.Manifest.Version {
		t.Errorf("re-publishing created %v version %s, want no change to %s", again.Created, again.Manifest.Version, ra.Manifest.Version)
	}
}

// TestPublishedTablesReadByDuckDB reads every published Parquet and CSV with
// DuckDB: the row counts are the manifest's, and both formats hold the same
// rows.
func TestPublishedTablesReadByDuckDB(t *testing.T) {
	data, res := snapshotWorld(t)
	db, err := gosql.Open("duckdb", "?autoinstall_known_extensions=false&autoload_known_extensions=false")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	vdir := filepath.Join(data, "public", "data", res.Manifest.Version)
	b, _ := os.ReadFile(filepath.Join(vdir, "manifest.json"))
	var m struct {
		Tables []struct {
			Name string `json:"name"`
			Rows int64  `json:"rows"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(b, &m); err != nil || len(m.Tables) == 0 {
		t.Fatalf("manifest: %v", err)
	}
	for _, tbl := range m.Tables {
		pq := filepath.Join(vdir, tbl.Name+".parquet")
		csv := filepath.Join(vdir, tbl.Name+".csv")
		var n int64
		if err := db.QueryRow("SELECT count(*) FROM read_parquet(?)", pq).Scan(&n); err != nil {
			t.Errorf("%s: DuckDB cannot read the Parquet: %v", tbl.Name, err)
			continue
		}
		if n != tbl.Rows {
			t.Errorf("%s: Parquet has %d rows, manifest says %d", tbl.Name, n, tbl.Rows)
		}
		// Same rows in both formats: DuckDB reads the CSV with the Parquet's
		// column types, and neither side has a row the other lacks.
		types, err := parquetTypes(db, pq)
		if err != nil {
			t.Errorf("%s: %v", tbl.Name, err)
			continue
		}
		csvSel := "SELECT * FROM read_csv(" + lit(csv) + ", header=true, allow_quoted_nulls=false, types=" + types + ")"
		pqSel := "SELECT * FROM read_parquet(" + lit(pq) + ")"
		var diff int64
		q := "SELECT (SELECT count(*) FROM (" + pqSel + " EXCEPT ALL " + csvSel + ")) + (SELECT count(*) FROM (" + csvSel + " EXCEPT ALL " + pqSel + "))"
		if err := db.QueryRow(q).Scan(&diff); err != nil {
			t.Errorf("%s: compare CSV and Parquet: %v", tbl.Name, err)
			continue
		}
		if diff != 0 {
			t.Errorf("%s: CSV and Parquet differ in %d rows", tbl.Name, diff)
		}
	}
}

// parquetTypes returns a DuckDB struct literal {'col': 'TYPE', ...} of a
// Parquet file's columns, for read_csv's types option.
func parquetTypes(db *gosql.DB, path string) (string, error) {
	rows, err := db.Query("DESCRIBE SELECT * FROM read_parquet(" + lit(path) + ")")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var parts []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		parts = append(parts, lit(fmt.Sprint(vals[0]))+": "+lit(fmt.Sprint(vals[1])))
	}
	return "{" + strings.Join(parts, ", ") + "}", rows.Err()
}

// lit quotes a SQL string literal.
func lit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// TestSnapshotUnsortedTable: a table file of aggregate's that is not in
// key order (its second half written first, as two row groups) publishes
// the same bytes as the sorted file: the snapshot, which reads tables a
// row group at a time, then loads the table whole and sorts it.
func TestSnapshotUnsortedTable(t *testing.T) {
	want, _ := snapshotWorld(t)

	d := sharedWorld(t)
	data := t.TempDir()
	dir := d.newRun(t, data, "w1", "2026-05-04")
	ctx := context.Background()
	if _, err := Aggregate(ctx, AggregateOptions{Dir: dir, NoHistory: true,
		BrowserLane: BrowserLaneFromBools(BrowserLaneByHost), SVC100IDs: SVC100IDsByHost}); err != nil {
		t.Fatal(err)
	}
	if _, err := AggregateLeaderboard(ctx, dir, filepath.Join(data, "state")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, OutTables, datasets.Stores.Name+".parquet")
	c, err := ReadTableFile(path, datasets.Stores)
	if err != nil {
		t.Fatal(err)
	}
	rows := c.Rows()
	if len(rows) < 2 {
		t.Fatalf("%d stores", len(rows))
	}
	var buf bytes.Buffer
	w := datasets.NewParquetWriter(&buf, datasets.Stores)
	for _, part := range [][]datasets.Row{rows[len(rows)/2:], rows[:len(rows)/2]} {
		p, err := datasets.FromRows(datasets.Stores, part)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Snapshot(ctx, SnapshotOptions{DataDir: data, RunID: "w1"}); err != nil {
		t.Fatal(err)
	}
	a, b := treeBytes(t, filepath.Join(want, "public")), treeBytes(t, filepath.Join(data, "public"))
	if len(a) != len(b) {
		t.Errorf("%d files, then %d", len(a), len(b))
	}
	for p, v := range a {
		if b[p] != v {
			t.Errorf("%s differs when stores.parquet is out of order", p)
		}
	}
}
