package pipeline

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"svc/pipeline/check"
	"svc/pipeline/durable"
	"svc/pipeline/fetch"
)

// DocCacheDir is where a data folder keeps the crawl's documents between
// runs: DATA/state/crawl-docs.
func DocCacheDir(dataDir string) string { return filepath.Join(dataDir, "state", "crawl-docs") }

// maxDocFile bounds what is read back of one store's file (decompressed):
// the per-host bound of fetch.MaxHostDocBytes, base64 and JSON around it.
const maxDocFile = fetch.MaxHostDocBytes*2 + 256<<10

// DocCache keeps, per store, the documents its last check fetched with a
// validator (fetch.Doc), so the next crawl asks for them conditionally
// and reuses what the store says has not changed. One gzipped JSON file
// per store, replaced whole after each check: a store's documents are
// the ones of its last check only, and shards never share a file.
type DocCache struct {
	Dir    string
	MaxAge time.Duration    // a document downloaded longer ago is fetched in full; <= 0: fetch.DefaultDocMaxAge
	Now    func() time.Time // default time.Now
}

// docFile is the file of one store.
type docFile struct {
	Host   string      `json:"host"`
	Robots string      `json:"robots,omitempty"` // digest of the robots.txt answer (fetch.Docs.Robots)
	Docs   []fetch.Doc `json:"docs"`
}

func (c *DocCache) path(host string) string {
	sum := sha256.Sum256([]byte(host))
	h := hex.EncodeToString(sum[:16])
	return filepath.Join(c.Dir, h[:2], h+".json.gz")
}

func (c *DocCache) now() time.Time {
	if c.Now == nil {
		return time.Now()
	}
	return c.Now()
}

// Load returns the view of host's kept documents for one check. A missing,
// unreadable, oversized or foreign file is no documents: the check fetches
// in full.
func (c *DocCache) Load(host string) *fetch.Docs {
	var f docFile
	if b, err := readGzipBounded(c.path(host), maxDocFile); err != nil || json.Unmarshal(b, &f) != nil || f.Host != host {
		f = docFile{}
	}
	d := fetch.NewDocs(f.Docs, c.MaxAge, c.now)
	d.SetRobots(f.Robots)
	return d
}

// Save replaces host's file with what the check left in docs; nothing
// kept removes it.
func (c *DocCache) Save(host string, d *fetch.Docs) error {
	path := c.path(host)
	docs, robots := d.Next(), d.Robots()
	if len(docs) == 0 && robots == "" {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("crawl docs %s: %w", host, err)
		}
		return nil
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(docFile{Host: host, Robots: robots, Docs: docs}); err != nil {
		return fmt.Errorf("crawl docs %s: %w", host, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("crawl docs %s: %w", host, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("crawl docs %s: %w", host, err)
	}
	if err := durable.WriteFileAtomic(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("crawl docs %s: %w", host, err)
	}
	return nil
}

func readGzipBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(io.LimitReader(f, limit))
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(zr, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: over %d bytes", path, limit)
	}
	return b, nil
}

// DocsChecker is a Checker that can ask conditionally for the documents
// of the last run; *check.Engine satisfies it.
type DocsChecker interface {
	CheckDocs(ctx context.Context, rawURL string, docs *fetch.Docs) (*check.Result, error)
}

// checkStore runs the check of one store, with its kept documents when the
// crawl keeps them and the checker can use them, and keeps what this check
// fetched. A cache that cannot be written is logged, never a failed store.
func (o CrawlOptions) checkStore(ctx context.Context, s Store) (*check.Result, error) {
	url := "https://" + s.Host + "/"
	dc, ok := o.Checker.(DocsChecker)
	if o.Docs == nil || !ok {
		return o.Checker.Check(ctx, url)
	}
	docs := o.Docs.Load(s.Host)
	res, err := dc.CheckDocs(ctx, url, docs)
	if err != nil {
		return nil, err
	}
	if err := o.Docs.Save(s.Host, docs); err != nil && o.Log != nil {
		o.Log.Warn("crawl docs not kept", "host", s.Host, "err", err)
	}
	return res, nil
}
