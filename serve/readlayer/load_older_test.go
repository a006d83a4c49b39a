package readlayer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"svc/datasets"
)

// TestLoadRowsOlderSnapshot: a snapshot published before a column of
// store_answers existed (published snapshots never change) still loads
// through the cursors; the field of the column it lacks is null
// (unmeasured there), and the fields of the columns it has keep their
// values. Before, loading failed with "no column …" and a served snapshot
// went unanswerable at an upgrade.
func TestLoadRowsOlderSnapshot(t *testing.T) {
	dir := t.TempDir()
	older := *datasets.StoreAnswers
	last := older.Columns[len(older.Columns)-1]
	older.Columns = older.Columns[:len(older.Columns)-1]
	row := make(datasets.Row, len(older.Columns))
	row[older.ColumnIndex("host")] = "shop.test"
	kept := ""
	for i, c := range older.Columns {
		switch {
		case c.Name == "host":
		case c.Type == datasets.String && kept == "":
			kept = c.Name
			row[i] = "kept value"
		case c.Nullable:
		case c.Type == datasets.String || c.Type == datasets.JSON:
			row[i] = "x"
		case c.Type == datasets.Bool:
			row[i] = false
		case c.Type == datasets.Int64:
			row[i] = int64(0)
		case c.Type == datasets.Float64:
			row[i] = 0.0
		default:
			row[i] = time.Unix(0, 0).UTC()
		}
	}
	if kept == "" {
		t.Fatal("store_answers has no string column to check")
	}
	c, err := datasets.FromRows(&older, []datasets.Row{row})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "store_answers.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := datasets.WriteParquet(f, c); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := loadRows(context.Background(), dir)
	if err != nil {
		t.Fatalf("a snapshot without %s did not load: %v", last.Name, err)
	}
	defer rows.free()
	r, ok, err := rows.lookup("shop.test")
	if err != nil || !ok {
		t.Fatalf("lookup shop.test: %v %v", ok, err)
	}
	if !r.IsNull(field(last.Name)) {
		t.Errorf("%s, absent from the file, is not null", last.Name)
	}
	if got := r.Str(field(kept)); got == nil || *got != "kept value" {
		t.Errorf("%s = %v, want the file's value", kept, got)
	}
}
