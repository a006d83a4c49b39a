package readlayer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"

	"svc/datasets"
)

// writeFacts writes an agent_facts.parquet of n hosts with five facts each
// into dir: nulls in every optional column, empty strings, multibyte text
// and a NUL byte, and now and then an evidence longer than a whole block.
func writeFacts(t *testing.T, dir string, n int) {
	t.Helper()
	c, err := datasets.NewColumns(datasets.AgentFacts, 5*n)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 16, 9, 0, 0, 0, time.UTC)
	for i := range n {
		host := fmt.Sprintf("shop%05d.test", i)
		for k, fact := range []string{"agent_friendly_description", "cart_blocker_suspicion", "price_clarity", "readiness_score", "use_case_mention"} {
			row := make(datasets.Row, len(datasets.AgentFacts.Columns))
			row[0], row[1] = host, fact
			j := i*5 + k
			if j%3 != 0 {
				row[2] = fmt.Sprintf(`{"n":%d,"text":"prix €%d — ok"}`, j, j)
			}
			if j%4 != 0 {
				row[3] = float64(j%10) / 10
			}
			if j%5 != 0 {
				row[4] = strings.Repeat("e", j%64)
			}
			switch {
			case j%97 == 0:
				row[5] = `"` + strings.Repeat("long evidence ", 1500) + `"` // bigger than a block
			case j%7 != 0:
				row[5] = fmt.Sprintf(`{"host":"%s","nul":"a\u0000b","i":%d}`, host, j)
			}
			if j%6 != 0 {
				row[6] = "https://" + host + "/p/" + fmt.Sprint(j)
			}
			if j%8 != 0 {
				row[7] = at.Add(time.Duration(j) * time.Microsecond)
			}
			switch {
			case j%11 == 0:
				row[8] = "" // empty, not null
			case j%9 != 0:
				row[8] = "note " + fmt.Sprint(j)
			}
			if err := c.AppendRow(row); err != nil {
				t.Fatal(err)
			}
		}
	}
	f, err := os.Create(filepath.Join(dir, "agent_facts.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := datasets.WriteParquet(f, c); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// collect reads rows start..start+n-1 of p as comparable values.
func collect(p *parquetRows, start int64, n int) ([][]any, error) {
	var out [][]any
	err := p.read(start, n, func(row parquet.Row) error {
		var vals []any
		for _, col := range factColumns {
			switch col {
			case "confidence":
				vals = append(vals, p.float(row, col))
			case "checked_at":
				vals = append(vals, p.when(row, col))
			default:
				vals = append(vals, p.str(row, col))
			}
		}
		out = append(out, vals)
		return nil
	})
	return out, err
}

// TestRowCacheMatchesPages reads every stretch of one to seven rows of a
// table through its row cache and through its Parquet pages: the values
// are the same, nulls and empty strings included; so are the errors out
// of range. Then the Parquet file is closed and the cache still answers:
// the reads come from it.
func TestRowCacheMatchesPages(t *testing.T) {
	dir := t.TempDir()
	const hosts = 1500
	writeFacts(t, dir, hosts)
	pages, err := openParquetRows(dir, datasets.AgentFacts, factColumns)
	if err != nil {
		t.Fatal(err)
	}
	defer pages.close()
	cached, err := openParquetRows(dir, datasets.AgentFacts, factColumns)
	if err != nil {
		t.Fatal(err)
	}
	defer cached.close()
	if cached.cache, err = buildRowCache(context.Background(), cached, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if blocks := len(cached.cache.first); blocks < 20 {
		t.Fatalf("%d blocks: the test must cross blocks", blocks)
	}
	rows := int64(5 * hosts)
	for start := int64(0); start < rows; start++ {
		n := 1 + int(start%7)
		want, werr := collect(pages, start, n)
		got, gerr := collect(cached, start, n)
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("rows %d+%d: error %v, from the pages %v", start, n, gerr, werr)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("rows %d+%d (-pages +cache):\n%s", start, n, d)
		}
	}
	for _, r := range [][2]int64{{-1, 1}, {rows - 1, 2}, {rows, 1}, {0, 0}} {
		if _, err := collect(cached, r[0], int(r[1])); err == nil {
			t.Errorf("rows %d+%d: no error", r[0], r[1])
		}
	}
	// With the Parquet file closed, only the cache can answer.
	cached.file.Close()
	want, _ := collect(pages, rows-5, 5)
	got, err := collect(cached, rows-5, 5)
	if err != nil || cmp.Diff(want, got) != "" {
		t.Fatalf("read with the Parquet file closed: %v\n%s", err, cmp.Diff(want, got))
	}
}

// TestRowCacheEmptyTable: a table without rows gets a cache without
// blocks, and a read of it is an error, as from the pages.
func TestRowCacheEmptyTable(t *testing.T) {
	dir := t.TempDir()
	writeFacts(t, dir, 0)
	p, err := openParquetRows(dir, datasets.AgentFacts, factColumns)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	if p.cache, err = buildRowCache(context.Background(), p, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if len(p.cache.first) != 0 || p.cache.diskBytes() != 0 {
		t.Errorf("%d blocks, %d bytes", len(p.cache.first), p.cache.diskBytes())
	}
	if _, err := collect(p, 0, 1); err == nil {
		t.Error("read of an empty table: no error")
	}
}

// TestRowCacheNoScratchRoom: a cache that cannot be written fails with
// an error naming the table, leaving the pages to answer.
func TestRowCacheNoScratchRoom(t *testing.T) {
	dir := t.TempDir()
	writeFacts(t, dir, 10)
	p, err := openParquetRows(dir, datasets.AgentFacts, factColumns)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	if _, err := buildRowCache(context.Background(), p, filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "agent_facts") {
		t.Fatalf("err %v", err)
	}
	if p.cache != nil {
		t.Fatal("a cache was set")
	}
}
