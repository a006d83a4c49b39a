package publish

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"svc/datasets"
)

// BenchmarkPublish publishes one snapshot of SVC_BENCH_ROWS (default
// 1,000,000) store_answers rows in arbitrary order into a fresh store:
// sort, Parquet and CSV, fsync, read-back check, manifest, latest/.
//
// Run: go test ./publish/ -run '^$' -bench Publish -benchtime 3x
func BenchmarkPublish(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("SVC_BENCH_ROWS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("SVC_BENCH_ROWS: %v", err)
		}
		n = v
	}
	rows := storeRows(n, "bench")
	for i := range rows {
		rows[i][0] = "shop-" + strconv.Itoa(i*7919%1_000_003) + ".test" // unique for n <= 1,000,003
	}
	ctx := context.Background()
	var bytes int64
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		st, err := NewDirStore(filepath.Join(b.TempDir(), "public"))
		if err != nil {
			b.Fatal(err)
		}
		c, err := datasets.FromRows(datasets.StoreAnswers, rows)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := Publish(ctx, st, &Snapshot{Version: "2026-05-04", MethodVersion: "bench", Tables: []*datasets.Columns{c}})
		if err != nil {
			b.Fatal(err)
		}
		bytes = res.Manifest.Tables[0].CSV.Bytes + res.Manifest.Tables[0].Parquet.Bytes
	}
	b.ReportMetric(float64(bytes)/1e6, "MB-written")
}
