// Package readlayer is the read layer of one published snapshot: per-host
// lookup records built in memory when the snapshot loads, the JSON
// documents read from Parquet at a host's row, and DuckDB for the reads
// that scan. The HTTP and MCP handlers of package serve see it only
// through Source, so their tests can read an in-memory fake instead
// (fakesource). It sits below serve and never imports it.
package readlayer

import (
	"context"
	"time"
)

// Source is what the handlers read from one snapshot. A Source is
// reference counted: a request Acquires it before reading and Releases it
// after, so a newer snapshot can replace it without failing a request in
// flight. A read of a document whose table the snapshot lacks answers
// nil; Serves says beforehand whether a read is available.
type Source interface {
	// Version is the snapshot's version.
	Version() string
	// Serves reports whether the snapshot has the tables read needs.
	Serves(read Read) bool
	// Lookup returns host's lookup record, or nil.
	Lookup(host string) (*Row, error)
	// Has reports whether host has a record.
	Has(host string) (bool, error)
	// Directory lists the agent-ready stores of cats (all when empty)
	// checked since since, at most limit, with the total that match.
	Directory(ctx context.Context, cats []string, since time.Time, limit int) ([]DirectoryEntry, int, error)
	// CategoryFacts lists the measured facts of the first limit stores
	// (by host) of category that have any; slug, when set, picks a fact.
	CategoryFacts(ctx context.Context, category, slug string, limit int) ([]Fact, error)
	// HostFacts reads the facts of a host at its rows of agent_facts.
	HostFacts(r *Row) ([]Fact, error)
	// Product reads a host's product_data row; nil when it has none.
	Product(r *Row) (*Product, error)
	// CheckResult reads a host's checks.result_json; nil when none.
	CheckResult(r *Row) (*string, error)
	// UCPReport reads a host's ucp_validations.report; nil when none.
	UCPReport(r *Row) (*string, error)

	// Acquire takes a reference for one request; false when the source is
	// closing (the caller then reads the newer snapshot).
	Acquire() bool
	// Release drops a reference.
	Release()
}

// Read names a read that needs tables a snapshot may lack.
type Read int

// The reads Serves answers for.
const (
	ReadDirectory     Read = iota // store_answers, through DuckDB
	ReadCategoryFacts             // agent_facts and stores, through DuckDB
	ReadHostFacts                 // agent_facts
	ReadProductData               // product_data
)

// DirectoryEntry is one row of the directory query.
type DirectoryEntry struct {
	Name      *string
	Host      string
	Category  *string
	Verdict   *string
	CheckedAt time.Time // UTC
	SvcURL    *string
}

// Fact is one row of agent_facts. Value is the JSON text, nil for null.
type Fact struct {
	Host           string
	Fact           string
	Value          *string
	Confidence     *float64
	EvidenceSha256 *string
	Evidence       *string
	SourceURL      *string
	CheckedAt      *time.Time // UTC
	Note           *string
}

// Product is one row of product_data. The documents are JSON text.
type Product struct {
	ProductURL      *string
	Source          *string
	ProductData     *string
	VendorReadiness *string
	CheckedAt       *time.Time
}
