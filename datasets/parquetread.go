package datasets

// Reading Parquet into Columns: whole or a row group at a time, plain
// pages decoded straight into the typed slices.

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

// ReadParquet reads a Parquet file written for t (same column names, order,
// types and nullability), keeping the file's row order.
func ReadParquet(r io.ReaderAt, size int64, t *Table) (*Columns, error) {
	c, err := readParquet(r, size, t)
	if err != nil {
		return nil, fmt.Errorf("read parquet %s: %w", t.Name, err)
	}
	return c, nil
}

func readParquet(r io.ReaderAt, size int64, t *Table) (*Columns, error) {
	f, err := openParquet(r, size, t)
	if err != nil {
		return nil, err
	}
	c, err := NewColumns(t, int(f.NumRows()))
	if err != nil {
		return nil, err
	}
	c.copiers = make([]stringCopier, len(c.vecs))
	for g, rg := range f.RowGroups() {
		if err := c.readRowGroup(rg); err != nil {
			return nil, fmt.Errorf("row group %d: %w", g, err)
		}
	}
	if int64(c.n) != f.NumRows() {
		return nil, fmt.Errorf("read %d rows, footer says %d", c.n, f.NumRows())
	}
	c.sorted = false // file order, not checked
	return c, nil
}

// ReadParquetGroups reads a Parquet file written for t (see ReadParquet)
// one row group at a time, in file order, and calls fn with the rows of
// each: a new Columns each time, in file order. Only the group being read
// and those fn keeps are in memory, so a large file is read in the memory
// of one group.
func ReadParquetGroups(r io.ReaderAt, size int64, t *Table, fn func(*Columns) error) error {
	f, err := openParquet(r, size, t)
	if err != nil {
		return fmt.Errorf("read parquet %s: %w", t.Name, err)
	}
	for g, rg := range f.RowGroups() {
		c, err := NewColumns(t, int(rg.NumRows()))
		if err != nil {
			return err
		}
		c.copiers = make([]stringCopier, len(c.vecs))
		if err := c.readRowGroup(rg); err != nil {
			return fmt.Errorf("read parquet %s: row group %d: %w", t.Name, g, err)
		}
		c.sorted = c.n <= 1
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

func openParquet(r io.ReaderAt, size int64, t *Table) (*parquet.File, error) {
	f, err := parquet.OpenFile(r, size)
	if err != nil {
		return nil, err
	}
	if err := checkParquetSchema(t, f.Schema()); err != nil {
		return nil, err
	}
	return f, nil
}

// readRowGroup appends the rows of one row group to c, column by column
// on all CPUs: each column chunk is decoded into its own vector, page by
// page.
func (c *Columns) readRowGroup(rg parquet.RowGroup) error {
	base, n := c.n, int(rg.NumRows())
	c.grow(n)
	chunks := rg.ColumnChunks()
	errs := make([]error, len(chunks))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(chunks)) {
		wg.Go(func() {
			var buf []parquet.Value
			for j := range jobs {
				errs[j] = c.readColumnChunk(j, chunks[j], base, n, &buf)
			}
		})
	}
	for j := range chunks {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	return errors.Join(errs...)
}

// readColumnChunk decodes column j of one row group into rows [base,
// base+n). Plain pages (what WriteParquet writes) are copied from their
// decoded buffers; other pages (dictionary-encoded, say) go value by value.
func (c *Columns) readColumnChunk(j int, cc parquet.ColumnChunk, base, n int, buf *[]parquet.Value) error {
	col := &c.table.Columns[j]
	pages := cc.Pages()
	defer pages.Close()
	i, end := base, base+n
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("column %s: %w", col.Name, err)
		}
		rows := int(p.NumRows())
		if rows > end-i {
			parquet.Release(p)
			return fmt.Errorf("column %s: pages hold more than the row group's %d rows", col.Name, n)
		}
		if !c.readPlainPage(j, p, i, rows) {
			err = c.readPageValues(j, p, i, rows, buf)
		}
		parquet.Release(p)
		if err != nil {
			return fmt.Errorf("column %s: %w", col.Name, err)
		}
		i += rows
	}
	if i != end {
		return fmt.Errorf("column %s: %d rows, want %d", col.Name, i-base, n)
	}
	return nil
}

// readPlainPage copies a page of plain values into rows [i, i+rows) of
// column j; false means the page is not one it reads (and nothing was
// written).
func (c *Columns) readPlainPage(j int, p parquet.Page, i, rows int) bool {
	if p.Dictionary() != nil || len(p.RepetitionLevels()) > 0 {
		return false
	}
	v := &c.vecs[j]
	def := p.DefinitionLevels()
	if len(def) != rows && (len(def) != 0 || v.valid != nil || p.NumNulls() != 0) {
		return false
	}
	present := rows - int(p.NumNulls())
	vals := p.Data()
	var count int
	switch c.table.Columns[j].Type {
	case String, JSON:
		if vals.Kind() != encoding.ByteArray {
			return false
		}
		_, offs := vals.ByteArray()
		count = len(offs) - 1
	case Bool:
		if vals.Kind() != encoding.Boolean || len(vals.Boolean())*8 < present {
			return false
		}
		count = present
	case Int64, Timestamp:
		if vals.Kind() != encoding.Int64 {
			return false
		}
		count = len(vals.Int64())
	case Date:
		if vals.Kind() != encoding.Int32 {
			return false
		}
		count = len(vals.Int32())
	case Float64:
		if vals.Kind() != encoding.Double {
			return false
		}
		count = len(vals.Double())
	}
	if count < present {
		return false
	}
	valid := func(r int) bool { return def == nil || def[r] != 0 }
	if v.valid != nil {
		for r := range rows {
			v.valid[i+r] = valid(r)
		}
	}
	k := 0 // the next present value
	switch c.table.Columns[j].Type {
	case String, JSON:
		data, offs := vals.ByteArray()
		sc := &c.copiers[j]
		for r := range rows {
			if valid(r) {
				b := data[offs[k]:offs[k+1]]
				v.str[i+r] = sc.copy(unsafe.String(unsafe.SliceData(b), len(b)))
				k++
			}
		}
	case Bool:
		bits := vals.Boolean()
		for r := range rows {
			if valid(r) {
				v.bln[i+r] = bits[k/8]>>(k%8)&1 != 0
				k++
			}
		}
	case Int64, Timestamp:
		src := vals.Int64()
		for r := range rows {
			if valid(r) {
				v.num[i+r] = src[k]
				k++
			}
		}
	case Date:
		src := vals.Int32()
		for r := range rows {
			if valid(r) {
				v.num[i+r] = int64(src[k])
				k++
			}
		}
	case Float64:
		src := vals.Double()
		for r := range rows {
			if valid(r) {
				v.flt[i+r] = src[k]
				k++
			}
		}
	}
	return true
}

// readPageValues reads a page value by value into rows [i, i+rows) of
// column j.
func (c *Columns) readPageValues(j int, p parquet.Page, i, rows int, buf *[]parquet.Value) error {
	if len(*buf) == 0 {
		*buf = make([]parquet.Value, 256)
	}
	vr := p.Values()
	r := 0
	for r < rows {
		k, err := vr.ReadValues((*buf)[:min(len(*buf), rows-r)])
		for _, pv := range (*buf)[:k] {
			c.setParquet(i+r, j, pv)
			r++
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	clear(*buf)
	if r != rows {
		return fmt.Errorf("page holds %d values for %d rows", r, rows)
	}
	return nil
}

func (c *Columns) setParquet(i, j int, pv parquet.Value) {
	v := &c.vecs[j]
	if v.valid != nil {
		v.valid[i] = !pv.IsNull()
	}
	if pv.IsNull() {
		return
	}
	switch c.table.Columns[j].Type {
	case String, JSON:
		b := pv.ByteArray()
		v.str[i] = c.copier(j).copy(unsafe.String(unsafe.SliceData(b), len(b)))
	case Bool:
		v.bln[i] = pv.Boolean()
	case Int64, Timestamp:
		v.num[i] = pv.Int64()
	case Float64:
		v.flt[i] = pv.Double()
	case Date:
		v.num[i] = int64(pv.Int32())
	}
}
