// Package publish writes svc's artifact tree (DESIGN.md section 3): one
// immutable snapshot version of every table as CSV and Parquet with its
// manifest.json, datapackage.json and attribution, the data/latest/ alias,
// the precomputed JSON under api/ and the frozen weekly editions.
//
// Publish is the one entry point; the snapshot stage builds a [Snapshot]
// and hands it over. Its tables are in memory, or sources read a part at a
// time while they are written ([TableSource]), so that a snapshot of a
// million stores needs the memory of a row group, not of every table.
// Each table is encoded once; files that show the encoded tables' sizes
// and sha256 (the dataset page) come from [Snapshot.TablePages] once the
// tables are written. The order of its steps is what makes a crash at any
// point leave the last good snapshot served:
//
//  1. Refuse early, before writing anything: a malformed snapshot, a
//     version older than one already published, a frozen file that exists
//     with other bytes.
//  2. Write the version folder out of sight (Store.NewVersion), fsync every
//     file, check every file back: its size and each Parquet footer's row
//     count, and, in a bucket, its sha256 read back over the network.
//     Tables read from sources are checked for key order as they are
//     written; TablePages' files are checked like the others once they
//     are rendered.
//  3. Run the publish gate against the previous snapshot (the one latest/
//     points at): its files still match its manifest, no table and no api
//     file it listed disappears, every frozen file is unchanged.
//  4. Rename the version folder into place. If the version already exists
//     with an identical manifest (same bytes, hence same sha256 of every
//     file), this step is a no-op; with a different one, Publish refuses.
//  5. Write the api files (each atomically), frozen ones only if new.
//  6. Move data/latest/ to the version, atomically.
//
// Re-running Publish over the same inputs writes the same bytes: tables
// are sorted by key, encodings are fixed and nothing records wall-clock
// time. A re-run after a crash completes the interrupted steps.
package publish

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net/url"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"svc/datasets"
)

// Errors Publish wraps, so callers can tell a refusal from a failure.
var (
	// ErrInvalid: the snapshot itself is malformed (bad version, path,
	// JSON, duplicate table, rows that do not fit their table).
	ErrInvalid = errors.New("invalid snapshot")
	// ErrGate: the publish gate refused (versions go backwards, or a
	// previously published file changed or would disappear). latest/ was
	// not moved.
	ErrGate = errors.New("publish gate refused")
	// ErrVersionExists: the version was already published with different
	// content. Publish a new version (for example YYYY-MM-DD.1) instead.
	ErrVersionExists = errors.New("version already published with different content")
	// ErrFrozen: a frozen file (a weekly edition, SVC-100 v1) exists with
	// different bytes; frozen files are never rewritten.
	ErrFrozen = errors.New("frozen file exists with different content")
	// ErrMismatch: a published file does not match its manifest.
	ErrMismatch = errors.New("file does not match its manifest")
	// ErrLocked: another snapshot writer holds the store's lock.
	ErrLocked = errors.New("another snapshot writer holds the lock")
)

// Names in the tree.
const (
	// AttributionFile sits in every directory Publish writes to.
	AttributionFile = "ATTRIBUTION.txt"
	manifestFile    = "manifest.json"
	packageFile     = "datapackage.json"
)

const (
	datasetTitle       = "svc agent-checkout readiness dataset"
	datasetDescription = "Whether AI agents can find products and reach checkout at online stores, measured by svc " +
		"with plain-HTTP checks, UCP profile validation and browser-shopper runs that stop before payment. " +
		"A null means not measured. Validation is not certification."
	apiAttribution = "Files in this folder: " + datasetTitle + ".\n" +
		"Licence: " + datasets.License + " (" + datasets.LicenseURL + ").\n" +
		"Attribution: " + datasets.Attribution + "\n"
)

// Snapshot is everything one publication writes.
type Snapshot struct {
	// Version names the folder data/<version>/: the snapshot date, with
	// an optional .N suffix (see CompareVersions).
	Version string
	// MethodVersion is the version of the measuring method, recorded in
	// the manifest; Changelog says what changed in each.
	MethodVersion string
	// BaseURL prefixes the download URLs in the manifest, for example
	// "https://svc.example"; empty gives root-relative URLs ("/data/...").
	BaseURL string
	// Tables holds one Columns per published table. They are sorted in
	// place. store_answers, when present, is published first, the others
	// in the order given: Tables, then Sources.
	Tables []*datasets.Columns
	// Sources are tables whose rows are loaded only when Publish writes
	// them, one at a time, and let go of before the next: a snapshot
	// then needs the memory of its largest table, not of all of them.
	Sources []TableSource
	// TablePages, when set, renders files that show the tables as
	// written, with their sizes and sha256 (the dataset page). Publish
	// calls it once every table is written, with the manifest's entries of
	// them, and publishes the files it returns like Files: each table is
	// encoded once, not once to learn its sums and again to write it.
	TablePages func(ctx context.Context, tables []TableEntry) ([]File, error)
	// Files are written under the public root, outside data/<version>/:
	// precomputed JSON under api/, openapi.json, data/svc-100/v1/...
	Files []File
	// Weekly, when set, publishes the weekly figure of one post date.
	Weekly    *Edition
	Changelog []ChangelogEntry
	// Notes are written into the manifest as they are (Manifest.Notes).
	Notes []string
}

// TableSource is a table of a snapshot whose rows are read when Publish
// writes it. Rows with duplicate keys fail the publication before anything
// is committed, though after other tables were written out of sight.
type TableSource struct {
	Table *datasets.Table
	// Load returns the table's rows, in any order: Publish sorts them.
	Load func(ctx context.Context) (*datasets.Columns, error)
	// Groups, when set, is used instead of Load: it calls fn with the rows
	// a part at a time (the row groups of a Parquet file, say), in key
	// order, and returns fn's error. Publish writes each part as it comes
	// and keeps none, so a table is written in the memory of one part.
	// Parts out of key order fail the publication with an error matching
	// datasets.ErrUnsorted (then publish the table with Load). The files
	// are those of Load's rows when every part but the last holds a
	// multiple of datasets.RowGroupRows rows.
	Groups func(ctx context.Context, fn func(*datasets.Columns) error) error
	// Parquet, when set beside Groups, opens the table's Parquet file as
	// it is to be published: the file Groups reads, laid out as
	// datasets.WriteParquet lays out these rows (datasets.ParquetCanonical).
	// Publish then copies it rather than encoding the rows a second time;
	// Groups' parts are still checked for key order and written as CSV,
	// and the copy's footer must count the rows they held.
	Parquet func(ctx context.Context) (io.ReadCloser, error)
}

// File is one file outside the version folder. Path is slash-separated and
// relative to the public root. A .json file must hold valid JSON.
type File struct {
	Path string
	Data []byte
	// Frozen files are written once: publishing the same bytes again is a
	// no-op, different bytes are refused with ErrFrozen.
	Frozen bool
}

// Edition is one weekly figure (schema svc-weekly-agent-checkout/1). It is
// published frozen at api/weekly/agent-checkout/<Date>.json, and as
// api/weekly/agent-checkout.json unless a newer edition exists.
type Edition struct {
	Date string // post date, YYYY-MM-DD
	Body []byte // the JSON document
}

// Result reports what Publish did.
type Result struct {
	Manifest *Manifest
	// Previous is the version latest/ pointed at before, "" if none.
	Previous string
	// Created is false when an identical version folder already existed.
	Created bool
	// LatestMoved is false when latest/ already pointed at the version.
	LatestMoved bool
	// Wrote lists the files outside the version folder whose bytes were
	// written; files already holding the same bytes are left alone.
	Wrote []string
	// Notes are the manifest's notes (Snapshot.Notes), for the log.
	Notes []string
}

// Publish writes snap into st; see the package documentation for the
// steps and the guarantees. Refusals wrap ErrInvalid, ErrGate,
// ErrVersionExists, ErrFrozen or ErrLocked.
func Publish(ctx context.Context, st Store, snap *Snapshot) (*Result, error) {
	res, err := publish(ctx, st, snap)
	if err != nil {
		return nil, fmt.Errorf("publish %s: %w", snap.Version, err)
	}
	return res, nil
}

// plan is a validated snapshot.
type plan struct {
	snap   *Snapshot
	tables []planTable // store_answers first
	files  []File      // api files incl. weekly and attributions, sorted by path
	paths  map[string]bool
	dirs   map[string]bool // folders of files, each given an ATTRIBUTION.txt
	same   map[string]bool // files that already hold the right bytes

	// Staged files are closed (made durable: fsync, or the upload) in the
	// background while the next are written; waitClosed waits for them.
	closing  sync.WaitGroup
	closeMu  sync.Mutex
	closeErr error
}

// planTable is one table to write: its rows, or how to read them.
type planTable struct {
	def     *datasets.Table
	cols    *datasets.Columns
	load    func(context.Context) (*datasets.Columns, error)
	groups  func(context.Context, func(*datasets.Columns) error) error
	parquet func(context.Context) (io.ReadCloser, error) // with groups: the file, copied as is
}

func publish(ctx context.Context, st Store, snap *Snapshot) (*Result, error) {
	p, err := newPlan(ctx, snap)
	if err != nil {
		return nil, err
	}
	unlock, err := st.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()

	// 1. Refuse early.
	prev, err := st.Latest(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkForward(ctx, st, snap.Version, prev); err != nil {
		return nil, err
	}
	if err := p.addWeeklyAlias(ctx, st); err != nil {
		return nil, err
	}
	if err := p.checkExisting(ctx, st, p.files); err != nil {
		return nil, err
	}

	// 2. Write the version out of sight and check it.
	vw, err := st.NewVersion(ctx, snap.Version)
	if err != nil {
		return nil, err
	}
	defer vw.Abort()
	defer p.waitClosed() // before Abort
	m, err := p.writeTables(ctx, vw)
	if err != nil {
		return nil, err
	}
	if snap.TablePages != nil {
		files, err := snap.TablePages(ctx, slices.Clone(m.Tables))
		if err != nil {
			return nil, fmt.Errorf("table pages: %w", err)
		}
		added, err := p.addFiles(files)
		if err != nil {
			return nil, err
		}
		if err := p.checkExisting(ctx, st, added); err != nil {
			return nil, err
		}
	}
	manifestBytes, err := p.writeManifest(vw, m)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(vw, m, manifestBytes); err != nil {
		return nil, err
	}

	// 3. The gate.
	if prev != "" && prev != snap.Version {
		if err := gate(ctx, st, prev, m); err != nil {
			return nil, err
		}
	}

	// 4. Into place, unless this exact version is there already.
	res := &Result{Manifest: m, Previous: prev, Notes: m.Notes}
	existing, err := readAll(ctx, st, "data/"+snap.Version+"/"+manifestFile)
	switch {
	case err == nil:
		if !bytes.Equal(existing, manifestBytes) {
			return nil, fmt.Errorf("%w: data/%s/ holds other files (see its manifest.json)", ErrVersionExists, snap.Version)
		}
		if _, err := Verify(ctx, st, snap.Version); err != nil {
			return nil, err
		}
		if err := vw.Abort(); err != nil {
			return nil, err
		}
	case errors.Is(err, fs.ErrNotExist):
		if err := vw.Commit(ctx); err != nil {
			return nil, err
		}
		res.Created = true
	default:
		return nil, err
	}

	// 5. The files outside the version folder.
	for _, f := range p.files {
		if p.same[f.Path] {
			continue
		}
		if f.Frozen {
			err = st.CreateFile(ctx, f.Path, f.Data)
		} else {
			err = st.WriteFile(ctx, f.Path, f.Data)
		}
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", f.Path, err)
		}
		res.Wrote = append(res.Wrote, f.Path)
	}

	// 6. Move latest/.
	if prev != snap.Version {
		if err := st.SetLatest(ctx, snap.Version); err != nil {
			return nil, err
		}
		res.LatestMoved = true
	}
	return res, nil
}

func newPlan(ctx context.Context, snap *Snapshot) (*plan, error) {
	if _, err := parseVersion(snap.Version); err != nil {
		return nil, err
	}
	if snap.MethodVersion == "" {
		return nil, fmt.Errorf("%w: no method version", ErrInvalid)
	}
	if snap.BaseURL != "" {
		u, err := url.Parse(snap.BaseURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("%w: base URL %q: want http(s)://host[/path]", ErrInvalid, snap.BaseURL)
		}
	}
	if len(snap.Tables)+len(snap.Sources) == 0 {
		return nil, fmt.Errorf("%w: no tables", ErrInvalid)
	}
	p := &plan{snap: snap, paths: map[string]bool{}, dirs: map[string]bool{}, same: map[string]bool{}}
	seen := map[string]bool{}
	add := func(t planTable) error {
		name := t.def.Name
		if seen[name] {
			return fmt.Errorf("%w: table %s given twice", ErrInvalid, name)
		}
		seen[name] = true
		if name == datasets.StoreAnswers.Name {
			p.tables = append([]planTable{t}, p.tables...)
		} else {
			p.tables = append(p.tables, t)
		}
		return nil
	}
	for _, c := range snap.Tables {
		if c == nil {
			return nil, fmt.Errorf("%w: nil table", ErrInvalid)
		}
		// Sorting here refuses duplicate keys before anything is written.
		if err := c.Sort(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		if err := add(planTable{def: c.Table(), cols: c}); err != nil {
			return nil, err
		}
	}
	for _, src := range snap.Sources {
		if src.Table == nil || (src.Load == nil && src.Groups == nil) {
			return nil, fmt.Errorf("%w: table source without a table or a reader", ErrInvalid)
		}
		if err := add(planTable{def: src.Table, load: src.Load, groups: src.Groups, parquet: src.Parquet}); err != nil {
			return nil, err
		}
	}
	for _, ch := range snap.Changelog {
		if err := validDate(ch.Date); err != nil {
			return nil, fmt.Errorf("changelog %s: %w", ch.MethodVersion, err)
		}
	}

	files := slices.Clone(snap.Files)
	var dirs []string
	if w := snap.Weekly; w != nil {
		if err := validDate(w.Date); err != nil {
			return nil, fmt.Errorf("weekly edition: %w", err)
		}
		files = append(files, File{Path: WeeklyDir + "/" + w.Date + ".json", Data: w.Body, Frozen: true})
		dirs = append(dirs, path.Dir(WeeklyLatest)) // the alias may be written too
	}
	if _, err := p.addFiles(files, dirs...); err != nil {
		return nil, err
	}
	return p, ctx.Err()
}

// addFiles checks files and adds them to the plan, with an
// ATTRIBUTION.txt in each of their folders (and of dirs) that has none
// yet; it returns the files added.
func (p *plan) addFiles(files []File, dirs ...string) ([]File, error) {
	for _, f := range files {
		if err := checkFilePath(f.Path); err != nil {
			return nil, err
		}
		if p.paths[f.Path] {
			return nil, fmt.Errorf("%w: file %s given twice", ErrInvalid, f.Path)
		}
		p.paths[f.Path] = true
		if strings.HasSuffix(f.Path, ".json") && !json.Valid(f.Data) {
			return nil, fmt.Errorf("%w: file %s: not valid JSON", ErrInvalid, f.Path)
		}
	}
	added := slices.Clone(files)
	for _, f := range files {
		dirs = append(dirs, path.Dir(f.Path))
	}
	for _, d := range dirs {
		added = append(added, p.attribution(d)...)
	}
	p.files = append(p.files, added...)
	slices.SortFunc(p.files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return added, nil
}

// attribution returns the ATTRIBUTION.txt of dir the first time dir is
// seen, unless the snapshot brings its own.
func (p *plan) attribution(dir string) []File {
	if p.dirs[dir] {
		return nil
	}
	p.dirs[dir] = true
	name := path.Join(dir, AttributionFile)
	if p.paths[name] {
		return nil
	}
	p.paths[name] = true
	return []File{{Path: name, Data: []byte(apiAttribution)}}
}

// checkFilePath refuses paths that are not clean or that belong to the
// version folders, latest/ or the store's temporaries.
func checkFilePath(p string) error {
	if !cleanName(p) {
		return fmt.Errorf("%w: file path %q: want a clean relative path without dot segments", ErrInvalid, p)
	}
	if p == WeeklyLatest {
		return fmt.Errorf("%w: file path %s: set Snapshot.Weekly instead", ErrInvalid, p)
	}
	segs := strings.Split(p, "/")
	if segs[0] == "data" && len(segs) > 1 && (strings.HasPrefix(segs[1], "latest") || ValidVersion(segs[1])) {
		return fmt.Errorf("%w: file path %s: inside a version folder or latest/", ErrInvalid, p)
	}
	return nil
}

// addWeeklyAlias adds api/weekly/agent-checkout.json when the edition is
// the newest.
func (p *plan) addWeeklyAlias(ctx context.Context, st Store) error {
	w := p.snap.Weekly
	if w == nil {
		return nil
	}
	names, err := st.List(ctx, WeeklyDir)
	if err != nil {
		return err
	}
	for _, n := range names {
		d, ok := strings.CutSuffix(n, ".json")
		if ok && validDate(d) == nil && d > w.Date {
			return nil // a newer edition stays the current one
		}
	}
	p.files = append(p.files, File{Path: WeeklyLatest, Data: w.Body})
	slices.SortFunc(p.files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return nil
}

// checkExisting compares files to write with what is published: frozen
// files may only be new or identical. It notes the paths that already
// hold the right bytes in p.same.
func (p *plan) checkExisting(ctx context.Context, st Store, files []File) error {
	for _, f := range files {
		old, err := readAll(ctx, st, f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", f.Path, err)
		}
		if bytes.Equal(old, f.Data) {
			p.same[f.Path] = true
		} else if f.Frozen {
			return fmt.Errorf("%w: %s (published sha256 %s, new %s)", ErrFrozen, f.Path, sha256Hex(old), sha256Hex(f.Data))
		}
	}
	return nil
}

// checkForward refuses a version older than latest or than any version
// folder already published.
func checkForward(ctx context.Context, st Store, version, prev string) error {
	newest := prev
	names, err := st.List(ctx, "data")
	if err != nil {
		return err
	}
	for _, n := range names {
		if ValidVersion(n) && CompareVersions(n, newest) > 0 {
			newest = n
		}
	}
	if newest != "" && CompareVersions(version, newest) < 0 {
		return fmt.Errorf("%w: version %s is older than published version %s (versions only move forward)", ErrGate, version, newest)
	}
	return nil
}

// gate compares the new manifest with the previous snapshot's: the previous
// version folder still matches its manifest, no table of it disappears
// from latest/, and every file it published outside the folder is still
// there (frozen ones byte for byte).
func gate(ctx context.Context, st Store, prev string, m *Manifest) error {
	old, err := Verify(ctx, st, prev)
	if err != nil {
		return fmt.Errorf("%w: previous snapshot: %w", ErrGate, err)
	}
	var errs []error
	tables := map[string]bool{}
	for _, t := range m.Tables {
		tables[t.Name] = true
	}
	for _, t := range old.Tables {
		if !tables[t.Name] {
			errs = append(errs, fmt.Errorf("table %s of %s disappears", t.Name, prev))
		}
	}
	// Files outside the version folder are never deleted by Publish, and
	// only frozen ones are immutable; the others (adoption.json, ...) are
	// rewritten by design.
	for _, f := range old.API {
		err := checkFile(ctx, st, f.Path, f)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			errs = append(errs, fmt.Errorf("file %s published with %s disappeared", f.Path, prev))
		case err != nil && f.Frozen:
			errs = append(errs, fmt.Errorf("frozen file changed: %w", err))
		case err != nil && !errors.Is(err, ErrMismatch):
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w: %w", ErrGate, err)
	}
	return nil
}

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

// writeFile writes one file of the version folder through a buffer,
// hashing and counting the bytes on the way.
func (p *plan) writeFile(vw VersionWriter, name string, write func(io.Writer) error) (FileEntry, error) {
	f, err := p.createFile(vw, name)
	if err != nil {
		return FileEntry{}, err
	}
	return p.finishFile(f, write(f))
}

// stagedFile is a file of the version folder being written: its bytes
// are gathered into large blocks, each hashed, counted and written by a
// goroutine of its own, so that encoding the next bytes (CSV formatting,
// say) overlaps them.
type stagedFile struct {
	name string
	f    io.WriteCloser
	aw   *asyncWriter
}

func (p *plan) createFile(vw VersionWriter, name string) (*stagedFile, error) {
	f, err := vw.Create(name)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", name, err)
	}
	return &stagedFile{name: name, f: f, aw: newAsyncWriter(f)}, nil
}

func (s *stagedFile) Write(b []byte) (int, error) { return s.aw.Write(b) }

// finishFile flushes a staged file (err: the write failed), starts
// closing it in the background (waitClosed) and returns its manifest entry.
func (p *plan) finishFile(s *stagedFile, err error) (FileEntry, error) {
	if aerr := s.aw.close(); err == nil {
		err = aerr
	}
	if err != nil {
		s.f.Close()
		return FileEntry{}, fmt.Errorf("write %s: %w", s.name, err)
	}
	// A file's fsync waits for its bytes to reach the disk, hundreds of
	// megabytes for a large CSV: the next table is written meanwhile.
	p.closing.Go(func() {
		if err := s.f.Close(); err != nil {
			p.closeMu.Lock()
			p.closeErr = errors.Join(p.closeErr, fmt.Errorf("write %s: %w", s.name, err))
			p.closeMu.Unlock()
		}
	})
	dir := "data/" + p.snap.Version + "/"
	return FileEntry{
		Path: s.name, Bytes: s.aw.n, SHA256: hex.EncodeToString(s.aw.h.Sum(nil)),
		URL: p.url(dir + s.name), LatestURL: p.url("data/latest/" + s.name),
	}, nil
}

// waitClosed waits until every staged file is closed and returns the
// errors of those that failed.
func (p *plan) waitClosed() error {
	p.closing.Wait()
	p.closeMu.Lock()
	defer p.closeMu.Unlock()
	return p.closeErr
}

func (p *plan) url(rel string) string {
	return strings.TrimSuffix(p.snap.BaseURL, "/") + "/" + rel
}

// asyncBlock is the size of the blocks an asyncWriter hands over.
const asyncBlock = 1 << 20

// asyncWriter gathers what it is given into blocks of asyncBlock bytes
// and hashes, counts and writes each in a goroutine of its own: Write
// copies the bytes (the one copy they get before the write) and returns at
// once, and close writes the last block and returns the first error.
type asyncWriter struct {
	w    io.Writer
	h    hash.Hash
	n    int64 // bytes written, read after close
	err  error // read after close
	cur  []byte
	ch   chan []byte
	free chan []byte
	done chan struct{}
}

func newAsyncWriter(w io.Writer) *asyncWriter {
	a := &asyncWriter{w: w, h: sha256.New(), ch: make(chan []byte, 2), free: make(chan []byte, 4), done: make(chan struct{})}
	go func() {
		defer close(a.done)
		for b := range a.ch {
			if a.err == nil {
				a.h.Write(b)
				var n int
				n, a.err = a.w.Write(b)
				a.n += int64(n)
			}
			select {
			case a.free <- b[:0]:
			default:
			}
		}
	}()
	return a
}

func (a *asyncWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if a.cur == nil {
			select {
			case a.cur = <-a.free:
			default:
				a.cur = make([]byte, 0, asyncBlock)
			}
		}
		k := min(len(p), asyncBlock-len(a.cur))
		a.cur = append(a.cur, p[:k]...)
		p = p[k:]
		if len(a.cur) == asyncBlock {
			a.ch <- a.cur
			a.cur = nil
		}
	}
	return n, nil
}

func (a *asyncWriter) close() error {
	if len(a.cur) > 0 {
		a.ch <- a.cur
		a.cur = nil
	}
	close(a.ch)
	<-a.done
	return a.err
}

// checkVersion reads back every staged file: sizes and sha256 must match
// what was written, and each Parquet footer must hold the table's row
// count.
func checkVersion(vw VersionWriter, m *Manifest, manifestBytes []byte) error {
	rows := map[string]int64{}
	for _, t := range m.Tables {
		rows[t.Parquet.Path] = t.Rows
	}
	// Files are read back on every core: most of the time is sha256.
	errs := make([]error, len(m.Files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(m.Files)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(m.Files) {
					return
				}
				f := m.Files[i]
				want, isParquet := rows[f.Path]
				errs[i] = checkStaged(vw, f, want, isParquet)
			}
		})
	}
	wg.Wait()
	r, err := vw.Open(manifestFile)
	if err == nil {
		var b []byte
		b, err = io.ReadAll(r)
		r.Close()
		if err == nil && !bytes.Equal(b, manifestBytes) {
			err = fmt.Errorf("%s: read back other bytes: %w", manifestFile, ErrMismatch)
		}
	}
	if err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("check staged version: %w", err)
	}
	return nil
}

// checkStaged reads back one staged file: its size and sha256, and for a
// Parquet file the row count of its footer. A file of a local folder
// (localFiles) is checked by its size and footer only.
func checkStaged(vw VersionWriter, f FileEntry, wantRows int64, isParquet bool) error {
	r, err := vw.Open(f.Path)
	if err != nil {
		return err
	}
	defer r.Close()
	if _, ok := vw.(localFiles); ok {
		return checkLocal(r, f, wantRows, isParquet)
	}
	var size int64
	var sum string
	if isParquet {
		// The footer is read in place when the store's reader can (a
		// local file), rather than the whole file held in memory.
		var ra io.ReaderAt
		if x, ok := r.(io.ReaderAt); ok {
			ra = x
			size, sum, err = hashReader(r)
		} else {
			var b []byte
			b, err = io.ReadAll(r)
			size, sum, ra = int64(len(b)), sha256Hex(b), bytes.NewReader(b)
		}
		if err == nil {
			err = checkFooterRows(ra, size, f, wantRows)
		}
	} else {
		size, sum, err = hashReader(r)
	}
	if err == nil && (size != f.Bytes || sum != f.SHA256) {
		err = fmt.Errorf("%s: read back %d bytes sha256 %s, wrote %d bytes sha256 %s: %w", f.Path, size, sum, f.Bytes, f.SHA256, ErrMismatch)
	}
	return err
}

// localFiles is implemented by a VersionWriter whose files are in a local
// folder, durable once closed (fsync). The check before commit then
// compares each file's size and Parquet footer without reading every byte
// back to hash it: that read would come from the page cache the write has
// just filled, not from the disk, so it could find no fault that the hash
// taken on the way out and a successful fsync do not already rule out,
// and at 300,000 stores it was a fifth of the snapshot's CPU time. (A
// bucket's files are read back in full: that read crosses the network.)
type localFiles interface{ localFiles() }

// checkLocal checks a staged local file by its size and, for a Parquet
// file, its footer's row count.
func checkLocal(r io.ReadCloser, f FileEntry, wantRows int64, isParquet bool) error {
	st, ok := r.(interface {
		io.ReaderAt
		Stat() (fs.FileInfo, error)
	})
	if !ok {
		return fmt.Errorf("%s: local file cannot be stat'ed", f.Path)
	}
	fi, err := st.Stat()
	if err != nil {
		return err
	}
	if fi.Size() != f.Bytes {
		return fmt.Errorf("%s: %d bytes on disk, wrote %d: %w", f.Path, fi.Size(), f.Bytes, ErrMismatch)
	}
	if !isParquet {
		return nil
	}
	return checkFooterRows(st, fi.Size(), f, wantRows)
}

// checkFooterRows checks that the footer of a staged Parquet file counts
// the rows written.
func checkFooterRows(r io.ReaderAt, size int64, f FileEntry, wantRows int64) error {
	n, err := datasets.ParquetNumRows(r, size)
	if err == nil && n != wantRows {
		err = fmt.Errorf("%s: footer has %d rows, want %d: %w", f.Path, n, wantRows, ErrMismatch)
	}
	return err
}

// versionAttribution is ATTRIBUTION.txt of a version folder.
func versionAttribution(snap *Snapshot, versionURL string) string {
	return datasetTitle + ", version " + snap.Version + " (method " + snap.MethodVersion + ").\n" +
		"Every file in this folder is licensed " + datasets.License + " (" + datasets.LicenseURL + ").\n" +
		"Attribution: " + datasets.Attribution + "\n" +
		"Cite this exact version: " + versionURL + "\n" +
		"The files of this version never change; data/latest/ always names the newest version.\n"
}
