package publish

// Writing the version folder: the tables, whole or a part at a time, then
// datapackage.json, ATTRIBUTION.txt and manifest.json last.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"svc/datasets"
)

// writeTables writes the tables into the version folder, each loaded (when
// it is a source), encoded once as CSV and Parquet at the same time, and
// let go of when written; it returns the manifest with their entries, in
// table order.
func (p *plan) writeTables(ctx context.Context, vw VersionWriter) (*Manifest, error) {
	snap := p.snap
	m := &Manifest{
		Schema:        ManifestSchema,
		Title:         datasetTitle,
		Version:       snap.Version,
		MethodVersion: snap.MethodVersion,
		License:       License{ID: datasets.License, URL: datasets.LicenseURL, Attribution: datasets.Attribution},
		FirstFile:     p.tables[0].def.Name,
		Files:         []FileEntry{},
		API:           []FileEntry{},
		Changelog:     slices.Clone(snap.Changelog),
	}
	if m.Changelog == nil {
		m.Changelog = []ChangelogEntry{}
	}
	// Tables read a part at a time are written streamedAtOnce at a time:
	// one table's stages (reading, CSV, hashing and writing) leave a core
	// idle while they wait on each other, which a second table fills.
	entries := make([]TableEntry, len(p.tables))
	errs := make([]error, len(p.tables))
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	slots := make(chan struct{}, streamedAtOnce)
	var streams sync.WaitGroup
	for i, pt := range p.tables {
		if sctx.Err() != nil {
			break
		}
		if pt.groups != nil {
			slots <- struct{}{}
			streams.Go(func() {
				defer func() { <-slots }()
				if entries[i], errs[i] = p.streamTable(sctx, vw, pt); errs[i] != nil {
					cancel()
				}
			})
			continue
		}
		if entries[i], errs[i] = p.writeLoaded(sctx, vw, pt); errs[i] != nil {
			break
		}
	}
	streams.Wait()
	if err := firstError(ctx, errs); err != nil {
		return nil, err
	}
	for _, e := range entries {
		m.Tables = append(m.Tables, e)
		m.Files = append(m.Files, e.CSV, e.Parquet)
	}
	return m, nil
}

// streamedAtOnce is how many tables read a part at a time are written at
// once.
const streamedAtOnce = 2

// firstError returns the first error of errs that is not a cancellation
// (which another table's error causes), else ctx's error, else the first.
func firstError(ctx context.Context, errs []error) error {
	if err := causeOf(errs...); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// causeOf returns the first of errs that is not a cancellation, nil when
// there is none.
func causeOf(errs ...error) error {
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return nil
}

// writeLoaded writes a table given whole (or loaded whole from its
// source) as CSV and Parquet at the same time.
func (p *plan) writeLoaded(ctx context.Context, vw VersionWriter, pt planTable) (TableEntry, error) {
	t, c := pt.def, pt.cols
	if c == nil {
		var err error
		if c, err = pt.load(ctx); err != nil {
			return TableEntry{}, fmt.Errorf("load %s: %w", t.Name, err)
		}
		if c == nil || c.Table().Name != t.Name {
			return TableEntry{}, fmt.Errorf("%w: the source of %s loaded another table", ErrInvalid, t.Name)
		}
		// Before the encoders start: Sort is not safe beside them.
		if err := c.Sort(); err != nil {
			return TableEntry{}, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
	}
	var csvEntry, pqEntry FileEntry
	var csvErr, pqErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		csvEntry, csvErr = p.writeFile(vw, t.Name+".csv", func(w io.Writer) error { return datasets.WriteCSV(w, c) })
	})
	wg.Go(func() {
		pqEntry, pqErr = p.writeFile(vw, t.Name+".parquet", func(w io.Writer) error { return datasets.WriteParquet(w, c) })
	})
	wg.Wait()
	if err := errors.Join(csvErr, pqErr); err != nil {
		return TableEntry{}, err
	}
	return TableEntry{
		Name: t.Name, Title: t.Title, Description: t.Description,
		Rows: int64(c.Len()), Key: t.Key, Columns: columnEntries(t),
		CSV: csvEntry, Parquet: pqEntry,
	}, nil
}

// streamTable writes a table given a part at a time: each part is
// checked for key order and written to the CSV and the Parquet file at the
// same time, then let go of. A table whose source gives its Parquet file
// has that file copied instead, beside the CSV.
func (p *plan) streamTable(ctx context.Context, vw VersionWriter, pt planTable) (TableEntry, error) {
	t := pt.def
	csvFile, err := p.createFile(vw, t.Name+".csv")
	if err != nil {
		return TableEntry{}, err
	}
	pqFile, err := p.createFile(vw, t.Name+".parquet")
	if err != nil {
		p.finishFile(csvFile, err)
		return TableEntry{}, err
	}
	// Three stages at once: reading the next part, writing a part's CSV,
	// writing a part's Parquet (or copying the Parquet file). A part is
	// handed to the writers before the next is read, so at most three are
	// in memory.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	write := func(parts <-chan *datasets.Columns, w interface{ Write(*datasets.Columns) error }, errp *error) {
		for c := range parts {
			if *errp == nil {
				if *errp = w.Write(c); *errp != nil {
					cancel()
				}
			}
		}
	}
	cw := datasets.NewCSVWriter(csvFile, t)
	csvParts := make(chan *datasets.Columns)
	var csvErr, pqErr error
	var wg sync.WaitGroup
	wg.Go(func() { write(csvParts, cw, &csvErr) })
	var pw *datasets.ParquetWriter
	var pqParts chan *datasets.Columns // nil when the file is copied
	if pt.parquet != nil {
		wg.Go(func() {
			if pqErr = copyParquet(wctx, pqFile, pt.parquet); pqErr != nil {
				cancel()
			}
		})
	} else {
		pw, pqParts = datasets.NewParquetWriter(pqFile, t), make(chan *datasets.Columns)
		wg.Go(func() { write(pqParts, pw, &pqErr) })
	}
	var order datasets.KeyOrder
	var rows int64
	err = pt.groups(wctx, func(c *datasets.Columns) error {
		if err := wctx.Err(); err != nil {
			return err
		}
		if c.Table().Name != t.Name {
			return fmt.Errorf("%w: the source of %s read table %s", ErrInvalid, t.Name, c.Table().Name)
		}
		if err := order.Next(c); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		rows += int64(c.Len())
		csvParts <- c
		if pqParts != nil {
			pqParts <- c
		}
		return nil
	})
	if err != nil {
		cancel() // stops a copy
	}
	close(csvParts)
	if pqParts != nil {
		close(pqParts)
	}
	wg.Wait()
	if werr := causeOf(csvErr, pqErr); werr != nil {
		err = werr // the cause of a cancelled read
	}
	if err == nil {
		err = cw.Close()
		if pw != nil {
			err = errors.Join(err, pw.Close())
		}
	}
	csvEntry, csvErr := p.finishFile(csvFile, err)
	pqEntry, pqErr := p.finishFile(pqFile, err)
	if err := errors.Join(csvErr, pqErr); err != nil {
		return TableEntry{}, fmt.Errorf("table %s: %w", t.Name, err)
	}
	return TableEntry{
		Name: t.Name, Title: t.Title, Description: t.Description,
		Rows: rows, Key: t.Key, Columns: columnEntries(t),
		CSV: csvEntry, Parquet: pqEntry,
	}, nil
}

// copyParquet copies the Parquet file open gives into w, stopping when
// ctx is done (the rows read beside it failed).
func copyParquet(ctx context.Context, w io.Writer, open func(context.Context) (io.ReadCloser, error)) error {
	r, err := open(ctx)
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = io.Copy(w, ctxReader{ctx, r})
	return err
}

// ctxReader reads from r until ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// writeManifest writes the rest of the version folder, manifest.json
// last, and returns the manifest's bytes.
func (p *plan) writeManifest(vw VersionWriter, m *Manifest) ([]byte, error) {
	snap := p.snap
	defs := make([]*datasets.Table, len(p.tables))
	for i, pt := range p.tables {
		defs[i] = pt.def
	}
	pkg, err := encodeJSON(buildDataPackage(m, defs))
	if err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{
		{packageFile, pkg},
		{AttributionFile, []byte(versionAttribution(snap, p.url("data/"+snap.Version+"/")))},
	} {
		e, err := p.writeFile(vw, f.name, func(w io.Writer) error { _, err := w.Write(f.data); return err })
		if err != nil {
			return nil, err
		}
		m.Files = append(m.Files, e)
	}
	slices.SortFunc(m.Files, func(a, b FileEntry) int { return strings.Compare(a.Path, b.Path) })
	m.Notes = slices.Clone(snap.Notes)

	for _, f := range p.files {
		m.API = append(m.API, FileEntry{
			Path: f.Path, Bytes: int64(len(f.Data)), SHA256: sha256Hex(f.Data),
			URL: p.url(f.Path), Frozen: f.Frozen,
		})
	}

	b, err := encodeJSON(m)
	if err != nil {
		return nil, err
	}
	// manifest.json is written once every other file is durable.
	if err := p.waitClosed(); err != nil {
		return nil, err
	}
	w, err := vw.Create(manifestFile)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b, nil
}

// versionAttribution is ATTRIBUTION.txt of a version folder.
func versionAttribution(snap *Snapshot, versionURL string) string {
	return datasetTitle + ", version " + snap.Version + " (method " + snap.MethodVersion + ").\n" +
		"Every file in this folder is licensed " + datasets.License + " (" + datasets.LicenseURL + ").\n" +
		"Attribution: " + datasets.Attribution + "\n" +
		"Cite this exact version: " + versionURL + "\n" +
		"The files of this version never change; data/latest/ always names the newest version.\n"
}
