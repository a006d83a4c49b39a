// Package fakesource is an in-memory readlayer.Source for handler tests:
// rows and documents are set by the test, no Parquet file or DuckDB is
// opened. (golang/pkgsite's internal/testing/fakedatasource is the model.)
package fakesource

import (
	"context"
	"slices"
	"strings"
	"time"

	"svc/serve/readlayer"
)

// Source is a snapshot held in memory. Set its fields before use; it is
// not safe for concurrent writes.
type Source struct {
	version  string
	rows     map[string]*readlayer.Row
	facts    map[string][]readlayer.Fact
	products map[string]*readlayer.Product
	results  map[string]string
	reports  map[string]string
	// Missing lists the reads whose tables the snapshot lacks.
	Missing map[readlayer.Read]bool
	// Entries are the directory's stores, each with its category; the
	// directory read filters them like the query (category, window).
	Entries []readlayer.DirectoryEntry
}

var _ readlayer.Source = (*Source)(nil)

// New returns an empty snapshot of version.
func New(version string) *Source {
	return &Source{version: version, rows: map[string]*readlayer.Row{}, facts: map[string][]readlayer.Fact{},
		products: map[string]*readlayer.Product{}, results: map[string]string{}, reports: map[string]string{},
		Missing: map[readlayer.Read]bool{}}
}

// AddRow adds a host's lookup record.
func (s *Source) AddRow(r *readlayer.Row) { s.rows[r.Host()] = r }

// SetFacts sets a host's rows of agent_facts.
func (s *Source) SetFacts(host string, facts []readlayer.Fact) { s.facts[host] = facts }

// SetProduct sets a host's row of product_data.
func (s *Source) SetProduct(host string, p *readlayer.Product) { s.products[host] = p }

// SetDocuments sets a host's checks.result_json and UCP report ("" for
// none).
func (s *Source) SetDocuments(host, resultJSON, ucpReport string) {
	s.results[host], s.reports[host] = resultJSON, ucpReport
}

// Version implements readlayer.Source.
func (s *Source) Version() string { return s.version }

// Serves implements readlayer.Source.
func (s *Source) Serves(read readlayer.Read) bool { return !s.Missing[read] }

// Lookup implements readlayer.Source.
func (s *Source) Lookup(host string) (*readlayer.Row, error) { return s.rows[host], nil }

// Has implements readlayer.Source.
func (s *Source) Has(host string) (bool, error) { _, ok := s.rows[host]; return ok, nil }

// Directory implements readlayer.Source: the entries of cats checked
// since since, by host, at most limit.
func (s *Source) Directory(_ context.Context, cats []string, since time.Time, limit int) ([]readlayer.DirectoryEntry, int, error) {
	var match []readlayer.DirectoryEntry
	for _, e := range s.Entries {
		if e.CheckedAt.Before(since) || len(cats) > 0 && (e.Category == nil || !slices.Contains(cats, *e.Category)) {
			continue
		}
		match = append(match, e)
	}
	slices.SortFunc(match, func(a, b readlayer.DirectoryEntry) int { return strings.Compare(a.Host, b.Host) })
	return match[:min(limit, len(match))], len(match), nil
}

// CategoryFacts implements readlayer.Source: the facts of the first limit
// hosts (by host) of category that have any.
func (s *Source) CategoryFacts(_ context.Context, category, slug string, limit int) ([]readlayer.Fact, error) {
	var hosts []string
	for h, r := range s.rows {
		if r.Text(readlayer.FCategory) == category && len(s.facts[h]) > 0 {
			hosts = append(hosts, h)
		}
	}
	slices.Sort(hosts)
	var out []readlayer.Fact
	for _, h := range hosts[:min(limit, len(hosts))] {
		for _, f := range s.facts[h] {
			if slug == "" || f.Fact == slug {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// HostFacts implements readlayer.Source.
func (s *Source) HostFacts(r *readlayer.Row) ([]readlayer.Fact, error) { return s.facts[r.Host()], nil }

// Product implements readlayer.Source.
func (s *Source) Product(r *readlayer.Row) (*readlayer.Product, error) {
	return s.products[r.Host()], nil
}

// CheckResult implements readlayer.Source.
func (s *Source) CheckResult(r *readlayer.Row) (*string, error) { return doc(s.results[r.Host()]), nil }

// UCPReport implements readlayer.Source.
func (s *Source) UCPReport(r *readlayer.Row) (*string, error) { return doc(s.reports[r.Host()]), nil }

func doc(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Acquire implements readlayer.Source: a fake never closes.
func (s *Source) Acquire() bool { return true }

// Release implements readlayer.Source.
func (s *Source) Release() {}
