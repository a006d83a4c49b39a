package pipeline

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"svc/datasets"
)

// BenchmarkAggregate aggregates SVC_BENCH_ROWS (default 100,000; the issue's
// target is 1,000,000) synthetic stores, copies of the fixture world's
// checked stores under new host names, with no history, against one DuckDB
// GROUP BY scan of the same checks.parquet.
//
// Run: go test ./pipeline/ -run '^$' -bench Aggregate -benchtime 1x
func BenchmarkAggregate(b *testing.B) {
	n := 100_000
	if s := os.Getenv("SVC_BENCH_ROWS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("SVC_BENCH_ROWS: %v", err)
		}
		n = v
	}
	w := sharedWorld(b)
	dir := w.newRun(b, b.TempDir(), "bench", testDate)
	for _, f := range []struct {
		name string
		tb   *datasets.Table
	}{{ChecksFile, datasets.Checks}, {UCPFile, datasets.UCPValidations}} {
		src, err := ReadTableFile(filepath.Join(dir, f.name), f.tb)
		if err != nil {
			b.Fatal(err)
		}
		base := src.Rows()
		rows := make([]datasets.Row, 0, n)
		for i := range n {
			r := append(datasets.Row(nil), base[i%len(base)]...)
			r[0] = fmt.Sprintf("s%07d-%s", i, r[0])
			rows = append(rows, r)
		}
		c, err := datasets.FromRows(f.tb, rows)
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if err := datasets.WriteParquet(&buf, c); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	b.Run("aggregate", func(b *testing.B) {
		for b.Loop() {
			if _, err := Aggregate(ctx, AggregateOptions{Dir: dir, NoHistory: true}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n), "stores")
	})
	b.Run("duckdb-groupby", func(b *testing.B) {
		db, err := sql.Open("duckdb", duckDSN)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		q := "SELECT platform, count(*), count(*) FILTER (WHERE cart_link) FROM read_parquet(" +
			sqlLiteral(filepath.Join(dir, ChecksFile)) + ") GROUP BY platform"
		for b.Loop() {
			rows, err := db.Query(q)
			if err != nil {
				b.Fatal(err)
			}
			for rows.Next() {
			}
			rows.Close()
		}
	})
}
