// Package svc100 is the SVC-100 v1 test set: the fixed list of 100 stores
// the leaderboard measures agents over (spec 2.10, 2.11), and the JSON
// Schema of a leaderboard submission. The files are committed here and
// embedded, so the binary publishes exactly these bytes at
// data/svc-100/v1/svc-100.csv and data/svc-100/v1/submission.schema.json;
// they are frozen once published (a later edit is refused by the publisher,
// a new test set is a new version folder).
//
// There are two lists of the same 100 ids:
//
//   - svc-100.csv, the real SVC-100 v1: 100 live online stores selling to
//     the US across eleven categories, each row with its source and the
//     platform where a public page names it (curation rule and caveats in
//     svc-100.md). The columns are id, host, name, category, platform,
//     source, platform_source, checked. It is the default.
//   - fixture-stand-ins.csv, the fixture stand-in set: in fixture mode
//     (the --fixture-addr flag, svc demo) each id is played by a store of
//     the fixture world, chosen by a documented rule (see the generator
//     test, TestStandInsFromFixtureWorld, which rewrites the file under
//     -update and fails when it drifts):
//     1. generate fixtures.Generate(1, fixtures.DefaultStores);
//     2. keep, in world order, the stores whose source is "seed" (a curated
//     test set never takes third-party lists, map-derived hosts, campaign
//     or opted-out stores) and that are shops (platform is not "none": no
//     parked domain, no redirect to another brand); a store behind a bot
//     wall or one that is down stays eligible, as real stores do;
//     3. of those K candidates, take candidate[floor(k*K/100)] for k =
//     0..99, spreading the set over the whole world; number them in that
//     order. A stand-in keeps its own fixture category.
//
// Which list a process uses is chosen once, at its start, before any
// goroutine reads it: UseFixtureStandIns (fixture mode), or UsePublished
// (svc serve, from the list its published tree carries). Every answer over
// the stand-ins says so (FixtureStandIn).
package svc100

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
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
	realBytes []byte
	//go:embed fixture-stand-ins.csv
	standInBytes []byte
	//go:embed submission.schema.json
	schemaBytes []byte
)

// CSV returns the bytes of the list in use, as committed (a copy): what is
// published at CSVPath.
func CSV() []byte {
	if standIns.Load() {
		return bytes.Clone(standInBytes)
	}
	return bytes.Clone(realBytes)
}

// RealCSV and StandInCSV return the bytes of each list (copies).
func RealCSV() []byte    { return bytes.Clone(realBytes) }
func StandInCSV() []byte { return bytes.Clone(standInBytes) }

// standIns is set once at a process's start: the fixture stand-ins play
// the test set.
var standIns atomic.Bool

// UseFixtureStandIns makes the fixture stand-in set the test set of this
// process. Fixture mode calls it at start (a run over the fixture world
// has no real store to shop).
func UseFixtureStandIns() { standIns.Store(true) }

// UsePublished makes the test set the list a published tree carries (the
// bytes at CSVPath), so a server answers over the list it published. Nil
// (nothing published yet) keeps the list in use; a file that is neither
// list is an error and keeps it too.
func UsePublished(published []byte) error {
	switch {
	case published == nil:
	case bytes.Equal(published, realBytes):
		standIns.Store(false)
	case bytes.Equal(published, standInBytes):
		standIns.Store(true)
	default:
		return fmt.Errorf("svc100: the published %s is neither the real SVC-100 v1 nor the fixture stand-ins of this build", CSVPath)
	}
	return nil
}

// Schema returns the bytes of submission.schema.json as committed (a copy).
func Schema() []byte { return bytes.Clone(schemaBytes) }

// Store is one store of the test set.
type Store struct {
	ID       string `json:"id"`
	Host     string `json:"host"`
	Name     string `json:"name"`
	Category string `json:"category"`
	// The real list's curation columns (empty for the stand-ins): the
	// platform where a public page names it, the page showing the store
	// and the one naming the platform, and whether the source was seen in
	// a stored copy ("stored-copy") or not ("unverified").
	Platform       string `json:"-"`
	Source         string `json:"-"`
	PlatformSource string `json:"-"`
	Checked        string `json:"-"`
}

// Header is the column row every test-set list starts with; the real list
// adds CurationHeader after it.
var Header = []string{"id", "host", "name", "category"}

// CurationHeader are the real list's further columns.
var CurationHeader = []string{"platform", "source", "platform_source", "checked"}

// IDPattern is the form of a store id.
var IDPattern = regexp.MustCompile(`^svc100-v1-[0-9]{3}$`)

// ID returns the id of the n-th store (1-based): svc100-v1-NNN.
func ID(n int) string { return fmt.Sprintf("svc100-v1-%03d", n) }

type set struct {
	stores []Store
	byID   map[string]int
	byHost map[string]int
}

var (
	loadedReal    = sync.OnceValues(func() (*set, error) { return parse(realBytes) })
	loadedStandIn = sync.OnceValues(func() (*set, error) { return parse(standInBytes) })
)

// Stores returns the 100 stores of the list in use, in id order. The embedded files are checked
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

// FixtureStandIn reports whether the list in use is the fixture world's
// stand-in for SVC-100 v1: every host on the reserved .test domain (RFC
// 2606), so synthetic stores, not real ones. Every leaderboard answer over
// such a set must say so.
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
	load, name := loadedReal, "svc-100.csv"
	if standIns.Load() {
		load, name = loadedStandIn, "fixture-stand-ins.csv"
	}
	s, err := load()
	if err != nil {
		panic("svc100: embedded " + name + ": " + err.Error())
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
	full := append(append([]string(nil), Header...), CurationHeader...)
	if len(recs) == 0 || (strings.Join(recs[0], ",") != strings.Join(Header, ",") && strings.Join(recs[0], ",") != strings.Join(full, ",")) {
		return nil, fmt.Errorf("parse svc-100.csv: header must be %s, or %s", strings.Join(Header, ","), strings.Join(full, ","))
	}
	if len(recs)-1 != Size {
		return nil, fmt.Errorf("parse svc-100.csv: %d stores, want %d", len(recs)-1, Size)
	}
	s := &set{byID: map[string]int{}, byHost: map[string]int{}}
	for i, rec := range recs[1:] {
		st := Store{ID: rec[0], Host: rec[1], Name: rec[2], Category: rec[3]}
		if len(rec) == len(full) {
			st.Platform, st.Source, st.PlatformSource, st.Checked = rec[4], rec[5], rec[6], rec[7]
		}
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

// Encode writes stores as a stand-in list (id,host,name,category): RFC 4180 with CRLF line ends, like
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
