package bucket

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"svc/publish"
)

// Mirror keeps a local copy of the public tree of a bucket (the Store under
// root) for svc serve, which reads local files: the lookup index and DuckDB
// open the version's Parquet, and a per-host read must not wait on the
// network. Sync follows data/latest.json:
//
//   - one small GET of latest.json per call; when its ETag is the one seen
//     last, nothing else is read;
//   - for a new version it pulls that version's folder (immutable once
//     committed), every folder beside data/ (api/, pages, .well-known/)
//     and every folder of data/ that is not a version (svc-100/), each
//     file written whole under a temporary name and renamed (Pull);
//   - only then it moves the local data/latest symlink with one rename, so
//     the server, which reloads when data/latest moves, never sees a
//     version half copied; versions older than the one before are removed.
type Mirror struct {
	b     *Bucket
	root  string // key prefix of the tree ("public")
	local string // the local tree (DATA/public of the cache)

	mu      sync.Mutex
	etag    string // of the latest.json last followed
	version string // the version data/latest points at
}

// NewMirror returns the mirror of the tree under the key prefix root into
// the folder local.
func NewMirror(b *Bucket, root, local string) *Mirror {
	return &Mirror{b: b, root: strings.Trim(root, "/"), local: local}
}

// Sync brings the local copy to the version latest.json names. It returns
// that version ("" when the bucket has none yet) and whether data/latest
// moved.
func (m *Mirror) Sync(ctx context.Context) (version string, moved bool, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	data, obj, err := m.b.ReadSmall(ctx, m.key(LatestFile), maxPointer)
	if errors.Is(err, fs.ErrNotExist) {
		return m.version, false, nil
	}
	if err != nil {
		return m.version, false, fmt.Errorf("mirror: %w", err)
	}
	if obj.ETag != "" && obj.ETag == m.etag {
		return m.version, false, nil
	}
	var p latestPointer
	if err := json.Unmarshal(data, &p); err != nil || !publish.ValidVersion(p.Version) {
		return m.version, false, fmt.Errorf("mirror: %s does not name a version", LatestFile)
	}
	v := p.Version
	st, err := publish.NewDirStore(m.local)
	if err != nil {
		return m.version, false, fmt.Errorf("mirror: %w", err)
	}
	if m.version == "" { // a copy left by an earlier process, complete: data/latest moves last
		if cur, err := st.Latest(ctx); err == nil {
			m.version = cur
		}
	}
	if v == m.version {
		m.etag = obj.ETag
		return v, false, nil
	}
	if err := m.pull(ctx, v); err != nil {
		return m.version, false, err
	}
	if err := st.SetLatest(ctx, v); err != nil {
		return m.version, false, fmt.Errorf("mirror: %w", err)
	}
	prev := m.version
	m.version, m.etag = v, obj.ETag
	m.prune(v, prev)
	return v, true, nil
}

func (m *Mirror) key(name string) string {
	if m.root == "" {
		return name
	}
	return m.root + "/" + name
}

// pull copies version v and everything of the tree that is not a version.
func (m *Mirror) pull(ctx context.Context, v string) error {
	if _, err := m.b.Stat(ctx, m.key("data/"+v+"/"+manifestFile)); err != nil {
		return fmt.Errorf("mirror %s: version not committed: %w", v, err)
	}
	if _, err := Pull(ctx, m.b, m.key("data/"+v), filepath.Join(m.local, "data", v)); err != nil {
		return fmt.Errorf("mirror: %w", err)
	}
	// The top of the tree but data/, then data/ but its versions: data/
	// holds every version, and only v is served; data/latest/ holds the
	// bucket's copies of the small files, a symlink here.
	if err := m.pullLevel(ctx, "", func(d string) bool { return d == "data" }); err != nil {
		return err
	}
	return m.pullLevel(ctx, "data", func(d string) bool { return d == "latest" || publish.ValidVersion(d) })
}

// pullLevel copies the files of folder dir of the tree ("" the top) and
// its subfolders but those skip names and the temporary ones.
func (m *Mirror) pullLevel(ctx context.Context, dir string, skip func(string) bool) error {
	at, sub := m.root, func(d string) string { return m.key(d) }
	if dir != "" {
		at, sub = m.key(dir), func(d string) string { return m.key(dir + "/" + d) }
	}
	files, dirs, err := m.b.Dir(ctx, at)
	if err != nil {
		return fmt.Errorf("mirror: %w", err)
	}
	for _, f := range files {
		if err := m.pullFile(ctx, f.Key); err != nil {
			return err
		}
	}
	for _, d := range dirs {
		if skip(d) || strings.HasPrefix(d, tmpPrefix) {
			continue
		}
		if _, err := Pull(ctx, m.b, sub(d), filepath.Join(m.local, dir, d)); err != nil {
			return fmt.Errorf("mirror: %w", err)
		}
	}
	return nil
}

// pullFile copies one object of the tree (its key relative to the bucket
// prefix) to its place under local.
func (m *Mirror) pullFile(ctx context.Context, key string) error {
	rel := strings.TrimPrefix(key, m.key(""))
	if m.root == "" {
		rel = key
	}
	if skipped(rel) {
		return nil
	}
	local, err := filepath.Localize(rel)
	if err != nil || path.IsAbs(rel) {
		return fmt.Errorf("mirror %s: %w", key, ErrInvalid)
	}
	if _, err := PullFile(ctx, m.b, key, filepath.Join(m.local, local)); err != nil {
		return fmt.Errorf("mirror: %w", err)
	}
	return nil
}

// prune removes the local version folders other than cur and prev: a
// request may still read prev's files until the server has reloaded.
func (m *Mirror) prune(cur, prev string) {
	ents, err := os.ReadDir(filepath.Join(m.local, "data"))
	if err != nil {
		return
	}
	for _, e := range ents {
		if n := e.Name(); e.IsDir() && publish.ValidVersion(n) && n != cur && n != prev {
			os.RemoveAll(filepath.Join(m.local, "data", n)) //nolint:errcheck // a cache; the next prune tries again
		}
	}
}
