package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"svc/pipeline/check"
	"svc/pipeline/pages"
	"svc/pipeline/ucp"
	"svc/publish"
	"svc/serve/readlayer"
)

// The pages for people (package pipeline/pages). The snapshot stage
// publishes them as static HTML, and the server maps their URLs to the
// files, but for the pages it renders: the store pages (one per store,
// from the snapshot's saved card, cached like a file), a store page whose
// live check is newer than the snapshot, the unknown-host page, and the
// UCP validator's report (GET /validate/?url= and the form post, which
// works without JavaScript).

// cachePage is the Cache-Control of published pages: they change with each
// snapshot, and the ETag makes a revalidation cheap.
const cachePage = cacheFiveMinutes

// pageCSP allows the pages exactly what they use: our own style sheet and
// images, forms posting back to us, nothing else (no script at all).
const pageCSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

func setPageHeaders(h http.Header) {
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
}

func (s *Server) site() *pages.Site {
	site, err := pages.NewSite(s.cfg.BaseURL, s.current().version)
	if err != nil {
		return &pages.Site{Version: s.current().version}
	}
	return site
}

// writePage writes a page rendered into a buffer: nothing is sent when
// rendering fails.
func writePage(w http.ResponseWriter, status int, cacheControl string, render func(*bytes.Buffer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	h := w.Header()
	setPageHeaders(h)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", cacheControl)
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

func (s *Server) notFoundPage(w http.ResponseWriter, r *http.Request) error {
	return writePage(w, http.StatusNotFound, "no-store", func(b *bytes.Buffer) error {
		return pages.RenderNotFound(b, s.site(), r.URL.Path)
	})
}

// page serves the published page of the request's path: /x/ is
// x/index.html; /x without the slash redirects when /x/ exists.
func (s *Server) page(w http.ResponseWriter, r *http.Request) error {
	rel := strings.TrimPrefix(r.URL.Path, "/")
	files := s.current().files
	if rel != "" && !strings.HasSuffix(rel, "/") {
		if files[rel] != nil {
			// A published file at its own address, as the manifest lists
			// it (directory/index.html, weekly/ATTRIBUTION.txt).
			return s.pageFile(w, r, rel)
		}
		if files[rel+"/index.html"] != nil {
			http.Redirect(w, r, s.link(r.URL.Path+"/"), http.StatusMovedPermanently)
			return nil
		}
		return s.notFoundPage(w, r)
	}
	return s.pageFile(w, r, rel+"index.html")
}

// pageFile serves one published page, or the not-found page.
func (s *Server) pageFile(w http.ResponseWriter, r *http.Request, name string) error {
	f := s.file(name)
	if f == nil {
		return s.notFoundPage(w, r)
	}
	setPageHeaders(w.Header())
	if pf := s.pendingFile(name, f); pf != nil {
		return serveFile(w, r, pf, "no-store")
	}
	return serveFile(w, r, f, cachePage)
}

// datasetsPage is /data/: the dataset page, also at /datasets/.
func (s *Server) datasetsPage(w http.ResponseWriter, r *http.Request) error {
	return s.pageFile(w, r, pages.DatasetsFile)
}

// embeddedAssets are the pages' style sheet and icon as this binary holds
// them, so a page the server renders has its style even before a
// snapshot publishes it.
var embeddedAssets = map[string]*file{}

func embeddedAsset(name string) *file {
	if f, ok := embeddedAssets[name]; ok {
		return f
	}
	return nil
}

func init() {
	for _, name := range []string{pages.StyleFile(), pages.IconFile()} {
		if b, ok := pages.Asset(name); ok {
			embeddedAssets[name] = newFile(name, b)
		}
	}
}

// asset serves a style sheet or icon. Their names carry their sha256, so
// they are cached for good.
func (s *Server) asset(w http.ResponseWriter, r *http.Request) error {
	name := "assets/" + r.PathValue("name")
	cache := cacheImmutable
	f := embeddedAsset(name)
	if f == nil {
		f = s.current().files[name]
		if !hashedName.MatchString(name) {
			cache = cachePage // the folder's ATTRIBUTION.txt
		}
	}
	if f == nil {
		return fail(ErrNotFound, "no asset %s", name)
	}
	return serveFile(w, r, f, cache)
}

// hashedName matches an asset named by its content.
var hashedName = regexp.MustCompile(`-[0-9a-f]{12}\.[a-z]+$`)

// favicon answers /favicon.ico, which browsers ask for on documents that
// name no icon (a JSON answer, the weekly chart): the pages' icon.
func (s *Server) favicon(w http.ResponseWriter, r *http.Request) error {
	f := embeddedAsset(pages.IconFile())
	if f == nil {
		return fail(ErrNotFound, "no icon")
	}
	return serveFile(w, r, f, cacheWeeklyLatest)
}

var chartRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}\.svg$`)

// weeklyFile serves a frozen weekly edition, or its chart (.svg) published
// beside it, or another file published there (the folder's
// ATTRIBUTION.txt, which the manifest lists).
func (s *Server) weeklyFile(w http.ResponseWriter, r *http.Request) error {
	ed := r.PathValue("edition")
	if !chartRE.MatchString(ed) {
		if !editionRE.MatchString(ed) {
			if served, err := s.apiFile(w, r); served {
				return err
			}
		}
		return s.weeklyEdition(w, r)
	}
	f := s.current().files[publish.WeeklyDir+"/"+ed]
	if f == nil {
		return fail(ErrNotFound, "no weekly chart was posted on %s", ed[:10])
	}
	return serveFile(w, r, f, cacheImmutable)
}

// storePage serves /stores/<host>/: the snapshot's page of the store, or
// the page of a live check newer than it, or the unknown-host page (404)
// that points at the live check.
func (s *Server) storePage(w http.ResponseWriter, r *http.Request) error {
	rest := r.PathValue("path")
	if rest == "" {
		http.Redirect(w, r, s.link("/directory/"), http.StatusFound)
		return nil
	}
	raw, tail, slash := strings.Cut(rest, "/")
	badge := tail == pages.BadgeFile
	if tail != "" && !badge {
		return s.notFoundPage(w, r)
	}
	if !slash && !strings.HasSuffix(raw, ".html") && s.current().files[pages.StoresDir+"/"+raw] != nil {
		return s.pageFile(w, r, pages.StoresDir+"/"+raw) // the folder's ATTRIBUTION.txt, from older snapshots
	}
	// /stores/<host>.html, the page's address in the manifests of older
	// snapshots, answers like /stores/<host>/.
	file, isFile := strings.CutSuffix(raw, ".html")
	if isFile && !slash {
		raw, slash = file, true
	}
	host := strings.TrimSuffix(strings.ToLower(raw), ".")
	if badge {
		return s.storeBadge(w, r, host)
	}
	if !pages.ValidHost(host) {
		return s.unknownStore(w, pages.UnknownStore{})
	}
	if !slash || host != raw {
		http.Redirect(w, r, s.link(pages.StoreURL(host)), http.StatusMovedPermanently)
		return nil
	}
	rl, err := s.readView()
	if err != nil {
		return s.unknownStore(w, pages.UnknownStore{Host: host})
	}
	defer rl.Release()
	dir, err := rl.Lookup(host)
	if err != nil {
		return err
	}
	optedOut := dir != nil && dir.Text(readlayer.FSource) == "opted-out"
	if optedOut {
		return s.unknownStore(w, pages.UnknownStore{Host: host, OptedOut: true})
	}
	live := s.liveRow(host, dir)
	if dir != nil {
		// The snapshot's page; a newer live check shows beside its answer.
		return s.savedStorePage(w, r, rl, host, dir, live)
	}
	if live == nil {
		return s.unknownStore(w, pages.UnknownStore{Host: host})
	}
	// A host the snapshot does not have: the page of its live check.
	st := pageStore(s.storeCard(rl, host, nil, live), false)
	st.Live = true
	if res, ok := s.cache.latest(host); ok && st.CheckedAt != nil && res.CheckedAt.Equal(*st.CheckedAt) {
		st.CheckoutWebMCPTools, st.CheckoutWebMCPReason = res.CheckoutWebMCP.Tools, res.CheckoutWebMCP.Reason
	}
	return writePage(w, http.StatusOK, "no-store", func(b *bytes.Buffer) error {
		return pages.RenderStore(b, s.site(), st)
	})
}

// savedStorePage serves the snapshot's page of a store. The snapshot
// publishes no file per store (a million files a week); the page is
// rendered here from the saved card and the documents beside it, and
// answered like a published page: cached, with the sha256 of the body as
// its ETag, so If-None-Match gives 304 until the next snapshot.
func (s *Server) savedStorePage(w http.ResponseWriter, r *http.Request, rl readlayer.Source, host string, dir, live *readlayer.Row) error {
	st := pageStore(s.storeCard(rl, host, dir, live), true)
	if err := storeDocuments(rl, dir, st); err != nil {
		return fmt.Errorf("store page %s: %w", host, err)
	}
	st.Shop = s.shopEvidence(host)
	site, err := pages.NewSite(s.cfg.BaseURL, rl.Version())
	if err != nil {
		site = &pages.Site{Version: rl.Version()}
	}
	var buf bytes.Buffer
	if err := pages.RenderStore(&buf, site, st); err != nil {
		return fmt.Errorf("store page %s: %w", host, err)
	}
	setPageHeaders(w.Header())
	return serveFile(w, r, newFile("store.html", buf.Bytes()), cachePage)
}

// maxShopEvidence bounds the evidence file a store page reads.
const maxShopEvidence = 1 << 20

// shopEvidence reads what the browser shoppers saw at host, as the latest
// snapshot published it (publish.ShopEvidencePath); nil when no shopper
// ran there, or the file is unreadable.
func (s *Server) shopEvidence(host string) *publish.ShopEvidence {
	if !pages.ValidHost(host) {
		return nil
	}
	f, err := os.Open(filepath.Join(s.public, filepath.FromSlash(publish.ShopEvidencePath(host))))
	if err != nil {
		return nil
	}
	defer f.Close()
	var ev publish.ShopEvidence
	if json.NewDecoder(io.LimitReader(f, maxShopEvidence)).Decode(&ev) != nil || ev.Host != host {
		return nil
	}
	return &ev
}

// storeBadge serves /stores/<host>/badge.svg: the verdict of the store
// card, as an SVG, cached like a page with the sha256 of its bytes as
// ETag (304 on If-None-Match). A host with no store page has no badge.
func (s *Server) storeBadge(w http.ResponseWriter, r *http.Request, host string) error {
	noBadge := fail(ErrNotFound, "no badge: svc has no saved check of %s; a live check (GET /api/agent-checkout?url=...) makes one", host)
	if !pages.ValidHost(host) {
		return fail(ErrNotFound, "no badge: not a store host")
	}
	rl, dir, err := s.hostView("", host, "badge")
	if err != nil {
		return err
	}
	defer rl.Release()
	c := s.storeCard(rl, host, dir, s.liveRow(host, dir))
	if c.CheckSource == nil { // no saved check, or opted out
		return noBadge
	}
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	return serveFile(w, r, newFile(pages.BadgeFile, pages.Badge(host, c.Verdict, c.CheckedAt)), cachePage)
}

// storeDocuments adds to a store page what only the saved documents hold:
// the reason and tools of Checkout WebMCP (checks.result_json) and the
// full UCP report (ucp_validations.report), each read at the host's row.
func storeDocuments(rl readlayer.Source, dir *readlayer.Row, st *pages.Store) error {
	rj, err := rl.CheckResult(dir)
	if err != nil {
		return err
	}
	if rj != nil {
		var res struct {
			CheckoutWebMCP check.CheckoutWebMCP `json:"checkoutWebmcp"`
		}
		if err := json.Unmarshal([]byte(*rj), &res); err != nil {
			return fmt.Errorf("checks.result_json: %w", err)
		}
		if st.CheckoutWebMCPReason == "" { // the snapshot's own (measured, or why not) come first
			st.CheckoutWebMCPTools, st.CheckoutWebMCPReason = res.CheckoutWebMCP.Tools, res.CheckoutWebMCP.Reason
		}
	}
	rep, err := rl.UCPReport(dir)
	if err != nil || rep == nil {
		return err
	}
	var u ucp.Report
	if err := json.Unmarshal([]byte(*rep), &u); err != nil {
		return fmt.Errorf("ucp_validations.report: %w", err)
	}
	st.UCPReport = &u
	return nil
}

func (s *Server) unknownStore(w http.ResponseWriter, u pages.UnknownStore) error {
	return writePage(w, http.StatusNotFound, "no-store", func(b *bytes.Buffer) error {
		return pages.RenderUnknownStore(b, s.site(), u)
	})
}

// pageStore turns a store card (GET /api/store) into the page's view of
// it: the same fields, so the page and the card never disagree.
func pageStore(c *StoreCard, inDirectory bool) *pages.Store {
	st := &pages.Store{
		Host: c.Host, Name: c.Name, Category: c.Category, Source: c.Source, Platform: c.Platform,
		Verdict: c.Verdict, Score: c.Score, ScoreInputs: c.ScoreInputs, AgentsCanBuy: c.AgentsCanBuy,
		CheckedAt: c.CheckedAt, Svc100ID: c.Svc100ID, AddedOn: c.AddedOn,
		Known: c.Known, InDirectory: c.InDirectory,
	}
	if inDirectory {
		st.CategoryPage = pages.CategoryPage(derefOr(c.Category), derefOr(c.Source))
	}
	if c.Buy != nil {
		st.BuyAgentCatalog, st.BuyBrowser = c.Buy.AgentCatalog, c.Buy.Browser
	}
	if ch := c.Checks; ch != nil {
		st.CheckError, st.MethodVersion = ch.CheckError, ch.MethodVersion
		st.Reachable, st.HTTPStatus, st.ReachError = ch.Reachability.Reachable, ch.Reachability.HTTPStatus, ch.Reachability.Error
		st.Parked, st.OtherBrand = ch.Reachability.Parked, ch.Reachability.RedirectsToOtherBrand
		st.Blocked, st.BlockReason, st.EdgeBlockBehindAllowAll = ch.BlockStatus.Blocked, ch.BlockStatus.Reason, ch.BlockStatus.EdgeBlockBehindAllowAll
		st.CatalogAnswered, st.CatalogSource = ch.CatalogAnswered, ch.CatalogSource
		st.CatalogProducts, st.CatalogThrottled = ch.CatalogProducts, ch.CatalogThrottled
		st.ProductFound, st.CartLink = ch.ProductFound, ch.CartLink
		st.StorefrontMCP, st.StorefrontMCPTools = ch.StorefrontMCP.Detected, stringList(ch.StorefrontMCP.Tools)
		st.WebMCP, st.WebMCPTools = ch.WebMCP, stringList(ch.WebMCPTools)
		st.CheckoutWebMCPStatus, st.CheckoutWebMCPDetected = ch.CheckoutWebMCP.Status, ch.CheckoutWebMCP.Detected
		if r := ch.CheckoutWebMCP.Reason; r != nil {
			st.CheckoutWebMCPTools, st.CheckoutWebMCPReason = stringList(ch.CheckoutWebMCP.Tools), *r
		}
		u := ch.UCPProfile
		st.UCPStatus, st.UCPValid, st.UCPDeclaredVersion, st.UCPCountsInDirectory = u.Status, u.Valid, u.DeclaredVersion, u.CountsInDirectory
		st.UCPErrors, st.UCPWarnings = u.Errors, u.Warnings
		st.UCPErrorRules, st.UCPWarningRules = stringList(u.ErrorRules), stringList(u.WarningRules)
		st.UCPURL, st.UCPCheckedAt = u.URL, u.CheckedAt
		st.ACPFound, st.ACPVersion = ch.ACP.Found, ch.ACP.Ver
		st.MCPCardFound, st.MCPCardPath = ch.MCPServerCard.Found, ch.MCPServerCard.Path
		st.ProductDataSource, st.ProductDataComplete, st.VendorReadiness = ch.ProductData.Source, ch.ProductData.Complete, ch.ProductData.VendorReadiness
		st.PolicyReturns, st.PolicyShipping = ch.Policies.Returns, ch.Policies.Shipping
		st.PolicyPrivacy, st.PolicyTerms = ch.Policies.Privacy, ch.Policies.Terms
		st.FixCode, st.Fix = ch.Fix.Code, ch.Fix.Text
	}
	if lc := c.LiveCheck; lc != nil && lc.Checks != nil {
		ch := lc.Checks
		st.LiveCheck = &pages.LiveCheck{CheckedAt: lc.CheckedAt,
			Reachable: ch.Reachability.Reachable, Blocked: ch.BlockStatus.Blocked,
			CatalogAnswered: ch.CatalogAnswered, ProductFound: ch.ProductFound, CartLink: ch.CartLink,
			UCPStatus: ch.UCPProfile.Status, WebMCP: ch.WebMCP, StorefrontMCP: ch.StorefrontMCP.Detected,
			FixCode: ch.Fix.Code, Fix: ch.Fix.Text}
		if lc.Robots != nil {
			st.LiveCheck.RobotsStatus = lc.Robots.Status
		}
	}
	if c.Robots != nil {
		st.RobotsStatus, st.Robots = c.Robots.Status, c.Robots.Agents
	}
	return st
}

func derefOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// stringList decodes a JSON list of strings; nil when null or not a list.
func stringList(raw json.RawMessage) []string {
	var out []string
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}

// maxValidateForm bounds the validator form's body: a 256 KB profile can
// take three bytes per byte when form-encoded.
const maxValidateForm = 3*ucp.MaxProfileBytes + 8192

// validatePage is GET /validate/: the published form, or with ?url= the
// report of that address's profile.
func (s *Server) validatePage(w http.ResponseWriter, r *http.Request) error {
	if p := r.PathValue("path"); p != "" {
		if s.current().files["validate/"+p] != nil {
			return s.pageFile(w, r, "validate/"+p) // validate/index.html, as the manifest lists it
		}
		return s.notFoundPage(w, r)
	}
	raw := r.URL.Query().Get("url")
	if strings.TrimSpace(raw) == "" {
		return s.pageFile(w, r, pages.ValidateFile)
	}
	v := &pages.Validation{URL: raw}
	rep, err := s.ValidateUCP(r.Context(), s.caller(r), raw, nil)
	return s.validationPage(w, v, rep, err)
}

// validatePost is the validator form's plain post (form-encoded): a pasted
// profile, or an address.
func (s *Server) validatePost(w http.ResponseWriter, r *http.Request) error {
	if r.PathValue("path") != "" {
		return s.notFoundPage(w, r)
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxValidateForm)
	v := &pages.Validation{}
	if err := r.ParseForm(); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return s.validationPage(w, v, nil, fail(ErrTooLarge, "The profile is larger than the limit of 256 KB."))
		}
		return s.validationPage(w, v, nil, fail(ErrInvalid, "The form could not be read. Send it as a normal form post."))
	}
	v.URL, v.Profile = r.PostForm.Get("url"), r.PostForm.Get("profile")
	var rep *ucp.Report
	var err error
	switch {
	case strings.TrimSpace(v.Profile) != "":
		rep, err = s.ValidateUCP(r.Context(), s.caller(r), "", []byte(v.Profile))
	case strings.TrimSpace(v.URL) != "":
		rep, err = s.ValidateUCP(r.Context(), s.caller(r), v.URL, nil)
	default:
		err = fail(ErrInvalid, "Paste a profile, or give the store's address.")
	}
	return s.validationPage(w, v, rep, err)
}

// validationPage renders the validator with a report, or with the reason
// there is none and the status the API would answer.
func (s *Server) validationPage(w http.ResponseWriter, v *pages.Validation, rep *ucp.Report, err error) error {
	status := http.StatusOK
	if err != nil {
		var body ErrorBody
		var retry int
		status, body, retry = classify(err)
		if status >= 500 && status != http.StatusServiceUnavailable {
			s.log.Error("validate page", "error", err)
		}
		if retry > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(retry))
		}
		v.Error = body.Error.Message
	}
	v.Report = rep
	return writePage(w, status, "no-store", func(b *bytes.Buffer) error {
		return pages.RenderValidate(b, s.site(), v)
	})
}

// directoryLink is the directory page for an answer's categories: the
// category's own page when one category was asked for and it has one.
func (s *Server) directoryLink(cats []string) string {
	if len(cats) == 1 {
		if slug := pages.CategorySlug(cats[0]); slug != "" && s.current().files["directory/"+slug+"/index.html"] != nil {
			return s.link("/directory/" + slug + "/")
		}
	}
	return s.link("/directory/")
}
