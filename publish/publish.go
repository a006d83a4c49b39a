// Package publish writes svc's artifact tree (DESIGN.md section 3): one
// immutable snapshot version of every table as CSV and Parquet with its
// manifest.json, datapackage.json and attribution, the data/latest/ alias,
// the precomputed JSON under api/ and the frozen weekly editions.
//
// Publish is the one entry point; the snapshot stage builds a [Snapshot]
// in memory and hands it over. The order of its steps is what makes a
// crash at any point leave the last good snapshot served:
//
//  1. Refuse early, before writing anything: a malformed snapshot, a
//     version older than one already published, a frozen file that exists
//     with other bytes.
//  2. Write the version folder out of sight (Store.NewVersion), fsync every
//     file, read every file back and check its sha256 (and each Parquet
//     footer's row count).
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
	"bufio"
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
	"slices"
	"strings"
	"sync"

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
	// WeeklyDir holds the frozen weekly editions, one per post date.
	WeeklyDir = "api/weekly/agent-checkout"
	// WeeklyLatest is the newest weekly edition, rewritten when a newer
	// edition is published.
	WeeklyLatest = "api/weekly/agent-checkout.json"
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
	// place. store_answers, when present, is published first.
	Tables []*datasets.Columns
	// Files are written under the public root, outside data/<version>/:
	// precomputed JSON under api/, openapi.json, data/svc-100/v1/...
	Files []File
	// Weekly, when set, publishes the weekly figure of one post date.
	Weekly    *Edition
	Changelog []ChangelogEntry
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
	tables []*datasets.Columns // store_answers first
	files  []File              // api files incl. weekly and attributions, sorted by path
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
	unchanged, err := p.checkExisting(ctx, st)
	if err != nil {
		return nil, err
	}

	// 2. Write the version out of sight and check it.
	vw, err := st.NewVersion(ctx, snap.Version)
	if err != nil {
		return nil, err
	}
	defer vw.Abort()
	m, manifestBytes, err := p.writeVersion(ctx, vw)
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
	res := &Result{Manifest: m, Previous: prev}
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
		if unchanged[f.Path] {
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
	if len(snap.Tables) == 0 {
		return nil, fmt.Errorf("%w: no tables", ErrInvalid)
	}
	p := &plan{snap: snap}
	seen := map[string]bool{}
	for _, c := range snap.Tables {
		if c == nil {
			return nil, fmt.Errorf("%w: nil table", ErrInvalid)
		}
		name := c.Table().Name
		if seen[name] {
			return nil, fmt.Errorf("%w: table %s given twice", ErrInvalid, name)
		}
		seen[name] = true
		// Sorting here refuses duplicate keys before anything is written.
		if err := c.Sort(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		if name == datasets.StoreAnswers.Name {
			p.tables = append([]*datasets.Columns{c}, p.tables...)
		} else {
			p.tables = append(p.tables, c)
		}
	}
	for _, ch := range snap.Changelog {
		if err := validDate(ch.Date); err != nil {
			return nil, fmt.Errorf("changelog %s: %w", ch.MethodVersion, err)
		}
	}

	files := slices.Clone(snap.Files)
	if w := snap.Weekly; w != nil {
		if err := validDate(w.Date); err != nil {
			return nil, fmt.Errorf("weekly edition: %w", err)
		}
		files = append(files, File{Path: WeeklyDir + "/" + w.Date + ".json", Data: w.Body, Frozen: true})
	}
	paths := map[string]bool{}
	dirs := map[string]bool{}
	if snap.Weekly != nil {
		dirs[path.Dir(WeeklyLatest)] = true // the alias may be written too
	}
	for _, f := range files {
		if err := checkFilePath(f.Path); err != nil {
			return nil, err
		}
		if paths[f.Path] {
			return nil, fmt.Errorf("%w: file %s given twice", ErrInvalid, f.Path)
		}
		paths[f.Path] = true
		if strings.HasSuffix(f.Path, ".json") && !json.Valid(f.Data) {
			return nil, fmt.Errorf("%w: file %s: not valid JSON", ErrInvalid, f.Path)
		}
		dirs[path.Dir(f.Path)] = true
	}
	for dir := range dirs {
		name := path.Join(dir, AttributionFile)
		if !paths[name] {
			files = append(files, File{Path: name, Data: []byte(apiAttribution)})
		}
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	p.files = files
	return p, ctx.Err()
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

// checkExisting compares the files to write with what is published:
// frozen files may only be new or identical. It returns the paths that
// already hold the right bytes.
func (p *plan) checkExisting(ctx context.Context, st Store) (map[string]bool, error) {
	same := map[string]bool{}
	for _, f := range p.files {
		old, err := readAll(ctx, st, f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f.Path, err)
		}
		if bytes.Equal(old, f.Data) {
			same[f.Path] = true
		} else if f.Frozen {
			return nil, fmt.Errorf("%w: %s (published sha256 %s, new %s)", ErrFrozen, f.Path, sha256Hex(old), sha256Hex(f.Data))
		}
	}
	return same, nil
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

// writeVersion writes every file of the version folder, manifest.json
// last, and returns the manifest and its bytes.
func (p *plan) writeVersion(ctx context.Context, vw VersionWriter) (*Manifest, []byte, error) {
	snap := p.snap
	m := &Manifest{
		Schema:        ManifestSchema,
		Title:         datasetTitle,
		Version:       snap.Version,
		MethodVersion: snap.MethodVersion,
		License:       License{ID: datasets.License, URL: datasets.LicenseURL, Attribution: datasets.Attribution},
		FirstFile:     p.tables[0].Table().Name,
		Files:         []FileEntry{},
		API:           []FileEntry{},
		Changelog:     slices.Clone(snap.Changelog),
	}
	if m.Changelog == nil {
		m.Changelog = []ChangelogEntry{}
	}
	defs := make([]*datasets.Table, len(p.tables))
	for i, c := range p.tables {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		t := c.Table()
		defs[i] = t
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
			return nil, nil, err
		}
		m.Tables = append(m.Tables, TableEntry{
			Name: t.Name, Title: t.Title, Description: t.Description,
			Rows: int64(c.Len()), Key: t.Key, Columns: columnEntries(t),
			CSV: csvEntry, Parquet: pqEntry,
		})
		m.Files = append(m.Files, csvEntry, pqEntry)
	}

	pkg, err := encodeJSON(buildDataPackage(m, defs))
	if err != nil {
		return nil, nil, err
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
			return nil, nil, err
		}
		m.Files = append(m.Files, e)
	}
	slices.SortFunc(m.Files, func(a, b FileEntry) int { return strings.Compare(a.Path, b.Path) })

	for _, f := range p.files {
		m.API = append(m.API, FileEntry{
			Path: f.Path, Bytes: int64(len(f.Data)), SHA256: sha256Hex(f.Data),
			URL: p.url(f.Path), Frozen: f.Frozen,
		})
	}

	b, err := encodeJSON(m)
	if err != nil {
		return nil, nil, err
	}
	w, err := vw.Create(manifestFile)
	if err != nil {
		return nil, nil, err
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return nil, nil, err
	}
	if err := w.Close(); err != nil {
		return nil, nil, err
	}
	return m, b, nil
}

// writeFile writes one file of the version folder through a buffer,
// hashing and counting the bytes on the way.
func (p *plan) writeFile(vw VersionWriter, name string, write func(io.Writer) error) (FileEntry, error) {
	f, err := vw.Create(name)
	if err != nil {
		return FileEntry{}, err
	}
	hw := &hashWriter{w: f, h: sha256.New()}
	bw := bufio.NewWriterSize(hw, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return FileEntry{}, fmt.Errorf("write %s: %w", name, err)
	}
	dir := "data/" + p.snap.Version + "/"
	return FileEntry{
		Path: name, Bytes: hw.n, SHA256: hex.EncodeToString(hw.h.Sum(nil)),
		URL: p.url(dir + name), LatestURL: p.url("data/latest/" + name),
	}, nil
}

func (p *plan) url(rel string) string {
	return strings.TrimSuffix(p.snap.BaseURL, "/") + "/" + rel
}

type hashWriter struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (h *hashWriter) Write(b []byte) (int, error) {
	n, err := h.w.Write(b)
	h.h.Write(b[:n])
	h.n += int64(n)
	return n, err
}

// checkVersion reads back every staged file: sizes and sha256 must match
// what was written, and each Parquet footer must hold the table's row
// count.
func checkVersion(vw VersionWriter, m *Manifest, manifestBytes []byte) error {
	rows := map[string]int64{}
	for _, t := range m.Tables {
		rows[t.Parquet.Path] = t.Rows
	}
	var errs []error
	for _, f := range m.Files {
		r, err := vw.Open(f.Path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var size int64
		var sum string
		if want, ok := rows[f.Path]; ok {
			var b []byte
			b, err = io.ReadAll(r)
			if err == nil {
				size, sum = int64(len(b)), sha256Hex(b)
				var n int64
				n, err = datasets.ParquetNumRows(bytes.NewReader(b), size)
				if err == nil && n != want {
					err = fmt.Errorf("%s: footer has %d rows, want %d: %w", f.Path, n, want, ErrMismatch)
				}
			}
		} else {
			size, sum, err = hashReader(r)
		}
		r.Close()
		if err == nil && (size != f.Bytes || sum != f.SHA256) {
			err = fmt.Errorf("%s: read back %d bytes sha256 %s, wrote %d bytes sha256 %s: %w", f.Path, size, sum, f.Bytes, f.SHA256, ErrMismatch)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
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

// versionAttribution is ATTRIBUTION.txt of a version folder.
func versionAttribution(snap *Snapshot, versionURL string) string {
	return datasetTitle + ", version " + snap.Version + " (method " + snap.MethodVersion + ").\n" +
		"Every file in this folder is licensed " + datasets.License + " (" + datasets.LicenseURL + ").\n" +
		"Attribution: " + datasets.Attribution + "\n" +
		"Cite this exact version: " + versionURL + "\n" +
		"The files of this version never change; data/latest/ always names the newest version.\n"
}
