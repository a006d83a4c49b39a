package publish

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unsafe"
)

// tmpPrefix starts the name of every entry a writer has not finished. Such
// entries are never listed or served, and Lock removes them.
const tmpPrefix = ".tmp-"

// DirStore is a Store on a local directory, the DIR/public/ of the design.
// Durability comes from fsync of every file and of every directory whose
// entries change; atomicity from rename(2), which replaces a name in one
// step: a version folder is renamed into place, and data/latest is a
// symlink to the version folder, replaced by renaming a new symlink over
// it.
type DirStore struct {
	root string
	lock string // sibling of root, so it is never published
	// write is every write of a file's bytes (nil: (*os.File).Write):
	// the seam a test injects a full disk through (ENOSPC, as the
	// kernel returns it).
	write func(f *os.File, b []byte) (int, error)
}

func (s *DirStore) writeTo(f *os.File, b []byte) (int, error) {
	if s.write != nil {
		return s.write(f, b)
	}
	return f.Write(b)
}

// NewDirStore returns a DirStore rooted at root (created when missing).
// Its lock file is root + ".lock".
func NewDirStore(root string) (*DirStore, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("dir store %s: %w", root, err)
	}
	if err := mkdirAllSync(abs); err != nil {
		return nil, fmt.Errorf("dir store %s: %w", root, err)
	}
	return &DirStore{root: abs, lock: abs + ".lock"}, nil
}

// Root returns the absolute path of the store's root directory.
func (s *DirStore) Root() string { return s.root }

func (s *DirStore) path(name string) (string, error) {
	if !fs.ValidPath(name) || name == "." {
		return "", fmt.Errorf("path %q: not a clean relative path: %w", name, ErrInvalid)
	}
	return filepath.Join(s.root, filepath.FromSlash(name)), nil
}

// Open implements Store.
func (s *DirStore) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	p, err := s.path(name)
	if err != nil {
		return nil, err
	}
	return os.Open(p)
}

// List implements Store.
func (s *DirStore) List(ctx context.Context, dir string) ([]string, error) {
	p, err := s.path(dir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), tmpPrefix) {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// WriteFile implements Store: a temporary file in the same directory,
// fsync'd, renamed over name, then the directory fsync'd.
func (s *DirStore) WriteFile(ctx context.Context, name string, data []byte) error {
	return s.writeFile(name, data, false)
}

// CreateFile implements Store: like WriteFile, but link(2) instead of
// rename(2), which fails when name exists.
func (s *DirStore) CreateFile(ctx context.Context, name string, data []byte) error {
	return s.writeFile(name, data, true)
}

func (s *DirStore) writeFile(name string, data []byte, exclusive bool) error {
	p, err := s.path(name)
	if err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := mkdirAllSync(dir); err != nil {
		return err
	}
	tmp := filepath.Join(dir, tmpName(filepath.Base(p)))
	if err := s.writeSync(tmp, data); err != nil {
		os.Remove(tmp)
		return err
	}
	if exclusive {
		err = os.Link(tmp, p)
		os.Remove(tmp)
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", name, fs.ErrExist)
		}
	} else {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// NewVersion implements Store: the folder is written as
// data/.tmp-<version>-<random>/ and renamed to data/<version>/ on Commit.
func (s *DirStore) NewVersion(ctx context.Context, version string) (VersionWriter, error) {
	if !ValidVersion(version) {
		return nil, fmt.Errorf("new version %q: %w", version, ErrInvalid)
	}
	data := filepath.Join(s.root, "data")
	if err := mkdirAllSync(data); err != nil {
		return nil, err
	}
	tmp := filepath.Join(data, tmpName(version))
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return nil, err
	}
	return &dirVersion{store: s, tmp: tmp, final: filepath.Join(data, version), data: data}, nil
}

type dirVersion struct {
	store            *DirStore
	tmp, final, data string
	done             bool
}

func (v *dirVersion) file(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." || strings.HasPrefix(name, tmpPrefix) {
		return "", fmt.Errorf("version file %q: want a plain file name: %w", name, ErrInvalid)
	}
	return filepath.Join(v.tmp, name), nil
}

func (v *dirVersion) Create(name string) (io.WriteCloser, error) {
	p, err := v.file(name)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	return &directFile{syncCloser: syncCloser{f}, store: v.store, direct: setDirect(f, true) == nil}, nil
}

// directAlign is the alignment direct I/O wants of a write's memory and
// length (and so of the file offset): 4096 covers every disk's logical
// block size.
const directAlign = 4096

// directFile writes a version file with direct I/O, past the page cache,
// for as long as every write is whole aligned blocks: the publisher hands
// over 1 MB blocks, and the gigabytes of a million stores' CSV then go
// from its buffers to the disk rather than being copied into fresh page
// cache first (at 1M stores that copy was 20 s of the snapshot's CPU on
// our VM). The first other write (a file's last part, or a small file)
// turns direct I/O off and the file is written through the cache from
// there. Close still fsyncs.
type directFile struct {
	syncCloser
	store  *DirStore
	direct bool
}

func (d *directFile) Write(p []byte) (int, error) {
	if d.direct && (len(p)%directAlign != 0 || uintptr(unsafe.Pointer(unsafe.SliceData(p)))%directAlign != 0) {
		if err := setDirect(d.f, false); err != nil {
			return 0, err
		}
		d.direct = false
	}
	return d.store.writeTo(d.f, p)
}

// localFiles marks the folder's files as local (see checkStaged).
func (v *dirVersion) localFiles() {}

func (v *dirVersion) Open(name string) (io.ReadCloser, error) {
	p, err := v.file(name)
	if err != nil {
		return nil, err
	}
	return os.Open(p)
}

func (v *dirVersion) Commit(ctx context.Context) error {
	if v.done {
		return errors.New("version already committed or aborted")
	}
	if err := syncDir(v.tmp); err != nil {
		return err
	}
	// rename(2) would replace an empty directory; the store lock keeps
	// this check and the rename together.
	if _, err := os.Lstat(v.final); err == nil {
		return fmt.Errorf("commit %s: %w", filepath.Base(v.final), fs.ErrExist)
	}
	if err := os.Rename(v.tmp, v.final); err != nil {
		return err
	}
	v.done = true
	return syncDir(v.data)
}

func (v *dirVersion) Abort() error {
	if v.done {
		return nil
	}
	v.done = true
	return os.RemoveAll(v.tmp)
}

// syncCloser makes Close durable.
type syncCloser struct{ f *os.File }

func (s syncCloser) Write(p []byte) (int, error) { return s.f.Write(p) }

func (s syncCloser) Close() error {
	if err := s.f.Sync(); err != nil {
		s.f.Close()
		return err
	}
	return s.f.Close()
}

// Latest implements Store: the target of the data/latest symlink.
func (s *DirStore) Latest(ctx context.Context) (string, error) {
	target, err := os.Readlink(filepath.Join(s.root, "data", "latest"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("latest: %w", err)
	}
	if !ValidVersion(target) {
		return "", fmt.Errorf("latest points at %q, not a version", target)
	}
	return target, nil
}

// SetLatest implements Store: a new relative symlink renamed over
// data/latest, then the data directory fsync'd.
func (s *DirStore) SetLatest(ctx context.Context, version string) error {
	if !ValidVersion(version) {
		return fmt.Errorf("set latest %q: %w", version, ErrInvalid)
	}
	data := filepath.Join(s.root, "data")
	fi, err := os.Lstat(filepath.Join(data, version))
	if err != nil || !fi.IsDir() {
		return fmt.Errorf("set latest %s: no committed version folder: %w", version, fs.ErrNotExist)
	}
	tmp := filepath.Join(data, tmpName("latest"))
	if err := os.Symlink(version, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(data, "latest")); err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(data)
}

func (s *DirStore) removeTemporaries() error {
	var stale []string
	err := filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), tmpPrefix) {
			stale = append(stale, p)
			if d.IsDir() {
				return fs.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("remove temporaries: %w", err)
	}
	for _, p := range stale {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("remove temporaries: %w", err)
		}
	}
	return nil
}

func tmpName(base string) string {
	var b [8]byte
	rand.Read(b[:])
	return tmpPrefix + base + "-" + hex.EncodeToString(b[:])
}

func (s *DirStore) writeSync(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := s.writeTo(f, data); err != nil {
		f.Close()
		return err
	}
	return syncCloser{f}.Close()
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return f.Close()
}

// mkdirAllSync creates dir and its missing parents, fsyncing each parent
// whose entries changed, so a new directory survives a crash.
func mkdirAllSync(dir string) error {
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("%s: not a directory", dir)
		}
		return nil
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		if err := mkdirAllSync(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return syncDir(parent)
}

// cleanName reports whether name is a clean slash path without dot
// segments other than .well-known.
func cleanName(name string) bool {
	if !fs.ValidPath(name) || name == "." || path.Clean(name) != name {
		return false
	}
	for _, seg := range strings.Split(name, "/") {
		if strings.HasPrefix(seg, ".") && seg != ".well-known" {
			return false
		}
	}
	return true
}

// stagedFiles are files outside the version folder written out of sight,
// each a temporary file beside its name, fsync'd: place puts them all in
// place (rename, or link for a frozen file) and discard removes what is
// left. Every byte is written before any name changes, so a disk that
// fills up fails the staging while readers still see the tree as it was;
// the renames that follow need no room.
type stagedFiles struct {
	items []stagedItem
}

type stagedItem struct {
	name, tmp, final string
	frozen           bool
}

// stageFiles writes files out of sight (see stagedFiles).
func (s *DirStore) stageFiles(files []File) (*stagedFiles, error) {
	sf := &stagedFiles{}
	for _, f := range files {
		p, err := s.path(f.Path)
		if err != nil {
			sf.discard()
			return nil, err
		}
		dir := filepath.Dir(p)
		if err := mkdirAllSync(dir); err != nil {
			sf.discard()
			return nil, fmt.Errorf("write %s: %w", f.Path, err)
		}
		tmp := filepath.Join(dir, tmpName(filepath.Base(p)))
		sf.items = append(sf.items, stagedItem{name: f.Path, tmp: tmp, final: p, frozen: f.Frozen})
		if err := s.writeSync(tmp, f.Data); err != nil {
			sf.discard()
			return nil, fmt.Errorf("write %s: %w", f.Path, err)
		}
	}
	return sf, nil
}

// place renames every staged file over its name (a frozen one is linked,
// which fails when the name exists), then fsyncs their directories. It
// returns the names placed.
func (sf *stagedFiles) place() ([]string, error) {
	var placed []string
	dirs := map[string]bool{}
	for len(sf.items) > 0 {
		it := sf.items[0]
		var err error
		if it.frozen {
			err = os.Link(it.tmp, it.final)
			if errors.Is(err, fs.ErrExist) {
				err = fmt.Errorf("create %s: %w", it.name, fs.ErrExist)
			}
			if err == nil {
				os.Remove(it.tmp)
			}
		} else {
			err = os.Rename(it.tmp, it.final)
		}
		if err != nil {
			return placed, fmt.Errorf("write %s: %w", it.name, err)
		}
		sf.items = sf.items[1:]
		placed = append(placed, it.name)
		dirs[filepath.Dir(it.final)] = true
	}
	for d := range dirs {
		if err := syncDir(d); err != nil {
			return placed, err
		}
	}
	return placed, nil
}

// discard removes the staged files not placed.
func (sf *stagedFiles) discard() {
	for _, it := range sf.items {
		os.Remove(it.tmp)
	}
	sf.items = nil
}
