package datasets

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Writing a table a part at a time: a snapshot of a million stores holds
// one row group of a table in memory rather than the whole of every table.
// The parts come in key order (ReadParquetGroups of a file WriteParquet
// wrote hands them over so), KeyOrder checks that they do, and the writers
// write the bytes WriteCSV and WriteParquet write for all the rows at once.

// ErrUnsorted: parts of a table did not come in key order.
var ErrUnsorted = errors.New("rows not in key order")

// KeyOrder checks that the parts of one table come in strict key order.
// The zero value is ready to use.
type KeyOrder struct {
	last *Columns // a copy of the last row seen
}

// Next sorts the part c (Sort: it refuses duplicate keys in c) and checks
// that its first key follows the last key of the parts before; an error
// matching ErrUnsorted when it does not, ErrInvalidRow when it is the same.
func (o *KeyOrder) Next(c *Columns) error {
	if err := c.Sort(); err != nil {
		return err
	}
	if c.n == 0 {
		return nil
	}
	if o.last != nil {
		switch d := compareAcross(o.last, 0, c, 0); {
		case d == 0:
			return c.duplicateKey(0)
		case d > 0:
			return fmt.Errorf("table %s: a part starts before the end of the one before: %w", c.table.Name, ErrUnsorted)
		}
	}
	last, err := FromRows(c.table, []Row{c.Row(c.n - 1)})
	if err != nil {
		return err
	}
	o.last = last
	return nil
}

// compareAcross orders row i of a and row j of b, of one table, by key.
func compareAcross(a *Columns, i int, b *Columns, j int) int {
	for _, k := range a.keyIdx {
		va, vb := &a.vecs[k], &b.vecs[k]
		var d int
		switch va.store {
		case inStr:
			d = strings.Compare(va.str[i], vb.str[j])
		case inNum:
			d = cmp.Compare(va.num[i], vb.num[j])
		case inFlt:
			d = cmp.Compare(va.flt[i], vb.flt[j])
		case inBln:
			d = compareBool(va.bln[i], vb.bln[j])
		}
		if d != 0 {
			return d
		}
	}
	return 0
}

// CSVWriter writes a table as CSV a part at a time.
type CSVWriter struct {
	w    io.Writer
	head []byte // the header row, until written
}

// NewCSVWriter returns a writer of t's CSV to w.
func NewCSVWriter(w io.Writer, t *Table) *CSVWriter {
	return &CSVWriter{w: w, head: csvHeader(t)}
}

// Write writes the rows of c in their order: sort them first (KeyOrder).
func (cw *CSVWriter) Write(c *Columns) error {
	head := cw.head
	cw.head = nil
	if err := writeCSVRows(cw.w, c, head); err != nil {
		return fmt.Errorf("write csv %s: %w", c.table.Name, err)
	}
	return nil
}

// Close writes the header if no part was written. It does not close the
// underlying writer.
func (cw *CSVWriter) Close() error {
	if cw.head == nil {
		return nil
	}
	_, err := cw.w.Write(cw.head)
	cw.head = nil
	return err
}

// ParquetWriter writes a table as Parquet a part at a time. The bytes are
// those of WriteParquet over all the rows when every part but the last
// holds a multiple of RowGroupRows rows (as the row groups of a file
// WriteParquet wrote do); other parts give other row groups.
type ParquetWriter struct {
	t  *Table
	pw *parquet.GenericWriter[any]
}

// NewParquetWriter returns a writer of t's Parquet file to w.
func NewParquetWriter(w io.Writer, t *Table) *ParquetWriter {
	return &ParquetWriter{t: t, pw: newParquetWriter(w, t)}
}

// Write writes the rows of c, in their order (sort them first: KeyOrder),
// as row groups of RowGroupRows rows.
func (p *ParquetWriter) Write(c *Columns) error {
	if err := writeParquetGroups(p.pw, c); err != nil {
		return fmt.Errorf("write parquet %s: %w", p.t.Name, err)
	}
	return nil
}

// Close writes the footer. It does not close the underlying writer.
func (p *ParquetWriter) Close() error {
	if err := p.pw.Close(); err != nil {
		return fmt.Errorf("write parquet %s: %w", p.t.Name, err)
	}
	return nil
}
