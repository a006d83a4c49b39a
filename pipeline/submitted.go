package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"svc/pipeline/inbox"
)

// Stores added through POST /api/stores/submit reach the directory this way:
// the server validates each host (live HTTPS, not parked, not redirecting to
// another brand, not already listed) and appends the accepted ones to the
// inbox as one inbox.TypeStoreSubmission record per request, durable before
// it answers. The next crawl reads them back with MergeSubmitted: they are
// checked like every other store (UCP, WebMCP, MCP, policies, product data,
// over plain HTTP, no model calls) and join the dataset with
// source=submitted.

// SourceSubmitted is the directory source of a store added by submission.
const SourceSubmitted = "submitted"

// ReadSubmittedStores returns the stores accepted by submission in the
// inbox whose record time is not after until (zero: no bound), oldest
// first, each host once (its first submission wins), with Source
// "submitted". A host that no longer passes NormalizeHost is skipped. An
// empty inbox is no stores.
func ReadSubmittedStores(ctx context.Context, in inbox.Reader, until time.Time) ([]Store, error) {
	seen := map[string]bool{}
	var out []Store
	err := in.Records(ctx, inbox.TypeStoreSubmission, until, func(rec inbox.Record) error {
		var sr inbox.StoreSubmission
		if json.Unmarshal(rec.Data, &sr) != nil {
			return nil // a record this version cannot read is not a store
		}
		for _, h := range sr.Hosts {
			host, err := NormalizeHost(h.Host)
			if err != nil || seen[host] {
				continue
			}
			seen[host] = true
			out = append(out, Store{Host: host, Category: h.Category, Source: SourceSubmitted})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read submitted stores: %w", err)
	}
	return out, nil
}

// MergeSubmitted returns the crawl input: stores (from the --stores CSV)
// followed by the stores accepted by submission up to until (see
// ReadSubmittedStores) that the CSV does not list. The CSV wins: a host in
// both keeps its CSV row and source. added is how many submitted stores
// joined.
func MergeSubmitted(ctx context.Context, stores []Store, in inbox.Reader, until time.Time) (merged []Store, added int, err error) {
	subs, err := ReadSubmittedStores(ctx, in, until)
	if err != nil {
		return nil, 0, err
	}
	listed := make(map[string]bool, len(stores))
	for _, s := range stores {
		listed[s.Host] = true
	}
	merged = append(make([]Store, 0, len(stores)+len(subs)), stores...)
	for _, s := range subs {
		if listed[s.Host] {
			continue
		}
		merged = append(merged, s)
		added++
	}
	return merged, added, nil
}
