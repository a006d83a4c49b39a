package pipeline

import (
	"encoding/json"
	"fmt"
	"time"

	"svc/serve/state"
)

// Stores added through POST /api/stores/submit reach the directory this way:
// the server validates each host (live HTTPS, not parked, not redirecting to
// another brand, not already listed) and appends the accepted ones to the
// state log as one StoreSubmissionRecordType record per request, fsync'd
// before it answers. The next crawl reads them back with MergeSubmitted:
// they are checked like every other store (UCP, WebMCP, MCP, policies,
// product data, over plain HTTP, no model calls) and join the dataset with
// source=submitted.

// StoreSubmissionRecordType is the state-log record type of the hosts one
// store submission accepted.
const StoreSubmissionRecordType = "store_submission"

// SourceSubmitted is the directory source of a store added by submission.
const SourceSubmitted = "submitted"

// StoreSubmissionRecord is the data of a StoreSubmissionRecordType record.
// It holds nothing about the caller: no address, no key.
type StoreSubmissionRecord struct {
	Hosts []SubmittedHost `json:"hosts"`
}

// SubmittedHost is one accepted host and the category it was submitted
// under ("" when none was given).
type SubmittedHost struct {
	Host     string `json:"host"`
	Category string `json:"category,omitempty"`
}

// ReadSubmittedStores returns the stores accepted by submission in the
// state log under stateDir (DIR/state) whose record time is not after until
// (zero: no bound), oldest first, each host once (its first submission
// wins), with Source "submitted". A host that no longer passes
// NormalizeHost is skipped. A missing log is no stores.
func ReadSubmittedStores(stateDir string, until time.Time) ([]Store, error) {
	seen := map[string]bool{}
	var out []Store
	err := state.Replay(stateDir, func(rec state.Record) error {
		if rec.Type != StoreSubmissionRecordType || (!until.IsZero() && rec.Time.After(until)) {
			return nil
		}
		var sr StoreSubmissionRecord
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
		return nil, fmt.Errorf("read submitted stores %s: %w", stateDir, err)
	}
	return out, nil
}

// MergeSubmitted returns the crawl input: stores (from the --stores CSV)
// followed by the stores accepted by submission up to until (see
// ReadSubmittedStores) that the CSV does not list. The CSV wins: a host in
// both keeps its CSV row and source. added is how many submitted stores
// joined.
func MergeSubmitted(stores []Store, stateDir string, until time.Time) (merged []Store, added int, err error) {
	subs, err := ReadSubmittedStores(stateDir, until)
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
