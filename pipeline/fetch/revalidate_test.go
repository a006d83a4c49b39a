package fetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// condServer is a loopback server whose answers a test sets per path; it
// records the conditional headers of every request.
type condServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // path + " inm=" + If-None-Match + " ims=" + If-Modified-Since
}

func newCondServer(t *testing.T, h func(w http.ResponseWriter, r *http.Request)) *condServer {
	t.Helper()
	cs := &condServer{}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs.mu.Lock()
		cs.seen = append(cs.seen, r.URL.Path+" inm="+r.Header.Get("If-None-Match")+" ims="+r.Header.Get("If-Modified-Since"))
		cs.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(cs.Close)
	return cs
}

func (cs *condServer) requests() []string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	out := cs.seen
	cs.seen = nil
	return out
}

func (cs *condServer) client(t *testing.T) *Client {
	t.Helper()
	c, err := New(Options{FixtureAddr: cs.Listener.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestConditionalRoundTrip: a document kept with its ETag is asked for
// with If-None-Match, the 304 is answered from the kept body with its
// original date, and a changed document is read afresh.
func TestConditionalRoundTrip(t *testing.T) {
	body := "version one"
	cs := newCondServer(t, func(w http.ResponseWriter, r *http.Request) {
		et := `"` + strings.ReplaceAll(body, " ", "-") + `"`
		w.Header().Set("ETag", et)
		w.Header().Set("Set-Cookie", "seen=1; Path=/")
		if r.Header.Get("If-None-Match") == et {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Write([]byte(body))
	})
	c := cs.client(t)
	day1 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	now := day1
	clock := func() time.Time { return now }

	docs := NewDocs(nil, 0, clock)
	resp, err := c.WithCookies().WithDocs(docs).Get(context.Background(), "http://shop.test/")
	if err != nil || string(resp.Body) != body || resp.Revalidated {
		t.Fatalf("first fetch: %v %+v", err, resp)
	}
	kept := docs.Next()
	if len(kept) != 1 || kept[0].ETag != `"version-one"` || !kept[0].FetchedAt.Equal(day1) {
		t.Fatalf("kept %+v, want the document with its ETag and date", kept)
	}
	if got := cs.requests(); got[0] != "/ inm= ims=" {
		t.Fatalf("first request %q sent validators", got)
	}

	now = day1.Add(7 * 24 * time.Hour)
	docs = NewDocs(kept, 0, clock)
	resp, err = c.WithCookies().WithDocs(docs).Get(context.Background(), "http://shop.test/")
	if err != nil || resp.StatusCode != 200 || string(resp.Body) != body || !resp.Revalidated || !resp.FetchedAt.Equal(day1) {
		t.Fatalf("second fetch: %v %+v, want the kept 200 body, revalidated, fetched on day 1", err, resp)
	}
	if got := cs.requests(); len(got) != 1 || got[0] != `/ inm="version-one" ims=` {
		t.Fatalf("second run sent %q, want one request with If-None-Match", got)
	}
	if r := docs.Reused(); len(r) != 1 || !r[0].FetchedAt.Equal(day1) || r[0].URL != "http://shop.test/" {
		t.Fatalf("reused %+v", r)
	}
	if n := docs.Next(); len(n) != 1 || !n[0].FetchedAt.Equal(day1) {
		t.Fatalf("a confirmed document keeps its download date: %+v", n)
	}

	body = "version two"
	docs = NewDocs(docs.Next(), 0, clock)
	resp, err = c.WithCookies().WithDocs(docs).Get(context.Background(), "http://shop.test/")
	if err != nil || string(resp.Body) != "version two" || resp.Revalidated {
		t.Fatalf("changed document: %v %+v, want the new body", err, resp)
	}
	if n := docs.Next(); len(n) != 1 || n[0].ETag != `"version-two"` || !n[0].FetchedAt.Equal(now) {
		t.Fatalf("kept after the change: %+v", n)
	}
	if len(docs.Reused()) != 0 {
		t.Fatal("a changed document was recorded as reused")
	}
}

// TestConditionalTraps: the answers a kept copy must not be trusted for.
func TestConditionalTraps(t *testing.T) {
	now := time.Date(2026, 11, 8, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	fetched := now.Add(-7 * 24 * time.Hour)
	kept := func(url, etag, lm string, at time.Time) []Doc {
		c, _ := New(Options{FixtureAddr: "127.0.0.1:1"})
		u, _ := ParseURL(url)
		return []Doc{{Key: c.docKey(u, Request{}), URL: url, FinalURL: url, Status: 200,
			Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte("old body"), ETag: etag, LastModified: lm, FetchedAt: at}}
	}

	t.Run("304 to an unconditional request is not the kept body", func(t *testing.T) {
		cs := newCondServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotModified) })
		docs := NewDocs(nil, 0, clock)
		resp, err := cs.client(t).WithDocs(docs).Get(context.Background(), "http://shop.test/")
		if err != nil || resp.StatusCode != 304 || resp.Revalidated || len(resp.Body) != 0 {
			t.Fatalf("%v %+v: want the bare 304 passed through", err, resp)
		}
		if len(docs.Next()) != 0 || len(docs.Reused()) != 0 {
			t.Fatal("a 304 nobody asked for was kept or reused")
		}
	})

	t.Run("too old: asked in full", func(t *testing.T) {
		cs := newCondServer(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("fresh")) })
		docs := NewDocs(kept("http://shop.test/", `"a"`, "", now.Add(-31*24*time.Hour)), 30*24*time.Hour, clock)
		resp, err := cs.client(t).WithDocs(docs).Get(context.Background(), "http://shop.test/")
		if err != nil || string(resp.Body) != "fresh" {
			t.Fatalf("%v %+v", err, resp)
		}
		if got := cs.requests(); got[0] != "/ inm= ims=" {
			t.Fatalf("sent %q, want no validators for a document older than the bound", got)
		}
	})

	t.Run("304 with another entity-tag: asked again in full", func(t *testing.T) {
		cs := newCondServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", `"other"`)
			if r.Header.Get("If-None-Match") != "" {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Write([]byte("current"))
		})
		docs := NewDocs(kept("http://shop.test/", `"a"`, "", fetched), 0, clock)
		resp, err := cs.client(t).WithDocs(docs).Get(context.Background(), "http://shop.test/")
		if err != nil || string(resp.Body) != "current" || resp.Revalidated {
			t.Fatalf("%v %+v, want the full answer", err, resp)
		}
		if got := cs.requests(); len(got) != 2 || got[1] != "/ inm= ims=" {
			t.Fatalf("sent %q, want a conditional request then a full one", got)
		}
	})

	t.Run("304 for another final document: asked again in full", func(t *testing.T) {
		cs := newCondServer(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/" {
				http.Redirect(w, r, "/elsewhere", http.StatusFound)
				return
			}
			if r.Header.Get("If-Modified-Since") != "" {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Write([]byte("elsewhere"))
		})
		docs := NewDocs(kept("http://shop.test/", "", "Mon, 01 Jun 2026 12:00:00 GMT", fetched), 0, clock)
		resp, err := cs.client(t).WithDocs(docs).Get(context.Background(), "http://shop.test/")
		if err != nil || string(resp.Body) != "elsewhere" || resp.Revalidated {
			t.Fatalf("%v %+v", err, resp)
		}
	})

	t.Run("robots.txt unchanged: the rest is asked conditionally", func(t *testing.T) {
		cs := newCondServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", `"a"`)
			if r.URL.Path == "/robots.txt" {
				w.Write([]byte("old body")) // in full, but the same
				return
			}
			if r.Header.Get("If-None-Match") != "" {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Write([]byte("old body"))
		})
		docs := NewDocs(kept("http://shop.test/page", `"a"`, "", fetched), 0, clock)
		docs.SetRobots(robotsDigest(200, []byte("old body")))
		s := cs.client(t).WithDocs(docs)
		s.Get(context.Background(), "http://shop.test/robots.txt")
		resp, _ := s.Get(context.Background(), "http://shop.test/page")
		if resp == nil || !resp.Revalidated || docs.Robots() != robotsDigest(200, []byte("old body")) {
			t.Fatalf("%+v robots %q: want /page revalidated and the same robots digest", resp, docs.Robots())
		}
	})

	t.Run("kept 404 confirmed by HEAD for a status-only request", func(t *testing.T) {
		status := http.StatusNotFound
		cs := newCondServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			if r.Method == http.MethodGet {
				w.Write([]byte("a big themed 404 page"))
			}
		})
		c := cs.client(t)
		req := Request{URL: "http://shop.test/.well-known/acp.json", StatusOnlyIfAbsent: true}
		docs := NewDocs(nil, 0, clock)
		if _, err := c.WithDocs(docs).Do(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		kept := docs.Next()
		if len(kept) != 1 || !kept[0].Absent || len(kept[0].Body) != 0 {
			t.Fatalf("kept %+v, want one absence without a body", kept)
		}
		cs.requests()
		docs = NewDocs(kept, 0, clock)
		resp, err := c.WithDocs(docs).Do(context.Background(), req)
		if err != nil || resp.StatusCode != 404 || !resp.Revalidated {
			t.Fatalf("%v %+v", err, resp)
		}
		if r := docs.Reused(); len(r) != 1 || r[0].Confirmed != ConfirmedSameStatus {
			t.Fatalf("reused %+v", r)
		}
		// A request that reads 404 bodies is not answered from an absence.
		docs = NewDocs(kept, 0, clock)
		if resp, _ := c.WithDocs(docs).Do(context.Background(), Request{URL: req.URL}); resp == nil || resp.Revalidated || string(resp.Body) != "a big themed 404 page" {
			t.Fatalf("%+v", resp)
		}
		// The document appeared: HEAD says 200, and the GET reads it.
		status = http.StatusOK
		docs = NewDocs(kept, 0, clock)
		cs.requests()
		resp, err = c.WithDocs(docs).Do(context.Background(), req)
		if err != nil || resp.StatusCode != 200 || resp.Revalidated {
			t.Fatalf("%v %+v, want the new document", err, resp)
		}
		if got := cs.requests(); len(got) != 2 {
			t.Fatalf("sent %q, want HEAD then GET", got)
		}
	})

	t.Run("server ignores validators", func(t *testing.T) {
		cs := newCondServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", `"a"`)
			w.Write([]byte("old body"))
		})
		docs := NewDocs(kept("http://shop.test/", `"a"`, "", fetched), 0, clock)
		resp, err := cs.client(t).WithDocs(docs).Get(context.Background(), "http://shop.test/")
		if err != nil || string(resp.Body) != "old body" || resp.Revalidated || len(docs.Reused()) != 0 {
			t.Fatalf("%v %+v", err, resp)
		}
		if n := docs.Next(); len(n) != 1 || !n[0].FetchedAt.Equal(now) {
			t.Fatalf("kept %+v, want the new download's date", n)
		}
	})

	t.Run("no-store, hostile validators and POST are not kept", func(t *testing.T) {
		cs := newCondServer(t, func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/nostore":
				w.Header().Set("Cache-Control", "no-store")
				w.Header().Set("ETag", `"a"`)
			case "/huge":
				w.Header().Set("ETag", `"`+strings.Repeat("x", 300)+`"`)
				w.Header().Set("Last-Modified", "yesterday-ish")
			case "/future":
				w.Header().Set("Last-Modified", now.Add(48*time.Hour).Format(http.TimeFormat))
			case "/post":
				w.Header().Set("ETag", `"a"`)
			}
			w.Write([]byte("x"))
		})
		c := cs.client(t)
		docs := NewDocs(nil, 0, clock)
		s := c.WithDocs(docs)
		for _, p := range []string{"/nostore", "/huge", "/future"} {
			if _, err := s.Get(context.Background(), "http://shop.test"+p); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Do(context.Background(), Request{Method: http.MethodPost, URL: "http://shop.test/post", Body: []byte("{}")}); err != nil {
			t.Fatal(err)
		}
		if n := docs.Next(); len(n) != 0 {
			t.Fatalf("kept %d documents, want none", len(n))
		}
	})

	t.Run("another cookie state is another variant", func(t *testing.T) {
		cs := newCondServer(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/set" {
				w.Header().Set("Set-Cookie", "region=fr; Path=/")
				return
			}
			w.Header().Set("ETag", `"a"`)
			if r.Header.Get("If-None-Match") != "" {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Write([]byte("old body"))
		})
		docs := NewDocs(kept("http://shop.test/", `"a"`, "", fetched), 0, clock)
		s := cs.client(t).WithCookies().WithDocs(docs)
		s.Get(context.Background(), "http://shop.test/set")
		resp, err := s.Get(context.Background(), "http://shop.test/")
		if err != nil || resp.Revalidated {
			t.Fatalf("%v %+v: a document kept without cookies answered a request with one", err, resp)
		}
	})

	t.Run("robots.txt changed: the rest is asked in full", func(t *testing.T) {
		cs := newCondServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", `"a"`)
			if r.URL.Path == "/robots.txt" {
				w.Header().Set("ETag", `"robots-2"`)
				w.Write([]byte("User-agent: *\nDisallow: /\n"))
				return
			}
			if r.Header.Get("If-None-Match") != "" {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Write([]byte("old body"))
		})
		prior := append(kept("http://shop.test/robots.txt", `"robots-1"`, "", fetched), kept("http://shop.test/page", `"a"`, "", fetched)...)
		docs := NewDocs(prior, 0, clock)
		docs.SetRobots(robotsDigest(200, []byte("old body")))
		s := cs.client(t).WithDocs(docs)
		s.Get(context.Background(), "http://shop.test/robots.txt")
		s.Get(context.Background(), "http://shop.test/page")
		if got := cs.requests(); len(got) != 2 || got[1] != "/page inm= ims=" {
			t.Fatalf("sent %q, want /page in full after robots.txt changed", got)
		}
	})
}

func TestValidators(t *testing.T) {
	now := time.Date(2026, 11, 8, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ in, want string }{
		{`"abc"`, `"abc"`}, {`W/"abc"`, `W/"abc"`}, {`abc`, ""}, {`"a"b"`, ""}, {`"a b"`, ""},
		{`"` + strings.Repeat("x", 255) + `"`, ""}, {"", ""},
	} {
		if got := ValidETag(tc.in); got != tc.want {
			t.Errorf("ValidETag(%.20q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"Mon, 01 Jun 2026 12:00:00 GMT", "Mon, 01 Jun 2026 12:00:00 GMT"},
		{"Monday, 01-Jun-26 12:00:00 GMT", "Mon, 01 Jun 2026 12:00:00 GMT"},
		{"Tue, 10 Nov 2026 12:00:00 GMT", ""}, // the future
		{"Thu, 01 Jan 1970 00:00:00 GMT", ""},
		{"soon", ""},
	} {
		if got := ValidLastModified(tc.in, now); got != tc.want {
			t.Errorf("ValidLastModified(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestDocsBounds: a store's kept documents stay within the per-host bounds.
func TestDocsBounds(t *testing.T) {
	docs := NewDocs(nil, 0, nil)
	big := make([]byte, MaxDocBody)
	for i := range 100 {
		docs.keep(&Doc{Key: string(rune('a' + i)), Body: big})
	}
	n, total := 0, 0
	for _, d := range docs.Next() {
		n++
		total += len(d.Body)
	}
	if n > MaxDocsPerHost || total > MaxHostDocBytes || n == 0 {
		t.Fatalf("kept %d documents, %d bytes; bounds %d, %d", n, total, MaxDocsPerHost, MaxHostDocBytes)
	}
}
