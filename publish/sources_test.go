package publish

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"svc/datasets"
)

// TestSourcesSameBytes: tables given as sources, loaded whole or read a
// part at a time (with their Parquet file encoded again or copied),
// publish the tree of the same tables given in memory; parts out of key
// order publish nothing, nor does a copied Parquet file that does not hold
// the parts' rows. TablePages sees the manifest's entries of the tables as
// written.
func TestSourcesSameBytes(t *testing.T) {
	ctx := context.Background()
	want := newStore(t)
	mustPublish(t, want, testSnapshot(t, "2026-05-04"))

	// file, when set, gives the Parquet file copied for a table's rows.
	asSources := func(snap *Snapshot, groups, reverse bool, file func(*datasets.Columns) []byte) {
		for _, c := range snap.Tables {
			var pq bytes.Buffer
			if err := datasets.WriteParquet(&pq, c); err != nil {
				t.Fatal(err)
			}
			src := TableSource{Table: c.Table(), Load: func(context.Context) (*datasets.Columns, error) { return c, nil }}
			if groups {
				// One part per table (a part of RowGroupRows rows keeps the
				// bytes), two when the order between them is tested.
				src.Load = nil
				src.Groups = func(ctx context.Context, fn func(*datasets.Columns) error) error {
					rows := c.Rows()
					half := len(rows) / 2
					parts := [][]datasets.Row{rows}
					if reverse {
						parts = [][]datasets.Row{rows[half:], rows[:half]}
					}
					for _, rs := range parts {
						p, err := datasets.FromRows(c.Table(), rs)
						if err != nil {
							return err
						}
						if err := fn(p); err != nil {
							return err
						}
					}
					return nil
				}
				if file != nil {
					b := file(c)
					src.Parquet = func(context.Context) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
				}
			}
			snap.Sources = append(snap.Sources, src)
		}
		snap.Tables = nil
	}
	encode := func(c *datasets.Columns) []byte {
		var pq bytes.Buffer
		if err := datasets.WriteParquet(&pq, c); err != nil {
			t.Fatal(err)
		}
		return pq.Bytes()
	}
	for _, v := range []struct {
		groups bool
		file   func(*datasets.Columns) []byte
	}{{false, nil}, {true, nil}, {true, encode}} {
		st := newStore(t)
		snap := testSnapshot(t, "2026-05-04")
		asSources(snap, v.groups, false, v.file)
		mustPublish(t, st, snap)
		if diff := cmp.Diff(tree(t, want.Root()), tree(t, st.Root())); diff != "" {
			t.Errorf("groups %v, Parquet copied %v: the tree differs from the one of in-memory tables (-want +got):\n%.2000s",
				v.groups, v.file != nil, diff)
		}
	}

	// A copied file of fewer rows than the parts: its footer disagrees.
	st := newStore(t)
	snap := testSnapshot(t, "2026-05-04")
	asSources(snap, true, false, func(c *datasets.Columns) []byte {
		fewer, err := datasets.FromRows(c.Table(), c.Rows()[:c.Len()/2])
		if err != nil {
			t.Fatal(err)
		}
		return encode(fewer)
	})
	if _, err := Publish(ctx, st, snap); !errors.Is(err, ErrMismatch) {
		t.Errorf("a copied Parquet file of other rows: %v, want ErrMismatch", err)
	}
	if v, _ := st.Latest(ctx); v != "" {
		t.Errorf("a copied Parquet file of other rows published %s", v)
	}

	for _, file := range []func(*datasets.Columns) []byte{nil, encode} {
		st = newStore(t)
		snap = testSnapshot(t, "2026-05-04")
		asSources(snap, true, true, file)
		if _, err := Publish(ctx, st, snap); !errors.Is(err, datasets.ErrUnsorted) || !errors.Is(err, ErrInvalid) {
			t.Errorf("parts out of order, Parquet copied %v: %v, want ErrUnsorted", file != nil, err)
		}
		if v, _ := st.Latest(ctx); v != "" {
			t.Errorf("parts out of order published %s", v)
		}
	}

	var seen []TableEntry
	snap = testSnapshot(t, "2026-05-04")
	snap.TablePages = func(ctx context.Context, tables []TableEntry) ([]File, error) {
		seen = tables
		var b strings.Builder
		for _, e := range tables {
			b.WriteString(e.Name + " " + e.CSV.SHA256 + " " + e.Parquet.SHA256 + "\n")
		}
		return []File{{Path: "datasets/index.html", Data: []byte(b.String())}}, nil
	}
	st = newStore(t)
	res := mustPublish(t, st, snap)
	if diff := cmp.Diff(res.Manifest.Tables, seen); diff != "" {
		t.Errorf("TablePages saw other entries than the manifest's (-manifest +seen):\n%s", diff)
	}
	var listed, licence bool
	for _, f := range res.Manifest.API {
		listed = listed || f.Path == "datasets/index.html"
		licence = licence || f.Path == "datasets/"+AttributionFile
	}
	if !listed || !licence {
		t.Errorf("the table page listed %v, its folder's licence %v", listed, licence)
	}
}
