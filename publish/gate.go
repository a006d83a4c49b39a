package publish

// The checks before commit: versions only move forward, the gate against
// the previous snapshot, and every staged file read back.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"sync"
	"sync/atomic"

	"svc/datasets"
)

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
