package bucket

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"svc/publish"
)

// Names in the tree, as in publish.
const (
	manifestFile = "manifest.json"
	// LatestFile is the pointer object naming the newest version:
	// {"version": "2026-05-04", "manifest": "data/2026-05-04/manifest.json"}.
	LatestFile = "data/latest.json"
	// tmpPrefix starts every segment a writer has not finished (as in
	// DirStore); such objects are never listed and Lock removes them.
	tmpPrefix = ".tmp-"
	// maxPointer bounds latest.json and the lock object when read.
	maxPointer = 4 << 10
	// maxManifest bounds a manifest.json held in memory until Commit.
	maxManifest = 64 << 20
)

// latestCopies are the small files of a version copied under data/latest/
// by SetLatest, manifest.json last: what a CDN in front of the bucket
// serves at /data/latest/... The tables are not copied (see Store).
var latestCopies = []string{"ATTRIBUTION.txt", "datapackage.json", manifestFile}

// Store is the public tree (DIR/public/ of DESIGN.md section 3) in a
// bucket, under the key prefix root. It implements publish.Store with
// the guarantees written in that interface's comment; an object store has
// neither rename nor symlinks, so they come from the order of the writes
// and from conditional PUTs:
//
//   - A version's files are written straight to data/<version>/ and its
//     manifest.json last, on Commit, with a conditional PUT (If-None-Match:
//     *), which is also what makes Commit fail when the version exists. A
//     version exists exactly when its manifest.json does: List and Open
//     ignore a version folder without one, and Lock deletes such leftovers
//     of a killed writer. (When the version is already committed,
//     NewVersion writes to data/.tmp-<version>-<random>/ instead, so
//     Publish can compare without touching the published files.)
//   - data/latest.json is the one pointer to the newest version, replaced
//     by one PUT, which S3 makes atomic. Latest reads it; Open resolves
//     data/latest/<file> through it.
//   - There are no table files under data/latest/: a bucket cannot alias a
//     folder. SetLatest copies the version's small files (manifest.json,
//     datapackage.json, ATTRIBUTION.txt) there before it moves the
//     pointer, so a CDN can serve /data/latest/manifest.json as is; a
//     reader of a table resolves latest.json (or the manifest's own
//     immutable URLs) to data/<version>/<table>. After a crash between the
//     copies and the pointer, the copies may name a newer committed
//     version than latest.json, never an incomplete one; the next publish
//     repairs it.
//   - WriteFile is one PUT (or a multipart upload, which appears whole);
//     CreateFile a conditional PUT.
//   - Lock is a lease object beside the tree (root + ".lock"); see Lock.
type Store struct {
	b       *Bucket
	root    string // "public/"
	lockKey string // "public.lock"
	lease   time.Duration
	now     func() time.Time
	tempDir string

	mu        sync.Mutex
	committed map[string]bool // versions whose manifest.json was seen
}

// StoreOptions configure NewStore.
type StoreOptions struct {
	// Lease is how long the lock holds without renewal; the holder renews
	// it every Lease/3. Default 2 minutes: a killed writer blocks the next
	// one for at most that long.
	Lease time.Duration
	// Now is the clock of the lease; default time.Now.
	Now func() time.Time
	// TempDir holds each version file between Create and Close (it is
	// uploaded from there, so no file is held in memory); default
	// os.TempDir().
	TempDir string
}

// NewStore returns the Store of the tree under the key prefix root
// ("public" for --data s3://bucket/prefix). Its lock object is
// root + ".lock", outside the tree, so it is never published.
func NewStore(b *Bucket, root string, opts StoreOptions) (*Store, error) {
	if !validKey(root) {
		return nil, fmt.Errorf("bucket store %q: root is not a clean key: %w", root, ErrInvalid)
	}
	s := &Store{
		b: b, root: root + "/", lockKey: root + ".lock",
		lease: opts.Lease, now: opts.Now, tempDir: opts.TempDir,
		committed: map[string]bool{},
	}
	if s.lease <= 0 {
		s.lease = 2 * time.Minute
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Bucket returns the bucket the store is in.
func (s *Store) Bucket() *Bucket { return s.b }

func (s *Store) key(name string) (string, error) {
	if !validKey(name) {
		return "", fmt.Errorf("path %q: not a clean relative path: %w", name, publish.ErrInvalid)
	}
	return s.root + name, nil
}

// versionFile splits data/<version>/<file>.
func versionFile(name string) (version, file string, ok bool) {
	segs := strings.Split(name, "/")
	if len(segs) == 3 && segs[0] == "data" && publish.ValidVersion(segs[1]) {
		return segs[1], segs[2], true
	}
	return "", "", false
}

// isCommitted reports whether data/<version>/manifest.json exists. A
// committed version never goes away, so a yes is remembered.
func (s *Store) isCommitted(ctx context.Context, version string) (bool, error) {
	s.mu.Lock()
	ok := s.committed[version]
	s.mu.Unlock()
	if ok {
		return true, nil
	}
	_, err := s.b.Stat(ctx, s.root+"data/"+version+"/"+manifestFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	}
	s.setCommitted(version)
	return true, nil
}

func (s *Store) setCommitted(version string) {
	s.mu.Lock()
	s.committed[version] = true
	s.mu.Unlock()
}

// Open implements publish.Store. data/latest/<file> is resolved through
// latest.json; a file of a version without manifest.json does not exist.
func (s *Store) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if _, err := s.key(name); err != nil {
		return nil, err
	}
	if rest, ok := strings.CutPrefix(name, "data/latest/"); ok {
		v, err := s.Latest(ctx)
		if err != nil {
			return nil, err
		}
		if v == "" {
			return nil, fmt.Errorf("open %s: no latest version: %w", name, fs.ErrNotExist)
		}
		name = "data/" + v + "/" + rest
	}
	if v, file, ok := versionFile(name); ok && file != manifestFile {
		ok, err := s.isCommitted(ctx, v)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("open %s: version %s is not committed: %w", name, v, fs.ErrNotExist)
		}
	}
	r, _, err := s.b.Get(ctx, s.root+name)
	return r, err
}

// List implements publish.Store: files and folders directly under dir,
// without temporaries and without version folders that have no
// manifest.json.
func (s *Store) List(ctx context.Context, dir string) ([]string, error) {
	key, err := s.key(dir)
	if err != nil {
		return nil, err
	}
	files, dirs, err := s.b.Dir(ctx, key)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range files {
		if n := path.Base(f.Key); !strings.HasPrefix(n, tmpPrefix) {
			names = append(names, n)
		}
	}
	for _, d := range dirs {
		if strings.HasPrefix(d, tmpPrefix) {
			continue
		}
		if dir == "data" && publish.ValidVersion(d) {
			ok, err := s.isCommitted(ctx, d)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		names = append(names, d)
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// WriteFile implements publish.Store with one PUT.
func (s *Store) WriteFile(ctx context.Context, name string, data []byte) error {
	key, err := s.key(name)
	if err != nil {
		return err
	}
	_, err = s.b.Put(ctx, key, bytes.NewReader(data), int64(len(data)))
	return err
}

// CreateFile implements publish.Store with a conditional PUT.
func (s *Store) CreateFile(ctx context.Context, name string, data []byte) error {
	key, err := s.key(name)
	if err != nil {
		return err
	}
	if _, err := s.b.PutIfAbsent(ctx, key, data); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", name, fs.ErrExist)
		}
		return err
	}
	return nil
}

// Latest implements publish.Store: the version latest.json names.
func (s *Store) Latest(ctx context.Context) (string, error) {
	data, _, err := s.b.ReadSmall(ctx, s.root+LatestFile, maxPointer)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("latest: %w", err)
	}
	var p latestPointer
	if err := json.Unmarshal(data, &p); err != nil || !publish.ValidVersion(p.Version) {
		return "", fmt.Errorf("latest: %s does not name a version", LatestFile)
	}
	return p.Version, nil
}

// latestPointer is data/latest.json.
type latestPointer struct {
	Version  string `json:"version"`
	Manifest string `json:"manifest"` // data/<version>/manifest.json
}

// SetLatest implements publish.Store: copy the version's small files
// under data/latest/, then replace latest.json with one PUT.
func (s *Store) SetLatest(ctx context.Context, version string) error {
	if !publish.ValidVersion(version) {
		return fmt.Errorf("set latest %q: %w", version, publish.ErrInvalid)
	}
	ok, err := s.isCommitted(ctx, version)
	if err != nil {
		return fmt.Errorf("set latest %s: %w", version, err)
	}
	if !ok {
		return fmt.Errorf("set latest %s: no committed version: %w", version, fs.ErrNotExist)
	}
	for _, f := range latestCopies {
		err := s.b.Copy(ctx, s.root+"data/"+version+"/"+f, s.root+"data/latest/"+f)
		if err != nil && (f == manifestFile || !errors.Is(err, fs.ErrNotExist)) {
			return fmt.Errorf("set latest %s: %w", version, err)
		}
	}
	body, err := json.MarshalIndent(latestPointer{Version: version, Manifest: "data/" + version + "/" + manifestFile}, "", "  ")
	if err != nil {
		return err
	}
	body = append(body, '\n')
	if _, err := s.b.Put(ctx, s.root+LatestFile, bytes.NewReader(body), int64(len(body))); err != nil {
		return fmt.Errorf("set latest %s: %w", version, err)
	}
	return nil
}

// NewVersion implements publish.Store. Files go straight to
// data/<version>/ (invisible until Commit writes manifest.json), or, when
// the version is already committed, to a temporary folder.
func (s *Store) NewVersion(ctx context.Context, version string) (publish.VersionWriter, error) {
	if !publish.ValidVersion(version) {
		return nil, fmt.Errorf("new version %q: %w", version, publish.ErrInvalid)
	}
	exists, err := s.isCommitted(ctx, version)
	if err != nil {
		return nil, fmt.Errorf("new version %s: %w", version, err)
	}
	dir := s.root + "data/" + version + "/"
	if exists {
		dir = s.root + "data/" + tmpName(version) + "/"
	}
	return &versionWriter{s: s, ctx: ctx, version: version, dir: dir, staged: exists, files: map[string]bool{}}, nil
}

type versionWriter struct {
	s       *Store
	ctx     context.Context
	version string
	dir     string // key prefix of the files, ending in "/"
	staged  bool   // the version exists; files are in a temporary folder

	mu       sync.Mutex
	files    map[string]bool // names created, uploaded or not
	manifest []byte          // manifest.json, once closed
	done     bool
}

func checkFileName(name string) error {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." || strings.HasPrefix(name, tmpPrefix) || !validKey(name) {
		return fmt.Errorf("version file %q: want a plain file name: %w", name, publish.ErrInvalid)
	}
	return nil
}

// Create implements publish.VersionWriter. manifest.json is kept in
// memory until Commit; every other file is spooled to a temporary file
// and uploaded by Close.
func (v *versionWriter) Create(name string) (io.WriteCloser, error) {
	if err := checkFileName(name); err != nil {
		return nil, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.done {
		return nil, errors.New("version already committed or aborted")
	}
	if v.files[name] {
		return nil, fmt.Errorf("create %s: %w", name, fs.ErrExist)
	}
	v.files[name] = true
	if name == manifestFile {
		return &manifestWriter{v: v}, nil
	}
	f, err := os.CreateTemp(v.s.tempDir, ".svc-upload-*")
	if err != nil {
		return nil, err
	}
	return &spoolWriter{v: v, key: v.dir + name, f: f}, nil
}

type manifestWriter struct {
	v   *versionWriter
	buf bytes.Buffer
}

func (w *manifestWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > maxManifest {
		return 0, fmt.Errorf("%s: over %d bytes: %w", manifestFile, maxManifest, ErrTooLarge)
	}
	return w.buf.Write(p)
}

func (w *manifestWriter) Close() error {
	w.v.mu.Lock()
	w.v.manifest = bytes.Clone(w.buf.Bytes())
	w.v.mu.Unlock()
	return nil
}

// spoolWriter writes to a local temporary file and uploads it on Close.
type spoolWriter struct {
	v   *versionWriter
	key string
	f   *os.File
}

func (w *spoolWriter) Write(p []byte) (int, error) { return w.f.Write(p) }

func (w *spoolWriter) Close() error {
	defer os.Remove(w.f.Name())
	defer w.f.Close()
	size, err := w.f.Seek(0, io.SeekCurrent)
	if err == nil {
		_, err = w.f.Seek(0, io.SeekStart)
	}
	if err != nil {
		return err
	}
	_, err = w.v.s.b.Put(w.v.ctx, w.key, w.f, size)
	return err
}

// Open implements publish.VersionWriter: it reads back from the bucket
// (manifest.json, not uploaded before Commit, from memory; the server
// checks its bytes against Content-MD5 when Commit writes it).
func (v *versionWriter) Open(name string) (io.ReadCloser, error) {
	if err := checkFileName(name); err != nil {
		return nil, err
	}
	v.mu.Lock()
	created, manifest := v.files[name], v.manifest
	v.mu.Unlock()
	if !created {
		return nil, fmt.Errorf("open %s: %w", name, fs.ErrNotExist)
	}
	if name == manifestFile {
		if manifest == nil {
			return nil, fmt.Errorf("open %s: not closed yet: %w", name, fs.ErrNotExist)
		}
		return io.NopCloser(bytes.NewReader(manifest)), nil
	}
	r, _, err := v.s.b.Get(v.ctx, v.dir+name)
	return r, err
}

// Commit implements publish.VersionWriter: manifest.json with a
// conditional PUT, which fails with fs.ErrExist when the version exists.
func (v *versionWriter) Commit(ctx context.Context) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.done {
		return errors.New("version already committed or aborted")
	}
	if v.manifest == nil {
		return fmt.Errorf("commit %s: no %s written", v.version, manifestFile)
	}
	if v.staged {
		return fmt.Errorf("commit %s: %w", v.version, fs.ErrExist)
	}
	if _, err := v.s.b.PutIfAbsent(ctx, v.dir+manifestFile, v.manifest); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("commit %s: %w", v.version, fs.ErrExist)
		}
		return fmt.Errorf("commit %s: %w", v.version, err)
	}
	v.done = true
	v.s.setCommitted(v.version)
	return nil
}

// Abort implements publish.VersionWriter: it deletes the files written. If
// that fails (or the process dies first), the next Lock does it.
func (v *versionWriter) Abort() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.done {
		return nil
	}
	v.done = true
	// Cleaning up must not depend on the caller's context still being live.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(v.ctx), time.Minute)
	defer cancel()
	if !v.staged {
		// Never delete the files of a committed version, even one that
		// appeared against the lock's promise.
		if _, err := v.s.b.Stat(ctx, v.dir+manifestFile); !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(v.files)) {
		if name != manifestFile {
			errs = append(errs, v.s.b.Delete(ctx, v.dir+name))
		}
	}
	return errors.Join(errs...)
}

// removeLeftovers deletes what a killed writer left in the tree: objects
// under a .tmp- segment, and the files of version folders without
// manifest.json. It runs under the lock.
func (s *Store) removeLeftovers(ctx context.Context) error {
	objs, err := s.b.List(ctx, s.root)
	if err != nil {
		return fmt.Errorf("remove leftovers: %w", err)
	}
	committed := map[string]bool{}
	for _, o := range objs {
		if v, f, ok := versionFile(strings.TrimPrefix(o.Key, s.root)); ok && f == manifestFile {
			committed[v] = true
		}
	}
	var errs []error
	for _, o := range objs {
		rel := strings.TrimPrefix(o.Key, s.root)
		segs := strings.Split(rel, "/")
		stale := slices.ContainsFunc(segs, func(seg string) bool { return strings.HasPrefix(seg, tmpPrefix) })
		if len(segs) >= 3 && segs[0] == "data" && publish.ValidVersion(segs[1]) && !committed[segs[1]] {
			stale = true
		}
		if stale {
			if err := s.b.Delete(ctx, o.Key); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove leftovers: %w", err)
	}
	return nil
}

func tmpName(base string) string {
	return tmpPrefix + base + "-" + randomHex()
}

func randomHex() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
