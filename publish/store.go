package publish

import (
	"context"
	"io"
)

// Store is where an artifact tree lives: the DIR/public/ of DESIGN.md
// section 3. Names are slash-separated paths relative to that root
// ("data/2026-05-04/manifest.json", "api/protocols.json").
//
// The interface is small on purpose: it is everything Publish needs, and
// nothing that only a file system can do. [DirStore] implements it on a
// local directory, and bucket.Store (package publish/bucket) on an
// S3-compatible bucket. An object store (issue 11: s3://) has neither
// rename nor symlinks, so there the same guarantees come from ordering:
//
//   - NewVersion writes objects under data/<version>/ with manifest.json
//     last, on Commit; a version exists exactly when its manifest.json does,
//     and readers ignore a version folder without one.
//   - SetLatest writes one small pointer object (for example
//     data/latest.json naming the version) in a single PUT, which object
//     stores make atomic; data/latest/<file> is then served by the server or
//     CDN as a redirect or copy of data/<version>/<file>.
//   - WriteFile is a single PUT; CreateFile is a conditional PUT
//     (If-None-Match: *).
//   - Lock is a lease object or the scheduler's guarantee of one writer.
type Store interface {
	// Open opens a published file for reading; a missing file is an error
	// matching fs.ErrNotExist.
	Open(ctx context.Context, name string) (io.ReadCloser, error)
	// List returns the names of the entries directly under dir, sorted;
	// a missing dir has none. Temporary entries are never listed.
	List(ctx context.Context, dir string) ([]string, error)
	// WriteFile replaces name with data, atomically and durably: a reader
	// sees the old bytes or the new, never a mix, and a crash after
	// WriteFile returns loses nothing.
	WriteFile(ctx context.Context, name string, data []byte) error
	// CreateFile writes name like WriteFile, but only if it does not exist
	// yet; otherwise it fails with an error matching fs.ErrExist and
	// leaves the existing file alone.
	CreateFile(ctx context.Context, name string, data []byte) error
	// NewVersion starts writing the version folder data/<version>/ out of
	// sight of readers.
	NewVersion(ctx context.Context, version string) (VersionWriter, error)
	// Latest returns the version data/latest/ points at, or "" when there
	// is none yet.
	Latest(ctx context.Context) (string, error)
	// SetLatest points data/latest/ at a committed version, atomically: a
	// reader resolves it to the old version or the new, never to a mix.
	SetLatest(ctx context.Context, version string) error
	// Lock makes the caller the only snapshot writer until unlock is
	// called (or the process dies), and clears what an earlier writer
	// killed mid-way left behind. It fails at once with ErrLocked when
	// another writer holds the lock.
	Lock(ctx context.Context) (unlock func() error, err error)
}

// VersionWriter writes one version folder. Files are invisible until
// Commit; Abort (or a crash) leaves no trace that readers can see.
type VersionWriter interface {
	// Create creates a new file in the folder (a plain name, no slash).
	// Its Close makes the bytes durable.
	Create(name string) (io.WriteCloser, error)
	// Open reads back a file written with Create, for the pre-commit check.
	Open(name string) (io.ReadCloser, error)
	// Commit publishes the folder as data/<version>/, atomically. It fails
	// with an error matching fs.ErrExist when that version exists.
	Commit(ctx context.Context) error
	// Abort discards the folder. It is a no-op after Commit.
	Abort() error
}
