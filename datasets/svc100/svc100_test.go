package svc100

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"svc/fixtures"
)

var update = flag.Bool("update", false, "rewrite fixture-stand-ins.csv from the fixture world")

// fromFixtureWorld applies the selection rule of the package doc.
func fromFixtureWorld() []Store {
	w := fixtures.Generate(1, fixtures.DefaultStores)
	var cand []fixtures.Store
	for _, st := range w.Stores {
		if st.Source == fixtures.SourceSeed && st.Platform != "none" {
			cand = append(cand, st)
		}
	}
	out := make([]Store, 0, Size)
	for k := range Size {
		st := cand[k*len(cand)/Size]
		out = append(out, Store{ID: ID(k + 1), Host: st.Host, Name: st.Name, Category: st.Category})
	}
	return out
}

// TestStandInsFromFixtureWorld is the generator of fixture-stand-ins.csv: go test
// ./datasets/svc100 -update rewrites it; without -update it fails when the
// committed file and the rule disagree.
func TestStandInsFromFixtureWorld(t *testing.T) {
	want, err := Encode(fromFixtureWorld())
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("fixture-stand-ins.csv", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(standInBytes, want) {
		t.Errorf("fixture-stand-ins.csv drifted from the fixture world; run go test ./datasets/svc100 -update (-committed +rule):\n%s",
			cmp.Diff(string(standInBytes), string(want)))
	}
}

// useStandIns plays the test set with the fixture stand-ins for one test.
func useStandIns(t *testing.T) {
	t.Helper()
	UseFixtureStandIns()
	t.Cleanup(func() { standIns.Store(false) })
}

func TestEmbeddedSet(t *testing.T) {
	useStandIns(t)
	stores := Stores()
	if len(stores) != Size {
		t.Fatalf("%d stores, want %d", len(stores), Size)
	}
	w := fixtures.Generate(1, fixtures.DefaultStores)
	kinds := map[string]int{}
	for i, st := range stores {
		if st.ID != ID(i+1) || !IDPattern.MatchString(st.ID) {
			t.Errorf("store %d has id %s", i+1, st.ID)
		}
		if got, ok := ByID(st.ID); !ok || got != st {
			t.Errorf("ByID(%s) = %v, %v", st.ID, got, ok)
		}
		if got, ok := ByHost(st.Host); !ok || got != st {
			t.Errorf("ByHost(%s) = %v, %v", st.Host, got, ok)
		}
		fs, ok := w.Lookup(st.Host)
		if !ok {
			t.Fatalf("%s is not a fixture store", st.Host)
		}
		switch {
		case fs.Expect.BlockStatus.Blocked != nil && *fs.Expect.BlockStatus.Blocked:
			kinds["blocked"]++
		case fs.Expect.Platform == nil:
			kinds["down"]++
		case fs.Expect.CartLink != nil && *fs.Expect.CartLink:
			kinds["cart"]++
		default:
			kinds["no cart"]++
		}
	}
	// The set must exercise every outcome class of the agent-path runs.
	for _, k := range []string{"blocked", "down", "cart", "no cart"} {
		if kinds[k] == 0 {
			t.Errorf("the test set has no %q store: %v", k, kinds)
		}
	}
	t.Logf("test set: %v", kinds)
	if _, ok := ByID("svc100-v1-101"); ok {
		t.Error("ByID found a 101st store")
	}
}

func TestParseRefuses(t *testing.T) {
	useStandIns(t)
	good := string(standInBytes)
	first := Stores()[0]
	for name, in := range map[string]string{
		"empty":        "",
		"bad header":   strings.Replace(good, "id,host,name,category", "id,host", 1),
		"few rows":     "id,host,name,category\r\nsvc100-v1-001,a.test,A,apparel\r\n",
		"wrong id":     strings.Replace(good, "svc100-v1-002", "svc100-v1-102", 1),
		"upper host":   strings.Replace(good, first.Host, strings.ToUpper(first.Host), 1),
		"host twice":   strings.Replace(good, Stores()[1].Host, first.Host, 1),
		"missing list": "id,host,name,category\r\n",
	} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("%s: Parse accepted it", name)
		}
	}
	for name, b := range map[string][]byte{"svc-100.csv": realBytes, "fixture-stand-ins.csv": standInBytes} {
		if _, err := Parse(b); err != nil {
			t.Errorf("Parse refused the committed %s: %v", name, err)
		}
	}
}

func TestSchemaIsJSON(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(schemaBytes, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema = %v", doc["$schema"])
	}
	props := doc["properties"].(map[string]any)
	if c := props["spec"].(map[string]any)["const"]; c != Spec {
		t.Errorf("spec const = %v, want %s", c, Spec)
	}
	if c := props["test_set"].(map[string]any)["const"]; c != TestSet {
		t.Errorf("test_set const = %v, want %s", c, TestSet)
	}
}

// TestFixtureStandIn: the committed stand-in set, made from the fixture
// world, is the stand-in; one real host makes a set real.
func TestFixtureStandIn(t *testing.T) {
	useStandIns(t)
	if !FixtureStandIn() {
		t.Error("the committed fixture-world set is not reported as the stand-in")
	}
	stores := Stores()
	if !standIn(stores) {
		t.Error("standIn(Stores()) = false")
	}
	stores[41].Host = "shop.example.com"
	if standIn(stores) {
		t.Error("a set with a real host is reported as the fixture stand-in")
	}
	if standIn(nil) {
		t.Error("an empty set is reported as the fixture stand-in")
	}
}

// TestRealByDefault: a process plays the real list unless fixture mode or
// its published tree says otherwise, and a server follows what it
// published.
func TestRealByDefault(t *testing.T) {
	t.Cleanup(func() { standIns.Store(false) })
	if FixtureStandIn() || !bytes.Equal(CSV(), realBytes) {
		t.Fatal("the default test set is not the real list")
	}
	st, ok := ByID("svc100-v1-001")
	if !ok || strings.HasSuffix(st.Host, ".test") || st.Source == "" || st.Checked == "" {
		t.Errorf("ByID(svc100-v1-001) = %+v, %v; want a real store with its source", st, ok)
	}
	if err := UsePublished(StandInCSV()); err != nil || !FixtureStandIn() || !bytes.Equal(CSV(), standInBytes) {
		t.Errorf("UsePublished(stand-ins): err %v, stand-in %v", err, FixtureStandIn())
	}
	if _, ok := ByHost(st.Host); ok {
		t.Errorf("the stand-in set answers for the real host %s", st.Host)
	}
	if err := UsePublished(nil); err != nil || !FixtureStandIn() {
		t.Errorf("UsePublished(nil) changed the list in use: err %v, stand-in %v", err, FixtureStandIn())
	}
	other := bytes.Replace(RealCSV(), []byte(st.Host), []byte("shop.example.com"), 1)
	if err := UsePublished(other); err == nil {
		t.Error("UsePublished accepted a list that is neither of this build's")
	}
	if err := UsePublished(RealCSV()); err != nil || FixtureStandIn() {
		t.Errorf("UsePublished(real): err %v, stand-in %v", err, FixtureStandIn())
	}
}
