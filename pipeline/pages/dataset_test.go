package pages

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"svc/publish"
)

// TestDatasetPageMatchesManifest publishes the pages with their snapshot:
// the sizes and sha256 the dataset page shows are the manifest's.
func TestDatasetPageMatchesManifest(t *testing.T) {
	in := testInput(t)
	st, err := publish.NewDirStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	in.Published = st
	files, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	res, err := publish.Publish(context.Background(), st, &publish.Snapshot{Version: in.Version, MethodVersion: in.MethodVersion,
		Tables: in.Tables, Files: append(slices.Clone(in.Files), files...), Weekly: in.Weekly, Changelog: in.Changelog,
		TablePages: func(ctx context.Context, tables []publish.TableEntry) ([]publish.File, error) {
			return DatasetsPage(ctx, in, tables)
		}})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(st.Root(), filepath.FromSlash(DatasetsFile)))
	if err != nil {
		t.Fatal(err)
	}
	// The page the publisher wrote is the page of the tables' own sums.
	if want := build(t, in)[DatasetsFile]; !bytes.Equal(page, want) {
		t.Error("the published dataset page is not the page of the tables' sums")
	}
	for _, tb := range res.Manifest.Tables {
		for _, f := range []publish.FileEntry{tb.CSV, tb.Parquet} {
			if !bytes.Contains(page, []byte(f.SHA256)) || !bytes.Contains(page, []byte(comma(f.Bytes)+" bytes")) {
				t.Errorf("the dataset page does not show %s with %d bytes and sha256 %s", f.Path, f.Bytes, f.SHA256)
			}
		}
	}
	// A second snapshot reads the first from the tree: both versions are
	// listed, and the edition's chart, already published, is not rebuilt.
	in.Version = "2026-11-23"
	in.Weekly = nil
	again := build(t, in)
	if !bytes.Contains(again[DatasetsFile], []byte(">2026-11-16</a>")) {
		t.Error("the dataset page of the next version does not list the earlier one")
	}
	if _, ok := again[WeeklySVGFile("2026-11-16")]; ok {
		t.Error("the chart of a published edition was built again")
	}
	if again["weekly/2026-11-16/index.html"] == nil {
		t.Error("no page for the published edition")
	}
}
