package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"svc/datasets"
	"svc/pipeline/check"
	"svc/pipeline/pages"
	"svc/publish"
)

// MethodVersion is the version of the whole measuring method published in
// the manifest: the check engine's method plus the aggregation's. It
// changes whenever a published figure would change for the same stores.
const MethodVersion = "svc-method/4 (" + check.MethodVersion + ")"

// Changelog lists the method's versions, newest first; the manifest carries
// it so a researcher can tell why figures moved.
var Changelog = []publish.ChangelogEntry{{
	MethodVersion: MethodVersion,
	Date:          "2026-12-03",
	Changes: []string{
		"The browser shoppers (browser-shopper/3) buy products whose options are Radix radio groups (shadcn's, as Vendure's " +
			"Next.js storefront draws them) when the add button waits on a choice, look for the add once on each product page " +
			"(a route's loading state no longer ends the run), and wait up to 2 s for a storefront's router after a link click: " +
			"A, B and E can reach the cart at more single-page storefronts than before.",
		"A browser run whose page's renderer died (killed, out of memory) is error page_crashed at once, not error " +
			"page_unresponsive at the run's time bound.",
	},
}, {
	MethodVersion: "svc-method/3 (" + check.MethodVersion + ")",
	Date:          "2026-12-02",
	Changes: []string{
		"Agent paths: not_attempted runs stay out of n, the rate and the Wilson interval everywhere (JSON, CSV, pages, MCP, " +
			"leaderboard_results) and are listed beside them with their reasons; a path with no attempted store is Not measured, never 0 %.",
		"The UCP path (agent-path/4) is a client of the profile, not its validator: JSON Schema validity and hosting rules " +
			"are findings in the step log and stop nothing, so it is measured without the UCP schema files too; only a profile " +
			"it cannot use stops it (ucp_profile_invalid, ucp_no_shopping_service, ucp_version_unknown, ucp_no_usable_binding).",
		"Shopper C and the Checkout WebMCP reading (browser-shopper/2) ask Chromium's own WebMCP for a page's tools " +
			"(the DevTools WebMCP domain) instead of a stand-in svc injected into the page.",
		"Re-crawls ask conditionally (If-None-Match, If-Modified-Since) for the documents of the last crawl and reuse " +
			"those a store answers 304 for; no published figure changes, and the crawl journal lists what was reused and when it was downloaded.",
	},
}, {
	MethodVersion: "svc-method/2 (check/2)",
	Date:          "2026-11-25",
	Changes: []string{
		"The weekly figure is the US share of stores whose UCP services returned a checkout link to the UCP agent path " +
			"(store_answers.ucp_checkout_link over market = US), as spec 2.13 asks; it counted storefront MCP links over every store before, " +
			"and is not compared with editions of that metric.",
		"New columns: the market a store sells to, from the currency and countries it declares (store_answers.market, " +
			"market_basis, stores.country, checks.market*), and store_answers.ucp_checkout_link.",
		"agent_facts measures use_case_mention and agent_friendly_description from one description the check saves " +
			"(checks.description_*); they were null for every store.",
		"A UCP profile the run had no schemas to validate, and that breaks no rule, is unvalidated (valid null), not invalid.",
		"A UCP profile that could not be read (timeout, 5xx, wall) has no verdict (valid null), never \"not a valid profile\".",
		"A store that could not be reached has no robots verdicts (robots_status unreachable, robots_* null); a 5xx robots.txt " +
			"is still complete disallow (RFC 9309) and is said so.",
		"robots.txt is read as RFC 9309 and Google's reference parser read it: a User-agent line without a valid product token " +
			"starts its own group, *Name* is not the wildcard, percent-encoding compares in one form, Google's lenient syntax.",
		"Prices: a full stop after a currency abbreviation is not a decimal point, percentages are not prices, two amounts " +
			"or a range give no price. JSON-LD in HTML comments is read and Product subtypes are products.",
		"Platforms: Salesforce Commerce Cloud, Shopware, PrestaShop, Squarespace and Wix are recognised, Shopify by more of its " +
			"markers. Walls: Bot Fight Mode pages, the edge's vendor, captchas named as captchas. WebMCP tool names built " +
			"outside the register call are read.",
		"A throttled catalog gets the fix unthrottle_catalog, not publish_catalog or none.",
	},
}, {
	MethodVersion: "svc-method/1 (check/1)",
	Date:          "2026-11-21",
	Changes: []string{
		"First published method: plain-HTTP store check (catalog, cart link, UCP, WebMCP, storefront MCP, robots, product data, policies, walls).",
		"UCP profiles validated against the UCP 2026-08-25 schema and spec rules.",
	},
}}

// SnapshotOptions configure Snapshot.
type SnapshotOptions struct {
	DataDir string // DIR: the run is read from DIR/work/<RunID>, published to DIR/public
	RunID   string
	BaseURL string // prefix of the manifest's download URLs; "" for root-relative
	// Files are published beside the run's own files (e.g. the OpenAPI
	// description and MCP card the server ships).
	Files []publish.File
	// Store is the tree published to; nil for the folder DataDir/public.
	// (An s3:// --data publishes into its bucket: publish/bucket.Store.)
	Store publish.Store
}

// frozenPrefixes are published paths that never change once written.
var frozenPrefixes = []string{"data/svc-100/"}

// Snapshot publishes a run's aggregate output (DIR/work/<run>/out) as one
// version of the artifact tree. The version is the run's date; when that
// date already holds a different snapshot, the first free date.N is used,
// so a second run on one day never overwrites the first. Its weekly
// edition is then the one already published for that date, kept as it is
// (publish.KeepPublishedEdition; Result.Notes says so). Publishing the
// same run again is a no-op that returns the same version.
func Snapshot(ctx context.Context, opts SnapshotOptions) (*publish.Result, error) {
	ri, err := ReadRun(opts.DataDir, opts.RunID)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(RunDir(opts.DataDir, opts.RunID), OutDir)
	if _, err := os.Stat(out); err != nil {
		return nil, fmt.Errorf("snapshot %s: no aggregate output in %s: run `svc aggregate --run %s` first", opts.RunID, out, opts.RunID)
	}
	sources, err := readOutTables(ctx, filepath.Join(RunDir(opts.DataDir, opts.RunID), OutTables))
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", opts.RunID, err)
	}
	files, err := readOutFiles(filepath.Join(RunDir(opts.DataDir, opts.RunID), OutFiles))
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", opts.RunID, err)
	}
	files = append(files, opts.Files...)
	var weekly *publish.Edition
	if b, err := os.ReadFile(filepath.Join(RunDir(opts.DataDir, opts.RunID), OutWeekly, ri.Date+".json")); err == nil {
		weekly = &publish.Edition{Date: ri.Date, Body: b}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("snapshot %s: %w", opts.RunID, err)
	}
	st := opts.Store
	if st == nil {
		if st, err = publish.NewDirStore(filepath.Join(opts.DataDir, "public")); err != nil {
			return nil, err
		}
	}
	// A second run on one day has an edition of that date already
	// published: it stays frozen, and the rest of the run is published.
	var notes []string
	weekly, note, err := publish.KeepPublishedEdition(ctx, st, weekly)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", opts.RunID, err)
	}
	if note != "" {
		notes = append(notes, note)
	}
	// The tables are read while they are written, a row group at a time
	// (aggregate writes them in key order: datasets.WriteParquet), and
	// store_answers once more before, for the directory: a snapshot holds
	// no table whole in memory.
	var storeAnswers func(context.Context, func(*datasets.Columns) error) error
	for _, src := range sources {
		if src.Table.Name == datasets.StoreAnswers.Name {
			storeAnswers = src.Groups // for the pages, row order does not matter
		}
	}
	snap := &publish.Snapshot{
		MethodVersion: MethodVersion,
		BaseURL:       opts.BaseURL,
		Sources:       sources,
		Files:         files,
		Weekly:        weekly,
		Changelog:     Changelog,
		Notes:         notes,
	}
	for n := 0; n < 1000; n++ {
		snap.Version = ri.Date
		if n > 0 {
			snap.Version = fmt.Sprintf("%s.%d", ri.Date, n)
		}
		res, err := publishVersion(ctx, st, snap, pages.Input{Version: snap.Version, MethodVersion: MethodVersion,
			BaseURL: opts.BaseURL, StoreAnswers: storeAnswers, Files: files, Weekly: weekly, Changelog: Changelog, Published: st})
		if errors.Is(err, publish.ErrVersionExists) {
			continue
		}
		return res, err
	}
	return nil, fmt.Errorf("snapshot %s: every version %s.1 to .999 is taken", opts.RunID, ri.Date)
}

// publishVersion publishes snap as the version in.Version with the site's
// pages. The pages name the version, so they are rendered for each one
// tried, while the tables are written (they are handed to Publish with the
// dataset page, which shows the tables' sizes and sums once they are
// written).
func publishVersion(ctx context.Context, st publish.Store, snap *publish.Snapshot, in pages.Input) (*publish.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // a Publish that fails early stops the pages
	built := sync.OnceValues(func() ([]publish.File, error) { return pages.Build(ctx, in) })
	go built()
	snap.Files = in.Files
	snap.TablePages = func(ctx context.Context, t []publish.TableEntry) ([]publish.File, error) {
		files, err := built()
		if err != nil {
			return nil, err
		}
		dataset, err := pages.DatasetsPage(ctx, in, t)
		if err != nil {
			return nil, err
		}
		return append(slices.Clip(files), dataset...), nil
	}
	res, err := publish.Publish(ctx, st, snap)
	if errors.Is(err, datasets.ErrUnsorted) {
		// A table file not in key order: nothing was published; load the
		// tables whole, which sorts them.
		for i := range snap.Sources {
			snap.Sources[i].Groups, snap.Sources[i].Parquet = nil, nil
		}
		res, err = publish.Publish(ctx, st, snap)
	}
	return res, err
}

// readOutTables finds every out/tables/<name>.parquet with its table
// definition; a file no definition names is an error, not silently
// dropped. It returns them as sources that read their file when
// published.
func readOutTables(ctx context.Context, dir string) ([]publish.TableSource, error) {
	defs := map[string]*datasets.Table{}
	for _, t := range datasets.All() {
		defs[t.Name] = t
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var sources []publish.TableSource
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".parquet")
		if !ok || e.IsDir() {
			continue
		}
		t, ok := defs[name]
		if !ok {
			return nil, fmt.Errorf("%s: no table definition named %q in datasets", filepath.Join(dir, e.Name()), name)
		}
		path := filepath.Join(dir, e.Name())
		src := publish.TableSource{Table: t,
			Load: func(ctx context.Context) (*datasets.Columns, error) { return ReadTableFile(path, t) },
			Groups: func(ctx context.Context, fn func(*datasets.Columns) error) error {
				return readTableGroups(path, t, fn)
			},
		}
		// Aggregate wrote the file with the datasets writer: published as
		// is, it is not encoded a second time.
		canonical, err := parquetCanonical(path, t)
		if err != nil {
			return nil, err
		}
		if canonical {
			src.Parquet = func(context.Context) (io.ReadCloser, error) { return os.Open(path) }
		}
		sources = append(sources, src)
	}
	if len(sources) == 0 {
		return nil, fmt.Errorf("%s holds no tables", dir)
	}
	return sources, ctx.Err()
}

// parquetCanonical reports whether one of aggregate's table files is laid
// out as the datasets writer lays out its rows (datasets.ParquetCanonical).
func parquetCanonical(path string, t *datasets.Table) (bool, error) {
	var canonical bool
	err := withFile(path, func(r io.ReaderAt, size int64) error {
		canonical = datasets.ParquetCanonical(r, size, t) == nil
		return nil
	})
	return canonical, err
}

// readTableGroups reads one of aggregate's table files a row group at a
// time.
func readTableGroups(path string, t *datasets.Table, fn func(*datasets.Columns) error) error {
	return withFile(path, func(r io.ReaderAt, size int64) error {
		return datasets.ReadParquetGroups(r, size, t, fn)
	})
}

// readOutFiles reads every file under out/files as a publish.File at its
// path relative to out/files.
func readOutFiles(dir string) ([]publish.File, error) {
	var out []publish.File
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) && path == dir {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		f := publish.File{Path: rel, Data: b}
		for _, p := range frozenPrefixes {
			f.Frozen = f.Frozen || strings.HasPrefix(rel, p)
		}
		out = append(out, f)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}
