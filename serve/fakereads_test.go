package serve

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/serve/readlayer"
	"svc/serve/readlayer/fakesource"
)

// These handler tests read an in-memory snapshot (fakesource): no Parquet
// file and no DuckDB, so they run under -short.

// newFakeServer serves src as the loaded snapshot.
func newFakeServer(t *testing.T, src readlayer.Source) *testServer {
	t.Helper()
	ts := newTestServer(t, Config{})
	ts.snap.Store(&snapshot{version: src.Version(), read: src})
	return ts
}

func fakeRow(t *testing.T, host string, vals map[int]any) *readlayer.Row {
	t.Helper()
	r := readlayer.NewRow(host)
	for f, v := range vals {
		if err := r.Set(f, v); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// wantUnavailable drops the tables of read from src: path must answer 503.
func wantUnavailable(t *testing.T, ts *testServer, src *fakesource.Source, read readlayer.Read, path string) {
	t.Helper()
	src.Missing[read] = true
	if resp, body := ts.get(t, path); resp.StatusCode != 503 {
		t.Errorf("%s without its tables: %d %s", path, resp.StatusCode, body)
	}
}

func ptr[T any](v T) *T { return &v }

func TestFakeSourceProductData(t *testing.T) {
	checked := time.Date(2026, 11, 16, 8, 0, 0, 0, time.UTC)
	src := fakesource.New("2026-11-16")
	src.AddRow(fakeRow(t, "shop.test", map[int]any{readlayer.FSource: "seed", readlayer.FPolReturns: true,
		readlayer.FCheckedAt: checked.Add(-time.Hour)}))
	src.SetProduct("shop.test", &readlayer.Product{ProductURL: ptr("https://shop.test/p/1"), Source: ptr("jsonld"),
		ProductData: ptr(`{"name":"Shoe"}`), VendorReadiness: ptr("not json"), CheckedAt: &checked})
	src.AddRow(fakeRow(t, "gone.test", map[int]any{readlayer.FSource: "opted-out"}))
	ts := newFakeServer(t, src)

	var a ProductDataAnswer
	resp, body := ts.getJSON(t, "/api/agent-checkout/product-data?host=Shop.test", &a)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	want := ProductDataAnswer{Host: "shop.test", Known: true, ProductData: json.RawMessage(`{"name":"Shoe"}`),
		Source: ptr("jsonld"), VendorReadiness: json.RawMessage("null"), Policies: &CardPolicies{Returns: ptr(true)},
		CheckedAt: &checked, ProductURL: ptr("https://shop.test/p/1"), Note: productDataNote, Snapshot: "2026-11-16",
		License: a.License}
	if diff := cmp.Diff(want, a); diff != "" || a.License == "" {
		t.Errorf("product data (-want +got):\n%s", diff)
	}
	ts.getJSON(t, "/api/agent-checkout/product-data?host=gone.test", &a)
	if a.Note != "This store opted out of the directory: its saved data is not shown." || string(a.ProductData) != "null" {
		t.Errorf("opted out: %+v", a)
	}
	ts.getJSON(t, "/api/agent-checkout/product-data?host=new.test", &a)
	if a.ScanURL != "/api/agent-checkout?url=new.test" {
		t.Errorf("unknown host: %+v", a)
	}
	wantUnavailable(t, ts, src, readlayer.ReadProductData, "/api/agent-checkout/product-data?host=shop.test")
}

func TestFakeSourceAgentFacts(t *testing.T) {
	src := fakesource.New("v1")
	src.AddRow(fakeRow(t, "a.test", map[int]any{readlayer.FSource: "seed", readlayer.FCategory: "footwear"}))
	src.AddRow(fakeRow(t, "b.test", map[int]any{readlayer.FSource: "seed", readlayer.FCategory: "footwear"}))
	src.SetFacts("a.test", []readlayer.Fact{
		{Host: "a.test", Fact: "readiness_score", Value: ptr("72")},
		{Host: "a.test", Fact: "price_clarity", Value: ptr("{broken"), Note: ptr("no price")},
	})
	src.SetFacts("b.test", []readlayer.Fact{{Host: "b.test", Fact: "price_clarity", Value: ptr("true")}})
	ts := newFakeServer(t, src)

	var a AgentFactsAnswer
	if resp, body := ts.getJSON(t, "/api/agent-facts?host=a.test", &a); resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	// The canonical decision order; a value that is not JSON is null.
	got := []string{}
	for _, f := range a.Facts {
		got = append(got, f.Fact+"="+string(f.Value))
	}
	if diff := cmp.Diff([]string{"price_clarity=null", "readiness_score=72"}, got); diff != "" || a.Count != 2 || a.Snapshot != "v1" {
		t.Errorf("host facts (-want +got):\n%s\n%+v", diff, a)
	}
	ts.getJSON(t, "/api/agent-facts?host=a.test&slug=readiness_score", &a)
	if a.Count != 1 || a.Facts[0].Fact != "readiness_score" {
		t.Errorf("slug: %+v", a)
	}
	ts.getJSON(t, "/api/agent-facts?category=footwear&slug=price_clarity", &a)
	got = got[:0]
	for _, f := range a.Facts {
		got = append(got, f.Host+":"+string(f.Value))
	}
	if diff := cmp.Diff([]string{"a.test:null", "b.test:true"}, got); diff != "" {
		t.Errorf("category facts (-want +got):\n%s", diff)
	}
	wantUnavailable(t, ts, src, readlayer.ReadHostFacts, "/api/agent-facts?host=a.test")
}

func TestFakeSourceDirectory(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	src := fakesource.New("v1")
	src.Entries = []readlayer.DirectoryEntry{
		{Name: ptr("Shoes"), Host: "shoes.test", Category: ptr("footwear"), Verdict: ptr("agents_can_buy"), CheckedAt: now},
		{Name: ptr("Old"), Host: "old.test", Category: ptr("footwear"), CheckedAt: now.Add(-60 * 24 * time.Hour)},
		{Host: "own.test", Category: ptr("footwear"), CheckedAt: now, SvcURL: ptr("https://elsewhere.example/own")},
	}
	ts := newFakeServer(t, src)
	var a DirectoryAnswer
	if resp, body := ts.getJSON(t, "/api/agent-checkout/stores?category=footwear&limit=1", &a); resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if a.Total != 2 || len(a.Stores) != 1 || a.Stores[0].Host != "own.test" || a.Stores[0].SvcURL != "https://elsewhere.example/own" {
		t.Errorf("directory: %+v", a)
	}
	ts.getJSON(t, "/api/agent-checkout/stores?category=footwear", &a)
	if len(a.Stores) != 2 || a.Stores[1].SvcURL != ts.storeLink("shoes.test") || a.Snapshot != "v1" {
		t.Errorf("directory: %+v", a)
	}
	wantUnavailable(t, ts, src, readlayer.ReadDirectory, "/api/agent-checkout/stores")
}

func TestFakeSourceStoreCard(t *testing.T) {
	src := fakesource.New("v1")
	src.AddRow(fakeRow(t, "shop.test", map[int]any{readlayer.FSource: "seed", readlayer.FName: "Shop",
		readlayer.FVerdict: "catalog_only", readlayer.FCheckedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}))
	ts := newFakeServer(t, src)
	var c StoreCard
	if resp, body := ts.getJSON(t, "/api/store?host=shop.test", &c); resp.StatusCode != 200 || !c.InDirectory ||
		c.Name == nil || *c.Name != "Shop" || c.Snapshot != "v1" {
		t.Errorf("store card: %d %s", resp.StatusCode, body)
	}
	if !ts.InDirectory("shop.test") || ts.InDirectory("other.test") {
		t.Error("InDirectory does not read the source")
	}
}
