package cli

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

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
			// A folder, or nothing at all: a missing file must not
			// become an empty folder of its name.
			var objs []bucket.Object
			if objs, err = s.bucket.List(ctx, key+"/"); err == nil && len(objs) > 0 {
				_, err = bucket.Pull(ctx, s.bucket, key, filepath.Join(dir, filepath.FromSlash(p)))
			}
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

// storageAnnotation marks the commands that work on an s3:// --data: the
// pipeline stages, which sync the run folder through the local cache. The
// others (serve, sql, demo, ...) read and write a local folder and refuse
// an s3:// --data with a message saying so.
const storageAnnotation = "svc/s3-data"

// resolveData runs before every command: for an s3:// --data it connects
// to the bucket and points --data at the local cache, so the commands work
// on local files and sync through g.store; a local --data is used as is.
func (g *globals) resolveData(cmd *cobra.Command) error {
	if !bucket.IsURL(g.data) {
		g.store = &storage{local: g.data}
		return nil
	}
	if cmd.Annotations[storageAnnotation] == "" {
		return usagef("--data %s: `svc %s` works on a local folder; an s3:// --data is for the pipeline stages (crawl, validate, aggregate, snapshot, run, schedule). Copy the published tree down (public/) and point --data at the copy.", g.data, cmd.Name())
	}
	st, err := g.openStorage(g.context)
	if err != nil {
		return err
	}
	g.dataURL, g.data, g.store = g.data, st.local, st
	return nil
}

// openRun opens the run for a crawl: with a bucket, the bucket's run.json
// wins (another shard may have started the run), and a run.json created
// here is uploaded only if no other shard got there first.
func (s *storage) openRun(ctx context.Context, runID string, now time.Time) (pipeline.RunInfo, error) {
	if err := s.pullRunFiles(ctx, runID, pipeline.RunInfoFile); err != nil {
		return pipeline.RunInfo{}, err
	}
	ri, err := pipeline.OpenRun(s.local, runID, now)
	if err != nil || s.bucket == nil {
		return ri, err
	}
	replaced, err := s.pushRunFileOnce(ctx, runID, pipeline.RunInfoFile)
	if err != nil || !replaced {
		return ri, err
	}
	return pipeline.ReadRun(s.local, runID)
}

// pullHistory brings the previous run an aggregate compares with into the
// cache: the named one, or the latest earlier run with aggregate output,
// found by reading every run's run.json from the bucket (small files) and
// then fetching only that run's out/tables/. Nothing to do without a
// bucket or with --no-history.
func (s *storage) pullHistory(ctx context.Context, cur pipeline.RunInfo, previous string, noHistory bool) error {
	if s.bucket == nil || noHistory {
		return nil
	}
	if previous != "" {
		return s.pullRunFiles(ctx, previous, pipeline.RunInfoFile, pipeline.OutTables)
	}
	_, runs, err := s.bucket.Dir(ctx, "work")
	if err != nil {
		return err
	}
	var cands []pipeline.RunInfo
	for _, r := range runs {
		id := path.Base(strings.TrimSuffix(r, "/"))
		if id == cur.ID || validRunID(id) != nil {
			continue
		}
		if err := s.pullRunFiles(ctx, id, pipeline.RunInfoFile); err != nil {
			return err
		}
		ri, err := pipeline.ReadRun(s.local, id)
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
		if _, err := s.bucket.Stat(ctx, key); errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return err
		}
		return s.pullRunFiles(ctx, ri.ID, pipeline.OutTables)
	}
	return nil
}

// pullTop brings one folder at the top of the bucket's prefix (such as
// runs/, the browser-shopper runs to import) into the cache; a folder the
// bucket lacks stays absent. A local --data has nothing to pull.
func (s *storage) pullTop(ctx context.Context, dir string) error {
	if s.bucket == nil {
		return nil
	}
	_, err := bucket.Pull(ctx, s.bucket, dir, filepath.Join(s.local, dir))
	return err
}

// runFiles is the storage as the pipeline's stage functions see it.
type runFiles struct{ s *storage }

var _ pipeline.RunFiles = runFiles{}

func (f runFiles) Pull(ctx context.Context, runID string, paths ...string) error {
	return f.s.pullRunFiles(ctx, runID, paths...)
}

func (f runFiles) Push(ctx context.Context, runID string, paths ...string) error {
	return f.s.pushRunFiles(ctx, runID, paths...)
}

func (f runFiles) OpenRun(ctx context.Context, runID string, now time.Time) (pipeline.RunInfo, error) {
	return f.s.openRun(ctx, runID, now)
}

func (f runFiles) PullHistory(ctx context.Context, cur pipeline.RunInfo, previous string, noHistory bool) error {
	return f.s.pullHistory(ctx, cur, previous, noHistory)
}

func (f runFiles) PullTop(ctx context.Context, dir string) error { return f.s.pullTop(ctx, dir) }

func (f runFiles) PublishStore(ctx context.Context) (publish.Store, error) {
	return f.s.publishStore(ctx)
}

// stageEnv is what every pipeline stage function is given from the
// global flags.
func (g *globals) stageEnv(runID string) pipeline.StageEnv {
	return pipeline.StageEnv{DataDir: g.data, RunID: runID, Files: runFiles{g.store}, Out: g.out, ErrOut: g.errOut, Log: g.logger()}
}
