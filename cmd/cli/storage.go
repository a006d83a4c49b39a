package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"svc/pipeline"
	"svc/publish"
	"svc/publish/bucket"
)

// storage is where a command's files are: the --data folder, or for
// --data s3://bucket/prefix the bucket plus a local cache folder that
// mirrors the part of it a stage works on. Every stage reads and writes
// local files (DuckDB reads local Parquet), so with a bucket a stage pulls
// its inputs from work/<run>/ into the cache first and pushes its outputs
// back after; snapshot publishes straight to the bucket.
//
// Layout under s3://bucket/prefix, as under a local DIR:
//
//	public/...        the published tree (publish/bucket.Store): latest.json,
//	                  not a data/latest symlink
//	public.lock       the snapshot writer's lease
//	work/<run>/...    the run folders the stages hand over through
//
// state/ (serve's inbox) is never in the bucket: serve runs on a local folder.
type storage struct {
	// local is the folder the stages use as DATA: --data itself, or the
	// cache of the bucket.
	local string
	// bucket is nil for a local --data.
	bucket *bucket.Bucket
}

// openStorage resolves --data. For s3:// it connects to the bucket
// (credentials and endpoint from the environment, see bucket.Open) and
// picks the cache folder: --cache-dir, else $SVC_CACHE_DIR, else the
// user's cache folder + /svc, then /<bucket>/<hash of the prefix>, so two
// datasets never share a cache.
func (g *globals) openStorage(ctx context.Context) (*storage, error) {
	if !bucket.IsURL(g.data) {
		return &storage{local: g.data}, nil
	}
	name, prefix, err := bucket.ParseURL(g.data)
	if err != nil {
		return nil, usagef("--data: %v", err)
	}
	base := g.cacheDir // --cache-dir, which falls back to $SVC_CACHE_DIR
	if base == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, usagef("--data %s: no cache folder (%v): set --cache-dir or SVC_CACHE_DIR", g.data, err)
		}
		base = filepath.Join(dir, "svc")
	}
	sum := sha256.Sum256([]byte(prefix))
	local := filepath.Join(base, name, hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(local, 0o755); err != nil {
		return nil, fmt.Errorf("cache folder: %w", err)
	}
	b, err := bucket.Open(ctx, g.data, bucket.Options{})
	if err != nil {
		if errors.Is(err, bucket.ErrInvalid) || errors.Is(err, bucket.ErrNoCredentials) {
			return nil, usagef("--data: %v", err)
		}
		return nil, exitWith(ExitUnreachable, err)
	}
	return &storage{local: local, bucket: b}, nil
}

// runKey is the key prefix of a run folder in the bucket.
func runKey(runID string) string { return "work/" + runID }

// runPaths checks paths relative to a run folder ("run.json", "out",
// "checks/shard-0001.parquet"); none means the whole folder.
func runPaths(runID string, paths []string) ([]string, error) {
	if err := validRunID(runID); err != nil {
		return nil, err
	}
	for _, p := range paths {
		if !bucket.ValidKey(p) || path.Clean(p) != p {
			return nil, fmt.Errorf("run %s: path %q: want a clean relative path", runID, p)
		}
	}
	return paths, nil
}

// pullRunFiles brings the run's files (paths relative to the run folder,
// each a file or a folder; none for the whole run) from the bucket into
// the cache. What the bucket does not have is left to the stage to report
// ("run `svc crawl` first"). A local --data has nothing to pull.
func (s *storage) pullRunFiles(ctx context.Context, runID string, paths ...string) error {
	paths, err := runPaths(runID, paths)
	if err != nil || s.bucket == nil {
		return err
	}
	dir := pipeline.RunDir(s.local, runID)
	if len(paths) == 0 {
		_, err := bucket.Pull(ctx, s.bucket, runKey(runID), dir)
		return err
	}
	for _, p := range paths {
		key := runKey(runID) + "/" + p
		_, err := s.bucket.Stat(ctx, key)
		switch {
		case err == nil:
			_, err = bucket.PullFile(ctx, s.bucket, key, filepath.Join(dir, filepath.FromSlash(p)))
		case errors.Is(err, fs.ErrNotExist):
			_, err = bucket.Pull(ctx, s.bucket, key, filepath.Join(dir, filepath.FromSlash(p)))
		}
		if err != nil {
			return fmt.Errorf("run %s: %w", runID, err)
		}
	}
	return nil
}

// pushRunFiles sends the run's files (as for pullRunFiles) from the cache
// to the bucket; unchanged ones are skipped. A path the stage should have
// written and did not is an error. A local --data has nothing to push.
func (s *storage) pushRunFiles(ctx context.Context, runID string, paths ...string) error {
	paths, err := runPaths(runID, paths)
	if err != nil || s.bucket == nil {
		return err
	}
	dir := pipeline.RunDir(s.local, runID)
	if len(paths) == 0 {
		_, err := bucket.Push(ctx, s.bucket, dir, runKey(runID))
		return err
	}
	for _, p := range paths {
		local := filepath.Join(dir, filepath.FromSlash(p))
		key := runKey(runID) + "/" + p
		fi, err := os.Stat(local)
		switch {
		case err != nil:
		case fi.IsDir():
			_, err = bucket.Push(ctx, s.bucket, local, key)
		default:
			_, err = bucket.PushFile(ctx, s.bucket, local, key)
		}
		if err != nil {
			return fmt.Errorf("run %s: %w", runID, err)
		}
	}
	return nil
}

// pushRunFileOnce sends one run file only if the bucket has none yet, and
// otherwise replaces the local file with the bucket's: of several jobs
// that start the same run (crawl shards creating run.json), the first
// one's file wins and all of them go on with it. It reports whether the
// local file was replaced.
func (s *storage) pushRunFileOnce(ctx context.Context, runID, p string) (replaced bool, err error) {
	if _, err := runPaths(runID, []string{p}); err != nil || s.bucket == nil {
		return false, err
	}
	local := filepath.Join(pipeline.RunDir(s.local, runID), filepath.FromSlash(p))
	data, err := os.ReadFile(local)
	if err != nil {
		return false, fmt.Errorf("run %s: %w", runID, err)
	}
	key := runKey(runID) + "/" + p
	_, err = s.bucket.PutIfAbsent(ctx, key, data)
	if !errors.Is(err, fs.ErrExist) {
		return false, err
	}
	st, err := bucket.PullFile(ctx, s.bucket, key, local)
	if err != nil {
		return false, fmt.Errorf("run %s: %w", runID, err)
	}
	return st.Copied > 0, nil
}

// publishStore is the Store snapshot publishes to: DATA/public, or the
// public/ tree of the bucket (its uploads spooled in the cache).
func (s *storage) publishStore(ctx context.Context) (publish.Store, error) {
	if s.bucket == nil {
		return publish.NewDirStore(filepath.Join(s.local, "public"))
	}
	tmp := filepath.Join(s.local, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	return bucket.NewStore(s.bucket, "public", bucket.StoreOptions{TempDir: tmp})
}
