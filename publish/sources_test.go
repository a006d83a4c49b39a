package publish

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"svc/datasets"
)

// TestSourcesSameBytes: tables given as sources, loaded whole or read a
// part at a time, publish the tree of the same tables given in memory;
// parts out of key order publish nothing. TablePages sees the manifest's
// entries of the tables as written.
func TestSourcesSameBytes(t *testing.T) {
	ctx := context.Background()
	want := newStore(t)
	mustPublish(t, want, testSnapshot(t, "2026-05-04"))

	asSources := func(snap *Snapshot, groups bool, reverse bool) {
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
			}
			snap.Sources = append(snap.Sources, src)
		}
		snap.Tables = nil
	}
	for _, groups := range []bool{false, true} {
		st := newStore(t)
		snap := testSnapshot(t, "2026-05-04")
		asSources(snap, groups, false)
		mustPublish(t, st, snap)
		if diff := cmp.Diff(tree(t, want.Root()), tree(t, st.Root())); diff != "" {
			t.Errorf("groups %v: the tree differs from the one of in-memory tables (-want +got):\n%.2000s", groups, diff)
		}
	}

	st := newStore(t)
	snap := testSnapshot(t, "2026-05-04")
	asSources(snap, true, true)
	if _, err := Publish(ctx, st, snap); !errors.Is(err, datasets.ErrUnsorted) || !errors.Is(err, ErrInvalid) {
		t.Errorf("parts out of order: %v, want ErrUnsorted", err)
	}
	if v, _ := st.Latest(ctx); v != "" {
		t.Errorf("parts out of order published %s", v)
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
