package datasets

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
)

// ParquetFile is a published table's Parquet file in a version folder,
// opened for reads of some of its columns. It is how the server reads
// Parquet (by row, or streaming a few columns), so the files are opened,
// and their columns checked, in one place.
type ParquetFile struct {
	f    *os.File
	pf   *parquet.File
	proj *parquet.Schema
}

// OpenParquetColumns opens dir/<table>.parquet projected onto cols. A
// missing file is an error wrapping os.ErrNotExist; a missing column is an
// error naming it. Close the file when done.
func OpenParquetColumns(dir string, t *Table, cols []string) (*ParquetFile, error) {
	p, missing, err := OpenParquetPresentColumns(dir, t, cols)
	if err == nil && len(missing) > 0 {
		p.Close()
		return nil, fmt.Errorf("read %s: no column %s (published with an older table definition?)", t.Name, missing[0])
	}
	return p, err
}

// OpenParquetPresentColumns is OpenParquetColumns for a reader that takes
// a column the file lacks as null: a snapshot published before the column
// was added (published snapshots never change, and a newer server must
// still serve them). It returns the columns the file lacks; the projection
// holds the others.
func OpenParquetPresentColumns(dir string, t *Table, cols []string) (*ParquetFile, []string, error) {
	f, err := os.Open(filepath.Join(dir, t.Name+".parquet"))
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("read %s: %w", t.Name, err)
	}
	group := parquet.Group{}
	var missing []string
	for _, c := range cols {
		leaf, ok := pf.Schema().Lookup(c)
		if !ok {
			missing = append(missing, c)
			continue
		}
		group[c] = leaf.Node
	}
	return &ParquetFile{f: f, pf: pf, proj: parquet.NewSchema(t.Name, group)}, missing, nil
}

// File is the open Parquet file.
func (p *ParquetFile) File() *parquet.File { return p.pf }

// Schema is the projection onto the columns asked for, in the schema's
// column order (Schema().Columns()).
func (p *ParquetFile) Schema() *parquet.Schema { return p.proj }

// NumRows is the number of rows in the file.
func (p *ParquetFile) NumRows() int64 { return p.pf.NumRows() }

// Close closes the file.
func (p *ParquetFile) Close() error { return p.f.Close() }
