package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/datasets"
	"svc/fixtures"
	"svc/pipeline/check"
	"svc/pipeline/detect"
	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
)

// TestCrawlWorldToChecks crawls the whole fixture world with the real
// engine, writes checks.parquet and reads it back: one row per store, and
// the columns say what the fixture world knows to be true.
func TestCrawlWorldToChecks(t *testing.T) {
	world := fixtures.Generate(1, fixtures.DefaultStores)
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{Slow: 8 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	schemaDir := fixtures.UCPSchemaDir()
	v, err := ucp.New(context.Background(), ucp.Config{SchemaDir: schemaDir, Client: client, CacheDir: t.TempDir(), Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	var in []Store
	for _, s := range world.Stores {
		in = append(in, Store{Host: s.Host, Name: s.Name, Category: s.Category, Source: s.Source})
	}
	dir := t.TempDir()
	st, err := Crawl(context.Background(), CrawlOptions{Stores: in, Dir: dir, Concurrency: 16,
		Checker: check.New(check.Options{Client: client, UCP: v})})
	if err != nil {
		t.Fatal(err)
	}
	if st.Failed != 0 {
		t.Errorf("%d stores failed", st.Failed)
	}
	n, err := WriteChecks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(world.Stores) {
		t.Fatalf("wrote %d rows, want %d", n, len(world.Stores))
	}
	f, err := os.Open(filepath.Join(dir, ChecksFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	cols, err := datasets.ReadParquet(f, fi.Size(), datasets.Checks)
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int { return datasets.Checks.ColumnIndex(name) }
	for i := range cols.Len() {
		row := cols.Row(i)
		host := row[col("host")].(string)
		s, ok := world.Lookup(host)
		if !ok {
			t.Fatalf("row for unknown host %s", host)
		}
		e := s.Expect
		checkNullBool(t, host, "cart_link", e.CartLink, row[col("cart_link")])
		checkNullBool(t, host, "catalog_answered", e.CatalogAnswered, row[col("catalog_answered")])
		checkNullBool(t, host, "webmcp", e.WebMCP, row[col("webmcp")])
		checkNullBool(t, host, "blocked", e.BlockStatus.Blocked, row[col("blocked")])
		// The fix depends on the UCP verdict, which needs the schema.
		if got := row[col("fix_code")]; schemaDir != "" && got != e.Fix.Code {
			t.Errorf("%s fix_code = %v, want %s", host, got, e.Fix.Code)
		}
		if got := row[col("robots_chatgpt_user")]; got != e.Robots["ChatGPT-User"] {
			t.Errorf("%s robots_chatgpt_user = %v, want %s", host, got, e.Robots["ChatGPT-User"])
		}
		if got := row[col("source")]; got != s.Source {
			t.Errorf("%s source = %v, want %s", host, got, s.Source)
		}
		if row[col("result_json")] == nil {
			t.Errorf("%s has no result_json", host)
		}
	}
	// Re-writing the same journal gives the same bytes.
	first, _ := os.ReadFile(filepath.Join(dir, ChecksFile))
	if _, err := WriteChecks(dir); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(filepath.Join(dir, ChecksFile))
	if string(first) != string(second) {
		t.Error("checks.parquet differs between two writes of the same journal")
	}
}

func checkNullBool(t *testing.T, host, name string, want *bool, got any) {
	t.Helper()
	switch {
	case want == nil && got != nil:
		t.Errorf("%s %s = %v, want null", host, name, got)
	case want != nil && got != *want:
		t.Errorf("%s %s = %v, want %v", host, name, got, *want)
	}
}

// TestRobotsAgentsMatchDetector keeps the checks table's robots columns in
// step with the agents the detector reports.
func TestRobotsAgentsMatchDetector(t *testing.T) {
	var tokens []string
	for _, a := range detect.AIAgents() {
		tokens = append(tokens, a.Token)
	}
	if diff := cmp.Diff(tokens, datasets.RobotsAgents); diff != "" {
		t.Errorf("robots columns differ from the detector's agents (-detector +columns):\n%s", diff)
	}
}
