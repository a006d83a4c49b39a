package duck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"svc/datasets"
)

// TestOffline: extensions are neither installed nor loaded on demand, so
// a query naming a remote file fails at once instead of fetching an
// extension or the file.
func TestOffline(t *testing.T) {
	db, err := Open("", map[string]string{"threads": "1"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, name := range []string{"autoinstall_known_extensions", "autoload_known_extensions"} {
		var v string
		if err := db.QueryRow("SELECT current_setting('" + name + "')::VARCHAR").Scan(&v); err != nil || v != "false" {
			t.Errorf("%s = %q (%v), want false", name, v, err)
		}
	}
	var threads string
	if err := db.QueryRow("SELECT current_setting('threads')::VARCHAR").Scan(&threads); err != nil || threads != "1" {
		t.Errorf("threads = %q (%v), want the setting passed", threads, err)
	}
	_, err = db.Exec("SELECT * FROM read_parquet('https://svc.invalid/x.parquet')")
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "httpfs") {
		t.Errorf("remote read: %v, want a refusal naming the httpfs extension", err)
	}
}

func TestOpenDatasets(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenDatasets(context.Background(), dir, nil); err == nil || !strings.Contains(err.Error(), "svc run") {
		t.Errorf("no manifest: %v", err)
	}
	c, err := datasets.FromRows(datasets.Stores, []datasets.Row{{"shop.test", "Shop", "home", "seed", nil, nil, nil}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "stores.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := datasets.WriteParquet(f, c); err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{}`), 0o644)
	if got := PublishedTables(dir); len(got) != 1 || got[0] != datasets.Stores {
		t.Errorf("PublishedTables = %v", got)
	}
	db, err := OpenDatasets(context.Background(), dir, map[string]string{"memory_limit": "64MB"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var host, comment string
	if err := db.QueryRow("SELECT host FROM stores").Scan(&host); err != nil || host != "shop.test" {
		t.Errorf("stores view: %q %v", host, err)
	}
	if err := db.QueryRow("SELECT comment FROM duckdb_views() WHERE view_name = 'stores'").Scan(&comment); err != nil || comment != datasets.Stores.Description {
		t.Errorf("view comment %q %v", comment, err)
	}
}

// TestOpenDatasetsOlderSnapshot: a snapshot published before a column was
// added (published snapshots never change) still opens; the column it
// lacks reads as NULL, typed as the definition says.
func TestOpenDatasetsOlderSnapshot(t *testing.T) {
	dir := t.TempDir()
	older := *datasets.Stores
	last := older.Columns[len(older.Columns)-1]
	older.Columns = older.Columns[:len(older.Columns)-1]
	c, err := datasets.FromRows(&older, []datasets.Row{{"shop.test", "Shop", "home", "seed", nil, nil}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "stores.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := datasets.WriteParquet(f, c); err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{}`), 0o644)
	db, err := OpenDatasets(context.Background(), dir, nil)
	if err != nil {
		t.Fatalf("an older snapshot did not open: %v", err)
	}
	defer db.Close()
	var host string
	var v any
	if err := db.QueryRow(`SELECT host, "`+last.Name+`" FROM stores`).Scan(&host, &v); err != nil || host != "shop.test" || v != nil {
		t.Errorf("stores view over an older file: host %q, %s = %v (%v); want shop.test and NULL", host, last.Name, v, err)
	}
}
