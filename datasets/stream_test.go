package datasets

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// TestStreamSameBytes: a table written a row group at a time, read back
// from its own Parquet file, gives the bytes of WriteCSV and WriteParquet
// over all its rows; parts out of key order are refused.
func TestStreamSameBytes(t *testing.T) {
	n := 2*RowGroupRows + 1000
	if testing.Short() {
		n = 3000
	}
	rows := make([]Row, n)
	for i := range rows {
		var added any
		if i%3 == 0 {
			added = time.Date(2026, 1, 1+i%28, 0, 0, 0, 0, time.UTC)
		}
		// Appended out of order: the writers sort.
		rows[i] = Row{fmt.Sprintf("s%07d.test", (i*7919)%n), fmt.Sprintf("Store %d", i), "beauty", "seed", "US", nil, added}
	}
	c, err := FromRows(Stores, rows)
	if err != nil {
		t.Fatal(err)
	}
	var wantCSV, wantPQ bytes.Buffer
	if err := WriteCSV(&wantCSV, c); err != nil {
		t.Fatal(err)
	}
	if err := WriteParquet(&wantPQ, c); err != nil {
		t.Fatal(err)
	}

	var parts []*Columns
	pq := wantPQ.Bytes()
	if err := ReadParquetGroups(bytes.NewReader(pq), int64(len(pq)), Stores, func(p *Columns) error {
		parts = append(parts, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := (n + RowGroupRows - 1) / RowGroupRows; len(parts) != want {
		t.Fatalf("%d parts, want %d", len(parts), want)
	}
	write := func(parts []*Columns) (csv, pq []byte, err error) {
		var cb, pb bytes.Buffer
		cw, pw := NewCSVWriter(&cb, Stores), NewParquetWriter(&pb, Stores)
		var order KeyOrder
		for _, p := range parts {
			if err := order.Next(p); err != nil {
				return nil, nil, err
			}
			if err := errors.Join(cw.Write(p), pw.Write(p)); err != nil {
				return nil, nil, err
			}
		}
		if err := errors.Join(cw.Close(), pw.Close()); err != nil {
			return nil, nil, err
		}
		return cb.Bytes(), pb.Bytes(), nil
	}
	gotCSV, gotPQ, err := write(parts)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gotCSV, wantCSV.Bytes()) {
		t.Error("the CSV written a part at a time differs from WriteCSV's")
	}
	if !bytes.Equal(gotPQ, pq) {
		t.Error("the Parquet file written a part at a time differs from WriteParquet's")
	}

	// No rows: the header alone, and an empty file like WriteParquet's.
	empty, _ := NewColumns(Stores, 0)
	var ec, ep bytes.Buffer
	WriteCSV(&ec, empty)
	WriteParquet(&ep, empty)
	if gc, gp, err := write(nil); err != nil || !bytes.Equal(gc, ec.Bytes()) || !bytes.Equal(gp, ep.Bytes()) {
		t.Errorf("no parts: %v; same CSV %v, same Parquet %v", err, bytes.Equal(gc, ec.Bytes()), bytes.Equal(gp, ep.Bytes()))
	}

	if len(parts) > 1 {
		back := slices.Clone(parts)
		slices.Reverse(back)
		if _, _, err := write(back); !errors.Is(err, ErrUnsorted) {
			t.Errorf("parts out of order: %v, want ErrUnsorted", err)
		}
	}
	again, err := FromRows(Stores, []Row{parts[0].Row(parts[0].Len() - 1)})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := write([]*Columns{parts[0], again}); !errors.Is(err, ErrInvalidRow) {
		t.Errorf("a part that repeats the last key: %v, want a duplicate key", err)
	}
}

// TestParquetCanonical: WriteParquet's files are canonical, also in the
// middle of a stream; files laid out otherwise (row groups of another size,
// other compression, other metadata, another table) are not.
func TestParquetCanonical(t *testing.T) {
	rows := make([]Row, RowGroupRows+10)
	for i := range rows {
		rows[i] = Row{fmt.Sprintf("s%07d.test", i), "Store", "beauty", "seed", "US", nil, nil}
	}
	c, err := FromRows(Stores, rows)
	if err != nil {
		t.Fatal(err)
	}
	canonical := func(b []byte, tb *Table) error { return ParquetCanonical(bytes.NewReader(b), int64(len(b)), tb) }
	var pq bytes.Buffer
	if err := WriteParquet(&pq, c); err != nil {
		t.Fatal(err)
	}
	if err := canonical(pq.Bytes(), Stores); err != nil {
		t.Errorf("WriteParquet's file: %v", err)
	}
	if err := canonical(pq.Bytes(), Policies); err == nil {
		t.Error("the stores file is canonical for policies")
	}

	// A part of other than RowGroupRows rows before the last: a short
	// first row group.
	var short bytes.Buffer
	pw := NewParquetWriter(&short, Stores)
	first, _ := FromRows(Stores, rows[:10])
	rest, _ := FromRows(Stores, rows[10:])
	if err := errors.Join(pw.Write(first), pw.Write(rest), pw.Close()); err != nil {
		t.Fatal(err)
	}
	if err := canonical(short.Bytes(), Stores); err == nil {
		t.Error("a file with a short first row group is canonical")
	}

	// Other compression, other metadata.
	withMeta := []parquet.WriterOption{Stores.ParquetSchema(), parquet.Compression(&parquet.Snappy)}
	for k, v := range writerMetadata(Stores) {
		withMeta = append(withMeta, parquet.KeyValueMetadata(k, v))
	}
	for name, opts := range map[string][]parquet.WriterOption{
		"snappy":   withMeta,
		"metadata": {Stores.ParquetSchema(), parquet.Compression(zstdCodec)},
	} {
		var b bytes.Buffer
		w := parquet.NewGenericWriter[any](&b, opts...)
		if err := writeParquetGroups(w, first); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := canonical(b.Bytes(), Stores); err == nil || !strings.Contains(strings.ToLower(err.Error()), name) {
			t.Errorf("other %s: %v, want an error naming it", name, err)
		}
	}
}
