package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/fixtures"
)

// lowerQuota sets a quota's daily maximum for one test.
func lowerQuota(t *testing.T, q *quota, max int) {
	t.Helper()
	saved := q.Max
	q.Max = max
	t.Cleanup(func() { q.Max = saved })
}

// savedReadErrors provokes the statuses every saved-data read shares: 400
// for a bad host, 429 over the daily read limit (a free read, spec 8, has
// none), 503 without a snapshot.
func savedReadErrors(t *testing.T, f *readFixture, path string, free ...bool) {
	t.Helper()
	ts := f.newServer(t, Config{})
	for _, bad := range []string{"", "ftp://shop.test/", "http://10.1.2.3/", "localhost", "bad_host!"} {
		resp, body := ts.get(t, path+bad)
		if resp.StatusCode != 400 || errorCode(t, body) != "invalid_request" {
			t.Errorf("%s%q: %d %s, want 400", path, bad, resp.StatusCode, body)
		}
	}
	lowerQuota(t, &quotaSavedReads, 3)
	host := f.world.Stores[0].Host
	for i := 0; i < 3; i++ {
		if resp, body := ts.get(t, path+host); resp.StatusCode != 200 {
			t.Fatalf("%s read %d: %d %s", path, i+1, resp.StatusCode, body)
		}
	}
	resp, body := ts.get(t, path+host)
	if len(free) > 0 && free[0] {
		if resp.StatusCode != 200 {
			t.Errorf("%s is a free read, yet past the saved-read limit: %d %s", path, resp.StatusCode, body)
		}
	} else if resp.StatusCode != 429 || errorCode(t, body) != "rate_limited" || resp.Header.Get("Retry-After") == "" {
		t.Errorf("%s over the daily read limit: %d %s", path, resp.StatusCode, body)
	}
	empty := newTestServer(t, Config{})
	if resp, body := empty.get(t, path+host); resp.StatusCode != 503 || errorCode(t, body) != "unavailable" {
		t.Errorf("%s without a snapshot: %d %s", path, resp.StatusCode, body)
	}
}

func TestStoreCard(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	for _, st := range []*fixtures.Store{
		f.store(t, "returns a checkout link", func(s *fixtures.Store) bool { return isTrue(s.Expect.CartLink) && s.Source == "seed" }),
		f.store(t, "is blocked", func(s *fixtures.Store) bool { return isTrue(s.Expect.BlockStatus.Blocked) }),
		f.store(t, "runs WooCommerce", func(s *fixtures.Store) bool { return s.Platform == "woocommerce" && s.Source == "seed" }),
	} {
		var c StoreCard
		resp, body := ts.getJSON(t, "/api/store?host="+st.Host, &c)
		if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, max-age=300" ||
			resp.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("%s: %d %v", st.Host, resp.StatusCode, resp.Header)
		}
		hasKeys(t, "store card", body, "host", "known", "name", "category", "platform", "verdict", "score", "checks",
			"robots", "brandClaim", "links", "checkedAt", "stale", "agents_can_buy", "buy", "snapshot", "license", "note")
		e := st.Expect
		if !c.Known || !c.InDirectory || c.Host != st.Host || *c.Name != st.Name || *c.Category != st.Category ||
			c.Snapshot != f.version || c.BrandClaim != nil || c.LiveCheck != nil ||
			c.Links.Badge == nil || *c.Links.Badge != "/stores/"+st.Host+"/badge.svg" ||
			c.Links.Claim == nil || *c.Links.Claim != "/stores/"+st.Host+"/#claim" {
			t.Errorf("%s: identity %s", st.Host, body)
		}
		if diff := cmp.Diff(e.Platform, c.Platform); diff != "" {
			t.Errorf("%s platform (-want +got):\n%s", st.Host, diff)
		}
		ch := c.Checks
		for name, pair := range map[string][2]*bool{
			"catalogAnswered": {e.CatalogAnswered, ch.CatalogAnswered}, "productFound": {e.ProductFound, ch.ProductFound},
			"cartLink": {e.CartLink, ch.CartLink}, "webmcp": {e.WebMCP, ch.WebMCP},
			"storefrontMcp": {e.StorefrontMCP, ch.StorefrontMCP.Detected}, "blocked": {e.BlockStatus.Blocked, ch.BlockStatus.Blocked},
		} {
			if diff := cmp.Diff(pair[0], pair[1]); diff != "" {
				t.Errorf("%s %s (-want +got):\n%s", st.Host, name, diff)
			}
		}
		want := e.Fix.Code
		if fixtures.UCPSchemaDir() == "" {
			// Without the schema a profile that breaks no rule is
			// unvalidated, and the fix follows.
			want = st.ExpectWithoutUCPSchemas().Fix.Code
		}
		if ch.Fix.Code == nil || *ch.Fix.Code != want {
			t.Errorf("%s fix %v, want %s", st.Host, ch.Fix.Code, want)
		}
		robots := map[string]string{}
		for a, v := range c.Robots.Agents {
			if v != nil {
				robots[a] = *v
			}
		}
		if diff := cmp.Diff(e.Robots, robots); diff != "" {
			t.Errorf("%s robots (-want +got):\n%s", st.Host, diff)
		}
		if e.Policies != nil {
			got := CardPolicies{Returns: ptrTo(e.Policies.Returns), Shipping: ptrTo(e.Policies.Shipping), Privacy: ptrTo(e.Policies.Privacy), Terms: ptrTo(e.Policies.Terms)}
			if diff := cmp.Diff(got, ch.Policies); diff != "" {
				t.Errorf("%s policies (-want +got):\n%s", st.Host, diff)
			}
		}
		if c.Links.Homepage != "https://"+st.Host+"/" || c.Links.LiveCheck != "/api/agent-checkout?url="+st.Host ||
			c.Links.SvcURL != "/stores/"+st.Host+"/" || c.Links.ProductData != "/api/agent-checkout/product-data?host="+st.Host {
			t.Errorf("%s links %+v", st.Host, c.Links)
		}
		if strings.Contains(body, "checkout_url") || strings.Contains(body, "/checkouts/") {
			t.Errorf("%s: the card carries a checkout URL", st.Host)
		}
	}
	// A host with no saved row: 200, known false, a link that runs a check.
	var c StoreCard
	resp, body := ts.getJSON(t, "/api/store?host=nowhere.test", &c)
	if resp.StatusCode != 200 || c.Known || c.InDirectory || c.Checks != nil || c.Links.LiveCheck != "/api/agent-checkout?url=nowhere.test" || !c.Stale ||
		c.Links.Badge != nil || c.Links.Claim != nil {
		t.Errorf("unknown host: %d %s", resp.StatusCode, body)
	}
	opted := f.store(t, "opted out", func(s *fixtures.Store) bool { return s.Source == fixtures.SourceOptedOut })
	if _, body := ts.getJSON(t, "/api/store?host="+opted.Host, &c); c.Known || c.Checks != nil || c.Name != nil {
		t.Errorf("opted-out store shows its checks: %s", body)
	}
	savedReadErrors(t, f, "/api/store?host=", true)
}

func TestProductData(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	st := f.store(t, "has complete Product JSON-LD", func(s *fixtures.Store) bool {
		pd := s.Expect.ProductData
		return s.Source == "seed" && pd != nil && pd.Source != nil && *pd.Source == fixtures.ProductDataJSONLD &&
			pd.Name && pd.Price && pd.Currency && pd.Availability && pd.GTINOrSKU && pd.Image
	})
	var ans ProductDataAnswer
	resp, body := ts.getJSON(t, "/api/agent-checkout/product-data?host="+st.Host, &ans)
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, max-age=300" {
		t.Fatalf("product data: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	hasKeys(t, "product data", body, "productData", "vendorReadiness", "policies", "checkedAt", "productUrl", "note")
	var pd struct {
		Name, Price, Currency, Availability, Image *string
		GTIN                                       *string `json:"gtin"`
		SKU                                        *string `json:"sku"`
		Complete                                   bool
	}
	if err := json.Unmarshal(ans.ProductData, &pd); err != nil {
		t.Fatal(err)
	}
	if pd.Name == nil || pd.Price == nil || pd.Currency == nil || pd.Availability == nil || pd.Image == nil ||
		(pd.GTIN == nil && pd.SKU == nil) || !pd.Complete {
		t.Errorf("productData %s", ans.ProductData)
	}
	var vr struct {
		Status  string
		Missing []string
		Note    string
	}
	if err := json.Unmarshal(ans.VendorReadiness, &vr); err != nil || vr.Status != "ready" || len(vr.Missing) != 0 || !strings.Contains(vr.Note, "not vendor approval") {
		t.Errorf("vendorReadiness %s", ans.VendorReadiness)
	}
	if !ans.Known || ans.Source == nil || *ans.Source != "jsonld" || ans.ProductURL == nil || !strings.HasPrefix(*ans.ProductURL, "https://"+st.Host+"/") ||
		ans.CheckedAt == nil || ans.Policies == nil || !isTrue(ans.Policies.Returns) ||
		!strings.Contains(ans.Note, "not vendor approval") || !strings.Contains(ans.Note, "no request was made to the store") {
		t.Errorf("product data: %s", body)
	}
	// Every store's product data is its own.
	for _, s := range f.world.Stores {
		a := ProductDataAnswer{}
		ts.getJSON(t, "/api/agent-checkout/product-data?host="+s.Host, &a)
		if a.ProductURL != nil && !strings.HasPrefix(*a.ProductURL, "https://"+s.Host+"/") && !strings.HasPrefix(*a.ProductURL, "https://www."+s.Host+"/") {
			t.Errorf("%s: product page %s", s.Host, *a.ProductURL)
		}
		if s.Source != fixtures.SourceOptedOut && s.Expect.ProductData != nil && (a.Source == nil) != (s.Expect.ProductData.Source == nil) {
			t.Errorf("%s: source %v, want %v", s.Host, a.Source, s.Expect.ProductData.Source)
		}
	}
	// Unknown host: known false, nothing measured, a link to scan.
	ans = ProductDataAnswer{}
	resp, body = ts.getJSON(t, "/api/agent-checkout/product-data?host=nowhere.test", &ans)
	if resp.StatusCode != 200 || ans.Known || string(ans.ProductData) != "null" || string(ans.VendorReadiness) != "null" ||
		ans.Policies != nil || ans.ScanURL == "" {
		t.Errorf("unknown host: %d %s", resp.StatusCode, body)
	}
	savedReadErrors(t, f, "/api/agent-checkout/product-data?host=")
}

func TestAgentFacts(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	st := f.world.Stores[0]
	var ans AgentFactsAnswer
	resp, body := ts.getJSON(t, "/api/agent-facts?host="+st.Host, &ans)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Disposition") != "" {
		t.Fatalf("facts: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	hasKeys(t, "agent facts", body, "facts", "note")
	var names []string
	for _, fact := range ans.Facts {
		names = append(names, fact.Fact)
		if fact.Host != st.Host {
			t.Errorf("fact of %s", fact.Host)
		}
		if string(fact.Value) == "null" {
			if fact.Note == nil || fact.EvidenceSha256 != nil {
				t.Errorf("unmeasured %s: note %v hash %v", fact.Fact, fact.Note, fact.EvidenceSha256)
			}
			continue
		}
		if fact.Evidence == nil || fact.EvidenceSha256 == nil || fact.Confidence == nil || *fact.Confidence < 0 || *fact.Confidence > 1 {
			t.Errorf("%s: %+v", fact.Fact, fact)
			continue
		}
		sum := sha256.Sum256([]byte(*fact.Evidence))
		if hex.EncodeToString(sum[:]) != *fact.EvidenceSha256 {
			t.Errorf("%s: evidenceSha256 is not the sha256 of evidence", fact.Fact)
		}
	}
	if !slices.Equal(names, factSlugs) || ans.Count != 5 || ans.Known == nil || !*ans.Known || !strings.Contains(ans.Note, "null (unmeasured)") {
		t.Errorf("facts %v count %d: %s", names, ans.Count, body)
	}
	ans = AgentFactsAnswer{}
	if _, body := ts.getJSON(t, "/api/agent-facts?host="+st.Host+"&slug=price-clarity", &ans); len(ans.Facts) != 1 || ans.Facts[0].Fact != "price_clarity" {
		t.Errorf("one slug: %s", body)
	}
	// limit counts stores (as the tools say), never a store's facts: one
	// store's answer keeps all five at any limit.
	ans = AgentFactsAnswer{}
	if _, body := ts.getJSON(t, "/api/agent-facts?host="+st.Host+"&limit=1", &ans); len(ans.Facts) != 5 || ans.Facts[4].Fact != factSlugs[4] {
		t.Errorf("limit=1 on one store: %s", body)
	}
	// Every store's facts are its own (the rows a lookup record points at).
	for _, s := range f.world.Stores {
		a := AgentFactsAnswer{}
		ts.getJSON(t, "/api/agent-facts?host="+s.Host, &a)
		if s.Source == fixtures.SourceOptedOut {
			continue
		}
		if len(a.Facts) != 5 {
			t.Errorf("%s: %d facts", s.Host, len(a.Facts))
		}
		for _, fact := range a.Facts {
			if fact.Host != s.Host {
				t.Errorf("%s: a fact of %s", s.Host, fact.Host)
			}
		}
	}
	// A category: measured facts of its listed stores, by host.
	ans = AgentFactsAnswer{}
	resp, _ = ts.getJSON(t, "/api/agent-facts?category=shoes&download=true", &ans)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Disposition") != `attachment; filename="agent-facts-footwear.json"` {
		t.Fatalf("category download: %d %v", resp.StatusCode, resp.Header)
	}
	cats := map[string]*fixtures.Store{}
	for i := range f.world.Stores {
		cats[f.world.Stores[i].Host] = &f.world.Stores[i]
	}
	// The stores a listing may name: footwear, listed (known), with at
	// least one measured fact, each with its measured facts, read one store
	// at a time.
	measured := map[string]int{}
	var eligible []string
	for _, s := range f.world.Stores {
		if s.Category != "footwear" || unknownSources[s.Source] || s.Source == fixtures.SourceOptedOut {
			continue
		}
		a := AgentFactsAnswer{}
		ts.getJSON(t, "/api/agent-facts?host="+s.Host, &a)
		for _, fact := range a.Facts {
			if string(fact.Value) != "null" {
				measured[s.Host]++
			}
		}
		if measured[s.Host] > 0 {
			eligible = append(eligible, s.Host)
		}
	}
	slices.Sort(eligible)
	if len(eligible) <= 2 {
		t.Fatalf("the fixture world has %d footwear stores with facts; the limit test needs more", len(eligible))
	}
	listed := func(a AgentFactsAnswer) []string {
		var hosts []string
		perHost := map[string]int{}
		for _, fact := range a.Facts {
			if !slices.Contains(hosts, fact.Host) {
				hosts = append(hosts, fact.Host)
			}
			perHost[fact.Host]++
		}
		for h, n := range perHost {
			if n != measured[h] {
				t.Errorf("category listing holds %d facts of %s, which has %d measured", n, h, measured[h])
			}
		}
		return hosts
	}
	if got, want := listed(ans), eligible[:min(len(eligible), factsCategoryLimit)]; !slices.Equal(got, want) || ans.Category == nil || *ans.Category != "footwear" {
		t.Errorf("category listing (default limit, %d stores): stores %v, want %v; category %v", factsCategoryLimit, got, want, ans.Category)
	}
	two := AgentFactsAnswer{}
	ts.getJSON(t, "/api/agent-facts?category=footwear&limit=2", &two)
	if got := listed(two); !slices.Equal(got, eligible[:2]) || two.Count != measured[eligible[0]]+measured[eligible[1]] {
		t.Errorf("limit=2: stores %v (count %d), want the 2 stores %v", got, two.Count, eligible[:2])
	}
	for i, fact := range ans.Facts {
		s := cats[fact.Host]
		if s == nil || s.Category != "footwear" || unknownSources[s.Source] || string(fact.Value) == "null" {
			t.Errorf("category listing holds %s (%v): %s", fact.Host, s, fact.Value)
		}
		if i > 0 && fact.Host < ans.Facts[i-1].Host {
			t.Errorf("category listing not by host at %d", i)
		}
	}
	resp, _ = ts.get(t, "/api/agent-facts?host="+st.Host+"&download=1")
	if resp.Header.Get("Content-Disposition") != `attachment; filename="agent-facts-`+st.Host+`.json"` {
		t.Errorf("download=1: %q", resp.Header.Get("Content-Disposition"))
	}
	for _, q := range []string{"", "host=" + st.Host + "&category=footwear", "host=" + st.Host + "&slug=vibes",
		"category=spaceships", "category=footwear&limit=0", "category=footwear&limit=51", "host=" + st.Host + "&download=yes", "host=10.0.0.1"} {
		if resp, body := ts.get(t, "/api/agent-facts?"+q); resp.StatusCode != 400 || errorCode(t, body) != "invalid_request" {
			t.Errorf("%q: %d %s, want 400", q, resp.StatusCode, body)
		}
	}
	savedReadErrors(t, f, "/api/agent-facts?host=")
}

func TestDirectory(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	want := map[string][]string{} // category -> agent-ready hosts
	for _, s := range f.world.Stores {
		if isTrue(s.Expect.CartLink) && isTrue(s.Expect.ProductFound) && !unknownSources[s.Source] {
			want[s.Category] = append(want[s.Category], s.Host)
		}
	}
	all := 0
	for _, hs := range want {
		sort.Strings(hs)
		all += len(hs)
	}
	var ans DirectoryAnswer
	resp, body := ts.getJSON(t, "/api/agent-checkout/stores?category=footwear&limit=50", &ans)
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("directory: %d %s", resp.StatusCode, body)
	}
	hasKeys(t, "directory", body, "stores", "total", "categories", "note", "directoryUrl")
	var got []string
	for i, s := range ans.Stores {
		got = append(got, s.Host)
		if s.Name == nil || s.Category == nil || *s.Category != "footwear" || s.Verdict == nil || s.SvcURL != "/stores/"+s.Host+"/" || s.CheckedAt.IsZero() {
			t.Errorf("entry %+v", s)
		}
		if i > 0 && s.CheckedAt.After(ans.Stores[i-1].CheckedAt) {
			t.Errorf("entries not newest first at %d", i)
		}
	}
	if len(ans.Stores) > 0 {
		hasKeys(t, "directory entry", string(readJSON(t, ans.Stores[0])), "name", "host", "category", "verdict", "checkedAt", "svcUrl")
	}
	sort.Strings(got)
	if diff := cmp.Diff(want["footwear"], got); diff != "" || ans.Total != len(want["footwear"]) {
		t.Errorf("footwear, total %d (-want +got):\n%s", ans.Total, diff)
	}
	if !slices.Equal(ans.Categories, []string{"footwear"}) || ans.DirectoryURL != "/directory/footwear/" ||
		ans.WindowDays != 30 || !strings.Contains(ans.Note, "30 days") || !strings.Contains(ans.Note, "not inventory search") {
		t.Errorf("directory answer: %s", body)
	}
	if strings.Contains(body, "checkout_url") || strings.Contains(body, "/checkouts/") {
		t.Error("the directory carries a checkout link")
	}
	for _, tc := range []struct {
		query string
		cats  []string
		total int
	}{
		{"category=running+shoes", []string{"footwear"}, len(want["footwear"])},
		{"q=sneakers+for+running", []string{"footwear"}, len(want["footwear"])},
		{"category=Food+%26+Drink", []string{"food-drink"}, len(want["food-drink"])},
		{"category=dog+food&q=sneakers", []string{"pets"}, len(want["pets"])},
		{"", categorySlugs, all},
	} {
		ans = DirectoryAnswer{}
		if _, body := ts.getJSON(t, "/api/agent-checkout/stores?"+tc.query, &ans); !slices.Equal(ans.Categories, tc.cats) ||
			ans.Total != tc.total || len(ans.Stores) != min(tc.total, 10) {
			t.Errorf("%q: categories %v total %d stores %d, want %v %d\n%s", tc.query, ans.Categories, ans.Total, len(ans.Stores), tc.cats, tc.total, body)
		}
	}
	if _, body := ts.getJSON(t, "/api/agent-checkout/stores?limit=1", &ans); len(ans.Stores) != 1 || ans.Total != all {
		t.Errorf("limit=1: %s", body)
	}
	for _, q := range []string{"limit=0", "limit=51", "limit=ten", "category=spaceships", "q=zzzz", "category=&q=quantum+flux"} {
		resp, body := ts.get(t, "/api/agent-checkout/stores?"+q)
		if resp.StatusCode != 400 || errorCode(t, body) != "invalid_request" {
			t.Errorf("%q: %d %s, want 400", q, resp.StatusCode, body)
		}
	}
	if _, body := ts.get(t, "/api/agent-checkout/stores?category=spaceships"); !strings.Contains(body, "no matching category") || !strings.Contains(body, "footwear") {
		t.Errorf("no matching category: %s", body)
	}
	// Checks older than the window are not agent-ready.
	later := f.newServer(t, Config{Now: func() time.Time { return time.Now().Add(AgentReadyWindow + time.Hour) }})
	if _, body := later.getJSON(t, "/api/agent-checkout/stores", &ans); ans.Total != 0 || len(ans.Stores) != 0 {
		t.Errorf("after the window: %s", body)
	}
	empty := newTestServer(t, Config{})
	if resp, body := empty.get(t, "/api/agent-checkout/stores"); resp.StatusCode != 503 || errorCode(t, body) != "unavailable" {
		t.Errorf("no snapshot: %d %s", resp.StatusCode, body)
	}
}

// TestDirectoryLimits: 50 reads a day per network, shared with the live
// check, and 5,000 site-wide.
func TestDirectoryLimits(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{TrustProxy: true})
	from := func(ip string) []string { return []string{"X-Forwarded-For", ip} }
	ts.get(t, "/api/agent-checkout?url=shop.example.co.uk", from("203.0.113.1")...) // a checkout read (503 here: no engine)
	for i := 0; i < 49; i++ {
		if resp, body := ts.get(t, "/api/agent-checkout/stores", from("203.0.113.1")...); resp.StatusCode != 200 {
			t.Fatalf("read %d: %d %s", i+2, resp.StatusCode, body)
		}
	}
	resp, body := ts.get(t, "/api/agent-checkout/stores", from("203.0.113.1")...)
	if resp.StatusCode != 429 || errorCode(t, body) != "rate_limited" || resp.Header.Get("Retry-After") == "" {
		t.Errorf("51st checkout read: %d %s", resp.StatusCode, body)
	}
	if resp, _ := ts.get(t, "/api/agent-checkout/stores", from("198.51.100.2")...); resp.StatusCode != 200 {
		t.Errorf("another network: %d", resp.StatusCode)
	}
	// Invalid requests cost nothing.
	if resp, _ := ts.get(t, "/api/agent-checkout/stores?limit=99", from("198.51.100.3")...); resp.StatusCode != 400 {
		t.Errorf("limit=99: %d", resp.StatusCode)
	}
	lowerQuota(t, &quotaSiteReads, 51)
	if resp, body := ts.get(t, "/api/agent-checkout/stores", from("198.51.100.4")...); resp.StatusCode != 429 || !strings.Contains(body, "site-wide") {
		t.Errorf("site-wide limit: %d %s", resp.StatusCode, body)
	}
}

// TestDirectoryLongNeed: a q or category past 200 characters is a 400
// that says the limit and does not repeat the text (issue 16, item 8: the
// directory echoed a 5,000-character q); 200 characters are answered.
func TestDirectoryLongNeed(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	long := strings.Repeat("shoes ", 834)[:5000]
	for _, param := range []string{"q", "category"} {
		resp, body := ts.get(t, "/api/agent-checkout/stores?"+param+"="+url.QueryEscape(long))
		if resp.StatusCode != 400 || errorCode(t, body) != "invalid_request" || !strings.Contains(body, "limit is 200") ||
			len(body) > 400 || strings.Contains(body, "shoes shoes") {
			t.Errorf("%s of 5,000 characters: %d %s", param, resp.StatusCode, body)
		}
	}
	// The MCP tool and the Index answer share the bound.
	if _, err := ts.FindAgentReadyStores(context.Background(), "c", DirectoryParams{Q: long, Limit: 10}); err == nil || len(err.Error()) > 300 {
		t.Errorf("tool with a long q: %v", err)
	}
	if _, err := ts.Ask(context.Background(), "c", AskParams{Q: long}); err == nil || len(err.Error()) > 300 {
		t.Errorf("Index answer with a long q: %v", err)
	}
	exact := strings.Repeat("é", 199) + "s" // 200 characters, 399 bytes
	if resp, body := ts.get(t, "/api/agent-checkout/stores?q=running+shoes"); resp.StatusCode != 200 {
		t.Errorf("short q: %d %s", resp.StatusCode, body)
	}
	resp, body := ts.get(t, "/api/agent-checkout/stores?q="+url.QueryEscape(exact))
	if resp.StatusCode == 400 && strings.Contains(body, "limit is 200") {
		t.Errorf("q of exactly 200 characters refused as too long: %s", body)
	}
}
