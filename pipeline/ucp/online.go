package ucp

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"svc/pipeline/fetch"
)

// URLOptions tune ValidateURL.
type URLOptions struct {
	// Deep also fetches the third-party schema documents the profile
	// references and checks their hosting (ucp.http.artifacts).
	Deep bool
	// Client, when set, fetches the profile document instead of the
	// validator's client: the crawl passes one that asks conditionally
	// for the profile it kept from the last run (fetch.Client.WithDocs).
	Client *fetch.Client
}

// Bounds on the extra requests one validation may make, so that a profile
// cannot turn the validator into a request amplifier.
const (
	maxLeaves     = 4
	maxLookups    = 8
	maxArtifacts  = 4
	lookupTimeout = 2 * time.Second
)

// ValidateURL fetches a profile and validates it with the hosting checks.
// rawURL may be a host ("shop.example"), a homepage or other page (the
// profile is then read from /.well-known/ucp on that origin) or the URL of
// a profile document (a path under /.well-known/ucp or ending in .json).
//
// Errors: a URL the safe client refuses (invalid, not http(s), private
// address) gives a *fetch.RefusedError, matched by errors.Is(err,
// fetch.ErrRefused) (the API's 400); a body over MaxProfileBytes gives
// ErrTooLarge (413); a cancelled ctx gives its error. When the store cannot
// be reached the result is a report whose FetchFailed is true.
func (v *Validator) ValidateURL(ctx context.Context, rawURL string, opts URLOptions) (*Report, error) {
	if v.cfg.Client == nil {
		return nil, fmt.Errorf("validate %s: the validator has no HTTP client", rawURL)
	}
	u, err := fetch.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("validate %s: %w", rawURL, err)
	}
	profileURL := profileURLFor(u)
	client := v.cfg.Client
	if opts.Client != nil {
		client = opts.Client
	}
	resp, err := client.Do(ctx, fetch.Request{URL: profileURL, Header: http.Header{"Accept": {"application/json"}}})
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("validate %s: %w", rawURL, ctx.Err())
		}
		if errors.Is(err, fetch.ErrTooLarge) {
			return nil, fmt.Errorf("validate %s: %w", rawURL, ErrTooLarge)
		}
		if r, ok := fetch.IsRefused(err); ok && r.Code != fetch.CodeTooManyRedir {
			return nil, fmt.Errorf("validate %s: %w", rawURL, err)
		}
		return v.unreachable(rawURL, profileURL, err), nil
	}
	if len(resp.Body) > MaxProfileBytes {
		return nil, fmt.Errorf("validate %s: %w (%d bytes)", rawURL, ErrTooLarge, len(resp.Body))
	}
	src := Source{Type: "url", URL: rawURL, ProfileURL: profileURL, FinalURL: resp.URL.Redacted(), Status: resp.StatusCode, Bytes: len(resp.Body)}
	var r *validation
	html := looksHTML(resp.Body)
	switch {
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		r = v.notRead()
	case html:
		r = v.notRead()
		r.fs.rule(ruleJSONObject, "", "the answer is an HTML page, not a JSON profile (a soft 404?)")
	default:
		r, _ = v.validate(ctx, resp.Body, checkEnv{profileHost: hostOf(resp.URL)})
	}
	r.Source = src
	r.html = html
	r.HTTPChecks = hostingChecks(&r.fs, profileURL, resp, releaseOf(r))
	if r.doc != nil {
		v.online(ctx, r, opts)
	}
	r.done()
	r.assemble(r.fs)
	return &r.Report, nil
}

// notRead is the report of a profile whose body was not read as one.
func (v *Validator) notRead() *validation {
	r := &validation{}
	r.SchemaSource = v.source
	r.Schema = SchemaResult{Release: TargetRelease, EntryPoint: BusinessEntryPoint}
	r.Profile = []byte("null")
	return r
}

// unreachable is the report of a profile no HTTP answer came for. It says
// what went wrong by class ("DNS lookup failed"); the raw network error,
// which can name the resolver or an address, stays out of the report
// (FetchDetail has it, for the log).
func (v *Validator) unreachable(rawURL, profileURL string, err error) *Report {
	r := v.notRead()
	why := err.Error()
	var ne *fetch.NetError
	if errors.As(err, &ne) {
		why = ne.Class
	}
	r.Source = Source{Type: "url", URL: rawURL, ProfileURL: profileURL, FetchError: why}
	r.fetchDetail = fetch.Detail(err)
	rule, check := ruleStatus, "no answer: "+why
	switch {
	case isTLSError(err):
		rule = ruleHTTPS
		check = "the TLS connection failed: " + why
	case errors.Is(err, fetch.ErrRefused):
		rule = ruleNoRedirect
		check = "too many redirects: " + why
	}
	r.HTTPChecks = []HTTPCheck{{Rule: rule, Status: "fail", Detail: check}}
	r.fs.rule(rule, "", "the profile could not be fetched from %s: %s (profile_unreachable)", profileURL, why)
	r.assemble(r.fs)
	return &r.Report
}

func isTLSError(err error) bool {
	var ne *fetch.NetError
	if errors.As(err, &ne) {
		return ne.TLS()
	}
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	var rh tls.RecordHeaderError
	return errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci) ||
		errors.As(err, &rh) || strings.Contains(err.Error(), "tls: ")
}

// profileURLFor maps what the user gave to the profile's address: a host or
// page gets https://<host>/.well-known/ucp; a profile document is kept.
func profileURLFor(u *url.URL) string {
	p := u.EscapedPath()
	if strings.HasPrefix(p, "/.well-known/ucp") || strings.HasSuffix(strings.ToLower(p), ".json") {
		c := *u
		c.Fragment, c.RawFragment = "", ""
		return c.String()
	}
	return "https://" + u.Host + "/.well-known/ucp"
}

func hostOf(u *url.URL) string {
	if u == nil {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
}

// releaseOf is the release whose hosting rules apply.
func releaseOf(r *validation) string {
	if r.DeclaredVersion != nil && validDate(*r.DeclaredVersion) {
		return ruleRelease(*r.DeclaredVersion)
	}
	return TargetRelease
}

// hostingChecks runs the hosting rules of /.well-known/ucp on the answer and
// adds an item for each failure.
func hostingChecks(fs *findings, profileURL string, resp *fetch.Response, release string) []HTTPCheck {
	var checks []HTTPCheck
	check := func(rule string, failed bool, sev Severity, detail string) {
		st := "pass"
		if failed {
			st = "fail"
			fs.add(sev, rule, "", "%s", detail)
		}
		checks = append(checks, HTTPCheck{Rule: rule, Status: st, Detail: detail})
	}
	skip := func(rule, why string) { checks = append(checks, HTTPCheck{Rule: rule, Status: "skipped", Detail: why}) }

	final := resp.URL.Redacted()
	if strings.EqualFold(resp.URL.Scheme, "https") && strings.HasPrefix(strings.ToLower(profileURL), "https:") {
		check(ruleHTTPS, false, SevError, "served over HTTPS")
	} else {
		check(ruleHTTPS, true, SevError, fmt.Sprintf("the profile must be served over HTTPS; it was read from %s", final))
	}
	if len(resp.Redirects) == 0 {
		check(ruleNoRedirect, false, SevError, "answered without a redirect")
	} else {
		check(ruleNoRedirect, true, SevError, fmt.Sprintf("the profile URL must answer directly, but %s redirected (%d hop(s)) to %s; fetchers must not follow redirects",
			resp.Redirects[0], len(resp.Redirects), final))
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		check(ruleStatus, false, SevError, "HTTP 200")
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		check(ruleStatus, true, SevError, fmt.Sprintf("HTTP %d: there is no UCP profile at %s (profile_unreachable)", resp.StatusCode, final))
	default:
		check(ruleStatus, true, SevError, fmt.Sprintf("HTTP %d from %s; a profile is served with 200 (anything else is profile_unreachable)", resp.StatusCode, final))
	}
	if resp.StatusCode != http.StatusOK || looksHTML(resp.Body) {
		for _, r := range []string{ruleCacheControl, ruleValidatorHdr, ruleContentType, ruleTLS} {
			skip(r, "no profile answer to check")
		}
		return checks
	}
	cc := strings.Join(resp.Header.Values("Cache-Control"), ", ")
	if msg := cacheControlProblem(cc); msg != "" {
		check(ruleCacheControl, true, SevError, msg)
	} else {
		check(ruleCacheControl, false, SevError, "Cache-Control: "+cc)
	}
	etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	switch {
	case !atLeast(release, "2026-08-25"):
		skip(ruleValidatorHdr, "ETag or Last-Modified is recommended from UCP 2026-08-25; this profile declares "+release)
	case etag == "" && lm == "":
		check(ruleValidatorHdr, true, SevWarning, "the answer has neither ETag nor Last-Modified; profiles should carry one so caches can revalidate")
	default:
		check(ruleValidatorHdr, false, SevWarning, "has ETag or Last-Modified")
	}
	ct := resp.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "application/json" {
		check(ruleContentType, false, SevWarning, "Content-Type: "+ct)
	} else {
		if ct == "" {
			ct = "none"
		}
		check(ruleContentType, true, SevWarning, fmt.Sprintf("Content-Type is %s; UCP bodies are served as application/json", ct))
	}
	skip(ruleTLS, "the negotiated TLS version is not measured by this validator")
	return checks
}

// cacheControlProblem returns what is wrong with a Cache-Control value for
// a profile, or "": public, max-age of at least 60, and none of private,
// no-store, no-cache. s-maxage does not replace max-age.
func cacheControlProblem(v string) string {
	if strings.TrimSpace(v) == "" {
		return "the answer has no Cache-Control header; profiles must carry Cache-Control: public, max-age=60 (or more)"
	}
	public, maxAge := false, -1
	var bad []string
	for _, d := range strings.Split(v, ",") {
		name, val, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "public":
			public = true
		case "max-age":
			if n, err := strconv.Atoi(strings.Trim(strings.TrimSpace(val), `"`)); err == nil {
				maxAge = n
			}
		case "private", "no-store", "no-cache":
			bad = append(bad, strings.ToLower(strings.TrimSpace(name)))
		}
	}
	var problems []string
	if !public {
		problems = append(problems, "lacks public")
	}
	switch {
	case maxAge < 0:
		problems = append(problems, "has no max-age")
	case maxAge < 60:
		problems = append(problems, fmt.Sprintf("has max-age=%d, under 60", maxAge))
	}
	if len(bad) > 0 {
		problems = append(problems, "carries "+strings.Join(bad, ", "))
	}
	if len(problems) == 0 {
		return ""
	}
	return fmt.Sprintf("Cache-Control %q %s; profiles must carry public with max-age of at least 60 and none of private, no-store, no-cache", v, strings.Join(problems, ", "))
}

// online runs the rules that need the network: supported_versions leaf
// profiles, DNS of the hosts the profile names, and (deep) third-party
// schema artifacts. They run concurrently; their findings are merged in a
// fixed order.
func (v *Validator) online(ctx context.Context, r *validation, opts URLOptions) {
	var jobs []func(*findings)
	if u, ok := r.doc["ucp"].(map[string]any); ok {
		if sv, ok := u["supported_versions"].(map[string]any); ok {
			for i, key := range sortedKeys(sv) {
				s, _ := sv[key].(string)
				if i >= maxLeaves {
					jobs = append(jobs, func(fs *findings) {
						fs.add(SevInfo, ruleSVLeaf, "/ucp/supported_versions/"+escapeToken(key), "not fetched: only the first %d supported_versions profiles are checked", maxLeaves)
					})
					continue
				}
				if !validDate(key) || !strings.HasPrefix(s, "https://") {
					continue // reported offline
				}
				jobs = append(jobs, func(fs *findings) { v.leaf(ctx, fs, key, s) })
			}
		}
	}
	if v.lookups {
		hosts := urlHosts(r.doc)
		jobs = append(jobs, func(fs *findings) { v.resolveHosts(ctx, fs, hosts) })
	}
	if opts.Deep {
		for i, a := range artifacts(r.doc) {
			if i >= maxArtifacts {
				break
			}
			jobs = append(jobs, func(fs *findings) { v.artifact(ctx, fs, a.path, a.url) })
		}
	}
	out := make([]findings, len(jobs))
	var wg sync.WaitGroup
	for i, job := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			job(&out[i])
		}()
	}
	wg.Wait()
	for _, fs := range out {
		r.fs = append(r.fs, fs...)
	}
}

// leaf fetches a supported_versions profile and checks that it is the
// profile of that version: same hosting rules, ucp.version equal to the key,
// no supported_versions of its own, and no error under the full rule set.
func (v *Validator) leaf(ctx context.Context, fs *findings, key, leafURL string) {
	p := "/ucp/supported_versions/" + escapeToken(key)
	resp, err := v.cfg.Client.Do(ctx, fetch.Request{URL: leafURL, Header: http.Header{"Accept": {"application/json"}}})
	if err != nil {
		fs.rule(ruleSVLeaf, p, "the %s profile at %s could not be fetched: %v", key, leafURL, err)
		return
	}
	if len(resp.Body) > MaxProfileBytes {
		fs.rule(ruleSVLeaf, p, "the %s profile at %s is larger than 256 KB", key, leafURL)
		return
	}
	var hosting findings
	hostingChecks(&hosting, leafURL, resp, key)
	for _, f := range hosting {
		if f.sev == SevError {
			fs.rule(ruleSVLeaf, p, "the %s profile at %s: %s", key, leafURL, f.Message)
		}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return
	}
	lr, ok := v.validate(ctx, resp.Body, checkEnv{profileHost: hostOf(resp.URL)})
	defer lr.done()
	if !ok {
		for _, f := range lr.fs {
			fs.rule(ruleSVLeaf, p, "the %s profile at %s is not a profile: %s", key, leafURL, f.Message)
		}
		return
	}
	if lr.DeclaredVersion == nil || *lr.DeclaredVersion != key {
		got := "no ucp.version"
		if lr.DeclaredVersion != nil {
			got = fmt.Sprintf("ucp.version %q", *lr.DeclaredVersion)
		}
		fs.rule(ruleSVLeaf, p, "the profile linked for %s has %s; platforms must not use it", key, got)
	}
	if u, ok := lr.doc["ucp"].(map[string]any); ok && u["supported_versions"] != nil {
		fs.rule(ruleSVLeaf, p, "the %s profile at %s carries supported_versions; version-specific profiles must not", key, leafURL)
	}
	const maxShown = 5
	n := 0
	for _, f := range lr.fs {
		if f.sev != SevError {
			continue
		}
		if n++; n <= maxShown {
			fs.rule(ruleSVLeaf, p, "the %s profile at %s: %s at %q: %s", key, leafURL, f.Rule, f.Path, f.Message)
		}
	}
	if lr.Schema.Error != "" {
		// The schemas are the validator's, not the store's: when they could
		// not be loaded the profile itself was not schema-checked either,
		// and its report says so. That is no defect of the leaf.
		fs.add(SevInfo, ruleSVLeaf, p, "the %s profile at %s was not schema-checked: %s", key, leafURL, lr.Schema.Error)
	}
	if n > maxShown {
		fs.rule(ruleSVLeaf, p, "the %s profile at %s has %d more errors", key, leafURL, n-maxShown)
	}
}

// hostRef is a host named by the profile and the first place it appears.
type hostRef struct{ host, path, what string }

// urlHosts lists the distinct hosts of endpoint, schema and supported_versions
// URLs that passed the offline host rules.
func urlHosts(doc map[string]any) []hostRef {
	var out []hostRef
	seen := map[string]bool{}
	add := func(p, s, what string) {
		u, err := parseWebURL(s)
		if err != nil || seen[u.host] || ipLiteral(u.host) || !strings.Contains(u.host, ".") || u.host == "ucp.dev" {
			return
		}
		seen[u.host] = true
		out = append(out, hostRef{u.host, p, what})
	}
	u, _ := doc["ucp"].(map[string]any)
	if sv, ok := u["supported_versions"].(map[string]any); ok {
		for _, k := range sortedKeys(sv) {
			if s, ok := sv[k].(string); ok {
				add("/ucp/supported_versions/"+escapeToken(k), s, "the profile URL for "+k)
			}
		}
	}
	for _, reg := range []string{"services", "capabilities", "payment_handlers"} {
		m, _ := u[reg].(map[string]any)
		for _, k := range sortedKeys(m) {
			arr, _ := m[k].([]any)
			for i, x := range arr {
				e, _ := x.(map[string]any)
				p := "/ucp/" + reg + "/" + escapeToken(k) + "/" + itoa(i)
				if s, ok := e["endpoint"].(string); ok {
					add(p+"/endpoint", s, "the endpoint")
				}
				if s, ok := e["schema"].(string); ok {
					add(p+"/schema", s, "the schema URL")
				}
			}
		}
	}
	return out
}

// resolveHosts reports hosts whose names resolve to special-use addresses
// (ucp.url.public_host, online part). Names that do not resolve are left
// alone: fetchers will fail on them anyway. Fixture hosts are skipped.
func (v *Validator) resolveHosts(ctx context.Context, fs *findings, hosts []hostRef) {
	if len(hosts) > maxLookups {
		hosts = hosts[:maxLookups]
	}
	lctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	found := make([]string, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		if v.cfg.Client.FixtureMode() && strings.HasSuffix(h.host, ".test") {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			addrs, err := v.cfg.Resolver.LookupNetIP(lctx, "ip", h.host)
			if err != nil {
				return
			}
			for _, a := range addrs {
				if why := fetch.BlockedReason(a); why != "" {
					found[i] = fmt.Sprintf("%s's host %s resolves to %s, a %s; fetchers must refuse it", h.what, h.host, a, why)
					return
				}
			}
		}()
	}
	wg.Wait()
	for i, msg := range found {
		if msg != "" {
			fs.rule(rulePublicHost, hosts[i].path, "%s", msg)
		}
	}
}

// artifactRef is a third-party schema URL and where the profile names it.
type artifactRef struct{ path, url string }

// artifacts lists the distinct schema URLs not on ucp.dev.
func artifacts(doc map[string]any) []artifactRef {
	var out []artifactRef
	seen := map[string]bool{}
	u, _ := doc["ucp"].(map[string]any)
	for _, reg := range []string{"services", "capabilities", "payment_handlers"} {
		m, _ := u[reg].(map[string]any)
		for _, k := range sortedKeys(m) {
			arr, _ := m[k].([]any)
			for i, x := range arr {
				e, _ := x.(map[string]any)
				s, ok := e["schema"].(string)
				if !ok || seen[s] {
					continue
				}
				if w, err := parseWebURL(s); err != nil || w.host == "ucp.dev" || w.scheme != "https" {
					continue
				}
				seen[s] = true
				out = append(out, artifactRef{"/ucp/" + reg + "/" + escapeToken(k) + "/" + itoa(i) + "/schema", s})
			}
		}
	}
	return out
}

// artifact checks the hosting of one referenced schema document.
func (v *Validator) artifact(ctx context.Context, fs *findings, p, u string) {
	resp, err := v.cfg.Client.Do(ctx, fetch.Request{URL: u, NoRedirect: true})
	if err != nil {
		fs.rule(ruleArtifacts, p, "the schema document %s could not be fetched: %v", u, err)
		return
	}
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		fs.rule(ruleArtifacts, p, "the schema document %s answers with a redirect (HTTP %d); artifacts must be served directly", u, resp.StatusCode)
		return
	case resp.StatusCode != http.StatusOK:
		fs.rule(ruleArtifacts, p, "the schema document %s answers HTTP %d", u, resp.StatusCode)
		return
	}
	if msg := cacheControlProblem(strings.Join(resp.Header.Values("Cache-Control"), ", ")); msg != "" {
		fs.rule(ruleArtifacts, p, "the schema document %s: %s", u, msg)
	}
	var discard findings
	if _, _, err := parseProfile(resp.Body, &discard); err != nil {
		fs.rule(ruleArtifacts, p, "the schema document %s: %v", u, err)
	}
}

// looksHTML reports whether a body is an HTML (or XML) page rather than JSON.
func looksHTML(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n\xef\xbb\xbf")
	return len(b) > 0 && b[0] == '<'
}
