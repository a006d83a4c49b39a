package publish

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"svc/datasets"
)

// ManifestSchema identifies the shape of manifest.json.
const ManifestSchema = "svc-dataset-manifest/1"

// Manifest is data/<version>/manifest.json, served as
// data/latest/manifest.json (spec 2.16; MCP tool dataset_info). It is
// written last into the version folder and is a function of the snapshot's
// inputs only: no wall-clock time.
type Manifest struct {
	Schema        string  `json:"schema"`        // ManifestSchema
	Title         string  `json:"title"`         // the dataset's name
	Version       string  `json:"version"`       // the snapshot version (date)
	MethodVersion string  `json:"methodVersion"` // version of the measuring method; see changelog
	License       License `json:"license"`
	// FirstFile names the table to use first: store_answers, one plain
	// answer per store. It is also the first entry of Tables.
	FirstFile string       `json:"firstFile"`
	Tables    []TableEntry `json:"tables"`
	// Files lists every file of the version folder but manifest.json
	// itself, sorted by path: the tables, datapackage.json, ATTRIBUTION.txt.
	Files []FileEntry `json:"files"`
	// API lists the precomputed files published with this version, outside
	// the version folder (paths relative to the public root), sorted by
	// path. Their sha256 is the ETag the server sends.
	API       []FileEntry      `json:"api"`
	Changelog []ChangelogEntry `json:"changelog"`
	// Notes say what a reader of this version should know that the files
	// do not show: for example that the weekly edition of its date was
	// published before and kept as it was (KeepPublishedEdition).
	Notes []string `json:"notes,omitempty"`
}

// License says under which terms the data may be reused.
type License struct {
	ID          string `json:"id"` // SPDX: CC-BY-4.0
	URL         string `json:"url"`
	Attribution string `json:"attribution"`
}

// TableEntry describes one published table and its two files.
type TableEntry struct {
	Name        string        `json:"name"`
	Title       string        `json:"title"`
	Description string        `json:"description"`
	Rows        int64         `json:"rows"`
	Key         []string      `json:"key"`
	Columns     []ColumnEntry `json:"columns"`
	CSV         FileEntry     `json:"csv"`
	Parquet     FileEntry     `json:"parquet"`
}

// ColumnEntry documents one column, from the table definition.
type ColumnEntry struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Nullable    bool   `json:"nullable"`
	Description string `json:"description"`
}

// FileEntry is one published file. URL is its immutable address; LatestURL,
// for files of the version folder, its alias under data/latest/.
type FileEntry struct {
	Path      string `json:"path"`
	Bytes     int64  `json:"bytes"`
	SHA256    string `json:"sha256"`
	URL       string `json:"url"`
	LatestURL string `json:"latestUrl,omitempty"`
	Frozen    bool   `json:"frozen,omitempty"` // never rewritten once published
}

// ChangelogEntry is one change of the method, newest first.
type ChangelogEntry struct {
	MethodVersion string   `json:"methodVersion"`
	Date          string   `json:"date"` // YYYY-MM-DD
	Changes       []string `json:"changes"`
}

// encodeJSON is the one JSON encoding of published metadata: two-space
// indent, no HTML escaping, trailing newline.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func columnEntries(t *datasets.Table) []ColumnEntry {
	out := make([]ColumnEntry, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = ColumnEntry{Name: c.Name, Type: c.Type.String(), Nullable: c.Nullable, Description: c.Description}
	}
	return out
}

// ReadManifest reads and parses data/<version>/manifest.json.
func ReadManifest(ctx context.Context, st Store, version string) (*Manifest, []byte, error) {
	if !ValidVersion(version) {
		return nil, nil, fmt.Errorf("read manifest %q: %w", version, ErrInvalid)
	}
	b, err := readAll(ctx, st, "data/"+version+"/manifest.json")
	if err != nil {
		return nil, nil, fmt.Errorf("read manifest %s: %w", version, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, nil, fmt.Errorf("read manifest %s: %w", version, err)
	}
	if m.Schema != ManifestSchema || m.Version != version {
		return nil, nil, fmt.Errorf("read manifest %s: schema %q version %q: %w", version, m.Schema, m.Version, ErrMismatch)
	}
	return &m, b, nil
}

// Verify checks a published version: its manifest parses and every file it
// lists has the recorded size and sha256. It is what the publish gate runs
// on the previous snapshot and what a reader can run on data/latest.
func Verify(ctx context.Context, st Store, version string) (*Manifest, error) {
	m, _, err := ReadManifest(ctx, st, version)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, f := range m.Files {
		if err := checkFile(ctx, st, "data/"+version+"/"+f.Path, f); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return m, fmt.Errorf("verify %s: %w", version, err)
	}
	return m, nil
}

func checkFile(ctx context.Context, st Store, name string, want FileEntry) error {
	r, err := st.Open(ctx, name)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer r.Close()
	size, sum, err := hashReader(r)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if size != want.Bytes || sum != want.SHA256 {
		return fmt.Errorf("%s: %d bytes sha256 %s, manifest says %d bytes sha256 %s: %w",
			name, size, sum, want.Bytes, want.SHA256, ErrMismatch)
	}
	return nil
}

func hashReader(r io.Reader) (int64, string, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return 0, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func readAll(ctx context.Context, st Store, name string) ([]byte, error) {
	r, err := st.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}
