package publish

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/datasets"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func newStore(t testing.TB) *DirStore {
	t.Helper()
	st, err := NewDirStore(filepath.Join(t.TempDir(), "public"))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// storeRows returns n store_answers rows whose values depend on seed, in
// an order that is not the key order.
func storeRows(n int, seed string) []datasets.Row {
	at := time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)
	rows := make([]datasets.Row, n)
	for i := range n {
		h := fmt.Sprintf("shop-%05d.test", (i*7919)%100_003)
		var score any
		if i%4 != 0 {
			score = int64((i*31 + len(seed)) % 101)
		}
		var buy any
		if i%3 != 0 {
			buy = i%2 == 0
		}
		row := datasets.Row{h, "Shop " + seed, "apparel", nil, "seed", buy, buy, nil, score,
			nil, buy, nil, false, nil, at.Add(time.Duration(i) * time.Second)}
		rows[i] = append(row, make(datasets.Row, len(datasets.StoreAnswers.Columns)-len(row))...)
	}
	return rows
}

func columns(t testing.TB, tb *datasets.Table, rows []datasets.Row) *datasets.Columns {
	t.Helper()
	c, err := datasets.FromRows(tb, rows)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// testSnapshot is a small but complete snapshot: two tables, api files,
// a frozen SVC-100 file and the weekly edition of the version's date.
func testSnapshot(t testing.TB, version string) *Snapshot {
	t.Helper()
	date := version[:10]
	stores := columns(t, datasets.Stores, []datasets.Row{
		{"b.test", "B", "beauty", "submitted", "US", nil, nil},
		{"a.test", "A", "apparel", "seed", nil, "svc100-v1-001", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)},
	})
	return &Snapshot{
		Version:       version,
		MethodVersion: "2026.05",
		BaseURL:       "https://svc.example",
		// store_answers last on purpose: Publish puts it first.
		Tables: []*datasets.Columns{stores, columns(t, datasets.StoreAnswers, storeRows(300, version))},
		Files: []File{
			{Path: "api/agent-checkout/adoption.json", Data: []byte(`{"asOf":"` + date + `","license":"CC-BY-4.0"}`)},
			{Path: "api/protocols.json", Data: []byte(`{"rows":[],"license":"CC-BY-4.0"}`)},
			{Path: "data/svc-100/v1/svc-100.csv", Data: []byte("id,host\r\nsvc100-v1-001,a.test\r\n"), Frozen: true},
		},
		Weekly: &Edition{Date: date, Body: []byte(`{"schema":"svc-weekly-agent-checkout/1","date":"` + date + `"}`)},
		Changelog: []ChangelogEntry{
			{MethodVersion: "2026.05", Date: "2026-05-01", Changes: []string{"First published method."}},
		},
	}
}

func mustPublish(t testing.TB, st Store, snap *Snapshot) *Result {
	t.Helper()
	res, err := Publish(context.Background(), st, snap)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func readFile(t testing.TB, st *DirStore, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(st.Root(), filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tree returns every file (and symlink target) under root by relative path.
func tree(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "symlink -> " + target
		case !d.IsDir():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPublishTree(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	snap := testSnapshot(t, "2026-05-04")
	res := mustPublish(t, st, snap)
	if !res.Created || !res.LatestMoved || res.Previous != "" {
		t.Errorf("result = created %v, latest moved %v, previous %q; want true, true, \"\"", res.Created, res.LatestMoved, res.Previous)
	}

	var names []string
	for name := range tree(t, st.Root()) {
		names = append(names, filepath.ToSlash(name))
	}
	want := []string{
		"api/ATTRIBUTION.txt",
		"api/agent-checkout/ATTRIBUTION.txt",
		"api/agent-checkout/adoption.json",
		"api/protocols.json",
		"api/weekly/ATTRIBUTION.txt",
		"api/weekly/agent-checkout.json",
		"api/weekly/agent-checkout/2026-05-04.json",
		"api/weekly/agent-checkout/ATTRIBUTION.txt",
		"data/2026-05-04/ATTRIBUTION.txt",
		"data/2026-05-04/datapackage.json",
		"data/2026-05-04/manifest.json",
		"data/2026-05-04/store_answers.csv",
		"data/2026-05-04/store_answers.parquet",
		"data/2026-05-04/stores.csv",
		"data/2026-05-04/stores.parquet",
		"data/latest",
		"data/svc-100/v1/ATTRIBUTION.txt",
		"data/svc-100/v1/svc-100.csv",
	}
	slices.Sort(names)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}

	// latest/ resolves to the version, and it verifies.
	if got := readFile(t, st, "data/latest/manifest.json"); !bytes.Equal(got, readFile(t, st, "data/2026-05-04/manifest.json")) {
		t.Error("data/latest/manifest.json is not the version's manifest")
	}
	m, err := Verify(ctx, st, "2026-05-04")
	if err != nil {
		t.Fatal(err)
	}
	if m.FirstFile != "store_answers" || m.Tables[0].Name != "store_answers" || m.Tables[1].Name != "stores" {
		t.Errorf("first file %q, tables %s, %s; want store_answers first", m.FirstFile, m.Tables[0].Name, m.Tables[1].Name)
	}
	if m.Tables[0].Rows != 300 || m.Tables[1].Rows != 2 {
		t.Errorf("row counts %d, %d; want 300, 2", m.Tables[0].Rows, m.Tables[1].Rows)
	}
	if got, want := m.Tables[0].Parquet.URL, "https://svc.example/data/2026-05-04/store_answers.parquet"; got != want {
		t.Errorf("parquet URL %q, want %q", got, want)
	}
	if got, want := m.Tables[0].CSV.LatestURL, "https://svc.example/data/latest/store_answers.csv"; got != want {
		t.Errorf("csv latest URL %q, want %q", got, want)
	}
	if m.License.ID != "CC-BY-4.0" {
		t.Errorf("licence %q", m.License.ID)
	}
	// The api files' recorded sha256 (the ETag) matches the served bytes.
	for _, f := range m.API {
		if got := sha256Hex(readFile(t, st, f.Path)); got != f.SHA256 {
			t.Errorf("%s: sha256 %s, manifest %s", f.Path, got, f.SHA256)
		}
	}
	if got := string(readFile(t, st, WeeklyLatest)); got != string(snap.Weekly.Body) {
		t.Errorf("weekly alias = %s", got)
	}

	// The tables read back, from both files.
	sa := datasets.StoreAnswers
	want2 := columns(t, sa, storeRows(300, "2026-05-04"))
	if err := want2.Sort(); err != nil {
		t.Fatal(err)
	}
	pq := readFile(t, st, "data/latest/store_answers.parquet")
	got, err := datasets.ReadParquet(bytes.NewReader(pq), int64(len(pq)), sa)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want2.Rows(), got.Rows()); diff != "" {
		t.Errorf("published parquet (-want +got):\n%s", diff)
	}
	got, err = datasets.ReadCSV(bytes.NewReader(readFile(t, st, "data/latest/store_answers.csv")), sa)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want2.Rows(), got.Rows()); diff != "" {
		t.Errorf("published csv (-want +got):\n%s", diff)
	}

	// datapackage.json describes both files of each table.
	var pkg struct {
		Licenses  []struct{ Name string }
		Resources []struct {
			Name, Path, Format, Hash string
			Schema                   struct {
				Fields []struct{ Name, Description string }
			}
		}
	}
	if err := json.Unmarshal(readFile(t, st, "data/2026-05-04/datapackage.json"), &pkg); err != nil {
		t.Fatal(err)
	}
	if len(pkg.Resources) != 4 || pkg.Resources[0].Name != "store_answers" || pkg.Resources[1].Format != "parquet" ||
		pkg.Resources[0].Hash != "sha256:"+m.Tables[0].CSV.SHA256 || len(pkg.Resources[0].Schema.Fields) != len(sa.Columns) ||
		pkg.Licenses[0].Name != "CC-BY-4.0" {
		t.Errorf("datapackage.json = %+v", pkg)
	}

	// The manifest's shape, as a golden file.
	golden := filepath.Join("testdata", "manifest.golden.json")
	manifest := readFile(t, st, "data/latest/manifest.json")
	if *update {
		if err := os.WriteFile(golden, manifest, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantManifest, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./publish -run TestPublishTree -update)", err)
	}
	if diff := cmp.Diff(string(wantManifest), string(manifest)); diff != "" {
		t.Errorf("manifest.json (-want +got):\n%s", diff)
	}
}

func TestByteIdentical(t *testing.T) {
	a, b := newStore(t), newStore(t)
	mustPublish(t, a, testSnapshot(t, "2026-05-04"))
	mustPublish(t, a, testSnapshot(t, "2026-05-11"))
	mustPublish(t, b, testSnapshot(t, "2026-05-04"))
	mustPublish(t, b, testSnapshot(t, "2026-05-11"))
	before := tree(t, a.Root())
	if diff := cmp.Diff(before, tree(t, b.Root())); diff != "" {
		t.Errorf("two runs over the same inputs differ (-a +b):\n%.3000s", diff)
	}

	// Re-publishing the latest version is a no-op.
	res := mustPublish(t, a, testSnapshot(t, "2026-05-11"))
	if res.Created || res.LatestMoved || len(res.Wrote) != 0 {
		t.Errorf("re-publish: created %v, latest moved %v, wrote %v; want a no-op", res.Created, res.LatestMoved, res.Wrote)
	}
	if diff := cmp.Diff(before, tree(t, a.Root())); diff != "" {
		t.Errorf("re-publish changed the tree (-before +after):\n%.3000s", diff)
	}
}

func TestWeeklyEditions(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	edition := func(date, body string) *Edition { return &Edition{Date: date, Body: []byte(body)} }
	steps := []struct {
		version string
		ed      *Edition
		wrote   bool   // the dated edition was written by this step
		alias   string // api/weekly/agent-checkout.json after the step
	}{
		{"2026-05-04", edition("2026-05-04", `{"a":1}`), true, `{"a":1}`},
		{"2026-05-05", edition("2026-05-04", `{"a":1}`), false, `{"a":1}`}, // same bytes: no-op
		{"2026-05-11", edition("2026-05-11", `{"b":2}`), true, `{"b":2}`},
		{"2026-05-12", edition("2026-04-27", `{"c":3}`), true, `{"b":2}`}, // older edition: alias stays
		{"2026-05-13", nil, false, `{"b":2}`},
	}
	for _, s := range steps {
		snap := testSnapshot(t, s.version)
		snap.Weekly = s.ed
		res := mustPublish(t, st, snap)
		if s.ed != nil {
			name := WeeklyDir + "/" + s.ed.Date + ".json"
			wrote := false
			for _, w := range res.Wrote {
				wrote = wrote || w == name
			}
			if wrote != s.wrote {
				t.Errorf("%s: wrote %s = %v, want %v", s.version, name, wrote, s.wrote)
			}
			if got := string(readFile(t, st, name)); got != string(s.ed.Body) {
				t.Errorf("%s: %s = %s", s.version, name, got)
			}
		}
		if got := string(readFile(t, st, WeeklyLatest)); got != s.alias {
			t.Errorf("%s: weekly alias = %s, want %s", s.version, got, s.alias)
		}
	}
	// An existing edition is never rewritten.
	snap := testSnapshot(t, "2026-05-18")
	snap.Weekly = edition("2026-05-11", `{"b":"changed"}`)
	if _, err := Publish(ctx, st, snap); !errors.Is(err, ErrFrozen) {
		t.Errorf("rewriting edition 2026-05-11: %v, want ErrFrozen", err)
	}
	if got := string(readFile(t, st, WeeklyDir+"/2026-05-11.json")); got != `{"b":2}` {
		t.Errorf("edition 2026-05-11 = %s after a refused rewrite", got)
	}
}

func TestInvalidSnapshots(t *testing.T) {
	tests := []struct {
		name string
		edit func(t *testing.T, s *Snapshot)
	}{
		{"bad version", func(t *testing.T, s *Snapshot) { s.Version = "2026-5-4" }},
		{"impossible date", func(t *testing.T, s *Snapshot) { s.Version = "2026-02-30" }},
		{"bad suffix", func(t *testing.T, s *Snapshot) { s.Version = "2026-05-04.0" }},
		{"no method version", func(t *testing.T, s *Snapshot) { s.MethodVersion = "" }},
		{"bad base URL", func(t *testing.T, s *Snapshot) { s.BaseURL = "svc.example" }},
		{"no tables", func(t *testing.T, s *Snapshot) { s.Tables = nil }},
		{"table twice", func(t *testing.T, s *Snapshot) { s.Tables = append(s.Tables, s.Tables[0]) }},
		{"duplicate keys", func(t *testing.T, s *Snapshot) {
			s.Tables[0] = columns(t, datasets.Stores, []datasets.Row{
				{"a.test", nil, nil, "seed", nil, nil, nil}, {"a.test", nil, nil, "seed", nil, nil, nil}})
		}},
		{"path into a version", func(t *testing.T, s *Snapshot) { s.Files[0].Path = "data/2026-05-04/x.json" }},
		{"path into latest", func(t *testing.T, s *Snapshot) { s.Files[0].Path = "data/latest/x.json" }},
		{"path up", func(t *testing.T, s *Snapshot) { s.Files[0].Path = "../x.json" }},
		{"absolute path", func(t *testing.T, s *Snapshot) { s.Files[0].Path = "/x.json" }},
		{"hidden path", func(t *testing.T, s *Snapshot) { s.Files[0].Path = "api/.tmp-x.json" }},
		{"weekly alias as a file", func(t *testing.T, s *Snapshot) { s.Files[0].Path = WeeklyLatest }},
		{"file twice", func(t *testing.T, s *Snapshot) { s.Files[1].Path = s.Files[0].Path }},
		{"invalid JSON", func(t *testing.T, s *Snapshot) { s.Files[0].Data = []byte(`{"a":`) }},
		{"bad edition date", func(t *testing.T, s *Snapshot) { s.Weekly.Date = "2026-W19" }},
		{"invalid edition JSON", func(t *testing.T, s *Snapshot) { s.Weekly.Body = []byte("nope") }},
		{"bad changelog date", func(t *testing.T, s *Snapshot) { s.Changelog[0].Date = "May 2026" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(t)
			s := testSnapshot(t, "2026-05-04")
			tc.edit(t, s)
			_, err := Publish(context.Background(), st, s)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Publish() = %v, want ErrInvalid", err)
			}
			if got := tree(t, st.Root()); len(got) != 0 {
				t.Errorf("an invalid snapshot wrote %d files", len(got))
			}
		})
	}
	// .well-known is the one dot folder that may be published.
	st := newStore(t)
	s := testSnapshot(t, "2026-05-04")
	s.Files = append(s.Files, File{Path: ".well-known/mcp.json", Data: []byte(`{}`)}, File{Path: "openapi.json", Data: []byte(`{}`)})
	mustPublish(t, st, s)
	readFile(t, st, ".well-known/ATTRIBUTION.txt")
	readFile(t, st, "ATTRIBUTION.txt")
}
