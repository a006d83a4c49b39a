package datasets

// Writing Columns as Parquet: row groups encoded column by column at the
// same time, with the fixed layout that makes the bytes a function of the
// rows.

import (
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/parquet-go/parquet-go"
)

// WriteParquet writes the rows of c as one Parquet file to w: zstd pages,
// row groups of RowGroupRows, rows in key order (Sort runs first), no
// wall-clock metadata. Row groups are encoded on all CPUs and written in
// order, so the bytes depend only on the rows.
func WriteParquet(w io.Writer, c *Columns) error {
	if err := c.Sort(); err != nil {
		return fmt.Errorf("write parquet %s: %w", c.table.Name, err)
	}
	if err := writeParquet(w, c); err != nil {
		return fmt.Errorf("write parquet %s: %w", c.table.Name, err)
	}
	return nil
}

func writeParquet(w io.Writer, c *Columns) error {
	pw := newParquetWriter(w, c.table)
	if err := writeParquetGroups(pw, c); err != nil {
		return err
	}
	return pw.Close()
}

func newParquetWriter(w io.Writer, t *Table) *parquet.GenericWriter[any] {
	opts := []parquet.WriterOption{
		t.ParquetSchema(),
		parquet.Compression(zstdCodec),
		parquet.MaxRowsPerRowGroup(RowGroupRows),
		// Min/max stay in the column chunks and the page index, where
		// readers prune with them; repeating them in every page header
		// costs a second scan of each page.
		parquet.DataPageStatistics(false),
	}
	kv := writerMetadata(t)
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		opts = append(opts, parquet.KeyValueMetadata(k, kv[k]))
	}
	return parquet.NewGenericWriter[any](w, opts...)
}

// writerMetadata is the key-value metadata newParquetWriter writes for t
// (the writer sorts it by key in the footer).
func writerMetadata(t *Table) map[string]string {
	return map[string]string{"svc.table": t.Name, "license": License, "attribution": Attribution}
}

// writeParquetGroups writes the rows of c as row groups of RowGroupRows
// rows (the last may be shorter), encoded on all CPUs, committed in order.
func writeParquetGroups(pw *parquet.GenericWriter[any], c *Columns) error {
	groups := (c.n + RowGroupRows - 1) / RowGroupRows
	workers := min(runtime.GOMAXPROCS(0), groups)

	// Workers encode row groups g ≡ k (mod workers) into their own
	// ConcurrentRowGroupWriter; commits happen strictly in group order.
	var (
		mu     sync.Mutex
		turn   = sync.NewCond(&mu)
		next   int // the group whose commit is due
		failed error
	)
	rgs := make([]*parquet.ConcurrentRowGroupWriter, workers)
	for k := range rgs {
		rgs[k] = pw.BeginRowGroup()
	}
	var wg sync.WaitGroup
	for k := range workers {
		wg.Go(func() {
			enc := newGroupEncoder(c, rgs[k])
			for g := k; g < groups; g += workers {
				err := enc.encode(g*RowGroupRows, min((g+1)*RowGroupRows, c.n))
				mu.Lock()
				for next != g && failed == nil {
					turn.Wait()
				}
				if failed == nil && err == nil {
					_, err = rgs[k].Commit()
				}
				if err != nil && failed == nil {
					failed = fmt.Errorf("row group %d: %w", g, err)
				}
				next++
				turn.Broadcast()
				stop := failed != nil
				mu.Unlock()
				if stop {
					return
				}
			}
		})
	}
	wg.Wait()
	return failed
}

// groupEncoder turns column slices into parquet values and writes them
// into one row group writer, flushing its pages before the commit so the
// serial part stays small.
type groupEncoder struct {
	c    *Columns
	rg   *parquet.ConcurrentRowGroupWriter
	cols []*parquet.ColumnWriter
	vals []parquet.Value
}

func newGroupEncoder(c *Columns, rg *parquet.ConcurrentRowGroupWriter) *groupEncoder {
	return &groupEncoder{c: c, rg: rg, cols: rg.ColumnWriters(), vals: make([]parquet.Value, rowsPerWrite)}
}

// encode writes rows [lo, hi) column by column.
func (e *groupEncoder) encode(lo, hi int) error {
	for j, w := range e.cols {
		col := &e.c.table.Columns[j]
		v := &e.c.vecs[j]
		for start := lo; start < hi; start += rowsPerWrite {
			end := min(start+rowsPerWrite, hi)
			vals := e.vals[:end-start]
			fillValues(vals, col, j, v, start)
			if _, err := w.WriteRowValues(vals); err != nil {
				return fmt.Errorf("column %s: %w", col.Name, err)
			}
		}
	}
	clear(e.vals) // drop references into row strings
	return e.rg.Flush()
}

// fillValues converts rows [start, start+len(vals)) of one column. Byte
// arrays alias the strings' memory; column buffers copy them. One tight
// loop per type, then one for levels: this is the hot path of a snapshot.
func fillValues(vals []parquet.Value, col *Column, j int, v *vector, start int) {
	end := start + len(vals)
	switch v.store {
	case inStr:
		for i, s := range v.str[start:end] {
			vals[i] = parquet.ByteArrayValue(unsafe.Slice(unsafe.StringData(s), len(s)))
		}
	case inBln:
		for i, b := range v.bln[start:end] {
			vals[i] = parquet.BooleanValue(b)
		}
	case inFlt:
		for i, f := range v.flt[start:end] {
			vals[i] = parquet.DoubleValue(f)
		}
	case inNum:
		if col.Type == Date {
			for i, d := range v.num[start:end] {
				vals[i] = parquet.Int32Value(int32(d))
			}
		} else {
			for i, n := range v.num[start:end] {
				vals[i] = parquet.Int64Value(n)
			}
		}
	}
	if v.valid == nil {
		for i := range vals {
			vals[i].SetColumnIndex(j)
		}
		return
	}
	for i, ok := range v.valid[start:end] {
		if ok {
			vals[i].SetDefinitionLevel(1)
		} else {
			vals[i] = parquet.Value{} // null, definition level 0
		}
		vals[i].SetColumnIndex(j)
	}
}
