package publish

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The disk fills during a snapshot (issue 36), at every write of a
// publication in turn: the k-th write of a file's bytes writes half of
// them and fails with ENOSPC, as the kernel does, through DirStore's write
// seam. Whichever write it is, the run fails with an error that names the
// path and says the disk is full, the tree is as it was before (the
// previous version, latest/ and every file outside data/ byte for byte,
// nothing left behind), and once there is room again the same
// publication succeeds and writes the tree a publication without the
// fault writes. TestSnapshotDiskFullTmpfs (cmd/cli) fills a real tmpfs.

// treeSums maps every entry under root to what it holds: a file's sha256,
// a symlink's target, "dir".
func treeSums(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] = "-> " + target
			return err
		case d.IsDir():
			out[rel] = "dir"
		default:
			b, err := os.ReadFile(p)
			sum := sha256.Sum256(b)
			out[rel] = hex.EncodeToString(sum[:])
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// diffTrees lists what differs between two trees, a few entries.
func diffTrees(a, b map[string]string) string {
	var d []string
	for p, s := range a {
		if b[p] != s {
			d = append(d, fmt.Sprintf("%s: %q -> %q", p, s, b[p]))
		}
	}
	for p, s := range b {
		if _, ok := a[p]; !ok {
			d = append(d, fmt.Sprintf("%s: new %q", p, s))
		}
	}
	if len(d) > 6 {
		d = append(d[:6], fmt.Sprintf("and %d more", len(d)-6))
	}
	return strings.Join(d, "; ")
}

// fullDisk fails the after-th write call (counting from 0) and every one
// after it with ENOSPC, once half the bytes of the failing call are written.
type fullDisk struct {
	calls, after int
}

func (d *fullDisk) write(f *os.File, b []byte) (int, error) {
	d.calls++
	if d.calls <= d.after {
		return f.Write(b)
	}
	n, err := f.Write(b[:len(b)/2])
	if err != nil {
		return n, err
	}
	return n, &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
}

func TestPublishDiskFull(t *testing.T) {
	ctx := context.Background()
	const v1, v2 = "2026-05-04", "2026-05-11"
	published := func(t *testing.T) *DirStore {
		t.Helper()
		st, err := NewDirStore(filepath.Join(t.TempDir(), "public"))
		if err != nil {
			t.Fatal(err)
		}
		mustPublish(t, st, testSnapshot(t, v1))
		return st
	}

	// The writes of a publication of v2 without the fault, and its tree.
	clean := published(t)
	count := &fullDisk{after: 1 << 30}
	clean.write = count.write
	mustPublish(t, clean, testSnapshot(t, v2))
	want := treeSums(t, clean.Root())
	writes := count.calls
	if writes < 10 {
		t.Fatalf("a publication wrote %d times: the seam sees too little", writes)
	}

	for k := range writes {
		st := published(t)
		before := treeSums(t, st.Root())
		st.write = (&fullDisk{after: k}).write
		_, err := Publish(ctx, st, testSnapshot(t, v2))
		if err == nil {
			t.Fatalf("write %d of %d failed with ENOSPC, and Publish succeeded", k+1, writes)
		}
		if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), st.Root()) || !strings.Contains(err.Error(), "no space left on device") {
			t.Errorf("write %d of %d: the error does not name the path and the full disk: %v", k+1, writes, err)
		}
		if got, err := st.Latest(ctx); err != nil || got != v1 {
			t.Errorf("write %d of %d: latest is %q (%v), want %s", k+1, writes, got, err, v1)
		}
		if _, err := Verify(ctx, st, v1); err != nil {
			t.Errorf("write %d of %d: the previous version: %v", k+1, writes, err)
		}
		if after := treeSums(t, st.Root()); diffTrees(before, after) != "" {
			t.Errorf("write %d of %d (%v): the tree changed: %s", k+1, writes, err, diffTrees(before, after))
		}

		// Room again: the same run publishes what a run without the
		// fault publishes.
		st.write = nil
		if _, err := Publish(ctx, st, testSnapshot(t, v2)); err != nil {
			t.Fatalf("write %d of %d: the run after the disk has room again: %v", k+1, writes, err)
		}
		if after := treeSums(t, st.Root()); diffTrees(want, after) != "" {
			t.Errorf("write %d of %d: the run after the fault wrote another tree: %s", k+1, writes, diffTrees(want, after))
		}
	}
}
