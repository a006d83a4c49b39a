//go:build unix

package pipeline

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"svc/datasets"
	svcsql "svc/sql"
)

// BenchmarkAggregate is the performance check of issue 5: over
// SVC_BENCH_ROWS synthetic stores (default 1,000,000; writeSynthRun, no
// crawl) it times
//
//   - svc aggregate (Aggregate, first run: no history) against one DuckDB
//     GROUP BY scan of the same checks.parquet: GROUP BY host, reading
//     every column (aggregate's tables hold a row or more per store, made
//     from every column of the checks). Target: at most 3 times. Printed
//     beside it, labelled as context: the same scan grouped by platform,
//     the narrow scan that was the baseline until 2026-11-21 (GROUP BY
//     platform over one boolean column: 2 of the 68 columns, which no
//     aggregate that writes every store's tables can approach), and the
//     figure SQL alone (signals and figure counts, no table written);
//   - svc snapshot (Snapshot: every table's Parquet and CSV, manifest,
//     read-back checks) against DuckDB's own COPY (SELECT * ... ORDER BY
//     key) TO ... (FORMAT parquet, COMPRESSION zstd) of the same rows of
//     every table, loaded into DuckDB tables beforehand. Target: at most
//     1.5 times. COPY from the Parquet files, and COPY to Parquet and CSV,
//     are printed beside it as context;
//
// and for each the process's CPU time (user+system, DuckDB's threads
// included: steadier than wall time on a shared machine), the peak Go
// HeapInuse (sampled every 20 ms) and the peak resident set (VmHWM from
// /proc/self/status, reset before each phase where the kernel allows).
// SVC_BENCH_HISTORY=1 also times a second week's aggregate that reads the
// first as history (the changes table and the week-over-week figures).
//
// Run: SVC_BENCH_ROWS=100000 go test ./pipeline/ -run '^$' -bench '^BenchmarkAggregate$' -benchtime 1x
func BenchmarkAggregate(b *testing.B) {
	n := synthStores(b, 1_000_000)
	ctx := context.Background()
	// SVC_BENCH_DATA keeps the generated run between benchmark runs (one
	// folder per store count); the default is a fresh temporary folder.
	data := b.TempDir()
	if d := os.Getenv("SVC_BENCH_DATA"); d != "" {
		data = filepath.Join(d, strconv.Itoa(n))
	}
	dir := RunDir(data, "w1")
	if _, err := os.Stat(filepath.Join(dir, UCPFile)); err != nil {
		gen := time.Now()
		dir = writeSynthRun(b, data, "w1", testDate, n, 0)
		fmt.Printf("generated %d synthetic stores in %s\n", n, time.Since(gen).Round(time.Millisecond))
	}
	fmt.Printf("checks.parquet %s, ucp_validations.parquet %s\n", fileMB(filepath.Join(dir, ChecksFile)), fileMB(filepath.Join(dir, UCPFile)))
	runtime.GC()

	for b.Loop() {
		var sum strings.Builder
		line := func(format string, args ...any) { fmt.Fprintf(&sum, format+"\n", args...) }
		line("%d synthetic stores, GOMAXPROCS %d", n, runtime.GOMAXPROCS(0))

		// Aggregate against one GROUP BY scan.
		agg := measure(b, func() {
			if _, err := Aggregate(ctx, AggregateOptions{Dir: dir, NoHistory: true, Log: benchLog()}); err != nil {
				b.Fatal(err)
			}
		})
		scan := func(q string) phase {
			return medianOf(3, func() phase { return measure(b, func() { duckQuery(b, q) }) })
		}
		checks := "read_parquet(" + sqlLiteral(filepath.Join(dir, ChecksFile)) + ")"
		groupBy := scan("SELECT host, count(*), " + maxEvery(datasets.Checks) + " FROM " + checks + " GROUP BY host")
		byPlatform := scan("SELECT platform, count(*), " + maxEvery(datasets.Checks) + " FROM " + checks + " GROUP BY platform")
		narrow := scan("SELECT platform, count(*), count(*) FILTER (WHERE cart_link) FROM " + checks + " GROUP BY platform")
		figs := medianOf(3, func() phase { return measure(b, func() { figureSQL(b, dir) }) })
		line("aggregate           %s", agg)
		line("  DuckDB GROUP BY   %s  (GROUP BY host, max() of every column of checks.parquet; median of 3)", groupBy)
		line("  ratio             %.1fx wall, %.1fx CPU  (target <= 3x)  %s", agg.ratio(groupBy), agg.cpuRatio(groupBy), verdict(agg.ratio(groupBy), 3))
		line("  context: the same scan GROUP BY platform %s: %.1fx", byPlatform, agg.ratio(byPlatform))
		line("  context: narrow scan, 2 columns (the baseline until 2026-11-21) %s: %.1fx", narrow, agg.ratio(narrow))
		line("  context: figure SQL alone %s  (signals + figure counts, no table written): %.1fx the GROUP BY",
			figs, figs.ratio(groupBy))

		if os.Getenv("SVC_BENCH_HISTORY") == "1" {
			dir2 := RunDir(data, "w2")
			if _, err := os.Stat(dir2); err != nil {
				writeSynthRun(b, data, "w2", "2026-05-11", n, 1)
				runtime.GC()
			}
			hist := measure(b, func() {
				if _, err := Aggregate(ctx, AggregateOptions{Dir: dir2, Previous: dir, Log: benchLog()}); err != nil {
					b.Fatal(err)
				}
			})
			line("aggregate, week 2   %s  (reads week 1 as history): %.1fx the GROUP BY", hist, hist.ratio(groupBy))
		}

		// Snapshot against DuckDB's COPY of the same rows.
		tables := outTables(b, dir)
		rows := 0
		for _, t := range tables {
			rows += t.rows
		}
		pub := filepath.Join(data, "public")
		os.RemoveAll(pub)
		runtime.GC()
		snap := measure(b, func() {
			if _, err := Snapshot(ctx, SnapshotOptions{DataDir: data, RunID: "w1"}); err != nil {
				b.Fatal(err)
			}
		})
		cp := duckCopy(b, dir, tables)
		line("snapshot            %s  (%d tables, %d rows, Parquet %s + CSV %s)", snap, len(tables), rows,
			treeMB(filepath.Join(pub, "data"), ".parquet"), treeMB(filepath.Join(pub, "data"), ".csv"))
		line("  DuckDB COPY       %s  (every table to zstd Parquet, ORDER BY key, from a DuckDB table: %s)", cp.parquet, cp.parquetMB)
		line("  ratio             %.2fx wall, %.2fx CPU  (target <= 1.5x)  %s", snap.ratio(cp.parquet), snap.cpuRatio(cp.parquet), verdict(snap.ratio(cp.parquet), 1.5))
		line("  context: COPY without ORDER BY (rows already in key order) %s: %.2fx", cp.unordered, snap.ratio(cp.unordered))
		if cp.withCSV.wall > 0 {
			line("  context: COPY to Parquet and CSV   %s: %.2fx", cp.withCSV, snap.ratio(cp.withCSV))
			line("  context: COPY from aggregate's files %s: %.2fx", cp.fromFiles, snap.ratio(cp.fromFiles))
		}
		// Printed, not logged: the benchmark log is cut at ten lines.
		fmt.Print(sum.String())

		b.ReportMetric(agg.wall.Seconds()*1e3, "aggregate-ms")
		b.ReportMetric(groupBy.wall.Seconds()*1e3, "groupby-ms")
		b.ReportMetric(agg.ratio(groupBy), "aggregate-ratio")
		b.ReportMetric(snap.wall.Seconds()*1e3, "snapshot-ms")
		b.ReportMetric(cp.parquet.wall.Seconds()*1e3, "copy-ms")
		b.ReportMetric(snap.ratio(cp.parquet), "snapshot-ratio")
		b.ReportMetric(float64(max(agg.heap, snap.heap))/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(max(agg.hwm, snap.hwm))/(1<<20), "peak-rss-MB")
	}
}

// benchLog logs aggregate's steps to stderr with SVC_BENCH_TRACE=1.
func benchLog() *slog.Logger {
	if os.Getenv("SVC_BENCH_TRACE") != "1" {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// phase is one timed measurement.
type phase struct {
	wall, cpu time.Duration
	heap      uint64 // peak HeapInuse
	hwm       uint64 // VmHWM at the end (peak RSS since the reset)
	hwmReset  bool   // VmHWM was reset before the phase
}

func (p phase) String() string {
	hwm := fmt.Sprintf("peak RSS %s", mb(p.hwm))
	if !p.hwmReset {
		hwm += " (process peak: VmHWM not resettable here)"
	}
	return fmt.Sprintf("%8.3f s wall %8.3f s CPU  peak heap %s  %s", p.wall.Seconds(), p.cpu.Seconds(), mb(p.heap), hwm)
}

func (p phase) ratio(base phase) float64    { return p.wall.Seconds() / base.wall.Seconds() }
func (p phase) cpuRatio(base phase) float64 { return p.cpu.Seconds() / base.cpu.Seconds() }

func verdict(ratio, target float64) string {
	if ratio <= target {
		return "MET"
	}
	return "NOT MET"
}

func mb(n uint64) string { return fmt.Sprintf("%6.0f MB", float64(n)/(1<<20)) }

// measure runs f once and returns its wall and CPU time and peak memory.
func measure(tb testing.TB, f func()) phase {
	tb.Helper()
	var p phase
	// Start from a collected heap returned to the kernel, so that each
	// phase's peaks are its own (and DuckDB's baselines do not run beside
	// gigabytes the Go heap no longer uses).
	debug.FreeOSMemory()
	p.hwmReset = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var peak uint64
	wg.Go(func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
	cpu0, start := cpuTime(), time.Now()
	f()
	p.wall, p.cpu = time.Since(start), cpuTime()-cpu0
	close(stop)
	wg.Wait()
	p.heap, p.hwm = peak, vmHWM()
	return p
}

// medianOf measures k times and returns the run of median wall time.
func medianOf(k int, f func() phase) phase {
	ps := make([]phase, k)
	for i := range ps {
		ps[i] = f()
	}
	slices.SortFunc(ps, func(a, b phase) int { return int(a.wall - b.wall) })
	return ps[k/2]
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// vmHWM is the process's peak resident set size, 0 when unknown.
func vmHWM() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for l := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func fileMB(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(mb(uint64(fi.Size())))
}

// treeMB sums the sizes of the files under root whose names end in ext.
func treeMB(root, ext string) string {
	var n uint64
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && strings.HasSuffix(p, ext) {
			n += uint64(fi.Size())
		}
		return nil
	})
	return strings.TrimSpace(mb(n))
}

func openBenchDuck(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("duckdb", duckDSN)
	if err != nil {
		tb.Fatal(err)
	}
	return db
}

// maxEvery is the select list max("c1"), max("c2"), ... over every column
// of t: a scan that reads them all.
func maxEvery(t *datasets.Table) string {
	parts := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		parts[i] = "max(" + sqlIdent(c.Name) + ")"
	}
	return strings.Join(parts, ", ")
}

// duckQuery runs one query in a fresh in-process DuckDB and reads every
// row of its result: a baseline of aggregate.
func duckQuery(tb testing.TB, q string) {
	db := openBenchDuck(tb)
	defer db.Close()
	rows, err := db.Query(q)
	if err != nil {
		tb.Fatal(err)
	}
	for rows.Next() {
	}
	if err := rows.Close(); err != nil {
		tb.Fatal(err)
	}
}

// figureSQL runs only the SQL behind the precomputed figures over the run:
// the aggregate setup, the signals table and the figure counts.
func figureSQL(tb testing.TB, dir string) {
	db := openBenchDuck(tb)
	defer db.Close()
	ctx := context.Background()
	stmts := []string{"SET TimeZone = 'UTC'"}
	for _, v := range []struct {
		t    *datasets.Table
		file string
	}{{datasets.Checks, ChecksFile}, {datasets.UCPValidations, UCPFile}} {
		s, err := v.t.ViewSQL(filepath.Join(dir, v.file))
		if err != nil {
			tb.Fatal(err)
		}
		stmts = append(stmts, s)
	}
	stmts = append(stmts,
		"CREATE TEMP TABLE browser_lane (host VARCHAR PRIMARY KEY, reached BOOLEAN)",
		"SET VARIABLE base_url = ''",
		svcsql.Text("aggregate_signals.sql"))
	conn, err := db.Conn(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			tb.Fatal(err)
		}
	}
	for _, q := range []string{svcsql.Text("aggregate_figures.sql"), svcsql.Text("aggregate_index_checked.sql")} {
		rows, err := conn.QueryContext(ctx, q)
		if err != nil {
			tb.Fatal(err)
		}
		for rows.Next() {
		}
		if err := rows.Close(); err != nil {
			tb.Fatal(err)
		}
	}
}

type outTable struct {
	t    *datasets.Table
	path string
	rows int
}

// outTables lists the tables aggregate wrote, with their row counts.
func outTables(tb testing.TB, dir string) []outTable {
	tb.Helper()
	var out []outTable
	for _, t := range StoreTables {
		path := filepath.Join(dir, OutTables, t.Name+".parquet")
		b, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		n, err := datasets.ParquetNumRows(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, outTable{t, path, int(n)})
	}
	return out
}

type copyTimes struct {
	parquet, unordered, fromFiles, withCSV phase
	parquetMB                              string
}

// add sums two phases: times add up, peaks are the larger.
func (p phase) add(q phase) phase {
	return phase{wall: p.wall + q.wall, cpu: p.cpu + q.cpu, heap: max(p.heap, q.heap), hwm: max(p.hwm, q.hwm),
		hwmReset: p.hwmReset || q.hwmReset}
}

// duckCopy times DuckDB writing the same rows as the snapshot, table by
// table (each loaded into a DuckDB table beforehand, untimed, and dropped
// after, so DuckDB holds one table at a time): COPY (SELECT * FROM t ORDER
// BY key) TO zstd Parquet, the baseline; and as context the same COPY
// without ORDER BY (the table already holds the rows in key order) and,
// with SVC_BENCH_CONTEXT=1, COPY straight from aggregate's Parquet files and
// COPY to both Parquet and CSV (the snapshot writes both).
func duckCopy(tb testing.TB, dir string, tables []outTable) copyTimes {
	tb.Helper()
	out := tb.TempDir()
	more := os.Getenv("SVC_BENCH_CONTEXT") == "1"
	var ct copyTimes
	for _, t := range tables {
		db := openBenchDuck(tb)
		conn, err := db.Conn(context.Background())
		if err != nil {
			tb.Fatal(err)
		}
		exec := func(q string) {
			if _, err := conn.ExecContext(context.Background(), q); err != nil {
				tb.Fatal(err)
			}
		}
		exec("SET TimeZone = 'UTC'")
		exec("CREATE TABLE " + sqlIdent(t.t.Name) + " AS SELECT * FROM read_parquet(" + sqlLiteral(t.path) + ")")
		keys := make([]string, len(t.t.Key))
		for i, k := range t.t.Key {
			keys[i] = sqlIdent(k)
		}
		orderBy := " ORDER BY " + strings.Join(keys, ", ")
		pq := sqlLiteral(filepath.Join(out, t.t.Name+".parquet"))
		copyTo := func(from, order string, csv bool) func() {
			return func() {
				sel := "SELECT * FROM " + from + order
				exec("COPY (" + sel + ") TO " + pq + " (FORMAT parquet, COMPRESSION zstd)")
				if csv {
					exec("COPY (" + sel + ") TO " + sqlLiteral(filepath.Join(out, t.t.Name+".csv")) + " (FORMAT csv, HEADER)")
				}
			}
		}
		name := sqlIdent(t.t.Name)
		runtime.GC()
		ct.parquet = ct.parquet.add(measure(tb, copyTo(name, orderBy, false)))
		ct.unordered = ct.unordered.add(measure(tb, copyTo(name, "", false)))
		if more {
			ct.withCSV = ct.withCSV.add(measure(tb, copyTo(name, orderBy, true)))
		}
		exec("DROP TABLE " + name)
		if more {
			ct.fromFiles = ct.fromFiles.add(measure(tb, copyTo("read_parquet("+sqlLiteral(t.path)+")", orderBy, false)))
		}
		conn.Close()
		db.Close()
	}
	ct.parquetMB = treeMB(out, ".parquet")
	return ct
}
