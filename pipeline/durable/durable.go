// Package durable holds the few file primitives that make svc's writes
// crash-safe: append-only JSON-lines files whose torn last line (a crash
// mid-write) is cut off before the next append, and atomic whole-file
// replacement. The crawl journal and the server's state log both use them.
package durable

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// OpenAppend opens (creating) path for appending JSON lines. When the file
// does not end in a newline, the torn tail after the last newline is cut
// off and synced first, so a new line never glues onto half a record. It
// returns the file positioned at its end and that size.
func OpenAppend(path string, perm os.FileMode) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, perm)
	if err != nil {
		return nil, 0, err
	}
	size, err := repairTail(f)
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("repair %s: %w", path, err)
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		f.Close()
		return nil, 0, err
	}
	if err := SyncDir(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, size, nil
}

// repairTail truncates f after its last newline and returns the new size.
func repairTail(f *os.File) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	const chunk = 64 << 10
	end := size
	for end > 0 {
		start := max(end-chunk, 0)
		buf := make([]byte, end-start)
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			end = start + int64(i) + 1
			break
		}
		end = start
	}
	if end == size {
		return size, nil
	}
	if err := f.Truncate(end); err != nil {
		return 0, err
	}
	return end, f.Sync()
}

// WriteFileAtomic writes data to a temporary file beside path, fsyncs it,
// renames it into place and fsyncs the folder: readers see the old file or
// the new one, never a mix, even across a crash.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return place(path, perm, os.Rename, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// CopyFileAtomic streams the file src to path like WriteFileAtomic.
func CopyFileAtomic(src, path string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return place(path, perm, os.Rename, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

// CreateExclusive writes data to path only if path does not exist yet
// (an error matching fs.ErrExist otherwise). The temporary file is
// hard-linked into place rather than renamed: a reader sees no file or the
// whole file, never a partial one, even across a crash, and of several
// writers exactly one link succeeds.
func CreateExclusive(path string, data []byte, perm os.FileMode) error {
	return place(path, perm, os.Link, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// place writes a temporary file beside path with write, fsyncs it, moves
// it into place with move (rename or link) and fsyncs the folder. The
// temporary file is removed in every case (a no-op after a rename).
func place(path string, perm os.FileMode, move func(tmp, path string) error, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := move(tmp, path); err != nil {
		return err
	}
	return SyncDir(dir)
}

// SyncDir fsyncs a folder, making renames and new files in it durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
