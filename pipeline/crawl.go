// Package pipeline holds the batch stages (crawl, validate, aggregate) that
// turn the store directory into published datasets. The check engine they
// share lives in pipeline/check, the safe client in pipeline/fetch.
package pipeline

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"svc/pipeline/check"
	"svc/pipeline/fetch"
)

// Store is one row of the directory: the crawl's input.
type Store struct {
	Host     string `json:"host"`
	Name     string `json:"name"`
	Category string `json:"category"`
	Source   string `json:"source"`
}

// Sources a directory row may come from (spec 2.2, 3).
var Sources = []string{"seed", "submitted", "third-party-list", "map-derived", "campaign", "opted-out"}

// ReadStores parses the crawl input CSV: a header naming at least host, and
// optionally name, category and source (default "seed"). Hosts are
// normalised to lower case without scheme, path or trailing dot; duplicates
// keep their first row. A malformed row is an error that names its line.
func ReadStores(r io.Reader) ([]Store, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read stores header: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	if _, ok := col["host"]; !ok {
		return nil, fmt.Errorf("read stores: the header %q has no host column", strings.Join(header, ","))
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	seen := map[string]bool{}
	var out []Store
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read stores: %w", err)
		}
		host, err := NormalizeHost(get(rec, "host"))
		if err != nil {
			return nil, fmt.Errorf("read stores line %d: %w", line, err)
		}
		if seen[host] {
			continue
		}
		seen[host] = true
		src := get(rec, "source")
		if src == "" {
			src = "seed"
		}
		if !validSource(src) {
			return nil, fmt.Errorf("read stores line %d: source %q is not one of %s", line, src, strings.Join(Sources, ", "))
		}
		out = append(out, Store{Host: host, Name: get(rec, "name"), Category: get(rec, "category"), Source: src})
	}
	return out, nil
}

func validSource(s string) bool {
	for _, v := range Sources {
		if s == v {
			return true
		}
	}
	return false
}

// NormalizeHost turns "https://Shop.Example/x" or "shop.example." into
// "shop.example", checking it with the safe client's URL rules.
func NormalizeHost(s string) (string, error) {
	if s == "" {
		return "", errors.New("empty host")
	}
	u, err := fetch.ParseURL(s)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), nil
}

// Checker runs one store check; *check.Engine satisfies it.
type Checker interface {
	Check(ctx context.Context, rawURL string) (*check.Result, error)
}

// CrawlOptions configure a crawl.
type CrawlOptions struct {
	Stores      []Store
	Dir         string // DIR/work/<run-id>: the journal and outputs go here (ChecksDir)
	Concurrency int    // stores checked at once; each store's requests are sequential
	// Shard, when set, checks only the stores whose host falls in it and
	// keeps its journal in the partition folder ChecksDir(Dir, Shard).
	// Concurrency is per shard: n shards check n × Concurrency stores at
	// once between them.
	Shard   Shard
	Checker Checker
	// Docs, when set, keeps each store's documents between runs and asks
	// for them conditionally (If-None-Match, If-Modified-Since): a store
	// that answers 304 is not downloaded again, and its findings come
	// from the copy kept (listed in the result's reused). Needs a Checker
	// that is a DocsChecker; nil fetches everything in full.
	Docs     *DocCache
	Progress Progress // nil for none
	Log      *slog.Logger
}

// CrawlRecord is one journal line: a store and its check, or why it failed.
type CrawlRecord struct {
	Store  Store         `json:"store"`
	Result *check.Result `json:"result,omitempty"`
	Error  string        `json:"error,omitempty"` // a class, e.g. "check failed: timeout"
}

// CrawlStats counts the outcome of a crawl.
type CrawlStats struct {
	Total, Done, Resumed, Failed int
	Elapsed                      time.Duration
}

// JournalName is the crawl's append-only journal inside the run folder.
const JournalName = "checks.jsonl"

// Crawl checks every store (of opts.Shard) not yet in the run's journal
// and appends each result as it completes, so a crawl killed half-way
// resumes where it stopped. One store's failure is recorded and counted,
// never fatal.
func Crawl(ctx context.Context, opts CrawlOptions) (CrawlStats, error) {
	start := time.Now()
	if opts.Shard.Sharded() {
		if err := opts.Shard.Validate(); err != nil {
			return CrawlStats{}, fmt.Errorf("crawl: %w", err)
		}
	}
	if err := checkRunLayout(opts.Dir, opts.Shard); err != nil {
		return CrawlStats{}, fmt.Errorf("crawl: %w", err)
	}
	dir := ChecksDir(opts.Dir, opts.Shard)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return CrawlStats{}, fmt.Errorf("crawl: %w", err)
	}
	opts.Stores = opts.Shard.Select(opts.Stores)
	path := filepath.Join(dir, JournalName)
	done, err := readJournalHosts(path)
	if err != nil {
		return CrawlStats{}, err
	}
	j, err := openJournal(path)
	if err != nil {
		return CrawlStats{}, fmt.Errorf("crawl: %w", err)
	}
	defer j.close()
	c, writeErr := journaled[Store]{
		name:        "crawl",
		journal:     j,
		items:       opts.Stores,
		host:        func(s Store) string { return s.Host },
		done:        done,
		concurrency: opts.Concurrency,
		progress:    opts.Progress,
		log:         opts.Log,
		failedMsg:   "store check failed",
		work: func(ctx context.Context, s Store) workResult {
			rec := CrawlRecord{Store: s}
			res, err := opts.checkStore(ctx, s)
			if err != nil {
				rec.Error = check.ErrorClass(err)
			} else {
				rec.Result = res
			}
			return workResult{record: rec, host: s.Host, failed: rec.Error != "", errText: rec.Error}
		},
	}.run(ctx)
	stats := CrawlStats{Total: c.total, Done: c.done, Resumed: c.resumed, Failed: c.failed, Elapsed: time.Since(start)}
	return stats, errors.Join(writeErr, ctx.Err())
}

// readJournalHosts returns the hosts a journal already holds. A torn last
// line (the crawl died mid-write) is ignored.
func readJournalHosts(path string) (map[string]bool, error) {
	done := map[string]bool{}
	err := ReadJournal(path, func(r CrawlRecord) { done[r.Store.Host] = true })
	if errors.Is(err, os.ErrNotExist) {
		return done, nil
	}
	return done, err
}

// ReadJournal calls fn for every complete record of a crawl journal, in file
// order, keeping only the last record of a host. Torn lines are skipped.
func ReadJournal(path string, fn func(CrawlRecord)) error {
	return readLastByHost(path, "journal", func(r CrawlRecord) string { return r.Store.Host }, fn)
}
