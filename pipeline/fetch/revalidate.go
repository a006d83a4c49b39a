package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// Bounds of the documents a crawl keeps between runs to ask again
// conditionally (If-None-Match, If-Modified-Since). What is over a bound is
// simply not kept: the next run fetches it in full, as it did before.
const (
	MaxDocBody       = 512 << 10 // bytes of one kept body
	MaxDocHeader     = 16 << 10  // bytes of one kept header block
	MaxDocsPerHost   = 48        // documents kept for one store
	MaxHostDocBytes  = 2 << 20   // body and header bytes kept for one store
	maxETagLen       = 256       // a longer entity-tag is hostile or broken: ignored
	DefaultDocMaxAge = 30 * 24 * time.Hour
)

// Doc is one document a check fetched with a 200 and a usable validator,
// kept so the next run can ask the store whether it changed. Key names the
// exact request variant (method, URL, Accept, redirect mode and the cookies
// the session held), so a document is reused only for the same request.
type Doc struct {
	Key          string      `json:"key"`
	URL          string      `json:"url"`      // the URL asked for
	FinalURL     string      `json:"finalUrl"` // after redirects: a 304 for another document is not trusted
	Status       int         `json:"status"`
	Header       http.Header `json:"header"`
	Body         []byte      `json:"body"`
	ETag         string      `json:"etag,omitempty"`
	LastModified string      `json:"lastModified,omitempty"`
	FetchedAt    time.Time   `json:"fetchedAt"` // when the body was last downloaded in full
	// Absent marks a 404 or 410 kept for a StatusOnlyIfAbsent request:
	// its body is not kept, and HEAD confirms it.
	Absent bool `json:"absent,omitempty"`
}

func (d *Doc) size() int {
	return len(d.Body) + headerSize(d.Header) + len(d.Key) + len(d.URL) + len(d.FinalURL)
}

// Reuse records one document a check did not download again: the store
// answered 304 Not Modified to a conditional request, and the body kept
// from FetchedAt was read instead.
type Reuse struct {
	URL       string    `json:"url"` // redacted
	FetchedAt time.Time `json:"fetchedAt"`
	// Confirmed says how the store confirmed the kept copy:
	// "not_modified" (a 304 to If-None-Match or If-Modified-Since) or
	// "same_status" (a HEAD answered the same 404 or 410 again).
	Confirmed string `json:"confirmed"`
}

// How a kept document was confirmed (Reuse.Confirmed).
const (
	ConfirmedNotModified = "not_modified"
	ConfirmedSameStatus  = "same_status"
)

// Docs is one check's view of a store's kept documents: the ones of the
// last run it may ask about (prior), and the ones this check fetched or
// confirmed (Next), which replace them. It is safe for concurrent use.
type Docs struct {
	now    func() time.Time
	maxAge time.Duration

	mu       sync.Mutex
	prior    map[string]*Doc
	next     map[string]*Doc
	order    []string
	bytes    int
	reused   []Reuse
	disabled bool // robots.txt changed: the rest of the check asks unconditionally

	robotsPrior, robotsNow string // digests of the last run's and this check's robots.txt
}

// NewDocs returns the view over prior (the documents kept by the last run;
// nil for none). Documents fetched longer than maxAge ago (<= 0:
// DefaultDocMaxAge) are not asked about: they are fetched in full again.
func NewDocs(prior []Doc, maxAge time.Duration, now func() time.Time) *Docs {
	if maxAge <= 0 {
		maxAge = DefaultDocMaxAge
	}
	if now == nil {
		now = time.Now
	}
	d := &Docs{now: now, maxAge: maxAge, prior: map[string]*Doc{}, next: map[string]*Doc{}}
	for i := range prior {
		p := &prior[i]
		if p.Key == "" || len(p.Body) > MaxDocBody || !(p.Status == http.StatusOK && !p.Absent || p.Absent && absentStatus(p.Status)) {
			continue
		}
		d.prior[p.Key] = p
	}
	return d
}

// Held is the number of kept documents of the last run this view holds.
func (d *Docs) Held() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.prior)
}

// Next returns the documents to keep for the next run, in the order this
// check asked for them.
func (d *Docs) Next() []Doc {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Doc, 0, len(d.order))
	for _, k := range d.order {
		out = append(out, *d.next[k])
	}
	return out
}

// Reused returns the documents answered from the kept copy, sorted by URL.
func (d *Docs) Reused() []Reuse {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := append([]Reuse(nil), d.reused...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out
}

// lookup returns the kept document for key when it may be asked about.
func (d *Docs) lookup(key string) *Doc {
	d.mu.Lock()
	defer d.mu.Unlock()
	p := d.prior[key]
	if d.disabled || p == nil {
		return nil
	}
	if age := d.now().Sub(p.FetchedAt); age > d.maxAge || age < -time.Hour {
		return nil // too old, or from a clock ahead of ours: fetch in full
	}
	return p
}

// Keep records doc for the next run, within the per-host bounds.
func (d *Docs) Keep(doc Doc) { d.keep(&doc) }

// keep records doc for the next run, within the per-host bounds.
func (d *Docs) keep(doc *Doc) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if old, ok := d.next[doc.Key]; ok {
		d.bytes -= old.size()
		d.next[doc.Key] = doc
		d.bytes += doc.size()
		return
	}
	if len(d.order) >= MaxDocsPerHost || d.bytes+doc.size() > MaxHostDocBytes {
		return
	}
	d.next[doc.Key] = doc
	d.order = append(d.order, doc.Key)
	d.bytes += doc.size()
}

func (d *Docs) markReused(u *url.URL, fetchedAt time.Time, how string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reused = append(d.reused, Reuse{URL: u.Redacted(), FetchedAt: fetchedAt, Confirmed: how})
}

func absentStatus(s int) bool { return s == http.StatusNotFound || s == http.StatusGone }

// fetchedFull notes a document downloaded in full. When it is robots.txt
// and its answer differs from the last run's (Robots), the store's rules
// may have changed: the rest of the check asks unconditionally, so
// everything is read and judged afresh.
func (d *Docs) fetchedFull(u *url.URL, status int, body []byte) {
	if u.Path != "/robots.txt" {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.robotsNow = robotsDigest(status, body)
	if d.robotsPrior != "" && d.robotsNow != d.robotsPrior {
		d.disabled = true
	}
}

func robotsDigest(status int, body []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d\n", status)
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// SetRobots gives the digest of the last run's robots.txt answer (Robots).
func (d *Docs) SetRobots(digest string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.robotsPrior = digest
}

// Robots is the digest of this check's robots.txt answer (status and
// body), to keep for the next run; "" when robots.txt was not read.
func (d *Docs) Robots() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.robotsNow
}

// WithDocs returns a client that shares c's connections, limits and
// cookie jar and asks conditionally for the documents docs holds: a GET
// with a kept document sends its validators, and a 304 to that request is
// answered from the kept body (recorded in docs.Reused); a kept 404 or 410
// is confirmed with HEAD for a StatusOnlyIfAbsent request. Every GET 200
// with a usable validator is kept in docs for the next run. A nil docs
// gives c.
func (c *Client) WithDocs(docs *Docs) *Client {
	if docs == nil {
		return c
	}
	cp := *c
	cp.docs = docs
	return &cp
}

// docKey names the request variant a kept document answers: the method,
// the exact URL, the Accept header, the redirect mode and the cookies the
// jar would send to the first hop.
func (c *Client) docKey(u *url.URL, r Request) string {
	h := sha256.New()
	h.Write([]byte(u.String()))
	h.Write([]byte{0})
	h.Write([]byte(r.Header.Get("Accept")))
	h.Write([]byte{0})
	if r.NoRedirect {
		h.Write([]byte("noredirect"))
	}
	if r.StatusOnlyIfAbsent {
		h.Write([]byte("statusonly"))
	}
	h.Write([]byte{0})
	if c.hc.Jar != nil {
		cks := c.hc.Jar.Cookies(u)
		names := make([]string, 0, len(cks))
		for _, ck := range cks {
			names = append(names, ck.Name+"="+ck.Value)
		}
		sort.Strings(names)
		h.Write([]byte(strings.Join(names, "; ")))
	}
	return "GET " + hex.EncodeToString(h.Sum(nil)[:16])
}

// conditional reports whether r may be asked conditionally at all: a
// plain GET without a body or caller's own validators.
func conditional(r Request) bool {
	m := r.Method
	return (m == "" || m == http.MethodGet) && r.Body == nil &&
		r.Header.Get("If-None-Match") == "" && r.Header.Get("If-Modified-Since") == "" && r.Header.Get("Range") == ""
}

// doDocs is Do for a client with docs: it sends the kept validators,
// trusts a 304 only to a request that carried them, for the same final
// URL and the same entity-tag, and keeps what it fetched in full.
func (c *Client) doDocs(ctx context.Context, u *url.URL, r Request) (*Response, error) {
	key := c.docKey(u, r)
	kept := c.docs.lookup(key)
	if kept != nil && kept.Absent {
		if !r.StatusOnlyIfAbsent {
			kept = nil
		} else if resp, ok := c.confirmAbsent(ctx, u, r, kept); ok {
			return resp, nil
		}
		kept = nil // fetched in full below
	}
	if kept != nil {
		cr := r
		cr.Header = r.Header.Clone()
		if cr.Header == nil {
			cr.Header = http.Header{}
		}
		if kept.ETag != "" {
			cr.Header.Set("If-None-Match", kept.ETag)
		}
		if kept.LastModified != "" {
			cr.Header.Set("If-Modified-Since", kept.LastModified)
		}
		resp, err := c.do(ctx, u, cr)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusNotModified {
			c.keepFetched(u, key, r, resp)
			return resp, nil
		}
		if c.trust304(kept, resp) {
			return c.fromKept(u, kept, resp, ConfirmedNotModified), nil
		}
		// A 304 that does not match what was asked about (another final
		// document, another entity-tag): ask again, in full.
	}
	resp, err := c.do(ctx, u, r)
	if err != nil {
		return nil, err
	}
	c.keepFetched(u, key, r, resp)
	return resp, nil
}

// trust304 reports whether a 304 answers for the kept document.
func (c *Client) trust304(kept *Doc, resp *Response) bool {
	if resp.URL.String() != kept.FinalURL {
		return false
	}
	if et := resp.Header.Get("ETag"); et != "" && kept.ETag != "" && et != kept.ETag {
		return false
	}
	return true
}

// fromKept builds the response a full fetch would have given: the kept
// status, header and body, with this request's redirects. The cookies the
// kept answer set are set again (a 304 need not repeat them), so the rest
// of the check sends what it sent when the document was fetched.
func (c *Client) fromKept(u *url.URL, kept *Doc, resp *Response, how string) *Response {
	out := &Response{
		URL:                resp.URL,
		StatusCode:         kept.Status,
		Header:             kept.Header.Clone(),
		Body:               kept.Body,
		Redirects:          resp.Redirects,
		RedirectSetCookies: resp.RedirectSetCookies,
		Elapsed:            resp.Elapsed,
		Revalidated:        true,
		FetchedAt:          kept.FetchedAt,
	}
	if c.hc.Jar != nil {
		if cks := (&http.Response{Header: kept.Header}).Cookies(); len(cks) > 0 {
			c.hc.Jar.SetCookies(resp.URL, cks)
		}
	}
	if !kept.Absent {
		c.docs.fetchedFull(u, kept.Status, kept.Body) // the same answer: notes robots.txt's digest
	}
	c.docs.markReused(u, kept.FetchedAt, how)
	c.docs.keep(kept)
	return out
}

// confirmAbsent asks with HEAD whether a kept 404 or 410 still stands: the
// same status for the same final URL reuses it.
func (c *Client) confirmAbsent(ctx context.Context, u *url.URL, r Request, kept *Doc) (*Response, bool) {
	hr := r
	hr.Method = http.MethodHead
	resp, err := c.do(ctx, u, hr)
	if err != nil || resp.StatusCode != kept.Status || resp.URL.String() != kept.FinalURL {
		return nil, false
	}
	return c.fromKept(u, kept, resp, ConfirmedSameStatus), true
}

// keepFetched keeps a full answer for the next run when it is a 200 with a
// usable validator, within the bounds, and not marked no-store.
func (c *Client) keepFetched(u *url.URL, key string, r Request, resp *Response) {
	c.docs.fetchedFull(u, resp.StatusCode, resp.Body)
	if r.StatusOnlyIfAbsent && absentStatus(resp.StatusCode) && headerSize(resp.Header) <= MaxDocHeader {
		c.docs.keep(&Doc{Key: key, URL: u.String(), FinalURL: resp.URL.String(), Status: resp.StatusCode,
			Header: resp.Header.Clone(), FetchedAt: c.docs.now().UTC().Truncate(time.Second), Absent: true})
		return
	}
	if resp.StatusCode != http.StatusOK || len(resp.Body) > MaxDocBody || headerSize(resp.Header) > MaxDocHeader {
		return
	}
	cc := strings.ToLower(strings.Join(resp.Header.Values("Cache-Control"), ","))
	if strings.Contains(cc, "no-store") || strings.TrimSpace(resp.Header.Get("Vary")) == "*" {
		return
	}
	now := c.docs.now().UTC()
	doc := &Doc{Key: key, URL: u.String(), FinalURL: resp.URL.String(), Status: resp.StatusCode,
		Header: resp.Header.Clone(), Body: resp.Body, FetchedAt: now.Truncate(time.Second)}
	doc.ETag = ValidETag(resp.Header.Get("ETag"))
	doc.LastModified = ValidLastModified(resp.Header.Get("Last-Modified"), now)
	if doc.ETag == "" && doc.LastModified == "" {
		return
	}
	c.docs.keep(doc)
}

// ValidETag returns s when it is an entity-tag (RFC 9110 section 8.8.3:
// an optional W/ and a quoted string of visible characters) of at most
// 256 bytes, else "".
func ValidETag(s string) string {
	if len(s) > maxETagLen {
		return ""
	}
	t := strings.TrimPrefix(s, "W/")
	if len(t) < 2 || t[0] != '"' || t[len(t)-1] != '"' {
		return ""
	}
	for i := 1; i < len(t)-1; i++ {
		if b := t[i]; b == '"' || b < 0x21 || b == 0x7f {
			return ""
		}
	}
	return s
}

// ValidLastModified returns s when it is an HTTP date no later than now
// (a date in the future is broken and would make every answer "not
// modified"), re-formatted as IMF-fixdate, else "".
func ValidLastModified(s string, now time.Time) string {
	if s == "" || len(s) > 64 {
		return ""
	}
	t, err := http.ParseTime(s)
	if err != nil || t.After(now.Add(time.Minute)) || t.Year() < 1995 {
		return ""
	}
	return t.UTC().Format(http.TimeFormat)
}

func headerSize(h http.Header) int {
	n := 0
	for k, vs := range h {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}
