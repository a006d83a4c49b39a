package readlayer

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/parquet-go/parquet-go"

	"svc/datasets"
)

// parquetRows reads rows of one published table by row number: the
// lookup record of a host keeps where its rows are (product_data_row,
// agent_facts_row), and the page index of the file takes a reader straight
// to the pages holding them, so one request decodes a page per column
// instead of a whole row group. This is how the per-host reads get the
// JSON documents the lookup records leave out (product data, vendor
// readiness, agent facts with their evidence) without keeping them in
// memory: about a millisecond, where a DuckDB query through the view
// decoded a whole row group (30 to 50 ms).
type parquetRows struct {
	name   string
	file   *datasets.ParquetFile
	pf     *parquet.File
	schema *parquet.Schema
	col    map[string]int // column name -> position in a projected row
	// readers are kept for reuse: a reader holds the page buffers and
	// decoders it last used, so a seek costs the pages read, not a new
	// set of buffers (a megabyte a read without it).
	readers sync.Pool
	// cache, when the snapshot's rows were copied at load, serves the
	// reads instead of the Parquet pages (rowcache.go).
	cache *rowCache
}

// openParquetRows opens dir/<table>.parquet for reads of cols.
func openParquetRows(dir string, t *datasets.Table, cols []string) (*parquetRows, error) {
	file, err := datasets.OpenParquetColumns(dir, t, cols)
	if err != nil {
		return nil, err
	}
	p := &parquetRows{name: t.Name, file: file, pf: file.File(), schema: file.Schema(), col: map[string]int{}}
	for i, path := range p.schema.Columns() {
		p.col[path[0]] = i
	}
	return p, nil
}

// read calls fn with rows start to start+n-1; a row is only valid during
// the call.
func (p *parquetRows) read(start int64, n int, fn func(parquet.Row) error) error {
	if p.cache != nil {
		return p.cache.read(start, n, fn)
	}
	if start < 0 || n <= 0 || start+int64(n) > p.pf.NumRows() {
		return fmt.Errorf("read %s: rows %d+%d out of %d", p.name, start, n, p.pf.NumRows())
	}
	r, _ := p.readers.Get().(*parquet.GenericReader[any])
	if r == nil {
		r = parquet.NewGenericReader[any](p.pf, p.schema)
	}
	defer p.readers.Put(r)
	if err := r.SeekToRow(start); err != nil {
		return fmt.Errorf("read %s: %w", p.name, err)
	}
	buf := make([]parquet.Row, n)
	for got := 0; got < n; {
		k, err := r.ReadRows(buf[got:])
		for _, row := range buf[got : got+k] {
			if ferr := fn(row); ferr != nil {
				return ferr
			}
		}
		got += k
		if errors.Is(err, io.EOF) && got < n {
			return fmt.Errorf("read %s: %w", p.name, io.ErrUnexpectedEOF)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read %s: %w", p.name, err)
		}
	}
	return nil
}

func (p *parquetRows) close() {
	if p.cache != nil {
		p.cache.close()
	}
	p.file.Close()
}

// str returns a string column of row, nil for null.
func (p *parquetRows) str(row parquet.Row, col string) *string {
	v := row[p.col[col]]
	if v.IsNull() {
		return nil
	}
	s := string(v.ByteArray())
	return &s
}

// text returns a string column of row, "" for null.
func (p *parquetRows) text(row parquet.Row, col string) string {
	if s := p.str(row, col); s != nil {
		return *s
	}
	return ""
}

// float returns a double column of row, nil for null.
func (p *parquetRows) float(row parquet.Row, col string) *float64 {
	v := row[p.col[col]]
	if v.IsNull() {
		return nil
	}
	f := v.Double()
	return &f
}

// when returns a timestamp column of row, nil for null.
func (p *parquetRows) when(row parquet.Row, col string) *time.Time {
	v := row[p.col[col]]
	if v.IsNull() {
		return nil
	}
	t := time.UnixMicro(v.Int64()).UTC()
	return &t
}
