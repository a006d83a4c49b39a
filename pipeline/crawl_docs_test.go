package pipeline

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"svc/fixtures"
	"svc/pipeline/check"
	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
)

// docsWorld crawls the fixture world again and again with one kept-document
// cache, as weekly runs of one data folder do. Every crawl has its own
// client (metered), validator and engine, and the same check clock, so
// two crawls of an unchanged world must give the same bytes.
type docsWorld struct {
	srv    *fixtures.Server
	stores []Store
	cache  *DocCache
	now    time.Time // the cache's clock: the day of the crawl
}

func newDocsWorld(tb testing.TB, n int) *docsWorld {
	tb.Helper()
	world := fixtures.Generate(1, n)
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{Slow: 3 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	w := &docsWorld{srv: srv, now: time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)}
	w.cache = &DocCache{Dir: filepath.Join(tb.TempDir(), "crawl-docs"), Now: func() time.Time { return w.now }}
	for _, s := range world.Stores {
		w.stores = append(w.stores, Store{Host: s.Host, Name: s.Name, Category: s.Category, Source: s.Source})
	}
	return w
}

// crawl runs one crawl into a fresh run folder and returns it, the
// journal's results by host and what the client read.
func (w *docsWorld) crawl(tb testing.TB, docs bool, concurrency int) (string, map[string]*check.Result, *fetch.Meter) {
	tb.Helper()
	meter := &fetch.Meter{}
	client, err := fetch.New(fetch.Options{FixtureAddr: w.srv.Addr(), FixtureCA: w.srv.CAPEM(), Timeout: 2 * time.Second, Meter: meter})
	if err != nil {
		tb.Fatal(err)
	}
	v, err := ucp.New(context.Background(), ucp.Config{SchemaDir: fixtures.UCPSchemaDir(), Client: client, CacheDir: tb.TempDir(), Offline: true})
	if err != nil {
		tb.Fatal(err)
	}
	eng := check.New(check.Options{Client: client, UCP: v, Now: shardNow})
	dir := tb.TempDir()
	opts := CrawlOptions{Stores: w.stores, Dir: dir, Concurrency: concurrency, Checker: eng}
	if docs {
		opts.Docs = w.cache
	}
	if _, err := Crawl(context.Background(), opts); err != nil {
		tb.Fatal(err)
	}
	res := map[string]*check.Result{}
	if err := ReadJournal(filepath.Join(dir, JournalName), func(r CrawlRecord) { res[r.Store.Host] = r.Result }); err != nil {
		tb.Fatal(err)
	}
	return dir, res, meter
}

// published is a result as the checks table and the API read it: without
// the record of which documents were reused.
func published(tb testing.TB, r *check.Result) string {
	tb.Helper()
	if r == nil {
		return "null"
	}
	cp := *r
	cp.Reused = nil
	b, err := json.Marshal(cp)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func reusedURL(r *check.Result, url string) (fetch.Reuse, bool) {
	for _, u := range r.Reused {
		if u.URL == url {
			return u, true
		}
	}
	return fetch.Reuse{}, false
}

// TestCrawlConditionalRecrawl: a second crawl of an unchanged world asks
// conditionally, is answered 304 by the stores that support it, reads
// less, and publishes the same bytes; stores that ignore validators or
// send none are read in full and still give the same answers; a changed
// document is read again and its new findings are used.
func TestCrawlConditionalRecrawl(t *testing.T) {
	w := newDocsWorld(t, 120)
	day1 := w.now
	dir1, first, m1 := w.crawl(t, true, 16)
	for h, r := range first {
		if r != nil && len(r.Reused) > 0 {
			t.Fatalf("%s: the first crawl reused %v with nothing kept", h, r.Reused)
		}
	}

	w.now = day1.Add(7 * 24 * time.Hour)
	dir2, second, m2 := w.crawl(t, true, 16)
	if len(second) != len(first) {
		t.Fatalf("second crawl has %d stores, first %d", len(second), len(first))
	}
	byKind := map[fixtures.Conditional][2]int{} // stores whose homepage was reused, of all reachable
	for h, r := range first {
		if a, b := published(t, r), published(t, second[h]); a != b {
			t.Errorf("%s: the second crawl published another answer:\n first %s\nsecond %s", h, a, b)
		}
		r2 := second[h]
		if r2 == nil || r2.Robots.HTTPStatus != 200 {
			continue // only a robots.txt answered 200 can be asked about
		}
		kind := fixtures.ConditionalOf(h)
		c := byKind[kind]
		c[1]++
		if u, ok := reusedURL(r2, "https://"+h+"/robots.txt"); ok {
			c[0]++
			if !u.FetchedAt.Equal(day1) {
				t.Errorf("%s: robots.txt reused with fetchedAt %s, want the first crawl's %s", h, u.FetchedAt, day1)
			}
		}
		byKind[kind] = c
		for _, u := range r2.Reused {
			if u.Confirmed != fetch.ConfirmedNotModified && u.Confirmed != fetch.ConfirmedSameStatus {
				t.Errorf("%s: %s reused, confirmed %q", h, u.URL, u.Confirmed)
			}
		}
	}
	for _, kind := range []fixtures.Conditional{fixtures.CondETag, fixtures.CondLastModified, fixtures.CondBoth, fixtures.CondNone, fixtures.CondIgnore} {
		c := byKind[kind]
		if c[1] == 0 {
			t.Errorf("no reachable %s store in the world: the test proves nothing for it", kind)
			continue
		}
		supports := kind == fixtures.CondETag || kind == fixtures.CondLastModified || kind == fixtures.CondBoth
		if supports && c[0] != c[1] || !supports && c[0] != 0 {
			t.Errorf("%s stores: robots.txt reused on %d of %d", kind, c[0], c[1])
		}
	}
	// The checks table's rows, by host (the table's row order is the
	// journal's, which follows completion).
	rows := func(dir string) map[string]string {
		out := map[string]string{}
		if err := ReadJournal(filepath.Join(dir, JournalName), func(r CrawlRecord) {
			if r.Result != nil {
				cp := *r.Result
				cp.Reused = nil // the record of what was reused is the one field allowed to differ
				r.Result = &cp
			}
			b, _ := json.Marshal(CheckRow(r))
			out[r.Store.Host] = string(b)
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	r1, r2 := rows(dir1), rows(dir2)
	if len(r1) != len(w.stores) || len(r2) != len(r1) {
		t.Fatalf("checks rows: %d and %d of %d stores", len(r1), len(r2), len(w.stores))
	}
	for h, row := range r1 {
		if r2[h] != row {
			t.Errorf("%s: checks row differs:\n first %s\nsecond %s", h, row, r2[h])
		}
	}
	if m2.BodyBytes() >= m1.BodyBytes()/2 {
		t.Errorf("second crawl read %d body bytes, first %d: want under half", m2.BodyBytes(), m1.BodyBytes())
	}
	t.Logf("body bytes %d -> %d (%.2f), wire bytes %d -> %d (%.2f), requests %d -> %d",
		m1.BodyBytes(), m2.BodyBytes(), float64(m2.BodyBytes())/float64(m1.BodyBytes()),
		m1.WireBytes(), m2.WireBytes(), float64(m2.WireBytes())/float64(m1.WireBytes()), m1.Requests(), m2.Requests())

	// Change the robots.txt of one store of each kind that answers
	// conditionally: the next crawl reads it again and judges the new rules.
	changed := map[string]bool{}
	for _, kind := range []fixtures.Conditional{fixtures.CondETag, fixtures.CondLastModified, fixtures.CondBoth} {
		for _, s := range w.stores {
			r := second[s.Host]
			if changed[s.Host] || fixtures.ConditionalOf(s.Host) != kind || r == nil || r.Robots.HTTPStatus != 200 {
				continue
			}
			if _, ok := reusedURL(r, "https://"+s.Host+"/robots.txt"); !ok {
				continue
			}
			changed[s.Host] = true
			w.srv.Change(s.Host, "/robots.txt", func([]byte) []byte { return []byte("User-agent: *\nDisallow: /\n") })
			break
		}
	}
	if len(changed) != 3 {
		t.Fatalf("found %d stores to change, want 3", len(changed))
	}
	w.now = day1.Add(14 * 24 * time.Hour)
	_, third, _ := w.crawl(t, true, 16)
	for h := range changed {
		r := third[h]
		if _, ok := reusedURL(r, "https://"+h+"/robots.txt"); ok {
			t.Errorf("%s (%s): the changed robots.txt was reused", h, fixtures.ConditionalOf(h))
		}
		if published(t, r) == published(t, second[h]) {
			t.Errorf("%s (%s): a changed robots.txt gave the same answer", h, fixtures.ConditionalOf(h))
		}
		for agent, v := range r.Robots.Agents {
			if v.Verdict != "disallowed" {
				t.Errorf("%s: %s is %s under Disallow: /", h, agent, v.Verdict)
			}
		}
	}
	for h, r := range second {
		if !changed[h] && published(t, r) != published(t, third[h]) {
			t.Errorf("%s: unchanged, yet the third crawl answered otherwise", h)
		}
	}
}

// TestCrawlDocsMaxAge: documents kept longer than the bound are fetched in
// full, and nothing is reused.
func TestCrawlDocsMaxAge(t *testing.T) {
	w := newDocsWorld(t, 30)
	w.crawl(t, true, 8)
	w.now = w.now.Add(31 * 24 * time.Hour)
	_, res, _ := w.crawl(t, true, 8)
	for h, r := range res {
		if r != nil && len(r.Reused) > 0 {
			t.Errorf("%s: reused %v after 31 days", h, r.Reused)
		}
	}
	// And within the bound, the same world is reused (the test can fail).
	w.now = w.now.Add(24 * time.Hour)
	_, res, _ = w.crawl(t, true, 8)
	n := 0
	for _, r := range res {
		if r != nil && len(r.Reused) > 0 {
			n++
		}
	}
	if n == 0 {
		t.Error("no store reused a document a day after a full crawl")
	}
}

// TestDocCacheRoundTripAndHostile: a store's file reads back as written;
// a file of another host, a corrupt or an oversized one is ignored.
func TestDocCacheRoundTripAndHostile(t *testing.T) {
	c := &DocCache{Dir: t.TempDir()}
	now := time.Now().UTC().Truncate(time.Second)
	doc := fetch.Doc{Key: "GET k", URL: "https://a.test/", FinalURL: "https://a.test/", Status: 200, Body: []byte("hi"), ETag: `"x"`, FetchedAt: now}
	d := fetch.NewDocs(nil, 0, nil)
	d.Keep(doc)
	if err := c.Save("a.test", d); err != nil {
		t.Fatal(err)
	}
	if n := c.Load("a.test").Held(); n != 1 {
		t.Fatalf("read back %d documents, want 1", n)
	}
	// Another host's file at this host's path is not read.
	b, err := os.ReadFile(c.path("a.test"))
	if err != nil {
		t.Fatal(err)
	}
	put := func(host string, data []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(c.path(host)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(c.path(host), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("b.test", b)
	if n := c.Load("b.test").Held(); n != 0 {
		t.Errorf("a.test's file read as b.test's: %d documents", n)
	}
	put("b.test", []byte("not gzip"))
	if n := c.Load("b.test").Held(); n != 0 {
		t.Errorf("a corrupt file gave %d documents", n)
	}
	var big bytes.Buffer
	zw := gzip.NewWriter(&big)
	zw.Write([]byte(`{"host":"b.test","docs":[{"key":"GET k","status":200,"body":"`))
	zw.Write(bytes.Repeat([]byte("QUFB"), maxDocFile/4+1))
	zw.Write([]byte(`"}]}`))
	zw.Close()
	put("b.test", big.Bytes())
	if n := c.Load("b.test").Held(); n != 0 {
		t.Errorf("an oversized file gave %d documents", n)
	}
	if err := c.Save("b.test", fetch.NewDocs(nil, 0, nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.path("b.test")); !os.IsNotExist(err) {
		t.Fatalf("saving no documents left the file: %v", err)
	}
}

// TestCrawlStageKeepsDocsUnlessRefetch: `svc crawl` keeps the documents in
// the data folder's state by default, so the next week's run on the same
// folder asks conditionally and reuses; --refetch (Refetch) downloads
// everything and reuses nothing.
func TestCrawlStageKeepsDocsUnlessRefetch(t *testing.T) {
	w := newDocsWorld(t, 20)
	data := t.TempDir()
	run := func(runID string, refetch bool) (reused int) {
		t.Helper()
		client, err := fetch.New(fetch.Options{FixtureAddr: w.srv.Addr(), FixtureCA: w.srv.CAPEM(), Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		err = CrawlStage(context.Background(), CrawlStageOptions{
			StageEnv:    StageEnv{DataDir: data, RunID: runID, Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}},
			Stores:      w.stores,
			Concurrency: 8,
			Checker:     check.New(check.Options{Client: client, Now: shardNow}),
			Refetch:     refetch,
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := ReadJournal(filepath.Join(RunDir(data, runID), JournalName), func(r CrawlRecord) {
			if r.Result != nil {
				reused += len(r.Result.Reused)
			}
		}); err != nil {
			t.Fatal(err)
		}
		return reused
	}
	if n := run("2026-11-23", false); n != 0 {
		t.Fatalf("the first crawl reused %d documents", n)
	}
	if _, err := os.Stat(DocCacheDir(data)); err != nil {
		t.Fatalf("the crawl kept no documents: %v", err)
	}
	if n := run("2026-11-30", false); n == 0 {
		t.Error("the second crawl on the same data folder reused nothing")
	}
	if n := run("2026-12-07", true); n != 0 {
		t.Errorf("a crawl with Refetch reused %d documents", n)
	}
}
