package pages

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"svc/datasets"
	"svc/datasets/svc100"
	"svc/publish"
)

// datasetFile is one file of the version folder with its size and sha256,
// as the manifest lists it.
type datasetFile struct {
	Name   string // file name in the version folder
	URL    string // immutable address
	Latest string // alias under data/latest/
	Bytes  int64
	SHA256 string
}

type datasetTable struct {
	Name, Title, Description string
	Rows                     int64
	Key                      []string
	Columns                  []publish.ColumnEntry
	CSV, Parquet             datasetFile
}

type datasetsData struct {
	Version       string
	MethodVersion string
	Tables        []datasetTable
	Versions      []string // every published version, newest first
	Changelog     []publish.ChangelogEntry
	License       string
	LicenseURL    string
	Attribution   string
	FirstTable    string
	BaseURL       string // the absolute base, "" when links are root-relative
	SVC100CSV     string
	SVC100Schema  string
}

// DatasetsPage renders the dataset page, the manifest in words, from the
// manifest's entries of the tables as written: the sizes and sha256 it
// shows are those of the published files. It is the snapshot's
// publish.Snapshot.TablePages.
func DatasetsPage(ctx context.Context, in Input, tables []publish.TableEntry) ([]publish.File, error) {
	site, err := newSite(in.BaseURL, in.Version)
	if err != nil {
		return nil, fmt.Errorf("pages: %w", err)
	}
	b := &builder{in: in, site: site, files: map[string]*publish.File{}}
	if err := b.datasets(ctx, tables); err != nil {
		return nil, fmt.Errorf("pages: datasets: %w", err)
	}
	return []publish.File{*b.files[DatasetsFile]}, nil
}

func (b *builder) datasets(ctx context.Context, tables []publish.TableEntry) error {
	d := &datasetsData{
		Version: b.in.Version, MethodVersion: b.in.MethodVersion, Changelog: b.in.Changelog,
		License: datasets.License, LicenseURL: datasets.LicenseURL, Attribution: datasets.Attribution,
		BaseURL:   strings.TrimSuffix(b.in.BaseURL, "/"),
		SVC100CSV: "/" + svc100.CSVPath, SVC100Schema: "/" + svc100.SchemaPath,
	}
	if len(tables) > 0 {
		d.FirstTable = tables[0].Name
	}
	vdir := "/data/" + b.in.Version + "/"
	file := func(e publish.FileEntry) datasetFile {
		return datasetFile{Name: e.Path, URL: vdir + e.Path, Latest: "/data/latest/" + e.Path, Bytes: e.Bytes, SHA256: e.SHA256}
	}
	for _, t := range tables {
		d.Tables = append(d.Tables, datasetTable{Name: t.Name, Title: t.Title, Description: t.Description,
			Rows: t.Rows, Key: t.Key, Columns: t.Columns, CSV: file(t.CSV), Parquet: file(t.Parquet)})
	}
	versions := map[string]bool{b.in.Version: true}
	if st := b.in.Published; st != nil {
		names, err := st.List(ctx, "data")
		if err != nil {
			return err
		}
		for _, n := range names {
			if publish.ValidVersion(n) {
				versions[n] = true
			}
		}
	}
	d.Versions = slices.SortedFunc(maps.Keys(versions), func(a, b string) int { return publish.CompareVersions(b, a) })
	body, err := b.render("datasets", &Page{Title: "Datasets", Section: "datasets",
		Description: "svc's open datasets: weekly CSV and Parquet snapshots under CC-BY-4.0, with sizes, sha256 sums and how to query them with DuckDB.",
		Data:        d})
	if err != nil {
		return err
	}
	b.add(DatasetsFile, body, false)
	return nil
}
