// Package buckettest starts an S3-compatible server on loopback for
// tests: gofakes3 with its in-memory backend, in httptest. Nothing goes to
// the internet.
//
// gofakes3 (v1.2.0) is close enough to S3 for svc: single and multipart
// PUT, GET, HEAD, DELETE, server-side copy, ListObjectsV2 with delimiter
// and paging, and conditional PUTs (If-None-Match: * and If-Match, checked
// atomically under the backend's lock), which the bucket store relies on.
// It does not check signatures, so any credentials work. One gap is
// filled here: see decodeChunkedParts.
package buckettest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"svc/publish/bucket"
)

// Server is a running fake S3 server.
type Server struct {
	URL string // http://127.0.0.1:port, the endpoint
	// Handler is gofakes3's handler; Wrap replaces what the server runs.
	Handler http.Handler
	backend *s3mem.Backend
	wrap    func(http.Handler) http.Handler
}

// Env is the environment Open reads for this server.
func (s *Server) Env() map[string]string {
	return map[string]string{
		"SVC_S3_ENDPOINT":       s.URL,
		"AWS_ACCESS_KEY_ID":     "test-key",
		"AWS_SECRET_ACCESS_KEY": "test-secret",
		"AWS_REGION":            "us-east-1",
	}
}

// Getenv is a Getenv for bucket.Options that reads only Env.
func (s *Server) Getenv(name string) string { return s.Env()[name] }

// Wrap puts middleware in front of gofakes3, for tests of a server that
// misbehaves.
func (s *Server) Wrap(mw func(http.Handler) http.Handler) { s.wrap = mw }

// NewServer starts a server with the buckets given; t.Cleanup stops it.
func NewServer(t testing.TB, buckets ...string) *Server {
	t.Helper()
	backend := s3mem.New()
	for _, b := range buckets {
		if err := backend.CreateBucket(b); err != nil {
			t.Fatal(err)
		}
	}
	s := &Server{backend: backend, Handler: decodeChunkedParts(gofakes3.New(backend, gofakes3.WithoutVersioning()).Server())}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := s.Handler
		if s.wrap != nil {
			h = s.wrap(h)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	s.URL = ts.URL
	return s
}

// Open opens rawURL (s3://bucket[/prefix]) on the server.
func (s *Server) Open(t testing.TB, rawURL string) *bucket.Bucket {
	t.Helper()
	b, err := bucket.Open(context.Background(), rawURL, bucket.Options{Getenv: s.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// New starts a server with the bucket "svc-test" and opens
// s3://svc-test/prefix on it.
func New(t testing.TB, prefix string) (*Server, *bucket.Bucket) {
	t.Helper()
	s := NewServer(t, "svc-test")
	return s, s.Open(t, "s3://svc-test/"+prefix)
}

// decodeChunkedParts fills a gap of gofakes3 v1.2.0, as test scaffolding:
// it decodes aws-chunked bodies (STREAMING-AWS4-HMAC-SHA256-PAYLOAD, which
// minio-go sends over plain HTTP) for PutObject but not for UploadPart, so
// a multipart upload would store the chunk headers. AWS S3, MinIO and R2
// decode both; over HTTPS minio-go does not chunk at all. The chunk
// signatures are not checked (gofakes3 checks no signature).
func decodeChunkedParts(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPut || !r.URL.Query().Has("uploadId") ||
			r.Header.Get("X-Amz-Content-Sha256") != "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" {
			next.ServeHTTP(w, r)
			return
		}
		body, err := decodeChunked(bufio.NewReader(r.Body))
		if err != nil {
			http.Error(w, "aws-chunked body: "+err.Error(), http.StatusBadRequest)
			return
		}
		if want := r.Header.Get("X-Amz-Decoded-Content-Length"); want != strconv.Itoa(len(body)) {
			http.Error(w, "aws-chunked body: decoded length "+strconv.Itoa(len(body))+", header "+want, http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.Header.Set("Content-Length", strconv.Itoa(len(body)))
		r.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
		next.ServeHTTP(w, r)
	})
}

// decodeChunked reads "<hex size>;chunk-signature=<sig>\r\n<data>\r\n"
// chunks up to the empty one.
func decodeChunked(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		sizeHex, _, _ := strings.Cut(strings.TrimRight(line, "\r\n"), ";")
		size, err := strconv.ParseInt(sizeHex, 16, 32)
		if err != nil || size < 0 || size > 64<<20 {
			return nil, errors.New("bad chunk size")
		}
		if size == 0 {
			return out, nil
		}
		chunk := make([]byte, size+2)
		if _, err := io.ReadFull(br, chunk); err != nil {
			return nil, err
		}
		if !bytes.HasSuffix(chunk, []byte("\r\n")) {
			return nil, errors.New("chunk without CRLF")
		}
		out = append(out, chunk[:size]...)
	}
}
