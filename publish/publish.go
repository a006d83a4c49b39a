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
//  5. Write the api files (each atomically), frozen ones only if new. On a
//     local folder their bytes are written out of sight before step 4 and
//     only renamed here: a full disk fails the publication before anything
//     a reader sees has changed.
//  6. Move data/latest/ to the version, atomically.
//
// Re-running Publish over the same inputs writes the same bytes: tables
// are sorted by key, encodings are fixed and nothing records wall-clock
// time. A re-run after a crash completes the interrupted steps.
package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"slices"
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

	// The files outside the version folder are written out of sight now,
	// on a local folder, so that a disk that fills up fails here, before
	// anything a reader sees has changed (steps 4 and 5 then only rename).
	var outside []File
	for _, f := range p.files {
		if !p.same[f.Path] {
			outside = append(outside, f)
		}
	}
	var staged *stagedFiles
	if ds, ok := st.(*DirStore); ok {
		if staged, err = ds.stageFiles(outside); err != nil {
			return nil, err
		}
		defer staged.discard()
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
	if staged != nil {
		if res.Wrote, err = staged.place(); err != nil {
			return nil, err
		}
	} else {
		for _, f := range outside {
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
