package publish

// Tests of writing into a store: its lock, the leftovers of a killed
// writer, direct version files and files that fail to close.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocked(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	unlock, err := st.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Publish(ctx, st, testSnapshot(t, "2026-05-04")); !errors.Is(err, ErrLocked) {
		t.Errorf("Publish under another writer's lock = %v, want ErrLocked", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	mustPublish(t, st, testSnapshot(t, "2026-05-04"))
}

func TestLockRemovesTemporaries(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	mustPublish(t, st, testSnapshot(t, "2026-05-04"))
	// What a writer killed mid-way leaves behind.
	vw, err := st.NewVersion(ctx, "2026-05-11")
	if err != nil {
		t.Fatal(err)
	}
	w, _ := vw.Create("stores.csv")
	w.Write([]byte("partial"))
	stale := []string{
		filepath.Join(st.Root(), "api", ".tmp-protocols.json-0011223344556677"),
		filepath.Join(st.Root(), "data", ".tmp-latest-0011223344556677"),
	}
	os.WriteFile(stale[0], []byte("{"), 0o644)
	os.Symlink("2026-05-11", stale[1])
	if names, _ := st.List(ctx, "data"); strings.Join(names, ",") != "2026-05-04,latest,svc-100" {
		t.Errorf("List(data) = %v: temporaries must not be listed", names)
	}
	unlock, err := st.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	for name := range tree(t, st.Root()) {
		if strings.Contains(name, tmpPrefix) {
			t.Errorf("%s survived Lock", name)
		}
	}
}

// TestDirectFile: a version file takes whole aligned blocks past the page
// cache and anything else through it, and holds every byte either way.
func TestDirectFile(t *testing.T) {
	st := newStore(t)
	vw, err := st.NewVersion(context.Background(), "2026-05-04")
	if err != nil {
		t.Fatal(err)
	}
	defer vw.Abort()
	w, err := vw.Create("t.csv")
	if err != nil {
		t.Fatal(err)
	}
	df := w.(*directFile)
	block := make([]byte, asyncBlock) // as the async writer's blocks
	for i := range block {
		block[i] = byte('a' + i%26)
	}
	var want []byte
	for i, p := range [][]byte{block, block, []byte("tail\n"), block} {
		if _, err := df.Write(p); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		want = append(want, p...)
		if i == 1 && !df.direct && setDirect(df.f, true) == nil {
			t.Error("whole aligned blocks were not written with direct I/O")
		}
	}
	if df.direct {
		t.Error("direct I/O still on after an unaligned write")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := vw.Open("t.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("read back %d bytes (%v), want the %d written", len(got), err, len(want))
	}
}

// failingClose is a store whose version files fail to close (their fsync
// or upload), as a full disk would make them.
type failingClose struct{ *DirStore }

func (s failingClose) NewVersion(ctx context.Context, version string) (VersionWriter, error) {
	vw, err := s.DirStore.NewVersion(ctx, version)
	return failingCloseVersion{vw}, err
}

type failingCloseVersion struct{ VersionWriter }

// Create fails the closing of every file but manifest.json, which is
// closed in the foreground, so only the background closes can tell.
func (v failingCloseVersion) Create(name string) (io.WriteCloser, error) {
	w, err := v.VersionWriter.Create(name)
	if err != nil || name == manifestFile {
		return w, err
	}
	return failingCloser{w}, nil
}

type failingCloser struct{ io.WriteCloser }

func (c failingCloser) Close() error {
	c.WriteCloser.Close()
	return errors.New("disk full")
}

// TestCloseFailure: a version file closed in the background that fails
// fails the publication before anything is committed.
func TestCloseFailure(t *testing.T) {
	st := newStore(t)
	_, err := Publish(context.Background(), failingClose{st}, testSnapshot(t, "2026-05-04"))
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("files that fail to close: %v, want their error", err)
	}
	if v, _ := st.Latest(context.Background()); v != "" {
		t.Errorf("files that fail to close published %s", v)
	}
	if _, err := os.Stat(filepath.Join(st.Root(), "data", "2026-05-04")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the version folder exists: %v", err)
	}
}
