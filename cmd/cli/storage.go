package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"svc/pipeline"
	"svc/pipeline/runfiles"
	"svc/publish/bucket"
)

// storage is where a command's files are (see pipeline/runfiles): the
// --data folder, or for --data s3://bucket/prefix the bucket plus a local
// cache folder.
type storage = runfiles.Files

// openStorage resolves --data. For s3:// it connects to the bucket
// (credentials and endpoint from the environment, see bucket.Open) and
// picks the cache folder: --cache-dir, else $SVC_CACHE_DIR, else the
// user's cache folder + /svc, then /<bucket>/<hash of the prefix>, so two
// datasets never share a cache.
func (g *globals) openStorage(ctx context.Context) (*storage, error) {
	if !bucket.IsURL(g.data) {
		return &storage{Local: g.data}, nil
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
	return &storage{Local: local, Bucket: b}, nil
}

// storageAnnotation marks the commands that work on an s3:// --data: the
// pipeline stages, which sync the run folder through the local cache. The
// others (serve, sql, demo, ...) read and write a local folder and refuse
// an s3:// --data with a message saying so. (svc serve keeps a copy of the
// published tree in the cache and follows latest.json: serve.go.)
const storageAnnotation = "svc/s3-data"

// resolveData runs before every command: for an s3:// --data it connects
// to the bucket and points --data at the local cache, so the commands work
// on local files and sync through g.store; a local --data is used as is.
func (g *globals) resolveData(cmd *cobra.Command) error {
	if !bucket.IsURL(g.data) {
		g.store = &storage{Local: g.data}
		return nil
	}
	if cmd.Annotations[storageAnnotation] == "" {
		return usagef("--data %s: `svc %s` works on a local folder; an s3:// --data is for the pipeline stages (crawl, validate, aggregate, snapshot, run, schedule) and serve. Copy the published tree down (public/) and point --data at the copy.", g.data, cmd.Name())
	}
	st, err := g.openStorage(g.context)
	if err != nil {
		return err
	}
	g.dataURL, g.data, g.store = g.data, st.Local, st
	return nil
}

// stageEnv is what every pipeline stage function is given from the
// global flags.
func (g *globals) stageEnv(runID string) pipeline.StageEnv {
	return pipeline.StageEnv{DataDir: g.data, RunID: runID, Files: g.store, Out: g.out, ErrOut: g.errOut, Log: g.logger()}
}
