package datasets

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"
)

// ErrInvalidRow reports a row that does not fit its table definition: wrong
// number of values, a value of the wrong Go type, a null in a column that
// is not nullable, a non-finite float, invalid JSON text or a duplicate key.
var ErrInvalidRow = errors.New("invalid row")

// Columns holds the rows of one table column by column, in typed slices.
// Build it with NewColumns and AppendRow or AppendRows, or read it from a
// file; the writers encode from it. The zero value is not usable.
//
// A Columns is not safe for concurrent mutation. Writers only read it once
// it is sorted, so after Sort one Columns can be written to Parquet and CSV
// at the same time.
type Columns struct {
	table   *Table
	keyIdx  []int
	n       int
	vecs    []vector
	sorted  bool
	copiers []stringCopier // per column, for strings copied in (CopyString, ReadParquet)
}

// vector is one column. Null slots hold the zero value.
type vector struct {
	store storage
	valid []bool    // nil for a column that is not nullable; false = null
	str   []string  // String, JSON
	num   []int64   // Int64; Timestamp: µs since the epoch; Date: days since the epoch
	flt   []float64 // Float64
	bln   []bool    // Bool
}

// storage says which slice of a vector holds the values.
type storage uint8

const (
	inStr storage = iota + 1
	inNum
	inFlt
	inBln
)

func storageOf(t Type) storage {
	switch t {
	case String, JSON:
		return inStr
	case Int64, Timestamp, Date:
		return inNum
	case Float64:
		return inFlt
	}
	return inBln
}

// NewColumns returns an empty Columns for t with room for capacity rows.
func NewColumns(t *Table, capacity int) (*Columns, error) {
	keyIdx, err := t.keyIndexes()
	if err != nil {
		return nil, err
	}
	c := &Columns{table: t, keyIdx: keyIdx, vecs: make([]vector, len(t.Columns)), sorted: true}
	for i, col := range t.Columns {
		v := &c.vecs[i]
		v.store = storageOf(col.Type)
		if col.Nullable {
			v.valid = make([]bool, 0, capacity)
		}
		switch v.store {
		case inStr:
			v.str = make([]string, 0, capacity)
		case inNum:
			v.num = make([]int64, 0, capacity)
		case inFlt:
			v.flt = make([]float64, 0, capacity)
		case inBln:
			v.bln = make([]bool, 0, capacity)
		}
	}
	return c, nil
}

// FromRows is NewColumns followed by AppendRows.
func FromRows(t *Table, rows []Row) (*Columns, error) {
	c, err := NewColumns(t, len(rows))
	if err != nil {
		return nil, err
	}
	if err := c.AppendRows(rows); err != nil {
		return nil, err
	}
	return c, nil
}

// Table returns the definition the rows belong to.
func (c *Columns) Table() *Table { return c.table }

// Len returns the number of rows.
func (c *Columns) Len() int { return c.n }

// AppendRow checks r against the definition and appends it. The row is
// copied, so a caller may reuse one Row for every call. On error nothing is
// appended.
func (c *Columns) AppendRow(r Row) error {
	c.grow(1)
	if err := c.setRow(c.n-1, r); err != nil {
		c.truncate(c.n - 1)
		return err
	}
	return nil
}

// AppendRows appends many rows, converting them on all CPUs. On error
// nothing is appended and the error names the first bad row.
func (c *Columns) AppendRows(rows []Row) error {
	base := c.n
	c.grow(len(rows))
	const chunk = 1 << 14
	workers := min(runtime.GOMAXPROCS(0), (len(rows)+chunk-1)/chunk)
	if workers <= 1 {
		for i, r := range rows {
			if err := c.setRow(base+i, r); err != nil {
				c.truncate(base)
				return err
			}
		}
		return nil
	}
	errs := make([]error, workers)
	per := (len(rows) + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*per, min((w+1)*per, len(rows))
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				if err := c.setRow(base+i, rows[i]); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		c.truncate(base)
		for _, e := range errs {
			if e != nil {
				return e // the first bad row in row order
			}
		}
	}
	return nil
}

// Batch is a block of rows appended by AppendColumns, written column by
// column through typed slices that alias the Columns' own storage.
type Batch struct {
	c      *Columns
	lo, hi int
}

// Len returns the number of rows in the batch.
func (b Batch) Len() int { return b.hi - b.lo }

// Strings returns the batch's slots of a String or JSON column.
func (b Batch) Strings(j int) []string { return b.c.vecs[j].str[b.lo:b.hi:b.hi] }

// Int64s returns the batch's slots of an Int64 column, or of a Timestamp
// (microseconds since the epoch, UTC) or Date column (days since the
// epoch).
func (b Batch) Int64s(j int) []int64 { return b.c.vecs[j].num[b.lo:b.hi:b.hi] }

// Float64s returns the batch's slots of a Float64 column.
func (b Batch) Float64s(j int) []float64 { return b.c.vecs[j].flt[b.lo:b.hi:b.hi] }

// Bools returns the batch's slots of a Bool column.
func (b Batch) Bools(j int) []bool { return b.c.vecs[j].bln[b.lo:b.hi:b.hi] }

// Valid returns the batch's null flags of column j (false = null), or nil
// for a column that is not nullable, which cannot hold a null. Every slot
// starts valid.
func (b Batch) Valid(j int) []bool {
	v := b.c.vecs[j].valid
	if v == nil {
		return nil
	}
	return v[b.lo:b.hi:b.hi]
}

// AppendColumns appends n rows that fill writes column by column, for a
// loader that already holds typed columns (a database's result vectors):
// no per-value boxing. The slots start as valid zero values; fill leaves a
// null slot's value zero. It is the caller's word that JSON text is valid
// (use it for JSON a database's JSON functions built; AppendRow checks
// it); non-finite floats are refused. On error nothing is appended.
func (c *Columns) AppendColumns(n int, fill func(Batch) error) error {
	lo := c.n
	c.grow(n) // new slots are zero: see truncate
	for i := range c.vecs {
		if v := c.vecs[i].valid; v != nil {
			for k := lo; k < c.n; k++ {
				v[k] = true
			}
		}
	}
	b := Batch{c: c, lo: lo, hi: c.n}
	err := fill(b)
	for j := range c.vecs {
		if err != nil {
			break
		}
		v := &c.vecs[j]
		if v.store != inFlt {
			continue
		}
		for k, f := range v.flt[lo:c.n] {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				err = fmt.Errorf("table %s row %d column %s: non-finite float %v (use null for unmeasured): %w",
					c.table.Name, lo+k, c.table.Columns[j].Name, f, ErrInvalidRow)
				break
			}
		}
	}
	if err != nil {
		c.truncate(lo)
		return err
	}
	return nil
}

func (c *Columns) grow(k int) {
	c.n += k
	c.sorted = c.n <= 1
	for i := range c.vecs {
		v := &c.vecs[i]
		if v.valid != nil {
			v.valid = slices.Grow(v.valid, k)[:c.n]
		}
		switch v.store {
		case inStr:
			v.str = slices.Grow(v.str, k)[:c.n]
		case inNum:
			v.num = slices.Grow(v.num, k)[:c.n]
		case inFlt:
			v.flt = slices.Grow(v.flt, k)[:c.n]
		case inBln:
			v.bln = slices.Grow(v.bln, k)[:c.n]
		}
	}
}

// truncate drops the rows from n on. It zeroes their slots, so a slot
// past the length is always zero and grow hands out zero values.
func (c *Columns) truncate(n int) {
	c.n = n
	for i := range c.vecs {
		v := &c.vecs[i]
		if v.valid != nil {
			clear(v.valid[n:])
			v.valid = v.valid[:n]
		}
		switch v.store {
		case inStr:
			clear(v.str[n:])
			v.str = v.str[:n]
		case inNum:
			clear(v.num[n:])
			v.num = v.num[:n]
		case inFlt:
			clear(v.flt[n:])
			v.flt = v.flt[:n]
		case inBln:
			clear(v.bln[n:])
			v.bln = v.bln[:n]
		}
	}
}

// IsNull reports whether row i of column j is null.
func (c *Columns) IsNull(i, j int) bool {
	v := &c.vecs[j]
	return v.valid != nil && !v.valid[i]
}

// Value returns row i of column j in canonical form, nil for null.
func (c *Columns) Value(i, j int) any {
	if c.IsNull(i, j) {
		return nil
	}
	v := &c.vecs[j]
	switch c.table.Columns[j].Type {
	case String, JSON:
		return v.str[i]
	case Bool:
		return v.bln[i]
	case Int64:
		return v.num[i]
	case Float64:
		return v.flt[i]
	case Timestamp:
		return time.UnixMicro(v.num[i]).UTC()
	case Date:
		return time.Unix(v.num[i]*86400, 0).UTC()
	}
	return nil
}

// Row returns row i as a new Row of canonical values.
func (c *Columns) Row(i int) Row {
	r := make(Row, len(c.vecs))
	for j := range r {
		r[j] = c.Value(i, j)
	}
	return r
}

// Rows returns every row, in the current order.
func (c *Columns) Rows() []Row {
	rows := make([]Row, c.n)
	for i := range rows {
		rows[i] = c.Row(i)
	}
	return rows
}
