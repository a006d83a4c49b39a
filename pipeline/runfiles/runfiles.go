// Package runfiles keeps a pipeline run's files where the stages hand over
// through: a local data folder, or an S3 bucket with a local cache folder
// that mirrors the part of it a stage works on. Every stage reads and
// writes local files (DuckDB reads local Parquet), so with a bucket a stage
// pulls its inputs from work/<run>/ into the cache first and pushes its
// outputs back after; snapshot publishes straight to the bucket. Files is
// the pipeline.RunFiles the stage functions take.
//
// Layout under s3://bucket/prefix, as under a local DIR:
//
//	public/...        the published tree (publish/bucket.Store): latest.json,
//	                  not a data/latest symlink
//	public.lock       the snapshot writer's lease
//	work/<run>/...    the run folders the stages hand over through
//
// state/ (serve's inbox) is never in the bucket: serve runs on a local folder.
package runfiles

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"svc/pipeline"
	"svc/publish"
	"svc/publish/bucket"
)

// Files is where a run's files are: the local folder the stages use as
// their data folder (a plain --data, or the cache of a bucket) and the
// bucket, nil for a local folder, which then has nothing to pull or push.
type Files struct {
	Local  string
	Bucket *bucket.Bucket
}

var _ pipeline.RunFiles = (*Files)(nil)

// runKey is the key prefix of a run folder in the bucket.
func runKey(runID string) string { return "work/" + runID }

// runPaths checks paths relative to a run folder ("run.json", "out",
// "checks/shard-0001.parquet"); none means the whole folder.
func runPaths(runID string, paths []string) ([]string, error) {
	if err := pipeline.ValidRunID(runID); err != nil {
		return nil, err
	}
	for _, p := range paths {
		if !bucket.ValidKey(p) || path.Clean(p) != p {
			return nil, fmt.Errorf("run %s: path %q: want a clean relative path", runID, p)
		}
	}
	return paths, nil
}

// Pull brings the run's files (paths relative to the run folder,
// each a file or a folder; none for the whole run) from the bucket into
// the cache. What the bucket does not have is left to the stage to report
// ("run `svc crawl` first"). A local --data has nothing to pull.
func (s *Files) Pull(ctx context.Context, runID string, paths ...string) error {
	paths, err := runPaths(runID, paths)
	if err != nil || s.Bucket == nil {
		return err
	}
	dir := pipeline.RunDir(s.Local, runID)
	if len(paths) == 0 {
		_, err := bucket.Pull(ctx, s.Bucket, runKey(runID), dir)
		return err
	}
	for _, p := range paths {
		key := runKey(runID) + "/" + p
		_, err := s.Bucket.Stat(ctx, key)
		switch {
		case err == nil:
			_, err = bucket.PullFile(ctx, s.Bucket, key, filepath.Join(dir, filepath.FromSlash(p)))
		case errors.Is(err, fs.ErrNotExist):
			// A folder, or nothing at all: a missing file must not
			// become an empty folder of its name.
			var objs []bucket.Object
			if objs, err = s.Bucket.List(ctx, key+"/"); err == nil && len(objs) > 0 {
				_, err = bucket.Pull(ctx, s.Bucket, key, filepath.Join(dir, filepath.FromSlash(p)))
			}
		}
		if err != nil {
			return fmt.Errorf("run %s: %w", runID, err)
		}
	}
	return nil
}

// Push sends the run's files (as for Pull) from the cache
// to the bucket; unchanged ones are skipped. A path the stage should have
// written and did not is an error. A local --data has nothing to push.
func (s *Files) Push(ctx context.Context, runID string, paths ...string) error {
	paths, err := runPaths(runID, paths)
	if err != nil || s.Bucket == nil {
		return err
	}
	dir := pipeline.RunDir(s.Local, runID)
	if len(paths) == 0 {
		_, err := bucket.Push(ctx, s.Bucket, dir, runKey(runID))
		return err
	}
	for _, p := range paths {
		local := filepath.Join(dir, filepath.FromSlash(p))
		key := runKey(runID) + "/" + p
		fi, err := os.Stat(local)
		switch {
		case err != nil:
		case fi.IsDir():
			_, err = bucket.Push(ctx, s.Bucket, local, key)
		default:
			_, err = bucket.PushFile(ctx, s.Bucket, local, key)
		}
		if err != nil {
			return fmt.Errorf("run %s: %w", runID, err)
		}
	}
	return nil
}

// pushOnce sends one run file only if the bucket has none yet, and
// otherwise replaces the local file with the bucket's: of several jobs
// that start the same run (crawl shards creating run.json), the first
// one's file wins and all of them go on with it. It reports whether the
// local file was replaced.
func (s *Files) pushOnce(ctx context.Context, runID, p string) (replaced bool, err error) {
	if _, err := runPaths(runID, []string{p}); err != nil || s.Bucket == nil {
		return false, err
	}
	local := filepath.Join(pipeline.RunDir(s.Local, runID), filepath.FromSlash(p))
	data, err := os.ReadFile(local)
	if err != nil {
		return false, fmt.Errorf("run %s: %w", runID, err)
	}
	key := runKey(runID) + "/" + p
	_, err = s.Bucket.PutIfAbsent(ctx, key, data)
	if !errors.Is(err, fs.ErrExist) {
		return false, err
	}
	st, err := bucket.PullFile(ctx, s.Bucket, key, local)
	if err != nil {
		return false, fmt.Errorf("run %s: %w", runID, err)
	}
	return st.Copied > 0, nil
}

// PublishStore is the Store snapshot publishes to: DATA/public, or the
// public/ tree of the bucket (its uploads spooled in the cache).
func (s *Files) PublishStore(ctx context.Context) (publish.Store, error) {
	if s.Bucket == nil {
		return publish.NewDirStore(filepath.Join(s.Local, "public"))
	}
	tmp := filepath.Join(s.Local, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	return bucket.NewStore(s.Bucket, "public", bucket.StoreOptions{TempDir: tmp})
}

// OpenRun opens the run for a crawl: with a bucket, the bucket's run.json
// wins (another shard may have started the run), and a run.json created
// here is uploaded only if no other shard got there first.
func (s *Files) OpenRun(ctx context.Context, runID string, now time.Time) (pipeline.RunInfo, error) {
	if err := s.Pull(ctx, runID, pipeline.RunInfoFile); err != nil {
		return pipeline.RunInfo{}, err
	}
	ri, err := pipeline.OpenRun(s.Local, runID, now)
	if err != nil || s.Bucket == nil {
		return ri, err
	}
	replaced, err := s.pushOnce(ctx, runID, pipeline.RunInfoFile)
	if err != nil || !replaced {
		return ri, err
	}
	return pipeline.ReadRun(s.Local, runID)
}

// PullHistory brings the previous run an aggregate compares with into the
// cache: the named one, or the latest earlier run with aggregate output,
// found by reading every run's run.json from the bucket (small files) and
// then fetching only that run's out/tables/. Nothing to do without a
// bucket or with --no-history.
func (s *Files) PullHistory(ctx context.Context, cur pipeline.RunInfo, previous string, noHistory bool) error {
	if s.Bucket == nil || noHistory {
		return nil
	}
	if previous != "" {
		return s.Pull(ctx, previous, pipeline.RunInfoFile, pipeline.OutTables)
	}
	_, runs, err := s.Bucket.Dir(ctx, "work")
	if err != nil {
		return err
	}
	var cands []pipeline.RunInfo
	for _, r := range runs {
		id := path.Base(strings.TrimSuffix(r, "/"))
		if id == cur.ID || pipeline.ValidRunID(id) != nil {
			continue
		}
		if err := s.Pull(ctx, id, pipeline.RunInfoFile); err != nil {
			return err
		}
		ri, err := pipeline.ReadRun(s.Local, id)
		if err != nil || ri.Date >= cur.Date {
			continue // a run that never started, or not earlier
		}
		cands = append(cands, ri)
	}
	// Latest first, as pipeline.FindPreviousRun orders them.
	slices.SortFunc(cands, func(a, b pipeline.RunInfo) int {
		return cmp.Or(cmp.Compare(b.Date, a.Date), b.Started.Compare(a.Started), cmp.Compare(b.ID, a.ID))
	})
	for _, ri := range cands {
		key := runKey(ri.ID) + "/" + pipeline.OutTables + "/store_answers.parquet"
		if _, err := s.Bucket.Stat(ctx, key); errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return err
		}
		return s.Pull(ctx, ri.ID, pipeline.OutTables)
	}
	return nil
}
