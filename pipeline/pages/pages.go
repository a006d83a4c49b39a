// Package pages renders svc's pages for people: static, accessible HTML
// that the snapshot stage writes into the published tree beside the data
// it shows, and that svc serve serves. The pages use no JavaScript and
// make no request outside the site: the one style sheet and the icon are
// ours, embedded here and published under assets/.
//
// Build turns one snapshot's inputs into files under public/, and
// DatasetsPage, called by the publisher once the tables are written, the
// dataset page with their sizes and sha256:
//
//	index.html                          /              the home page
//	directory/index.html                /directory/    stores by category, with verdicts
//	directory/<category>/[<n>/]index.html              one category (pages of 500 stores)
//	leaderboard/index.html              /leaderboard/  agent paths with Wilson intervals, the SVC-100 grid
//	weekly/index.html                   /weekly/       every weekly figure
//	weekly/<date>/index.html            /weekly/<date>/ one weekly figure
//	api/weekly/agent-checkout/<date>.svg               the figure's chart, beside its JSON (frozen)
//	validate/index.html                 /validate/     the UCP validator form
//	datasets/index.html                 /data/, /datasets/ the dataset manifest in words
//	assets/site-<sha>.css, icon-<sha>.svg              named by content, cached for good
//
// A store's page, /stores/<host>/, is not a file: a million stores would
// be a million files in every weekly version. The server renders it on
// request with RenderStore, from the snapshot's saved card (the same
// tables, the same template), and answers it like a published page,
// cached with the sha256 of the body as its ETag. It renders the
// unknown-host page for hosts without a saved check, and the store page
// of a live check newer than the snapshot, uncached.
//
// Every page is a function of the snapshot's inputs alone, with no clock
// anywhere: two snapshots of the same inputs publish the same bytes.
package pages

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"svc/datasets"
	"svc/publish"
)

// Paths of the pages under public/ that the server maps URLs to.
const (
	HomeFile        = "index.html"
	DirectoryFile   = "directory/index.html"
	LeaderboardFile = "leaderboard/index.html"
	WeeklyFile      = "weekly/index.html"
	ValidateFile    = "validate/index.html"
	DatasetsFile    = "datasets/index.html"
	// StoresDir is the folder of the store pages' addresses
	// (/stores/<host>/). The server renders those pages; snapshots
	// published before it did wrote them here as files.
	StoresDir = "stores"
)

// ValidHost reports whether a host can have a store page: lower-case
// letters, digits, dots and hyphens, with no empty label.
func ValidHost(host string) bool { return validHost(host) }

// WeeklySVGFile is the published path of an edition's chart, beside its
// JSON.
func WeeklySVGFile(date string) string { return publish.WeeklyDir + "/" + date + ".svg" }

// validHost accepts lower-case host names of letters, digits, dots and
// hyphens, with no empty label: what a URL path segment and a file name
// can both hold as is.
func validHost(h string) bool {
	if h == "" || len(h) > 253 || strings.HasPrefix(h, ".") || strings.HasSuffix(h, ".") || strings.Contains(h, "..") {
		return false
	}
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// Input is what one snapshot publishes, as the snapshot stage holds it.
type Input struct {
	// Version is the snapshot version being published (data/<version>/).
	Version       string
	MethodVersion string
	// BaseURL is the published base address ("" for root-relative links);
	// its path, if any, prefixes every link of the pages.
	BaseURL string
	// Tables are the snapshot's tables in memory; Build reads
	// store_answers (the directory) from them. The dataset page reads
	// the tables' manifest entries instead (DatasetsPage).
	Tables []*datasets.Columns
	// StoreAnswers, when set, reads store_answers a part at a time
	// (publish.TableSource.Groups) instead of from Tables, so the rows
	// need not be held in memory.
	StoreAnswers func(ctx context.Context, fn func(*datasets.Columns) error) error
	Files        []publish.File   // the run's other files (api/..., data/svc-100/...)
	Weekly       *publish.Edition // this run's weekly edition, nil when none
	Changelog    []publish.ChangelogEntry
	// Published, when set, is the tree being published to: the versions
	// and weekly editions already there are listed on the pages.
	Published publish.Store
}

// Build renders every page of the snapshot but the dataset page (see
// DatasetsPage). The files it returns are published beside the snapshot's
// own; the edition charts are frozen like the editions themselves.
func Build(ctx context.Context, in Input) ([]publish.File, error) {
	if in.Version == "" {
		return nil, fmt.Errorf("pages: no version")
	}
	site, err := newSite(in.BaseURL, in.Version)
	if err != nil {
		return nil, fmt.Errorf("pages: %w", err)
	}
	b := &builder{in: in, site: site, files: map[string]*publish.File{}}
	for _, a := range assets() {
		b.add(a.file, a.body, false)
	}
	steps := []struct {
		name string
		run  func(context.Context) error
	}{
		{"stores", b.stores},
		{"directory", b.directory},
		{"leaderboard", b.leaderboard},
		{"weekly", b.weekly},
		{"validate", b.validate},
		{"home", b.home},
	}
	for _, st := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := st.run(ctx); err != nil {
			return nil, fmt.Errorf("pages: %s: %w", st.name, err)
		}
	}
	out := make([]publish.File, 0, len(b.files))
	for _, p := range slices.Sorted(maps.Keys(b.files)) {
		out = append(out, *b.files[p])
	}
	return out, nil
}

// builder holds one Build's state.
type builder struct {
	in    Input
	site  *Site
	files map[string]*publish.File

	// Filled by the stores step, read by the later ones.
	listed []dirEntry      // every store the directory lists
	pages  map[string]bool // hosts that have a page
}

func (b *builder) add(name string, body []byte, frozen bool) {
	b.files[name] = &publish.File{Path: name, Data: body, Frozen: frozen}
}

// file returns one of the run's files, nil when absent.
func (b *builder) file(name string) []byte {
	for _, f := range b.in.Files {
		if f.Path == name {
			return f.Data
		}
	}
	return nil
}

// table returns the snapshot's table named like t, nil when absent.
func (b *builder) table(t *datasets.Table) *datasets.Columns {
	for _, c := range b.in.Tables {
		if c.Table().Name == t.Name {
			return c
		}
	}
	return nil
}

// leaderboardBoard reads the leaderboard with its grid; nil without one.
func (b *builder) leaderboardBoard() (*publish.Leaderboard, error) {
	body := b.file(publish.LeaderboardStoresPath)
	if body == nil {
		return nil, nil
	}
	var board publish.Leaderboard
	if err := json.Unmarshal(body, &board); err != nil {
		return nil, fmt.Errorf("%s: %w", publish.LeaderboardStoresPath, err)
	}
	return &board, nil
}

// Site is what every page shares: where links point and which snapshot
// the data comes from.
type Site struct {
	// Root prefixes every link: the path of the base URL, "" at the root.
	Root string
	// Version is the snapshot version the page's data comes from.
	Version string
}

// NewSite returns the site of a server or snapshot with the given base URL.
func NewSite(baseURL, version string) (*Site, error) { return newSite(baseURL, version) }

func newSite(baseURL, version string) (*Site, error) {
	s := &Site{Version: version}
	if baseURL != "" {
		u, err := url.Parse(baseURL)
		if err != nil {
			return nil, fmt.Errorf("base URL %q: %w", baseURL, err)
		}
		s.Root = strings.TrimSuffix(u.EscapedPath(), "/")
	}
	return s, nil
}

// Link is the address of a site path ("/directory/") under the root.
func (s *Site) Link(p string) string { return s.Root + p }

// LeaderboardURL is the address of an outside run's row on the
// leaderboard page (the anchor is the run id).
func LeaderboardURL(runID string) string { return "/leaderboard/#" + url.PathEscape(runID) }

// StoreURL is the address of a store's page (spec: svcUrl, resultUrl).
func StoreURL(host string) string { return "/stores/" + url.PathEscape(host) + "/" }

// CategorySlug turns a category into the path segment of its directory
// page: lower case letters, digits and hyphens; "" when nothing is left.
func CategorySlug(category string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(category) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteRune(c)
		case c == '-' || c == '_' || c == ' ':
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}

// render executes a page template into bytes.
func (b *builder) render(name string, p *Page) ([]byte, error) {
	p.Site = b.site
	var buf bytes.Buffer
	if err := renderPage(&buf, name, p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
