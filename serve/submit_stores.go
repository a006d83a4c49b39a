package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"svc/pipeline"
	"svc/pipeline/detect"
	"svc/pipeline/fetch"
	"svc/pipeline/inbox"
)

// Limits of a store submission (spec 2.12, 8).
const (
	// MaxSubmitHosts is the most stores one request may name (url and
	// hosts together).
	MaxSubmitHosts = 50
	// maxStoreSubmitBody bounds the body: 51 URLs of 2,048 characters fit.
	maxStoreSubmitBody = 128 << 10
	// vetConcurrency is how many submitted hosts are checked at once.
	vetConcurrency = 8
	// vetTimeout bounds the checks of one request; each request of the safe
	// client has its own 6 s.
	vetTimeout = 45 * time.Second
)

// Per-host outcomes of a store submission (spec 3).
const (
	OutcomeAccepted      = "accepted"
	OutcomeAlreadyListed = "already_listed"
	OutcomeRejected      = "rejected"
	OutcomeLimited       = "limited"
)

// Reasons a submitted host is rejected or limited: stable codes, each with
// a message that says what was seen.
const (
	ReasonInvalidHost = "invalid_host" // not a public domain name
	ReasonUnsafe      = "unsafe"       // resolves to a private, loopback or reserved address
	ReasonUnreachable = "unreachable"  // no HTTPS answer: DNS, TLS, timeout, 5xx, oversized
	ReasonNotHTTPS    = "not_https"    // the homepage moves to plain http
	ReasonNotAStore   = "not_a_store"  // the homepage answers 4xx (404, 410, ...)
	ReasonParked      = "parked"       // a parked or for-sale domain page
	ReasonOtherBrand  = "other_brand"  // the homepage redirects to another brand's domain
	ReasonDailyLimit  = "daily_limit"  // limited: the network's (or the site's) hosts for today are used
)

// StoreSubmission is the body of POST /api/stores/submit and the
// arguments of the submit_store tool (spec 2.12).
type StoreSubmission struct {
	URL      string   `json:"url,omitempty"`      // one store: a homepage, product URL or bare host
	Hosts    []string `json:"hosts,omitempty"`    // up to 50 stores, same forms
	Category string   `json:"category,omitempty"` // a directory category slug (CategorySlugs), optional
}

// StoreSubmitResult is the answer: one result per distinct host, in the
// order given, and the count of each outcome.
type StoreSubmitResult struct {
	Results       []HostResult `json:"results"`
	Accepted      int          `json:"accepted"`
	AlreadyListed int          `json:"already_listed"`
	Rejected      int          `json:"rejected"`
	Limited       int          `json:"limited"`
	Note          string       `json:"note"`
}

// HostResult is the outcome of one submitted host. Host is the normalised
// host name, or the entry as given (cut to 200 bytes) when it is not one.
type HostResult struct {
	Host    string `json:"host"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`  // rejected and limited only
	Message string `json:"message,omitempty"` // what was seen, in words
}

const storeSubmitNote = "Accepted stores are queued: the next pipeline run checks them like every store " +
	"(UCP, WebMCP, MCP, policies, product data; plain HTTP, no model calls) and lists them with source=submitted."

// SubmitStores is the store submission shared by POST /api/stores/submit
// and the submit_store tool. The request itself must name 1 to 50 stores
// and a known category (else ErrInvalid) and fit the caller's daily
// requests (else ErrLimited). Each distinct host then gets an outcome:
// rejected when it is not a public domain name; already_listed when the
// served directory or an earlier submission has it (or its www twin);
// limited when the caller's (or the site's) daily host checks are used
// up; else it is checked through the safe client and accepted or rejected
// with the reason. Accepted hosts are in the state log, fsync'd, before
// this returns.
func (s *Server) SubmitStores(ctx context.Context, caller string, req StoreSubmission) (*StoreSubmitResult, error) {
	var entries []string // blank entries name no store
	for _, e := range append([]string{req.URL}, req.Hosts...) {
		if strings.TrimSpace(e) != "" {
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		return nil, fail(ErrInvalid, `no stores: give "url" (one store) or "hosts" (up to %d), e.g. {"url": "https://shop.example/"}`, MaxSubmitHosts)
	}
	if len(entries) > MaxSubmitHosts {
		return nil, fail(ErrInvalid, "%d stores in one request; the limit is %d (url and hosts together): split the list", len(entries), MaxSubmitHosts)
	}
	category, err := submitCategory(req.Category)
	if err != nil {
		return nil, err
	}
	if s.cfg.Client == nil {
		return nil, fail(ErrUnavailable, "store submissions are unavailable on this server")
	}
	if err := s.limits.take(caller, 1, quotaStoreSubmits); err != nil {
		return nil, err
	}

	results := make([]HostResult, 0, len(entries))
	seen := map[string]bool{}
	var todo []int // indexes into results of hosts to check
	for _, e := range entries {
		host, msg := submittedHost(e)
		if msg != "" {
			results = append(results, HostResult{Host: cut(strings.TrimSpace(e), 200), Outcome: OutcomeRejected, Reason: ReasonInvalidHost, Message: msg})
			continue
		}
		if seen[host] {
			continue
		}
		seen[host] = true
		if s.listed(host) {
			results = append(results, HostResult{Host: host, Outcome: OutcomeAlreadyListed})
			continue
		}
		results = append(results, HostResult{Host: host})
		todo = append(todo, len(results)-1)
	}

	// The daily host quota pays for the outbound checks: the first hosts
	// that fit are checked, the rest come back limited.
	n, err := s.limits.takeSome(caller, len(todo), quotaStoreHosts, quotaSiteSubHosts)
	if err != nil {
		return nil, err
	}
	for _, i := range todo[n:] {
		results[i].Outcome, results[i].Reason = OutcomeLimited, ReasonDailyLimit
		results[i].Message = fmt.Sprintf("the daily limit of %d submitted hosts checked per network (%d site-wide) is reached; submit it again after 00:00 UTC",
			quotaStoreHosts.Max, quotaSiteSubHosts.Max)
	}
	s.vetHosts(ctx, results, todo[:n])
	if ctx.Err() != nil {
		return nil, fail(ErrUnavailable, "the request was cancelled before the stores were saved; nothing was accepted")
	}

	if err := s.acceptHosts(results, category); err != nil {
		return nil, err
	}
	out := &StoreSubmitResult{Results: results, Note: storeSubmitNote}
	for _, r := range results {
		switch r.Outcome {
		case OutcomeAccepted:
			out.Accepted++
		case OutcomeAlreadyListed:
			out.AlreadyListed++
		case OutcomeRejected:
			out.Rejected++
		case OutcomeLimited:
			out.Limited++
		}
	}
	return out, nil
}

// acceptHosts makes the accepted results durable: hosts another request
// accepted meanwhile become already_listed, the rest go to the state log in
// one record, fsync'd, and only then count as listed.
func (s *Server) acceptHosts(results []HostResult, category string) error {
	s.subs.storeMu.Lock()
	defer s.subs.storeMu.Unlock()
	var rec inbox.StoreSubmission
	for i := range results {
		if results[i].Outcome != OutcomeAccepted {
			continue
		}
		if s.listed(results[i].Host) {
			results[i].Outcome, results[i].Message = OutcomeAlreadyListed, ""
			continue
		}
		rec.Hosts = append(rec.Hosts, inbox.SubmittedHost{Host: results[i].Host, Category: category})
	}
	if len(rec.Hosts) == 0 {
		return nil
	}
	at := s.now()
	if s.shared != nil {
		// The database accepts each host once across replicas: one
		// another replica took meanwhile comes back already_listed.
		fresh, err := s.shared.AcceptHosts(context.Background(), at, rec.Hosts)
		if err != nil {
			s.log.Error("save store submission", "error", err)
			return stateUnavailable("the stores could not be saved to the state store; nothing was accepted, try again later")
		}
		took := map[string]bool{}
		for _, h := range fresh {
			took[h.Host] = true
		}
		for i := range results {
			if results[i].Outcome == OutcomeAccepted && !took[results[i].Host] {
				results[i].Outcome, results[i].Message = OutcomeAlreadyListed, ""
			}
		}
		rec.Hosts = fresh
	} else if err := s.state.Append(context.Background(), inbox.TypeStoreSubmission, at, rec); err != nil {
		s.log.Error("save store submission", "error", err)
		return stateUnavailable("the stores could not be saved to the state store; nothing was accepted, try again later")
	}
	s.subs.accept(rec.Hosts)
	// Precheck sees the homepage's answer now, as it will after a restart
	// replays this record.
	for _, h := range rec.Hosts {
		s.reads.noteReachable(h.Host, at)
	}
	return nil
}

// vetHosts checks results[i] for each i in idx, a few at a time.
func (s *Server) vetHosts(ctx context.Context, results []HostResult, idx []int) {
	ctx, cancel := context.WithTimeout(ctx, vetTimeout)
	defer cancel()
	sem := make(chan struct{}, vetConcurrency)
	var wg sync.WaitGroup
	for _, i := range idx {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = s.vetHost(ctx, results[i].Host)
		}()
	}
	wg.Wait()
}

// vetHost decides one host from its homepage, fetched through the safe
// client over HTTPS (at most 3 redirects, 6 s, 2 MiB):
//
//   - no answer (DNS, connection, TLS, timeout, too large) or a 5xx: unreachable;
//     a destination the safe client refuses: unsafe;
//   - a final URL on plain http: not_https;
//   - a parked or for-sale page (or a parking service's domain): parked;
//   - a redirect to a domain of another brand: other_brand;
//   - a bot wall or block (403, 429, challenge): accepted, since a store
//     is there and the crawl records the block;
//   - another 4xx: not_a_store;
//   - anything else: accepted.
func (s *Server) vetHost(ctx context.Context, host string) HostResult {
	rejected := func(reason, format string, args ...any) HostResult {
		return HostResult{Host: host, Outcome: OutcomeRejected, Reason: reason, Message: fmt.Sprintf(format, args...)}
	}
	home := "https://" + host + "/"
	resp, err := s.cfg.Client.Get(ctx, home)
	if err != nil {
		if r, ok := fetch.IsRefused(err); ok {
			if r.Code == fetch.CodeTooManyRedir {
				return rejected(ReasonUnreachable, "the homepage redirects more than %d times", fetch.DefaultMaxRedirects)
			}
			return rejected(ReasonUnsafe, "refused: %s", r.Reason)
		}
		switch {
		case errors.Is(err, fetch.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
			return rejected(ReasonUnreachable, "the homepage did not answer over HTTPS in time")
		case errors.Is(err, fetch.ErrTooLarge):
			return rejected(ReasonUnreachable, "the homepage is larger than %d MiB", fetch.DefaultMaxBody>>20)
		}
		s.log.Info("submitted store unreachable", "host", host, "detail", fetch.Detail(err))
		var ne *fetch.NetError
		if errors.As(err, &ne) {
			return rejected(ReasonUnreachable, "the homepage could not be reached over HTTPS: %s", ne.Class)
		}
		return rejected(ReasonUnreachable, "the homepage could not be reached over HTTPS (name, connection or certificate failed)")
	}
	if resp.URL.Scheme != "https" {
		return rejected(ReasonNotHTTPS, "the homepage moves to plain http (%s)", resp.URL.Redacted())
	}
	page := detect.NewPage(resp.URL, resp.StatusCode, resp.Header, resp.Body)
	if p := detect.DetectParked(page); p.Parked {
		msg := "the homepage is a parked or for-sale domain page"
		if p.Provider != "" {
			msg += " (" + p.Provider + ")"
		}
		return rejected(ReasonParked, "%s", msg)
	}
	asked, _ := url.Parse(home)
	if rd := detect.DetectRedirect(asked, resp.URL); rd.AnotherBrand {
		return rejected(ReasonOtherBrand, "the homepage redirects to %s, another brand", rd.To)
	}
	if b := detect.DetectBlock(page); b.Blocked {
		msg := "a store answered but blocked the check (" + b.Reason + "); the crawl records the block"
		return HostResult{Host: host, Outcome: OutcomeAccepted, Message: msg}
	}
	switch {
	case resp.StatusCode >= 500:
		return rejected(ReasonUnreachable, "the homepage answered HTTP %d", resp.StatusCode)
	case resp.StatusCode >= 400:
		return rejected(ReasonNotAStore, "the homepage answered HTTP %d", resp.StatusCode)
	}
	return HostResult{Host: host, Outcome: OutcomeAccepted}
}

// submittedHost normalises one entry (bare host, homepage or product URL)
// to a host name, or says why it is not a public domain name.
func submittedHost(entry string) (host, problem string) {
	host, err := pipeline.NormalizeHost(strings.TrimSpace(entry))
	if err != nil {
		if r, ok := fetch.IsRefused(err); ok {
			return "", "not a store address: " + r.Reason
		}
		return "", "not a store address"
	}
	if _, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return "", "a store is named by its domain name, not an IP address"
	}
	if !strings.Contains(host, ".") {
		return "", "not a public domain name (no dot)"
	}
	if len(host) > 253 {
		return "", "the host name is longer than 253 characters"
	}
	return host, ""
}

// submitCategory checks the optional category against the directory's
// slugs (spec 2.12: the submit_store tool's enum). REST takes the same
// list, compared without case and surrounding space, so one request means
// the same on both surfaces.
func submitCategory(c string) (string, error) {
	c = strings.ToLower(strings.TrimSpace(c))
	if c == "" || slices.Contains(categorySlugs, c) {
		return c, nil
	}
	return "", fail(ErrInvalid, "category %q is not one of %s", cut(c, 60), strings.Join(categorySlugs, ", "))
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// ParseStoreSubmission reads a POST /api/stores/submit body: one JSON
// object with url, hosts and category, at most 128 KB. Its errors are
// API errors (400, or 413 for a larger body).
func ParseStoreSubmission(body []byte) (StoreSubmission, error) {
	var req StoreSubmission
	if len(body) > maxStoreSubmitBody {
		return req, fail(ErrTooLarge, "the body is larger than %d KB; a request names at most %d stores", maxStoreSubmitBody>>10, MaxSubmitHosts)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return req, fail(ErrInvalid, "%s has the wrong type: url and category are strings, hosts an array of strings", te.Field)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return req, fail(ErrInvalid, "%s: the body takes url, hosts and category only", strings.TrimPrefix(err.Error(), "json: "))
		}
		return req, fail(ErrInvalid, `the body must be one JSON object: {"url": "https://shop.example/"} or {"hosts": ["a.example", "b.example"], "category": "apparel"}`)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return StoreSubmission{}, fail(ErrInvalid, "the body must hold one JSON object and nothing after it")
	}
	return req, nil
}

func (s *Server) storesSubmit(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxStoreSubmitBody+1))
	if err != nil {
		return fail(ErrInvalid, "the body could not be read")
	}
	req, err := ParseStoreSubmission(body)
	if err != nil {
		return err
	}
	res, err := s.SubmitStores(r.Context(), s.caller(r), req)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, res)
}
