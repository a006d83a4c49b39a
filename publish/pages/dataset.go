package pages

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"svc/datasets"
	"svc/datasets/svc100"
	"svc/publish"
)

// datasetFile is one file of the version folder with its size and sha256,
// as the manifest will list it.
type datasetFile struct {
	Name   string // file name in the version folder
	URL    string // immutable address
	Latest string // alias under data/latest/
	Bytes  int64
	SHA256 string
}

type datasetTable struct {
	Name, Title, Description string
	Rows                     int
	Key                      []string
	Columns                  []datasets.Column
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

// datasets renders the dataset page: the manifest in words. The sizes and
// sha256 of the table files are those the publisher writes: the tables
// are encoded here with the same writers, in the same order, and hashed.
func (b *builder) datasets(ctx context.Context) error {
	d := &datasetsData{
		Version: b.in.Version, MethodVersion: b.in.MethodVersion, Changelog: b.in.Changelog,
		License: datasets.License, LicenseURL: datasets.LicenseURL, Attribution: datasets.Attribution,
		BaseURL:   strings.TrimSuffix(b.in.BaseURL, "/"),
		SVC100CSV: "/" + svc100.CSVPath, SVC100Schema: "/" + svc100.SchemaPath,
	}
	tables := slices.Clone(b.in.Tables)
	// The publisher puts store_answers first, the others in given order.
	slices.SortStableFunc(tables, func(x, y *datasets.Columns) int {
		return boolInt(y.Table().Name == datasets.StoreAnswers.Name) - boolInt(x.Table().Name == datasets.StoreAnswers.Name)
	})
	if len(tables) > 0 {
		d.FirstTable = tables[0].Table().Name
	}
	entries, err := hashTables(ctx, tables)
	if err != nil {
		return err
	}
	vdir := "/data/" + b.in.Version + "/"
	for i, c := range tables {
		t := c.Table()
		e := entries[i]
		e[0].URL, e[0].Latest = vdir+e[0].Name, "/data/latest/"+e[0].Name
		e[1].URL, e[1].Latest = vdir+e[1].Name, "/data/latest/"+e[1].Name
		d.Tables = append(d.Tables, datasetTable{Name: t.Name, Title: t.Title, Description: t.Description,
			Rows: c.Len(), Key: t.Key, Columns: t.Columns, CSV: e[0], Parquet: e[1]})
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

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// hashTables encodes every table as CSV and Parquet, as the publisher
// does, and returns the size and sha256 of each, two tables at a time.
func hashTables(ctx context.Context, tables []*datasets.Columns) ([][2]datasetFile, error) {
	out := make([][2]datasetFile, len(tables))
	errs := make([]error, len(tables))
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i, c := range tables {
		// Sorting is what the publisher does first; it also refuses
		// duplicate keys. Sort is not safe to run beside an encoder of the
		// same table, so it runs here, before the table's goroutine.
		if err := c.Sort(); err != nil {
			return nil, err
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				errs[i] = ctx.Err()
				return
			}
			name := c.Table().Name
			csvF, err1 := hashWrite(name+".csv", func(w io.Writer) error { return datasets.WriteCSV(w, c) })
			pqF, err2 := hashWrite(name+".parquet", func(w io.Writer) error { return datasets.WriteParquet(w, c) })
			out[i], errs[i] = [2]datasetFile{csvF, pqF}, errors.Join(err1, err2)
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

type countingHash struct {
	h interface {
		io.Writer
		Sum([]byte) []byte
	}
	n int64
}

func (c *countingHash) Write(b []byte) (int, error) {
	c.n += int64(len(b))
	return c.h.Write(b)
}

func hashWrite(name string, write func(io.Writer) error) (datasetFile, error) {
	ch := &countingHash{h: sha256.New()}
	bw := bufio.NewWriterSize(ch, 1<<20)
	if err := write(bw); err != nil {
		return datasetFile{}, err
	}
	if err := bw.Flush(); err != nil {
		return datasetFile{}, err
	}
	return datasetFile{Name: name, Bytes: ch.n, SHA256: hex.EncodeToString(ch.h.Sum(nil))}, nil
}
