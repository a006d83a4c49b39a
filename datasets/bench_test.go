//go:build unix

package datasets

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	svcsql "svc/sql"
)

// BenchmarkParquetVsDuckDB writes 1,000,000 synthetic store_answers rows
// (SVC_BENCH_ROWS overrides) with WriteParquet and compares the time with
// DuckDB's own COPY (SELECT ...) TO ... (FORMAT parquet, COMPRESSION zstd)
// of the same rows, loaded into a DuckDB table beforehand. Target: ours at
// most 1.5 times DuckDB's. Reported per iteration:
//
//	from-rows-ms    FromRows: []Row (boxed values) to Columns
//	ours-ms         WriteParquet from rows in arbitrary order (includes the sort)
//	ours-sorted-ms  WriteParquet from rows already in key order (e.g. ORDER BY)
//	duckdb-ms       COPY (SELECT * FROM t)
//	duckdb-sorted-ms COPY (SELECT * FROM t ORDER BY host)
//	ratio           ours-ms / duckdb-ms
//
// Run: go test ./datasets/ -run '^$' -bench ParquetVsDuckDB -benchtime 3x
func BenchmarkParquetVsDuckDB(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("SVC_BENCH_ROWS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("SVC_BENCH_ROWS: %v", err)
		}
		n = v
	}
	ctx := context.Background()
	dir := b.TempDir()
	orig := synthRows(n)

	db := openDuck(b)
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET VARIABLE bench_rows = "+strconv.Itoa(n)); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, svcsql.Text("bench_store_answers.sql")); err != nil {
		b.Fatal(err)
	}

	var cpuOurs, cpuDuck time.Duration
	ours := filepath.Join(dir, "ours.parquet")
	theirs := filepath.Join(dir, "duckdb.parquet")
	writeOurs := func(c *Columns) time.Duration {
		defer cpuTimer(&cpuOurs)()
		start := time.Now()
		f, err := os.Create(ours)
		if err != nil {
			b.Fatal(err)
		}
		bw := bufio.NewWriterSize(f, 1<<20)
		if err := WriteParquet(bw, c); err != nil {
			b.Fatal(err)
		}
		if err := bw.Flush(); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	copyDuck := func(order string) time.Duration {
		if order == "" {
			defer cpuTimer(&cpuDuck)()
		}
		start := time.Now()
		q := "COPY (SELECT * FROM bench_store_answers" + order + ") TO " + quoteLiteral(theirs) + " (FORMAT parquet, COMPRESSION zstd)"
		if _, err := conn.ExecContext(ctx, q); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}

	// Same rows: our file and DuckDB's table hold exactly the same set.
	writeOurs(mustColumns(b, StoreAnswers, orig))
	cpuOurs = 0
	q := "SELECT count(*) FROM (SELECT * FROM read_parquet(" + quoteLiteral(ours) + ") EXCEPT ALL SELECT * FROM bench_store_answers)"
	var diff int64
	if err := conn.QueryRowContext(ctx, q).Scan(&diff); err != nil {
		b.Fatal(err)
	}
	if diff != 0 {
		b.Fatalf("%d of our rows are not in DuckDB's table: the generators disagree", diff)
	}

	var tRows, tOurs, tSorted, tDuck, tDuckSorted time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		c := mustColumns(b, StoreAnswers, orig) // rows in arbitrary order
		tRows += time.Since(start)
		tOurs += writeOurs(c) // sorts first
		tSorted += writeOurs(c)
		tDuck += copyDuck("")
		tDuckSorted += copyDuck(" ORDER BY host")
	}
	b.StopTimer()
	per := func(d time.Duration) float64 { return float64(d.Milliseconds()) / float64(b.N) }
	b.ReportMetric(per(tRows), "from-rows-ms")
	b.ReportMetric(per(tOurs), "ours-ms")
	b.ReportMetric(per(tSorted), "ours-sorted-ms")
	b.ReportMetric(per(tDuck), "duckdb-ms")
	b.ReportMetric(per(tDuckSorted), "duckdb-sorted-ms")
	b.ReportMetric(float64(tOurs)/float64(tDuck), "ratio")
	// CPU time (user+system of the process while each ran) is less
	// sensitive than wall time to other load on a shared machine.
	b.ReportMetric(float64(cpuOurs.Milliseconds())/float64(2*b.N), "ours-cpu-ms")
	b.ReportMetric(float64(cpuDuck.Milliseconds())/float64(b.N), "duckdb-cpu-ms")
	so, _ := os.Stat(ours)
	st, _ := os.Stat(theirs)
	b.Logf("%d rows: []Row -> Columns %.0f ms; WriteParquet %.0f ms (presorted %.0f ms, %d bytes); "+
		"DuckDB COPY %.0f ms (ORDER BY host %.0f ms, %d bytes); ratio %.2f (presorted %.2f, including []Row conversion %.2f)",
		n, per(tRows), per(tOurs), per(tSorted), so.Size(), per(tDuck), per(tDuckSorted), st.Size(),
		float64(tOurs)/float64(tDuck), float64(tSorted)/float64(tDuck), float64(tRows+tOurs)/float64(tDuck))
}

// BenchmarkWriteParquet is WriteParquet alone over rows already in key
// order (SVC_BENCH_ROWS rows, default 1,000,000), for profiling.
func BenchmarkWriteParquet(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("SVC_BENCH_ROWS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	c := mustColumns(b, StoreAnswers, synthRows(n))
	if err := c.Sort(); err != nil {
		b.Fatal(err)
	}
	var cpu time.Duration
	b.ReportAllocs()
	for b.Loop() {
		stop := cpuTimer(&cpu)
		if err := WriteParquet(io.Discard, c); err != nil {
			b.Fatal(err)
		}
		stop()
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms")
}

// BenchmarkSort is Columns.Sort of SVC_BENCH_ROWS (default 1,000,000)
// store_answers rows in arbitrary order.
func BenchmarkSort(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("SVC_BENCH_ROWS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	rows := synthRows(n)
	for b.Loop() {
		b.StopTimer()
		c := mustColumns(b, StoreAnswers, rows)
		b.StartTimer()
		if err := c.Sort(); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuTimer adds the process's user+system CPU time until the returned
// function is called to *d.
func cpuTimer(d *time.Duration) func() {
	start := cpuTime()
	return func() { *d += cpuTime() - start }
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkWriteCSV is WriteCSV alone over SVC_BENCH_ROWS (default
// 1,000,000) sorted store_answers rows.
func BenchmarkWriteCSV(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("SVC_BENCH_ROWS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	c := mustColumns(b, StoreAnswers, synthRows(n))
	if err := c.Sort(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteCSV(io.Discard, c); err != nil {
			b.Fatal(err)
		}
	}
}
