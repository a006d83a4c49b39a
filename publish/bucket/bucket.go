// Package bucket keeps svc's artifact tree in an S3-compatible bucket
// (issue 11): --data s3://bucket/prefix. It has three parts:
//
//   - [Bucket], a small client over one bucket and key prefix (Get, Put,
//     PutIfAbsent, PutIfMatch, Stat, List, Delete), on the maintained
//     minio-go client, which speaks to AWS S3, MinIO, Cloudflare R2 and
//     other S3-compatible servers;
//   - [Store], the publish.Store of the public tree on a Bucket, whose
//     guarantees come from the order of its writes and from conditional
//     PUTs, since an object store has neither rename nor symlinks;
//   - [Pull] and [Push], which mirror a folder of objects to a local folder
//     and back, because every stage works on local files (DuckDB reads
//     local Parquet).
//
// Keys passed to a Bucket are relative to its prefix and must be clean:
// slash-separated, no empty, "." or ".." segment, no leading slash, no
// backslash or control character. Keys read back from the server are held
// to the same rule before anything uses them.
package bucket

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"
)

// Errors the package wraps.
var (
	// ErrInvalid: a malformed s3:// URL, endpoint or object key.
	ErrInvalid = errors.New("invalid bucket URL or key")
	// ErrNoBucket: the bucket does not exist on the server.
	ErrNoBucket = errors.New("bucket does not exist")
	// ErrNoCredentials: no access key pair was given.
	ErrNoCredentials = errors.New("no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	// ErrDenied: the server refused the credentials or the operation.
	ErrDenied = errors.New("access denied")
	// ErrChanged: a PutIfMatch found the object changed or gone.
	ErrChanged = errors.New("object changed since it was read")
	// ErrTooLarge: an object is larger than the reader accepts.
	ErrTooLarge = errors.New("object too large")
)

const (
	// PartSize is the part size of multipart uploads. An object up to
	// PartSize bytes is written with one PUT; a larger one in parts of
	// PartSize, which also fixes its multipart ETag (see etagMatches).
	// Memory per upload is at most one part; most uploads stream from a
	// file and buffer nothing.
	PartSize = 16 << 20
	// maxKeyLen is S3's limit on a full object key, in bytes.
	maxKeyLen = 1024
	// maxListed bounds a listing; a prefix holding more is refused rather
	// than held in memory.
	maxListed = 1_000_000
	// maxSinglePut is S3's limit on one PUT, the bound of PutIfAbsent and
	// PutIfMatch (which must be single PUTs to be conditional).
	maxSinglePut = 5 << 30
)

// Style says how the bucket is addressed on the server.
type Style int

const (
	// StyleAuto: $SVC_S3_PATH_STYLE (1/true or 0/false) when set, else
	// path style when an endpoint is configured and virtual-hosted style
	// on AWS.
	StyleAuto Style = iota
	// StylePath: https://endpoint/bucket/key, what MinIO and most
	// self-hosted servers expect.
	StylePath
	// StyleVirtualHost: https://bucket.endpoint/key, AWS's default.
	StyleVirtualHost
)

// Options configure Open. Empty fields fall back to the environment.
type Options struct {
	// Endpoint is the server's base URL, "https://host[:port]" or
	// "http://host[:port]". Empty: $SVC_S3_ENDPOINT, $AWS_ENDPOINT_URL_S3,
	// $AWS_ENDPOINT_URL, else AWS S3.
	Endpoint string
	// Region signs the requests. Empty: $AWS_REGION, $AWS_DEFAULT_REGION,
	// else us-east-1.
	Region string
	Style  Style
	// AccessKeyID, SecretAccessKey and SessionToken are the credentials.
	// Empty: $AWS_ACCESS_KEY_ID, $AWS_SECRET_ACCESS_KEY, $AWS_SESSION_TOKEN.
	AccessKeyID, SecretAccessKey, SessionToken string
	// Transport carries the requests; nil is minio-go's default (with
	// dial, TLS handshake and response header timeouts).
	Transport http.RoundTripper
	// Getenv reads the environment; nil is os.Getenv.
	Getenv func(string) string
}

// Bucket is one bucket and key prefix on an S3-compatible server. It is
// safe for concurrent use.
type Bucket struct {
	client *minio.Client
	name   string
	prefix string // "" or "a/b/"
}

// Object describes a stored object. Key is relative to the Bucket's
// prefix; ETag is without quotes.
type Object struct {
	Key          string
	Size         int64
	ETag         string
	LastModified time.Time
}

// IsURL reports whether a --data value names a bucket rather than a
// local folder.
func IsURL(s string) bool { return strings.HasPrefix(s, "s3://") }

// ParseURL splits s3://bucket[/prefix] into the bucket name and the key
// prefix (without slashes at either end; "" for the whole bucket).
func ParseURL(rawURL string) (bucket, prefix string, err error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", "", fmt.Errorf("bucket URL %q: %w", rawURL, ErrInvalid)
	}
	if u.Scheme != "s3" || u.Opaque != "" || u.User != nil || u.Port() != "" || u.RawQuery != "" || u.Fragment != "" ||
		strings.HasSuffix(u.Host, ":") {
		return "", "", fmt.Errorf("bucket URL %q: want s3://bucket[/prefix]: %w", rawURL, ErrInvalid)
	}
	if err := s3utils.CheckValidBucketNameStrict(u.Host); err != nil {
		return "", "", fmt.Errorf("bucket URL %q: bucket name: %v: %w", rawURL, err, ErrInvalid)
	}
	prefix = strings.TrimSuffix(strings.TrimPrefix(u.Path, "/"), "/")
	if prefix != "" && !validKey(prefix) {
		return "", "", fmt.Errorf("bucket URL %q: prefix %q is not a clean key: %w", rawURL, prefix, ErrInvalid)
	}
	return u.Host, prefix, nil
}

// Open connects to the bucket named by rawURL (s3://bucket[/prefix]) and
// checks that it exists. It makes one request (HEAD bucket).
func Open(ctx context.Context, rawURL string, opts Options) (*Bucket, error) {
	name, prefix, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	endpoint := cmp.Or(opts.Endpoint, getenv("SVC_S3_ENDPOINT"), getenv("AWS_ENDPOINT_URL_S3"), getenv("AWS_ENDPOINT_URL"))
	host, secure, err := parseEndpoint(endpoint)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", rawURL, err)
	}
	lookup, err := bucketLookup(opts.Style, endpoint != "", getenv("SVC_S3_PATH_STYLE"))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", rawURL, err)
	}
	id := cmp.Or(opts.AccessKeyID, getenv("AWS_ACCESS_KEY_ID"))
	secret := cmp.Or(opts.SecretAccessKey, getenv("AWS_SECRET_ACCESS_KEY"))
	if id == "" || secret == "" {
		return nil, fmt.Errorf("open %s: %w", rawURL, ErrNoCredentials)
	}
	client, err := minio.New(host, &minio.Options{
		Creds:        credentials.NewStaticV4(id, secret, cmp.Or(opts.SessionToken, getenv("AWS_SESSION_TOKEN"))),
		Secure:       secure,
		Region:       cmp.Or(opts.Region, getenv("AWS_REGION"), getenv("AWS_DEFAULT_REGION"), "us-east-1"),
		BucketLookup: lookup,
		Transport:    opts.Transport,
		MaxRetries:   3,
	})
	if err != nil {
		return nil, fmt.Errorf("open %s: %v: %w", rawURL, err, ErrInvalid)
	}
	b := &Bucket{client: client, name: name}
	if prefix != "" {
		b.prefix = prefix + "/"
	}
	ok, err := client.BucketExists(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", rawURL, b.mapErr(err))
	}
	if !ok {
		return nil, fmt.Errorf("open %s: bucket %q at %s: %w", rawURL, name, client.EndpointURL().Host, ErrNoBucket)
	}
	return b, nil
}

// parseEndpoint turns an endpoint URL into minio-go's host and TLS flag;
// "" is AWS S3.
func parseEndpoint(endpoint string) (host string, secure bool, err error) {
	if endpoint == "" {
		return "s3.amazonaws.com", true, nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", false, fmt.Errorf("endpoint %q: want http(s)://host[:port]: %w", endpoint, ErrInvalid)
	}
	return u.Host, u.Scheme == "https", nil
}

func bucketLookup(style Style, haveEndpoint bool, env string) (minio.BucketLookupType, error) {
	if style == StyleAuto {
		switch strings.ToLower(env) {
		case "1", "true", "yes":
			style = StylePath
		case "0", "false", "no":
			style = StyleVirtualHost
		case "":
			if haveEndpoint {
				style = StylePath
			}
		default:
			return 0, fmt.Errorf("SVC_S3_PATH_STYLE=%q: want 1 or 0: %w", env, ErrInvalid)
		}
	}
	switch style {
	case StylePath:
		return minio.BucketLookupPath, nil
	case StyleVirtualHost:
		return minio.BucketLookupDNS, nil
	}
	return minio.BucketLookupAuto, nil
}

// String returns the bucket's s3:// URL.
func (b *Bucket) String() string {
	if b.prefix == "" {
		return "s3://" + b.name
	}
	return "s3://" + b.name + "/" + strings.TrimSuffix(b.prefix, "/")
}

// Name returns the bucket's name.
func (b *Bucket) Name() string { return b.name }

// Prefix returns the key prefix every key is relative to, without a
// trailing slash ("" for the whole bucket).
func (b *Bucket) Prefix() string { return strings.TrimSuffix(b.prefix, "/") }

// validKey reports whether key is a clean relative object key.
func validKey(key string) bool {
	if !fs.ValidPath(key) || key == "." || len(key) > maxKeyLen || !utf8.ValidString(key) {
		return false
	}
	for _, r := range key {
		if r < 0x20 || r == 0x7f || r == '\\' {
			return false
		}
	}
	return true
}

// ValidKey reports whether key is a clean object key: slash-separated, no
// empty, "." or ".." segment, no leading or trailing slash, no backslash
// or control character, valid UTF-8, at most 1024 bytes.
func ValidKey(key string) bool { return validKey(key) }

func (b *Bucket) full(op, key string) (string, error) {
	if !validKey(key) || len(b.prefix)+len(key) > maxKeyLen {
		return "", fmt.Errorf("%s %q: not a clean object key: %w", op, key, ErrInvalid)
	}
	return b.prefix + key, nil
}

// listPrefix checks a listing prefix: "", a key, or a key and a slash.
func (b *Bucket) listPrefix(prefix string) (string, error) {
	if prefix == "" || validKey(strings.TrimSuffix(prefix, "/")) {
		return b.prefix + prefix, nil
	}
	return "", fmt.Errorf("list %q: not a clean key prefix: %w", prefix, ErrInvalid)
}

// mapErr turns a minio-go error into one matching this package's and
// io/fs's sentinel errors.
func (b *Bucket) mapErr(err error) error {
	resp := minio.ToErrorResponse(err)
	switch {
	case resp.Code == minio.NoSuchBucket:
		return fmt.Errorf("bucket %q: %w", b.name, ErrNoBucket)
	case resp.Code == minio.NoSuchKey || resp.StatusCode == http.StatusNotFound:
		return fs.ErrNotExist
	case resp.StatusCode == http.StatusPreconditionFailed || resp.Code == "ConditionalRequestConflict":
		return errPrecondition
	case resp.StatusCode == http.StatusForbidden || resp.Code == "InvalidAccessKeyId" ||
		resp.Code == "SignatureDoesNotMatch" || resp.Code == "ExpiredToken":
		return fmt.Errorf("%w: %s: %s", ErrDenied, resp.Code, resp.Message)
	}
	return err
}

// errPrecondition is what mapErr makes of 412 Precondition Failed (and of
// S3's 409 ConditionalRequestConflict, a concurrent conditional write to
// the same key); the callers turn it into fs.ErrExist or ErrChanged.
var errPrecondition = errors.New("precondition failed")

func (b *Bucket) opErr(op, key string, err error) error {
	return fmt.Errorf("%s s3://%s/%s%s: %w", op, b.name, b.prefix, key, b.mapErr(err))
}

// Get opens an object for reading and returns what it is. A missing
// object is an error matching fs.ErrNotExist. The body is streamed: the
// caller bounds what it reads.
func (b *Bucket) Get(ctx context.Context, key string) (io.ReadCloser, Object, error) {
	full, err := b.full("get", key)
	if err != nil {
		return nil, Object{}, err
	}
	obj, err := b.client.GetObject(ctx, b.name, full, minio.GetObjectOptions{})
	if err != nil {
		return nil, Object{}, b.opErr("get", key, err)
	}
	// Stat sends the GET and returns its headers; reads go on from the
	// same response, so the info describes the bytes read.
	info, err := obj.Stat()
	if err != nil {
		obj.Close()
		return nil, Object{}, b.opErr("get", key, err)
	}
	return obj, b.object(key, info), nil
}

// ReadSmall reads a whole object of at most limit bytes; a larger one is
// an error matching ErrTooLarge. It is for the small objects svc parses
// (latest.json, the lock), which anyone with write access could replace.
func (b *Bucket) ReadSmall(ctx context.Context, key string, limit int64) ([]byte, Object, error) {
	r, info, err := b.Get(ctx, key)
	if err != nil {
		return nil, Object{}, err
	}
	defer r.Close()
	if info.Size > limit {
		return nil, Object{}, fmt.Errorf("read %s: %d bytes, limit %d: %w", key, info.Size, limit, ErrTooLarge)
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, Object{}, b.opErr("read", key, err)
	}
	if int64(len(data)) > limit {
		return nil, Object{}, fmt.Errorf("read %s: over %d bytes: %w", key, limit, ErrTooLarge)
	}
	return data, info, nil
}

// Stat returns what an object is without reading it.
func (b *Bucket) Stat(ctx context.Context, key string) (Object, error) {
	full, err := b.full("stat", key)
	if err != nil {
		return Object{}, err
	}
	info, err := b.client.StatObject(ctx, b.name, full, minio.StatObjectOptions{})
	if err != nil {
		return Object{}, b.opErr("stat", key, err)
	}
	return b.object(key, info), nil
}

// Put writes size bytes from r as the object key, replacing any object
// there. A reader sees the old object or the new one, never a part: an
// object up to PartSize bytes is one PUT, a larger one a multipart upload
// that appears whole when it completes. An *os.File is read in place,
// other readers through one part-sized buffer.
func (b *Bucket) Put(ctx context.Context, key string, r io.Reader, size int64) (Object, error) {
	full, err := b.full("put", key)
	if err != nil {
		return Object{}, err
	}
	if size < 0 {
		return Object{}, fmt.Errorf("put %s: size unknown: %w", key, ErrInvalid)
	}
	info, err := b.client.PutObject(ctx, b.name, full, r, size, b.putOptions(key))
	if err != nil {
		return Object{}, b.opErr("put", key, err)
	}
	return Object{Key: key, Size: info.Size, ETag: info.ETag, LastModified: info.LastModified}, nil
}

// PutIfAbsent writes data as the object key only if no object has that
// key, with a conditional PUT (If-None-Match: *). When one exists it
// fails with an error matching fs.ErrExist and leaves it alone.
//
// The server decides atomically: AWS S3 (since August 2024), MinIO and
// Cloudflare R2 honor If-None-Match on PUT, and of two concurrent
// conditional PUTs exactly one succeeds (S3 may answer the other 409
// ConditionalRequestConflict, which is reported the same way). A server
// that ignores the header would overwrite; Store.Lock checks for that
// before anything relies on it.
func (b *Bucket) PutIfAbsent(ctx context.Context, key string, data []byte) (Object, error) {
	return b.putConditional(ctx, "put-if-absent", key, data, func(o *minio.PutObjectOptions) { o.SetMatchETagExcept("*") })
}

// PutIfMatch replaces the object key with data only if its ETag is still
// etag (If-Match), an atomic compare-and-swap on AWS S3 (since November
// 2024), MinIO and R2. When the object changed or is gone it fails with
// an error matching ErrChanged.
func (b *Bucket) PutIfMatch(ctx context.Context, key string, data []byte, etag string) (Object, error) {
	if etag == "" || strings.ContainsAny(etag, "\"*") {
		return Object{}, fmt.Errorf("put-if-match %s: ETag %q: %w", key, etag, ErrInvalid)
	}
	return b.putConditional(ctx, "put-if-match", key, data, func(o *minio.PutObjectOptions) { o.SetMatchETag(etag) })
}

func (b *Bucket) putConditional(ctx context.Context, op, key string, data []byte, cond func(*minio.PutObjectOptions)) (Object, error) {
	full, err := b.full(op, key)
	if err != nil {
		return Object{}, err
	}
	if len(data) > maxSinglePut {
		return Object{}, fmt.Errorf("%s %s: %d bytes, more than one PUT takes: %w", op, key, len(data), ErrTooLarge)
	}
	opts := b.putOptions(key)
	opts.DisableMultipart = true // a condition holds for a single PUT
	opts.SendContentMd5 = true   // and the server checks the bytes
	cond(&opts)
	info, err := b.client.PutObject(ctx, b.name, full, bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		err = b.mapErr(err)
		if errors.Is(err, errPrecondition) || (op == "put-if-match" && errors.Is(err, fs.ErrNotExist)) {
			if op == "put-if-absent" {
				return Object{}, fmt.Errorf("%s s3://%s/%s: %w", op, b.name, full, fs.ErrExist)
			}
			return Object{}, fmt.Errorf("%s s3://%s/%s: %w", op, b.name, full, ErrChanged)
		}
		return Object{}, fmt.Errorf("%s s3://%s/%s: %w", op, b.name, full, err)
	}
	return Object{Key: key, Size: info.Size, ETag: info.ETag, LastModified: info.LastModified}, nil
}

func (b *Bucket) putOptions(key string) minio.PutObjectOptions {
	return minio.PutObjectOptions{
		ContentType: contentType(key),
		PartSize:    PartSize,
		NumThreads:  2,
	}
}

// contentType is what a CDN in front of the bucket sends.
func contentType(key string) string {
	switch ext := path.Ext(key); ext {
	case ".json":
		return "application/json"
	case ".csv":
		return "text/csv; charset=utf-8"
	case ".parquet":
		return "application/vnd.apache.parquet"
	case ".txt":
		return "text/plain; charset=utf-8"
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
		return "application/octet-stream"
	}
}

// Copy copies the object src to dst on the server, without moving the
// bytes through this process.
func (b *Bucket) Copy(ctx context.Context, src, dst string) error {
	fullSrc, err := b.full("copy", src)
	if err != nil {
		return err
	}
	fullDst, err := b.full("copy", dst)
	if err != nil {
		return err
	}
	_, err = b.client.CopyObject(ctx, minio.CopyDestOptions{Bucket: b.name, Object: fullDst},
		minio.CopySrcOptions{Bucket: b.name, Object: fullSrc})
	if err != nil {
		return b.opErr("copy "+src+" to", dst, err)
	}
	return nil
}

// Delete removes an object; a missing one is not an error.
func (b *Bucket) Delete(ctx context.Context, key string) error {
	full, err := b.full("delete", key)
	if err != nil {
		return err
	}
	if err := b.client.RemoveObject(ctx, b.name, full, minio.RemoveObjectOptions{}); err != nil {
		if errors.Is(b.mapErr(err), fs.ErrNotExist) {
			return nil
		}
		return b.opErr("delete", key, err)
	}
	return nil
}

// List returns every object whose key starts with prefix ("" for all,
// "dir/" for a folder), sorted by key, across as many list pages as it
// takes. Folder markers (empty keys ending in "/") are left out; any other
// key that is not clean is an error, so callers never see one.
func (b *Bucket) List(ctx context.Context, prefix string) ([]Object, error) {
	objs, _, err := b.list(ctx, prefix, true, 0)
	return objs, err
}

// Dir lists the folder dir ("" for the top) one level deep: the objects
// directly in it and the names of its subfolders, both sorted.
func (b *Bucket) Dir(ctx context.Context, dir string) (files []Object, subdirs []string, err error) {
	if dir != "" {
		dir += "/"
	}
	return b.list(ctx, dir, false, 0)
}

// list is List and Dir; pageSize > 0 sets the page size (for tests of
// paging).
func (b *Bucket) list(ctx context.Context, prefix string, recursive bool, pageSize int) ([]Object, []string, error) {
	full, err := b.listPrefix(prefix)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops minio-go's lister when we return early
	var objs []Object
	var dirs []string
	for info := range b.client.ListObjects(ctx, b.name, minio.ListObjectsOptions{Prefix: full, Recursive: recursive, MaxKeys: pageSize}) {
		if info.Err != nil {
			return nil, nil, b.opErr("list", prefix, info.Err)
		}
		if len(objs)+len(dirs) >= maxListed {
			return nil, nil, fmt.Errorf("list s3://%s/%s: more than %d objects: %w", b.name, full, maxListed, ErrTooLarge)
		}
		rel, ok := strings.CutPrefix(info.Key, b.prefix)
		if !ok || !strings.HasPrefix(info.Key, full) {
			return nil, nil, fmt.Errorf("list s3://%s/%s: server returned key %q outside the prefix: %w", b.name, full, info.Key, ErrInvalid)
		}
		if sub, isDir := strings.CutSuffix(rel, "/"); isDir {
			switch {
			case !recursive && sub+"/" != prefix && validKey(sub):
				dirs = append(dirs, path.Base(sub)) // a common prefix
			case info.Size == 0 && (sub == "" || validKey(sub)):
				// a folder marker
			default:
				return nil, nil, fmt.Errorf("list s3://%s/%s: key %q is not clean: %w", b.name, full, info.Key, ErrInvalid)
			}
			continue
		}
		if !validKey(rel) {
			return nil, nil, fmt.Errorf("list s3://%s/%s: key %q is not clean: %w", b.name, full, info.Key, ErrInvalid)
		}
		objs = append(objs, b.object(rel, info))
	}
	slices.SortFunc(objs, func(a, b Object) int { return strings.Compare(a.Key, b.Key) })
	slices.Sort(dirs)
	return objs, slices.Compact(dirs), nil
}

func (b *Bucket) object(key string, info minio.ObjectInfo) Object {
	return Object{Key: key, Size: info.Size, ETag: strings.Trim(info.ETag, `"`), LastModified: info.LastModified}
}
