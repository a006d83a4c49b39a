// Package svc100 is the SVC-100 v1 test set: the fixed list of 100 stores
// the leaderboard measures agents over (spec 2.10, 2.11), and the JSON
// Schema of a leaderboard submission. Both files are committed here and
// embedded, so the binary publishes exactly these bytes at
// data/svc-100/v1/svc-100.csv and data/svc-100/v1/submission.schema.json;
// they are frozen once published (a later edit is refused by the publisher,
// a new test set is a new version folder).
//
// svc-100.csv has the columns id, host, name, category; ids run from
// svc100-v1-001 to svc100-v1-100. In this repository the 100 stores are
// stores of the fixture world, chosen by a documented rule (see the
// generator test, TestCSVFromFixtureWorld, which rewrites the file under
// -update and fails when it drifts):
//
//  1. generate fixtures.Generate(1, fixtures.DefaultStores);
//  2. keep, in world order, the stores whose source is "seed" (a curated
//     test set never takes third-party lists, map-derived hosts, campaign
//     or opted-out stores) and that are shops (platform is not "none": no
//     parked domain, no redirect to another brand); a store behind a bot
//     wall or one that is down stays eligible, as real stores do;
//  3. of those K candidates, take candidate[floor(k*K/100)] for k = 0..99,
//     spreading the set over the whole world; number them in that order.
package svc100

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Names of the format and the test set (spec 2.11, 9.3).
const (
	// Spec is the constant "spec" of a submission.
	Spec = "svc-leaderboard-submission/v1"
	// TestSet is the constant "test_set" of a submission.
	TestSet = "SVC-100 v1"
	// Size is the number of stores in the test set.
	Size = 100
)

// Published paths, relative to the public root.
const (
	CSVPath    = "data/svc-100/v1/svc-100.csv"
	SchemaPath = "data/svc-100/v1/submission.schema.json"
)

var (
	//go:embed svc-100.csv
	csvBytes []byte
	//go:embed submission.schema.json
	schemaBytes []byte
)

// CSV returns the bytes of svc-100.csv as committed (a copy).
func CSV() []byte { return bytes.Clone(csvBytes) }

// Schema returns the bytes of submission.schema.json as committed (a copy).
func Schema() []byte { return bytes.Clone(schemaBytes) }

// Store is one store of the test set.
type Store struct {
	ID       string `json:"id"`
	Host     string `json:"host"`
	Name     string `json:"name"`
	Category string `json:"category"`
}

// Header is the column row of svc-100.csv.
var Header = []string{"id", "host", "name", "category"}

// IDPattern is the form of a store id.
var IDPattern = regexp.MustCompile(`^svc100-v1-[0-9]{3}$`)

// ID returns the id of the n-th store (1-based): svc100-v1-NNN.
func ID(n int) string { return fmt.Sprintf("svc100-v1-%03d", n) }

type set struct {
	stores []Store
	byID   map[string]int
	byHost map[string]int
}

var loaded = sync.OnceValues(func() (*set, error) { return parse(csvBytes) })

// Stores returns the 100 stores in id order. The embedded file is checked
// by the package tests; a malformed one panics here rather than giving a
// partial test set.
func Stores() []Store {
	s := mustLoad()
	return append([]Store(nil), s.stores...)
}

// ByID returns the store with the given id.
func ByID(id string) (Store, bool) {
	s := mustLoad()
	i, ok := s.byID[id]
	if !ok {
		return Store{}, false
	}
	return s.stores[i], true
}

// ByHost returns the store at host (lower case, no port).
func ByHost(host string) (Store, bool) {
	s := mustLoad()
	i, ok := s.byHost[strings.ToLower(host)]
	if !ok {
		return Store{}, false
	}
	return s.stores[i], true
}

// FixtureStandIn reports whether the embedded test set is the fixture
// world's stand-in for SVC-100 v1: every host on the reserved .test
// domain (RFC 2606), so synthetic stores, not real ones. Every leaderboard
// answer over such a set must say so.
func FixtureStandIn() bool { return standIn(mustLoad().stores) }

func standIn(stores []Store) bool {
	for _, st := range stores {
		if !strings.HasSuffix(st.Host, ".test") {
			return false
		}
	}
	return len(stores) > 0
}

func mustLoad() *set {
	s, err := loaded()
	if err != nil {
		panic("svc100: embedded svc-100.csv: " + err.Error())
	}
	return s
}

// Parse reads a test-set CSV: the header id,host,name,category and exactly
// Size rows whose ids are svc100-v1-001 … -100 in order, with unique
// lower-case hosts.
func Parse(b []byte) ([]Store, error) {
	s, err := parse(b)
	if err != nil {
		return nil, err
	}
	return s.stores, nil
}

func parse(b []byte) (*set, error) {
	r := csv.NewReader(bytes.NewReader(b))
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("parse svc-100.csv: %w", err)
	}
	if len(recs) == 0 || strings.Join(recs[0], ",") != strings.Join(Header, ",") {
		return nil, fmt.Errorf("parse svc-100.csv: header must be %s", strings.Join(Header, ","))
	}
	if len(recs)-1 != Size {
		return nil, fmt.Errorf("parse svc-100.csv: %d stores, want %d", len(recs)-1, Size)
	}
	s := &set{byID: map[string]int{}, byHost: map[string]int{}}
	for i, rec := range recs[1:] {
		st := Store{ID: rec[0], Host: rec[1], Name: rec[2], Category: rec[3]}
		if st.ID != ID(i+1) {
			return nil, fmt.Errorf("parse svc-100.csv line %d: id %q, want %s", i+2, st.ID, ID(i+1))
		}
		if st.Host == "" || st.Host != strings.ToLower(st.Host) || strings.ContainsAny(st.Host, ":/ ") {
			return nil, fmt.Errorf("parse svc-100.csv line %d: host %q must be a lower-case host name", i+2, st.Host)
		}
		if _, dup := s.byHost[st.Host]; dup {
			return nil, fmt.Errorf("parse svc-100.csv line %d: host %s listed twice", i+2, st.Host)
		}
		s.byID[st.ID] = i
		s.byHost[st.Host] = i
		s.stores = append(s.stores, st)
	}
	return s, nil
}

// Encode writes stores as svc-100.csv: RFC 4180 with CRLF line ends, like
// every published CSV.
func Encode(stores []Store) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	_ = w.Write(Header)
	for _, st := range stores {
		_ = w.Write([]string{st.ID, st.Host, st.Name, st.Category})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("encode svc-100.csv: %w", err)
	}
	return buf.Bytes(), nil
}
