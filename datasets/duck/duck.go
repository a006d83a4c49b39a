// Package duck opens in-process DuckDB databases the one way svc allows:
// offline. Extensions are never installed or loaded automatically, so a
// query can never make DuckDB reach for the network (DESIGN section 4);
// Parquet and JSON support are built into the driver. svc sql, the
// aggregate stage and the serve read layer all open DuckDB through here.
package duck

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"

	_ "github.com/duckdb/duckdb-go/v2" // the DuckDB driver, in process

	"svc/datasets"
)

// DSN opens an in-memory DuckDB that never reaches for the network:
// extensions are neither installed nor loaded automatically.
const DSN = "?autoinstall_known_extensions=false&autoload_known_extensions=false"

// Open opens the DuckDB database at path ("" for a new in-memory one) with
// the offline settings of DSN plus settings (DuckDB configuration options
// such as memory_limit, threads or access_mode).
func Open(path string, settings map[string]string) (*sql.DB, error) {
	q := url.Values{}
	q.Set("autoinstall_known_extensions", "false")
	q.Set("autoload_known_extensions", "false")
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		q.Set(k, settings[k])
	}
	db, err := sql.Open("duckdb", path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open duckdb %q: %w", path, err)
	}
	return db, nil
}

// PublishedTables returns the tables of datasets.All whose Parquet file is
// in the version folder dir, in publishing order.
func PublishedTables(dir string) []*datasets.Table {
	var tables []*datasets.Table
	for _, t := range datasets.All() {
		if _, err := os.Stat(filepath.Join(dir, t.Name+".parquet")); err == nil {
			tables = append(tables, t)
		}
	}
	return tables
}

// OpenDatasets opens an in-memory DuckDB, with settings as in Open, and
// the analyst views (datasets.ViewsSQL) over one published version folder:
// every table whose Parquet file is there.
func OpenDatasets(ctx context.Context, dir string, settings map[string]string) (*sql.DB, error) {
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		return nil, fmt.Errorf("no published dataset in %s: run `svc run` (or `svc demo`) first", dir)
	}
	db, err := Open("", settings)
	if err != nil {
		return nil, err
	}
	views, err := datasets.ViewsSQL(dir, PublishedTables(dir))
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open datasets %s: %w", dir, err)
	}
	if _, err := db.ExecContext(ctx, views); err != nil {
		db.Close()
		return nil, fmt.Errorf("create views over %s: %w", dir, err)
	}
	return db, nil
}
