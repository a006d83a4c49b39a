package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"svc/fixtures"
)

// mcpText calls one tool with a bare JSON-RPC tools/call and returns the
// text of its answer.
func (ts *testServer) mcpText(t *testing.T, name string, args map[string]any) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	req, _ := http.NewRequest(http.MethodPost, ts.ts.URL+"/api/ask", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var rpc struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(b, &rpc) != nil || rpc.Result.IsError || len(rpc.Result.Content) == 0 {
		t.Fatalf("tool %s: %d %s", name, resp.StatusCode, b)
	}
	return rpc.Result.Content[0].Text
}

// flatten maps every leaf of a JSON document to its path ("a.b.0.c").
func flatten(t *testing.T, doc string) map[string]string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("not JSON: %v\n%.300s", err, doc)
	}
	out := map[string]string{}
	var walk func(p string, v any)
	walk = func(p string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(strings.TrimPrefix(p+"."+k, "."), e)
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s.%d", p, i), e)
			}
		default:
			b, _ := json.Marshal(x)
			out[p] = string(b)
		}
	}
	walk("", v)
	return out
}

// changedPaths lists the paths whose values differ between two flattened
// documents, sorted.
func changedPaths(before, after map[string]string) []string {
	var out []string
	for p, v := range after {
		if w, ok := before[p]; !ok || w != v {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// liveSection is the store page's section of a newer live check.
var liveSection = regexp.MustCompile(`(?s)\n<section aria-labelledby="live-check".*?</section>\n`)

// TestLiveCheckKeepsSavedFigures is issue 16, item 1: one live check of a
// store the snapshot has must not blank its saved figures. Every read of
// the store (store card over REST and MCP, Index answer, precheck, agent
// facts, product data, the store page and its badge) is taken before and
// after a live check and compared field by field: only the documented
// newer-evidence fields may change (the card's liveCheck, the Index
// answer's extra receipts, precheck's lastReachableCheck, the page's
// live-check section, and the notes that say so), and they cite the live
// check's own time and the store page, never the snapshot's files.
func TestLiveCheckKeepsSavedFigures(t *testing.T) {
	f := sharedReadFixture(t)
	_, eng, v := fixtureEngine(t)
	now := f.crawled.Add(time.Hour) // the server's clock: still, so "checked 1 hour ago" holds
	ts := f.newServer(t, Config{Engine: eng, UCP: v, Now: func() time.Time { return now }})

	// A store with every figure the issue saw blanked: a score, product
	// data with vendor readiness and a product page.
	var host string
	for _, st := range f.world.Stores {
		if st.Source != fixtures.SourceSeed || !isTrue(st.Expect.CartLink) {
			continue
		}
		var c StoreCard
		ts.getJSON(t, "/api/store?host="+st.Host, &c)
		if c.Score != nil && c.AgentsCanBuy != nil && c.Checks != nil && c.Checks.ProductData.VendorReadiness != nil && c.Links.ProductPage != nil {
			host = st.Host
			break
		}
	}
	if host == "" {
		t.Fatal("no fixture store with a score, vendor readiness and a product page")
	}

	reads := map[string]func() string{
		"store card":   func() string { _, b := ts.get(t, "/api/store?host="+host); return b },
		"store_card":   func() string { return ts.mcpText(t, "store_card", map[string]any{"host": host}) },
		"Index answer": func() string { _, b := ts.get(t, "/api/ask?url=https://"+host+"/"); return b },
		"ask_svc":      func() string { return ts.mcpText(t, "ask_svc", map[string]any{"url": "https://" + host + "/"}) },
		"precheck":     func() string { _, b := ts.get(t, "/api/precheck?url=https://"+host+"/"); return b },
		"agent facts":  func() string { _, b := ts.get(t, "/api/agent-facts?host="+host); return b },
		"product data": func() string { _, b := ts.get(t, "/api/agent-checkout/product-data?host="+host); return b },
		"vendor_checkout_readiness": func() string {
			return ts.mcpText(t, "vendor_checkout_readiness", map[string]any{"host": host})
		},
	}
	// The newer-evidence fields each read may gain, and nothing else.
	allowed := map[string]*regexp.Regexp{
		"store card":   regexp.MustCompile(`^(liveCheck(\..*)?|note)$`),
		"store_card":   regexp.MustCompile(`^(liveCheck(\..*)?|note)$`),
		"Index answer": regexp.MustCompile(`^(evidence\.([6-9]|1[01])\..*|note)$`),
		"ask_svc":      regexp.MustCompile(`^(evidence\.([6-9]|1[01])\..*|note)$`),
		"precheck":     regexp.MustCompile(`^lastReachableCheck\..*$`),
	}
	before := map[string]string{}
	for name, read := range reads {
		before[name] = read()
	}
	_, pageBefore := ts.get(t, "/stores/"+host+"/")
	_, badgeBefore := ts.get(t, "/stores/"+host+"/badge.svg")

	resp, body := ts.get(t, "/api/agent-checkout?url=https://"+host+"/")
	if resp.StatusCode != 200 {
		t.Fatalf("live check: %d %s", resp.StatusCode, body)
	}
	var live CheckAnswer
	if err := json.Unmarshal([]byte(body), &live); err != nil || live.Cached || live.Result == nil {
		t.Fatalf("live check answer: %v %s", err, body)
	}
	liveAt := live.CheckedAt.UTC().Format(time.RFC3339Nano)

	for name, read := range reads {
		after := read()
		b, a := flatten(t, before[name]), flatten(t, after)
		for _, p := range changedPaths(b, a) {
			if re := allowed[name]; re == nil || !re.MatchString(p) {
				t.Errorf("%s: %s changed from %s to %s after a live check", name, p, b[p], a[p])
			}
		}
		// What was measured stays measured: no value became null.
		for p, v := range b {
			if v != "null" && a[p] == "null" {
				t.Errorf("%s: %s was %s, is null after a live check", name, p, v)
			}
		}
	}

	// The newer evidence carries its own time and source.
	var card StoreCard
	ts.getJSON(t, "/api/store?host="+host, &card)
	if lc := card.LiveCheck; lc == nil || !lc.CheckedAt.Equal(live.CheckedAt) || lc.Source != "live_check" ||
		lc.ResultURL != live.ResultURL || lc.Checks == nil || lc.EvidenceLevel != "http-only" {
		t.Errorf("store card liveCheck: %+v, live check at %s", card.LiveCheck, liveAt)
	}
	var ans AskAnswer
	ts.getJSON(t, "/api/ask?url=https://"+host+"/", &ans)
	if len(ans.Evidence) != 12 {
		t.Fatalf("Index answer: %d receipts, want 6 of the snapshot and 6 of the live check", len(ans.Evidence))
	}
	for i, r := range ans.Evidence {
		snap := i < 6
		switch {
		case snap && (r.Source != "/data/"+f.version+"/checks.parquet" || r.CheckedAt == nil || !r.CheckedAt.Equal(*card.CheckedAt)):
			t.Errorf("snapshot receipt %d: %+v, want the snapshot's checks file and check time", i, r)
		case !snap && (r.Source != live.ResultURL || r.CheckedAt == nil || !r.CheckedAt.Equal(live.CheckedAt) ||
			!strings.HasPrefix(r.Claim, "Newer live check: ") || strings.Contains(r.Source, ".parquet")):
			t.Errorf("live receipt %d: %+v, want the live check's time (%s) and page", i, r, liveAt)
		}
	}
	// Every receipt's source resolves; the snapshot's checks file is there.
	for _, r := range ans.Evidence {
		if resp, _ := ts.get(t, r.Source); resp.StatusCode != 200 {
			t.Errorf("receipt source %s: %d", r.Source, resp.StatusCode)
		}
	}
	var pre PrecheckAnswer
	ts.getJSON(t, "/api/precheck?url=https://"+host+"/", &pre)
	if pre.LastReachableCheck == nil || !pre.LastReachableCheck.CheckedAt.Equal(live.CheckedAt) || pre.Source != "directory" {
		t.Errorf("precheck: lastReachableCheck %+v, source %s; live check at %s", pre.LastReachableCheck, pre.Source, liveAt)
	}

	// The page: the same, but for the live check's own section, which
	// carries its time.
	_, pageAfter := ts.get(t, "/stores/"+host+"/")
	sec := liveSection.FindString(pageAfter)
	if sec == "" || !strings.Contains(sec, `datetime="`+live.CheckedAt.UTC().Format(time.RFC3339)+`"`) {
		t.Errorf("the page has no live-check section with the check's time:\n%s", pageAfter)
	}
	if stripped := strings.Replace(pageAfter, sec, "", 1); stripped != pageBefore {
		t.Errorf("the page changed beyond its live-check section:\nbefore:\n%s\nafter:\n%s", pageBefore, stripped)
	}
	if _, badgeAfter := ts.get(t, "/stores/"+host+"/badge.svg"); badgeAfter != badgeBefore || !strings.HasPrefix(badgeBefore, "<svg") {
		t.Errorf("the badge changed after a live check:\n%s\n%s", badgeBefore, badgeAfter)
	}
}
