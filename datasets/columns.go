package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"
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

func (c *Columns) setRow(i int, r Row) error {
	t := c.table
	if len(r) != len(t.Columns) {
		return fmt.Errorf("table %s row %d: %d values for %d columns: %w",
			t.Name, i, len(r), len(t.Columns), ErrInvalidRow)
	}
	for j, v := range r {
		if err := c.set(i, j, v); err != nil {
			return fmt.Errorf("table %s row %d column %s: %w", t.Name, i, t.Columns[j].Name, err)
		}
	}
	return nil
}

// set stores v, converted to its canonical form, at row i of column j.
func (c *Columns) set(i, j int, v any) error {
	col := &c.table.Columns[j]
	vec := &c.vecs[j]
	if vec.valid != nil {
		vec.valid[i] = v != nil
	}
	if v == nil {
		return c.setNull(i, j)
	}
	switch col.Type {
	case String:
		switch x := v.(type) {
		case string:
			vec.str[i] = x
			return nil
		case *string:
			if x == nil {
				return c.setNull(i, j)
			}
			vec.str[i] = *x
			return nil
		}
	case JSON:
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case json.RawMessage:
			s = string(x)
		case []byte:
			s = string(x)
		case *string:
			if x == nil {
				return c.setNull(i, j)
			}
			s = *x
		default:
			return typeError(col, v)
		}
		if !jsonValid(s) {
			return fmt.Errorf("invalid JSON text %.40q: %w", s, ErrInvalidRow)
		}
		vec.str[i] = s
		return nil
	case Bool:
		switch x := v.(type) {
		case bool:
			vec.bln[i] = x
			return nil
		case *bool:
			if x == nil {
				return c.setNull(i, j)
			}
			vec.bln[i] = *x
			return nil
		}
	case Int64:
		switch x := v.(type) {
		case int64:
			vec.num[i] = x
			return nil
		case int:
			vec.num[i] = int64(x)
			return nil
		case int32:
			vec.num[i] = int64(x)
			return nil
		case *int64:
			if x == nil {
				return c.setNull(i, j)
			}
			vec.num[i] = *x
			return nil
		}
	case Float64:
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case float32:
			f = float64(x)
		case *float64:
			if x == nil {
				return c.setNull(i, j)
			}
			f = *x
		default:
			return typeError(col, v)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("non-finite float %v (use null for unmeasured): %w", f, ErrInvalidRow)
		}
		vec.flt[i] = f
		return nil
	case Timestamp, Date:
		var t time.Time
		switch x := v.(type) {
		case time.Time:
			t = x
		case *time.Time:
			if x == nil {
				return c.setNull(i, j)
			}
			t = *x
		default:
			return typeError(col, v)
		}
		if col.Type == Timestamp {
			vec.num[i] = t.UnixMicro()
		} else {
			vec.num[i] = dateDays(t)
		}
		return nil
	}
	return typeError(col, v)
}

func (c *Columns) setNull(i, j int) error {
	vec := &c.vecs[j]
	if vec.valid == nil {
		return fmt.Errorf("null in a column that is not nullable: %w", ErrInvalidRow)
	}
	vec.valid[i] = false
	switch vec.store {
	case inStr:
		vec.str[i] = ""
	case inNum:
		vec.num[i] = 0
	case inFlt:
		vec.flt[i] = 0
	case inBln:
		vec.bln[i] = false
	}
	return nil
}

func typeError(c *Column, v any) error {
	return fmt.Errorf("%T is not a %s value: %w", v, c.Type, ErrInvalidRow)
}

// dateDays is the day number since 1970-01-01 of t's own calendar date.
func dateDays(t time.Time) int64 {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// jsonValid checks JSON text without copying it.
func jsonValid(s string) bool {
	return json.Valid(unsafe.Slice(unsafe.StringData(s), len(s)))
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

// Sort orders the rows by the table key and refuses duplicate keys, which
// makes the written bytes independent of append order. Writers call it;
// rows appended in key order (from an ORDER BY, say) cost one pass.
func (c *Columns) Sort() error {
	if c.sorted {
		return nil
	}
	ordered := true
	for i := 1; i < c.n; i++ {
		d := c.compareRows(i-1, i)
		if d == 0 {
			return c.duplicateKey(i)
		}
		if d > 0 {
			ordered = false
			break
		}
	}
	if !ordered {
		perm, dup := c.sortedOrder()
		c.permute(perm)
		if dup == unchecked {
			for i := 1; i < c.n; i++ {
				if c.compareRows(i-1, i) == 0 {
					return c.duplicateKey(i)
				}
			}
		} else if dup >= 0 {
			return c.duplicateKey(dup)
		}
	}
	c.sorted = true
	return nil
}

// unchecked is the dup result of sortedOrder when it did not look for
// duplicate keys.
const unchecked = -2

// sortedOrder returns the row numbers in key order, and the position (in
// that order) of a row whose key equals its predecessor's: -1 for none,
// unchecked when the caller must look.
func (c *Columns) sortedOrder() (perm []int32, dup int) {
	if len(c.keyIdx) == 1 && c.vecs[c.keyIdx[0]].store == inStr {
		return sortStrings(c.vecs[c.keyIdx[0]].str)
	}
	perm = make([]int32, c.n)
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, func(a, b int32) int { return c.compareRows(int(a), int(b)) })
	return perm, unchecked
}

// sortStrings returns the indexes of strs in string order, and the position
// of a string equal to its predecessor (-1 for none). It radix-sorts
// compact (prefix, index) pairs, where prefix is the 8 bytes that follow
// the prefix all strings share (hosts often share one), read big-endian so
// integer order is byte order; only runs of equal prefixes are then sorted
// by comparing the strings themselves, which is also the only place where
// equal strings can meet.
func sortStrings(strs []string) (perm []int32, dup int) {
	lcp := 0
	if len(strs) > 0 {
		lcp = len(strs[0])
		for _, s := range strs[1:] {
			n := min(lcp, len(s))
			k := 0
			for k < n && s[k] == strs[0][k] {
				k++
			}
			lcp = k
		}
	}
	ks := make([]prefixed, len(strs))
	for i, s := range strs {
		var p uint64
		for k := range 8 {
			p <<= 8
			if lcp+k < len(s) {
				p |= uint64(s[lcp+k])
			}
		}
		ks[i] = prefixed{p, int32(i)}
	}
	ks = radixSort(ks, make([]prefixed, len(ks)))
	dup = -1
	for lo := 0; lo < len(ks); {
		hi := lo + 1
		for hi < len(ks) && ks[hi].prefix == ks[lo].prefix {
			hi++
		}
		if hi-lo > 1 {
			run := ks[lo:hi]
			slices.SortFunc(run, func(a, b prefixed) int {
				return strings.Compare(strs[a.row][lcp:], strs[b.row][lcp:])
			})
			for k := 1; k < len(run) && dup < 0; k++ {
				if strs[run[k].row] == strs[run[k-1].row] {
					dup = lo + k
				}
			}
		}
		lo = hi
	}
	perm = make([]int32, len(strs))
	for i, k := range ks {
		perm[i] = k.row
	}
	return perm, dup
}

type prefixed struct {
	prefix uint64
	row    int32
}

// radixSort sorts ks by prefix, least significant byte first, using tmp
// as scratch; it returns whichever of the two holds the result. Bytes that
// are equal in every key cost one counting pass.
func radixSort(ks, tmp []prefixed) []prefixed {
	if len(ks) == 0 {
		return ks
	}
	for shift := 0; shift < 64; shift += 8 {
		var count [256]int
		for _, k := range ks {
			count[byte(k.prefix>>shift)]++
		}
		if count[byte(ks[0].prefix>>shift)] == len(ks) {
			continue
		}
		pos := 0
		for b, c := range count {
			count[b] = pos
			pos += c
		}
		for _, k := range ks {
			b := byte(k.prefix >> shift)
			tmp[count[b]] = k
			count[b]++
		}
		ks, tmp = tmp, ks
	}
	return ks
}

// permute reorders every column so that new row i is old row perm[i]. Each
// worker gathers into a scratch slice that then becomes the column, and
// the column's old slice the scratch for the worker's next column of that
// type: few fresh allocations (fresh memory costs page faults at a
// million rows) and no copying back.
func (c *Columns) permute(perm []int32) {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(c.vecs)) {
		wg.Go(func() {
			var s scratch
			for j := range jobs {
				v := &c.vecs[j]
				if v.valid != nil {
					v.valid, s.bln = gatherSwap(v.valid, perm, s.bln)
				}
				switch v.store {
				case inStr:
					v.str, s.str = gatherStrings(v.str, perm, s.str)
				case inNum:
					v.num, s.num = gatherSwap(v.num, perm, s.num)
				case inFlt:
					v.flt, s.flt = gatherSwap(v.flt, perm, s.flt)
				case inBln:
					v.bln, s.bln = gatherSwap(v.bln, perm, s.bln)
				}
			}
			clear(s.str) // drop string references
		})
	}
	// String columns first: they cost most, so the others fill the gaps.
	for pass := range 2 {
		for j := range c.vecs {
			if (c.vecs[j].store == inStr) == (pass == 0) {
				jobs <- j
			}
		}
	}
	close(jobs)
	wg.Wait()
}

type scratch struct {
	str []string
	num []int64
	flt []float64
	bln []bool
}

// gatherSwap returns s permuted (in buf, or a new slice when buf is too
// small) and s itself as the next scratch buffer.
func gatherSwap[T any](s []T, perm []int32, buf []T) (permuted, scratch []T) {
	if cap(buf) < len(s) {
		buf = make([]T, len(s), cap(s))
	}
	buf = buf[:len(s)]
	for i, p := range perm {
		buf[i] = s[p]
	}
	return buf, s
}

// gatherStrings is gatherSwap for strings that also copies their bytes, in
// the new order, into large blocks: the writers then read each column's
// bytes sequentially instead of chasing pointers into the stage's
// allocations. At a million rows this made a whole snapshot (CSV and
// Parquet) about 1.6 times faster.
func gatherStrings(s []string, perm []int32, buf []string) (permuted, scratch []string) {
	if cap(buf) < len(s) {
		buf = make([]string, len(s), cap(s))
	}
	buf = buf[:len(s)]
	const blockSize = 1 << 20
	var block []byte
	for i, p := range perm {
		str := s[p]
		switch {
		case str == "":
			buf[i] = ""
			continue
		case len(str) > blockSize/8:
			buf[i] = strings.Clone(str)
			continue
		case len(str) > cap(block)-len(block):
			block = make([]byte, 0, blockSize)
		}
		off := len(block)
		block = append(block, str...)
		buf[i] = unsafe.String(&block[off], len(str))
	}
	return buf, s
}

// compareRows orders rows a and b by key. Key columns are never null.
func (c *Columns) compareRows(a, b int) int { return compareAcross(c, a, c, b) }

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func (c *Columns) duplicateKey(i int) error {
	parts := make([]string, len(c.keyIdx))
	for n, k := range c.keyIdx {
		parts[n] = fmt.Sprintf("%s=%v", c.table.Columns[k].Name, c.Value(i, k))
	}
	return fmt.Errorf("table %s: duplicate key %s: %w", c.table.Name, strings.Join(parts, ", "), ErrInvalidRow)
}
