package bucket_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"svc/publish/bucket"
	"svc/publish/bucket/buckettest"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		in             string
		bucket, prefix string
		ok             bool
	}{
		{"s3://svc-data", "svc-data", "", true},
		{"s3://svc-data/", "svc-data", "", true},
		{"s3://svc-data/prod", "svc-data", "prod", true},
		{"s3://svc-data/prod/eu/", "svc-data", "prod/eu", true},
		{"s3://svc-data/.well-known", "svc-data", ".well-known", true},
		{"s3:/svc-data", "", "", false},
		{"s3:svc-data", "", "", false},
		{"http://svc-data/x", "", "", false},
		{"/var/svc", "", "", false},
		{"s3://", "", "", false},
		{"s3://Svc_Data", "", "", false},
		{"s3://ab", "", "", false},
		{"s3://svc-data:9000/x", "", "", false},
		{"s3://user@svc-data/x", "", "", false},
		{"s3://svc-data/x?versionId=1", "", "", false},
		{"s3://svc-data/x#y", "", "", false},
		{"s3://svc-data/a/../b", "", "", false},
		{"s3://svc-data/a//b", "", "", false},
		{"s3://svc-data//a", "", "", false},
		{"s3://svc-data/a/./b", "", "", false},
		{"s3://svc-data/a%5Cb", "", "", false},
		{"s3://svc-data/a%00b", "", "", false},
		{"s3://svc-data/" + strings.Repeat("x", 1100), "", "", false},
	}
	for _, tc := range tests {
		b, p, err := bucket.ParseURL(tc.in)
		if tc.ok != (err == nil) || b != tc.bucket || p != tc.prefix {
			t.Errorf("ParseURL(%q) = %q, %q, %v; want %q, %q, ok %v", tc.in, b, p, err, tc.bucket, tc.prefix, tc.ok)
		}
		if err != nil && !errors.Is(err, bucket.ErrInvalid) {
			t.Errorf("ParseURL(%q) error %v does not match ErrInvalid", tc.in, err)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	srv := buckettest.NewServer(t, "svc-test")
	env := func(edit map[string]string) func(string) string {
		m := srv.Env()
		for k, v := range edit {
			m[k] = v
		}
		return func(k string) string { return m[k] }
	}
	tests := []struct {
		name string
		url  string
		env  map[string]string
		want error
	}{
		{"malformed URL", "s3://Not A Bucket", nil, bucket.ErrInvalid},
		{"missing bucket", "s3://no-such-bucket/x", nil, bucket.ErrNoBucket},
		{"no key id", "s3://svc-test", map[string]string{"AWS_ACCESS_KEY_ID": ""}, bucket.ErrNoCredentials},
		{"no secret", "s3://svc-test", map[string]string{"AWS_SECRET_ACCESS_KEY": ""}, bucket.ErrNoCredentials},
		{"bad endpoint", "s3://svc-test", map[string]string{"SVC_S3_ENDPOINT": "ftp://127.0.0.1"}, bucket.ErrInvalid},
		{"endpoint with a path", "s3://svc-test", map[string]string{"SVC_S3_ENDPOINT": srv.URL + "/x"}, bucket.ErrInvalid},
		{"bad path style", "s3://svc-test", map[string]string{"SVC_S3_PATH_STYLE": "maybe"}, bucket.ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := bucket.Open(ctx, tc.url, bucket.Options{Getenv: env(tc.env)})
			if !errors.Is(err, tc.want) {
				t.Fatalf("Open() = %v, %v; want %v", b, err, tc.want)
			}
			t.Logf("%v", err)
		})
	}
	// The endpoint can also come from AWS_ENDPOINT_URL, and options win
	// over the environment.
	b, err := bucket.Open(ctx, "s3://svc-test/p", bucket.Options{Getenv: env(map[string]string{"SVC_S3_ENDPOINT": "", "AWS_ENDPOINT_URL": srv.URL})})
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != "s3://svc-test/p" || b.Name() != "svc-test" || b.Prefix() != "p" {
		t.Errorf("bucket = %s (%s, %s)", b, b.Name(), b.Prefix())
	}
	if _, err := bucket.Open(ctx, "s3://svc-test", bucket.Options{Endpoint: srv.URL, AccessKeyID: "k", SecretAccessKey: "s",
		Getenv: func(string) string { return "" }}); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, b *bucket.Bucket, key string) string {
	t.Helper()
	r, _, err := b.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func put(t *testing.T, b *bucket.Bucket, key, body string) bucket.Object {
	t.Helper()
	o, err := b.Put(context.Background(), key, strings.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func md5Hex(s string) string {
	h := md5.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestObjects(t *testing.T) {
	ctx := context.Background()
	srv, b := buckettest.New(t, "pre")

	o := put(t, b, "a/x.json", `{"a":1}`)
	if o.ETag != md5Hex(`{"a":1}`) {
		t.Errorf("Put ETag = %q, want the MD5", o.ETag)
	}
	if got := get(t, b, "a/x.json"); got != `{"a":1}` {
		t.Errorf("Get = %q", got)
	}
	st, err := b.Stat(ctx, "a/x.json")
	if err != nil || st.Size != 7 || st.ETag != o.ETag || st.Key != "a/x.json" {
		t.Errorf("Stat = %+v, %v", st, err)
	}
	// Keys are under the prefix: another Bucket on the whole bucket sees it there.
	whole := srv.Open(t, "s3://svc-test")
	if got := get(t, whole, "pre/a/x.json"); got != `{"a":1}` {
		t.Errorf("the object is not at pre/a/x.json: %q", got)
	}

	for _, op := range []struct {
		name string
		err  error
	}{
		{"get", func() error { _, _, err := b.Get(ctx, "a/missing"); return err }()},
		{"stat", func() error { _, err := b.Stat(ctx, "a/missing"); return err }()},
	} {
		if !errors.Is(op.err, fs.ErrNotExist) {
			t.Errorf("%s of a missing object = %v, want fs.ErrNotExist", op.name, op.err)
		}
	}

	// PutIfAbsent: once only; the existing object is left alone.
	if _, err := b.PutIfAbsent(ctx, "a/once", []byte("first")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.PutIfAbsent(ctx, "a/once", []byte("second")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second PutIfAbsent = %v, want fs.ErrExist", err)
	}
	if got := get(t, b, "a/once"); got != "first" {
		t.Errorf("after a refused PutIfAbsent: %q", got)
	}

	// PutIfMatch: a compare-and-swap on the ETag.
	cur, _ := b.Stat(ctx, "a/once")
	next, err := b.PutIfMatch(ctx, "a/once", []byte("swapped"), cur.ETag)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.PutIfMatch(ctx, "a/once", []byte("stale"), cur.ETag); !errors.Is(err, bucket.ErrChanged) {
		t.Errorf("PutIfMatch with a stale ETag = %v, want ErrChanged", err)
	}
	if _, err := b.PutIfMatch(ctx, "a/none", []byte("x"), next.ETag); !errors.Is(err, bucket.ErrChanged) {
		t.Errorf("PutIfMatch of a missing object = %v, want ErrChanged", err)
	}
	if got := get(t, b, "a/once"); got != "swapped" {
		t.Errorf("after PutIfMatch: %q", got)
	}

	// Copy on the server.
	if err := b.Copy(ctx, "a/x.json", "b/y.json"); err != nil {
		t.Fatal(err)
	}
	if got := get(t, b, "b/y.json"); got != `{"a":1}` {
		t.Errorf("copy = %q", got)
	}
	if err := b.Copy(ctx, "a/missing", "b/z"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("copy of a missing object = %v", err)
	}

	// Delete, twice.
	for range 2 {
		if err := b.Delete(ctx, "b/y.json"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Stat(ctx, "b/y.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Delete: %v", err)
	}

	// ReadSmall bounds what it reads.
	put(t, b, "big", strings.Repeat("x", 5000))
	if _, _, err := b.ReadSmall(ctx, "big", 4096); !errors.Is(err, bucket.ErrTooLarge) {
		t.Errorf("ReadSmall of 5000 bytes with limit 4096 = %v", err)
	}
	if data, _, err := b.ReadSmall(ctx, "big", 5000); err != nil || len(data) != 5000 {
		t.Errorf("ReadSmall = %d bytes, %v", len(data), err)
	}

	// Put needs the size.
	if _, err := b.Put(ctx, "c", strings.NewReader("x"), -1); !errors.Is(err, bucket.ErrInvalid) {
		t.Errorf("Put of unknown size = %v", err)
	}
}

func TestBadKeys(t *testing.T) {
	ctx := context.Background()
	_, b := buckettest.New(t, "pre")
	for _, key := range []string{"", "/a", "a/", "a//b", "../a", "a/../b", "./a", "a/.", `a\b`, "a\x00b", "a\nb", "\xff", strings.Repeat("k", 1025)} {
		_, err1 := b.Put(ctx, key, strings.NewReader(""), 0)
		_, _, err2 := b.Get(ctx, key)
		_, err3 := b.PutIfAbsent(ctx, key, nil)
		err4 := b.Delete(ctx, key)
		_, err5 := b.Stat(ctx, key)
		for i, err := range []error{err1, err2, err3, err4, err5} {
			if !errors.Is(err, bucket.ErrInvalid) {
				t.Errorf("key %q, op %d: %v, want ErrInvalid", key, i, err)
			}
		}
		if bucket.ValidKey(key) {
			t.Errorf("ValidKey(%q) = true", key)
		}
	}
	if _, err := b.List(ctx, "../"); !errors.Is(err, bucket.ErrInvalid) {
		t.Errorf("List(../) = %v", err)
	}
}

// A key in the bucket that is not clean (written by another tool, or by
// someone hostile) is refused by List rather than handed on.
func TestListRefusesUncleanKeys(t *testing.T) {
	ctx := context.Background()
	srv, b := buckettest.New(t, "pre")
	raw := srv.Open(t, "s3://svc-test")
	put(t, b, "ok/a", "a")
	// The raw client refuses to write such keys too, so go around it.
	req, _ := http.NewRequest(http.MethodPut, srv.URL+"/svc-test/pre/bad/..%5Cx", strings.NewReader("x"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, err := raw.Stat(ctx, `pre/bad/..\x`); !errors.Is(err, bucket.ErrInvalid) {
		t.Fatalf("Stat of a backslash key: %v", err)
	}
	if objs, err := b.List(ctx, "ok/"); err != nil || len(objs) != 1 {
		t.Errorf("List(ok/) = %v, %v", objs, err)
	}
	if _, err := b.List(ctx, ""); !errors.Is(err, bucket.ErrInvalid) {
		t.Errorf("List over an unclean key = %v, want ErrInvalid", err)
	}
}

func TestListAndDir(t *testing.T) {
	ctx := context.Background()
	srv, b := buckettest.New(t, "pre")
	keys := []string{"d/2/x", "d/1/b", "d/1/a", "d/f.json", "d/.tmp-1/x", "e/x", "d0"}
	for _, k := range keys {
		put(t, b, k, k)
	}
	// An object outside the prefix, and a folder marker inside it.
	whole := srv.Open(t, "s3://svc-test")
	put(t, whole, "other/d/x", "x")
	req, _ := http.NewRequest(http.MethodPut, srv.URL+"/svc-test/pre/d/3/", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}

	keysOf := func(objs []bucket.Object) []string {
		var out []string
		for _, o := range objs {
			out = append(out, o.Key)
		}
		return out
	}
	all, err := b.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"d/.tmp-1/x", "d/1/a", "d/1/b", "d/2/x", "d/f.json", "d0", "e/x"}
	if diff := cmp.Diff(want, keysOf(all)); diff != "" {
		t.Errorf("List() (-want +got):\n%s", diff)
	}
	// Paging: two keys a page.
	paged, _, err := bucket.ListPaged(b, ctx, "d/", true, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want[:5], keysOf(paged)); diff != "" {
		t.Errorf("List(d/) in pages of 2 (-want +got):\n%s", diff)
	}
	for _, o := range paged {
		if o.Size != int64(len(o.Key)) || o.ETag != md5Hex(o.Key) {
			t.Errorf("%s: size %d etag %s", o.Key, o.Size, o.ETag)
		}
	}

	files, dirs, err := b.Dir(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"f.json"}, keysOfBase(files)); diff != "" {
		t.Errorf("Dir(d) files (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{".tmp-1", "1", "2", "3"}, dirs); diff != "" {
		t.Errorf("Dir(d) folders (-want +got):\n%s", diff)
	}
	files, dirs, err = b.Dir(ctx, "")
	if err != nil || fmt.Sprint(keysOf(files), dirs) != "[d0] [d e]" {
		t.Errorf("Dir() = %v %v, %v", keysOf(files), dirs, err)
	}
	if files, dirs, err := b.Dir(ctx, "nothing"); err != nil || len(files)+len(dirs) != 0 {
		t.Errorf("Dir(nothing) = %v %v, %v", files, dirs, err)
	}
}

func keysOfBase(objs []bucket.Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Key[strings.LastIndex(o.Key, "/")+1:])
	}
	return out
}

func TestEtagMatches(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 25) // 250 bytes; parts of 100: 3
	var sums []byte
	for i := 0; i < len(data); i += 100 {
		s := md5.Sum(data[i:min(i+100, len(data))])
		sums = append(sums, s[:]...)
	}
	all := md5.Sum(sums)
	multi := hex.EncodeToString(all[:]) + "-3"
	whole := md5.Sum(data)
	tests := []struct {
		etag string
		want bool
	}{
		{hex.EncodeToString(whole[:]), true},
		{multi, true},
		{strings.Replace(multi, "-3", "-2", 1), false}, // other part size
		{md5Hex("other"), false},
		{"", false},
		{"not-an-etag", false},
		{hex.EncodeToString(all[:]) + "-x", false},
	}
	for _, tc := range tests {
		got, err := bucket.EtagMatches(bytes.NewReader(data), int64(len(data)), tc.etag, 100)
		if err != nil || got != tc.want {
			t.Errorf("EtagMatches(%q) = %v, %v; want %v", tc.etag, got, err, tc.want)
		}
	}
}
