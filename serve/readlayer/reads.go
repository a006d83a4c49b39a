package readlayer

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
)

var _ Source = (*Layer)(nil)

// Version is the snapshot's version.
func (rl *Layer) Version() string { return rl.version }

// Serves reports whether the snapshot has the tables read needs.
func (rl *Layer) Serves(read Read) bool {
	switch read {
	case ReadDirectory:
		return rl.stmts[sqlDirectory] != nil
	case ReadCategoryFacts:
		return rl.stmts[sqlFactsCategory] != nil
	case ReadHostFacts:
		return rl.facts != nil
	case ReadProductData:
		return rl.product != nil
	}
	return false
}

// Has reports whether host is in the snapshot's directory
// (store_answers): a binary search and one block inflated, no host set
// held in memory.
func (rl *Layer) Has(host string) (bool, error) { return rl.rows.has(host) }

// Stores is the number of hosts with a lookup record.
func (rl *Layer) Stores() int { return rl.rows.Len() }

// MemBytes is the memory the lookup records and the row caches' block
// indexes hold, roughly.
func (rl *Layer) MemBytes() int64 {
	n := rl.rows.memBytes()
	for _, p := range []*parquetRows{rl.product, rl.facts} {
		if p != nil && p.cache != nil {
			n += p.cache.memBytes()
		}
	}
	return n
}

// RowCacheBytes is the size of the row caches' scratch files (on disk, in
// the page cache, not the heap).
func (rl *Layer) RowCacheBytes() int64 {
	var n int64
	for _, p := range []*parquetRows{rl.product, rl.facts} {
		if p != nil && p.cache != nil {
			n += p.cache.diskBytes()
		}
	}
	return n
}

// RowCacheErr is why a table with per-host documents is read from its
// Parquet pages instead of a row cache; nil when none is.
func (rl *Layer) RowCacheErr() error { return rl.cacheErr }

// LoadTime is how long Open took.
func (rl *Layer) LoadTime() time.Duration { return rl.loaded }

// Closed is closed once the last reference is released.
func (rl *Layer) Closed() <-chan struct{} { return rl.closed }

// Refs is the number of references held (for tests and logs).
func (rl *Layer) Refs() int64 { return rl.refs.Load() }

// Directory runs the directory query (sql/serve_directory.sql).
func (rl *Layer) Directory(ctx context.Context, cats []string, since time.Time, limit int) ([]DirectoryEntry, int, error) {
	st := rl.stmts[sqlDirectory]
	if st == nil {
		return nil, 0, fmt.Errorf("directory query: no store_answers in %s", rl.version)
	}
	rows, err := st.QueryContext(ctx, strings.Join(cats, ","), float64(since.UnixMicro())/1e6, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("directory query: %w", err)
	}
	defer rows.Close()
	var out []DirectoryEntry
	total := 0
	for rows.Next() {
		var d DirectoryEntry
		if err := rows.Scan(&d.Name, &d.Host, &d.Category, &d.Verdict, &d.CheckedAt, &d.SvcURL, &total); err != nil {
			return nil, 0, fmt.Errorf("directory query: %w", err)
		}
		d.CheckedAt = d.CheckedAt.UTC()
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("directory query: %w", err)
	}
	return out, total, nil
}

// CategoryFacts runs the category facts query
// (sql/serve_agent_facts_category.sql): a scan, so DuckDB.
func (rl *Layer) CategoryFacts(ctx context.Context, category, slug string, limit int) ([]Fact, error) {
	st := rl.stmts[sqlFactsCategory]
	if st == nil {
		return nil, fmt.Errorf("agent facts %s: no agent_facts in %s", category, rl.version)
	}
	rows, err := st.QueryContext(ctx, category, slug, limit)
	if err != nil {
		return nil, fmt.Errorf("agent facts %s: %w", category, err)
	}
	defer rows.Close()
	var out []Fact
	for rows.Next() {
		var f Fact
		if err := rows.Scan(&f.Host, &f.Fact, &f.Value, &f.Confidence, &f.EvidenceSha256, &f.Evidence, &f.SourceURL, &f.CheckedAt, &f.Note); err != nil {
			return nil, fmt.Errorf("agent facts %s: %w", category, err)
		}
		if f.CheckedAt != nil {
			t := f.CheckedAt.UTC()
			f.CheckedAt = &t
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("agent facts %s: %w", category, err)
	}
	return out, nil
}

// HostFacts reads one store's facts at its rows of agent_facts.
func (rl *Layer) HostFacts(r *Row) ([]Fact, error) {
	at, n := r.Int(FFactsRow), r.Int(FFactsRows)
	if rl.facts == nil || at == nil || n == nil {
		return nil, nil
	}
	p := rl.facts
	var out []Fact
	err := p.read(*at, int(*n), func(row parquet.Row) error {
		out = append(out, Fact{
			Host: p.text(row, "host"), Fact: p.text(row, "fact"), Value: p.str(row, "value"),
			Confidence: p.float(row, "confidence"), EvidenceSha256: p.str(row, "evidence_sha256"), Evidence: p.str(row, "evidence"),
			SourceURL: p.str(row, "source_url"), CheckedAt: p.when(row, "checked_at"), Note: p.str(row, "note"),
		})
		return nil
	})
	return out, err
}

// Product reads a host's row of product_data.
func (rl *Layer) Product(r *Row) (*Product, error) {
	at := r.Int(FProductRow)
	if rl.product == nil || at == nil {
		return nil, nil
	}
	p := rl.product
	var out *Product
	err := p.read(*at, 1, func(row parquet.Row) error {
		out = &Product{ProductURL: p.str(row, "product_url"), Source: p.str(row, "source"),
			ProductData: p.str(row, "product_data"), VendorReadiness: p.str(row, "vendor_readiness"), CheckedAt: p.when(row, "checked_at")}
		return nil
	})
	return out, err
}

// CheckResult reads a host's checks.result_json.
func (rl *Layer) CheckResult(r *Row) (*string, error) {
	return rl.document(rl.checks, r.Int(FChecksRow), "result_json")
}

// UCPReport reads a host's ucp_validations.report.
func (rl *Layer) UCPReport(r *Row) (*string, error) {
	return rl.document(rl.ucp, r.Int(FUCPRow), "report")
}

// document reads one string column of p at row at.
func (rl *Layer) document(p *parquetRows, at *int64, col string) (*string, error) {
	if p == nil || at == nil {
		return nil, nil
	}
	var out *string
	err := p.read(*at, 1, func(row parquet.Row) error {
		out = p.str(row, col)
		return nil
	})
	return out, err
}
