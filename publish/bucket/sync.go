package bucket

import (
	"cmp"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// syncWorkers is how many files Pull and Push move at a time.
const syncWorkers = 4

// SyncStats counts what Pull or Push did.
type SyncStats struct {
	Copied  int   // files transferred
	Skipped int   // files already the same on both sides
	Bytes   int64 // bytes transferred
}

// skipped reports whether Pull and Push leave a relative path alone: a
// temporary file (its name starts with ".", like the .name.tmp-* of an
// atomic write) or anything in a folder a writer has not finished
// (.tmp-*). .well-known/ and the like are synced.
func skipped(rel string) bool {
	segs := strings.Split(rel, "/")
	if strings.HasPrefix(segs[len(segs)-1], ".") {
		return true
	}
	for _, seg := range segs[:len(segs)-1] {
		if strings.HasPrefix(seg, tmpPrefix) {
			return true
		}
	}
	return false
}

// folder turns a key prefix naming a folder into a listing prefix.
func folder(prefix string) (string, error) {
	if prefix == "" {
		return "", nil
	}
	if !validKey(prefix) {
		return "", fmt.Errorf("prefix %q: not a clean key: %w", prefix, ErrInvalid)
	}
	return prefix + "/", nil
}

// Pull downloads every object under the folder prefix ("" for the whole
// bucket prefix) into localDir, at the same relative paths. A local file
// with the object's size and content (its MD5 against the ETag) is left
// alone; every other file is written to a temporary name beside it,
// checked, and renamed into place, so a reader never sees a partial
// file. Files only present locally are kept. Object keys cannot escape
// localDir: they are checked, and the files are opened through os.Root.
func Pull(ctx context.Context, b *Bucket, prefix, localDir string) (SyncStats, error) {
	var st SyncStats
	dir, err := folder(prefix)
	if err != nil {
		return st, fmt.Errorf("pull: %w", err)
	}
	objs, err := b.List(ctx, dir)
	if err != nil {
		return st, fmt.Errorf("pull %s: %w", prefix, err)
	}
	if err := os.MkdirAll(localDir, 0o755); err != nil {
		return st, fmt.Errorf("pull %s: %w", prefix, err)
	}
	root, err := os.OpenRoot(localDir)
	if err != nil {
		return st, fmt.Errorf("pull %s: %w", prefix, err)
	}
	defer root.Close()
	var jobs []func(context.Context) (bool, int64, error)
	for _, o := range objs {
		rel := strings.TrimPrefix(o.Key, dir)
		if skipped(rel) {
			continue
		}
		jobs = append(jobs, func(ctx context.Context) (bool, int64, error) { return pullOne(ctx, b, root, o, rel) })
	}
	st, err = run(ctx, jobs)
	if err != nil {
		return st, fmt.Errorf("pull %s to %s: %w", b.String()+"/"+prefix, localDir, err)
	}
	return st, nil
}

// PullFile downloads the object key to the file localPath, like Pull.
func PullFile(ctx context.Context, b *Bucket, key, localPath string) (SyncStats, error) {
	o, err := b.Stat(ctx, key)
	if err != nil {
		return SyncStats{}, fmt.Errorf("pull %s: %w", key, err)
	}
	dir, base := filepath.Split(localPath)
	if err := os.MkdirAll(cmp.Or(dir, "."), 0o755); err != nil {
		return SyncStats{}, fmt.Errorf("pull %s: %w", key, err)
	}
	root, err := os.OpenRoot(cmp.Or(dir, "."))
	if err != nil {
		return SyncStats{}, fmt.Errorf("pull %s: %w", key, err)
	}
	defer root.Close()
	copied, n, err := pullOne(ctx, b, root, o, base)
	if err != nil {
		return SyncStats{}, fmt.Errorf("pull %s: %w", key, err)
	}
	return stats(copied, n), nil
}

func stats(copied bool, n int64) SyncStats {
	if copied {
		return SyncStats{Copied: 1, Bytes: n}
	}
	return SyncStats{Skipped: 1}
}

// pullOne downloads o to rel under root unless it is there already.
func pullOne(ctx context.Context, b *Bucket, root *os.Root, o Object, rel string) (copied bool, n int64, err error) {
	local, err := filepath.Localize(rel)
	if err != nil {
		return false, 0, fmt.Errorf("%s: %w", o.Key, ErrInvalid)
	}
	if fi, err := root.Stat(local); err == nil && fi.Mode().IsRegular() && fi.Size() == o.Size {
		if same, err := fileMatches(root, local, o.Size, o.ETag); err != nil {
			return false, 0, err
		} else if same {
			return false, 0, nil
		}
	}
	if d := filepath.Dir(local); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return false, 0, err
		}
	}
	r, info, err := b.Get(ctx, o.Key)
	if err != nil {
		return false, 0, err
	}
	defer r.Close()
	tmp := filepath.Join(filepath.Dir(local), "."+filepath.Base(local)+".pull-"+randomHex())
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return false, 0, err
	}
	defer root.Remove(tmp) // fails harmlessly after the rename
	h := md5.New()
	n, err = io.Copy(io.MultiWriter(f, h), io.LimitReader(r, info.Size+1))
	if err == nil && n != info.Size {
		err = fmt.Errorf("%s: read %d bytes, the object has %d", o.Key, n, info.Size)
	}
	if err == nil && isPlainMD5(info.ETag) && hex.EncodeToString(h.Sum(nil)) != info.ETag {
		err = fmt.Errorf("%s: downloaded bytes do not match the ETag", o.Key)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, local)
	}
	if err != nil {
		return false, 0, err
	}
	return true, n, nil
}

// Push uploads every regular file under localDir to the folder prefix
// ("" for the whole bucket prefix), at the same relative paths. An object
// with the file's size and content (MD5 against the ETag) is left alone;
// temporary files (see skipped) and symlinks are not uploaded, and
// objects only present in the bucket are kept. Each object appears whole
// (see Bucket.Put). Files must not change while they are pushed.
func Push(ctx context.Context, b *Bucket, localDir, prefix string) (SyncStats, error) {
	var st SyncStats
	dir, err := folder(prefix)
	if err != nil {
		return st, fmt.Errorf("push: %w", err)
	}
	root, err := os.OpenRoot(localDir)
	if err != nil {
		return st, fmt.Errorf("push %s: %w", localDir, err)
	}
	defer root.Close()
	var files []string
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), tmpPrefix) {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && !skipped(p) {
			if !validKey(dir + p) {
				return fmt.Errorf("%s: not a clean object key: %w", p, ErrInvalid)
			}
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("push %s: %w", localDir, err)
	}
	objs, err := b.List(ctx, dir)
	if err != nil {
		return st, fmt.Errorf("push %s: %w", localDir, err)
	}
	remote := make(map[string]Object, len(objs))
	for _, o := range objs {
		remote[o.Key] = o
	}
	var jobs []func(context.Context) (bool, int64, error)
	for _, p := range files {
		o, ok := remote[dir+p]
		jobs = append(jobs, func(ctx context.Context) (bool, int64, error) { return pushOne(ctx, b, root, p, dir+p, o, ok) })
	}
	st, err = run(ctx, jobs)
	if err != nil {
		return st, fmt.Errorf("push %s to %s: %w", localDir, b.String()+"/"+prefix, err)
	}
	return st, nil
}

// PushFile uploads the file localPath as the object key, like Push.
func PushFile(ctx context.Context, b *Bucket, localPath, key string) (SyncStats, error) {
	o, err := b.Stat(ctx, key)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return SyncStats{}, fmt.Errorf("push %s: %w", localPath, err)
	}
	dir, base := filepath.Split(localPath)
	root, err := os.OpenRoot(cmp.Or(dir, "."))
	if err != nil {
		return SyncStats{}, fmt.Errorf("push %s: %w", localPath, err)
	}
	defer root.Close()
	copied, n, err := pushOne(ctx, b, root, base, key, o, exists)
	if err != nil {
		return SyncStats{}, fmt.Errorf("push %s: %w", localPath, err)
	}
	return stats(copied, n), nil
}

func pushOne(ctx context.Context, b *Bucket, root *os.Root, rel, key string, remote Object, exists bool) (bool, int64, error) {
	f, err := root.Open(filepath.FromSlash(rel))
	if err != nil {
		return false, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, 0, err
	}
	if !fi.Mode().IsRegular() {
		return false, 0, fmt.Errorf("%s: not a regular file", rel)
	}
	if exists && remote.Size == fi.Size() {
		same, err := readerMatches(f, fi.Size(), remote.ETag)
		if err != nil {
			return false, 0, err
		}
		if same {
			return false, 0, nil
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return false, 0, err
		}
	}
	if _, err := b.Put(ctx, key, f, fi.Size()); err != nil {
		return false, 0, err
	}
	return true, fi.Size(), nil
}

// run runs the jobs, syncWorkers at a time, and stops starting new ones
// after the first error.
func run(ctx context.Context, jobs []func(context.Context) (bool, int64, error)) (SyncStats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var copied, skipped atomic.Int64
	var moved atomic.Int64
	var mu sync.Mutex
	var errs []error
	sem := make(chan struct{}, syncWorkers)
	var wg sync.WaitGroup
	for _, job := range jobs {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			c, n, err := job(ctx)
			switch {
			case err != nil:
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
				cancel()
			case c:
				copied.Add(1)
				moved.Add(n)
			default:
				skipped.Add(1)
			}
		})
	}
	wg.Wait()
	st := SyncStats{Copied: int(copied.Load()), Skipped: int(skipped.Load()), Bytes: moved.Load()}
	if err := errors.Join(errs...); err != nil {
		return st, err
	}
	if st.Copied+st.Skipped < len(jobs) {
		return st, context.Cause(ctx) // the caller's context ended
	}
	return st, nil
}

// isPlainMD5 reports whether an ETag is the MD5 of the object's bytes, as
// S3 makes it for a single PUT without SSE-KMS.
func isPlainMD5(etag string) bool {
	if len(etag) != 32 {
		return false
	}
	_, err := hex.DecodeString(etag)
	return err == nil
}

func fileMatches(root *os.Root, name string, size int64, etag string) (bool, error) {
	f, err := root.Open(name)
	if err != nil {
		return false, err
	}
	defer f.Close()
	return readerMatches(f, size, etag)
}

// readerMatches reports whether size bytes of r have the ETag etag: the
// MD5 of the bytes, or for a multipart upload in parts of PartSize the MD5
// of the parts' MD5s and "-" and the part count. Any other ETag (other
// part sizes, encryption) never matches, so the file is copied again.
func readerMatches(r io.Reader, size int64, etag string) (bool, error) {
	return etagMatches(r, size, etag, PartSize)
}

func etagMatches(r io.Reader, size int64, etag string, partSize int64) (bool, error) {
	if isPlainMD5(etag) {
		h := md5.New()
		if _, err := io.Copy(h, r); err != nil {
			return false, err
		}
		return hex.EncodeToString(h.Sum(nil)) == etag, nil
	}
	sum, count, ok := strings.Cut(etag, "-")
	parts, err := strconv.ParseInt(count, 10, 64)
	if !ok || !isPlainMD5(sum) || err != nil || parts < 1 || parts != (size+partSize-1)/partSize {
		return false, nil
	}
	all := md5.New()
	for range parts {
		h := md5.New()
		if _, err := io.CopyN(h, r, min(partSize, size)); err != nil {
			return false, err
		}
		size -= partSize
		all.Write(h.Sum(nil))
	}
	return hex.EncodeToString(all.Sum(nil)) == sum, nil
}
