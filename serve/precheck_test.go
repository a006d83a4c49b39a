package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"svc/fixtures"
	"svc/pipeline/check"
	"svc/pipeline/inbox"
)

// precheckKeys are the fields of spec 2.2 every answer has.
var precheckKeys = []string{"host", "last_checked", "checked_ago", "stale", "known", "reachable_checkout",
	"rails", "blockers", "confidence", "source", "licence", "report_outcome"}

// fallbackKeys are the fields the plain-HTTP fallback adds.
var fallbackKeys = []string{"proves", "checkedAt", "sources", "evidenceLevel", "checkoutTested", "note"}

func absentKeys(t *testing.T, what, body string, keys ...string) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	for _, k := range keys {
		if _, ok := m[k]; ok {
			t.Errorf("%s: unexpected field %q", what, k)
		}
	}
}

// precheckOf GETs the precheck of url into a fresh answer.
func precheckOf(t *testing.T, ts *testServer, url string) (PrecheckAnswer, string) {
	t.Helper()
	var ans PrecheckAnswer
	_, body := ts.getJSON(t, "/api/precheck?url="+url, &ans)
	return ans, body
}

func TestPrecheckDirectoryStore(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	st := f.store(t, "returns a checkout link", func(s *fixtures.Store) bool {
		return s.Source == fixtures.SourceSeed && isTrue(s.Expect.CartLink) && isTrue(s.Expect.ProductFound)
	})
	var ans PrecheckAnswer
	resp, body := ts.getJSON(t, "/api/precheck?url="+"https://"+st.Host+"/products/anything", &ans)
	if resp.StatusCode != 200 {
		t.Fatalf("precheck: %d %s", resp.StatusCode, body)
	}
	for h, want := range map[string]string{
		"Cache-Control":               "public, s-maxage=300, stale-while-revalidate=86400",
		"Content-Type":                "application/json; charset=utf-8",
		"Access-Control-Allow-Origin": "*",
		"X-Content-Type-Options":      "nosniff",
	} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	if !strings.HasPrefix(body, `{"host":"`+st.Host+`","last_checked":"`) {
		t.Errorf("last_checked does not follow host: %.80s", body)
	}
	hasKeys(t, "precheck", body, precheckKeys...)
	absentKeys(t, "precheck of a directory store", body, append(fallbackKeys, "scan_url", "lastReachableCheck")...)
	if !ans.Known || !isTrue(ans.ReachableCheckout) || ans.Stale || ans.Source != "directory" || ans.Confidence != "high" {
		t.Errorf("answer: known %v reachable %v stale %v source %q confidence %q", ans.Known, ans.ReachableCheckout, ans.Stale, ans.Source, ans.Confidence)
	}
	if ans.LastChecked == nil || ans.LastChecked.Before(f.crawled.Add(-time.Minute)) || ans.LastChecked.After(time.Now()) {
		t.Errorf("last_checked %v, crawl at %v", ans.LastChecked, f.crawled)
	}
	if !regexp.MustCompile(`^(just now|\d+ minutes? ago)$`).MatchString(ans.CheckedAgo) {
		t.Errorf("checked_ago %q", ans.CheckedAgo)
	}
	var names []string
	for _, r := range ans.Rails {
		names = append(names, r.Name)
		if !strings.Contains(r.Proves, "Does not prove an agent completed checkout.") {
			t.Errorf("rail %s proves %q lacks the sentence", r.Name, r.Proves)
		}
	}
	if want := []string{"catalog", "checkout_link", "ucp", "storefront_mcp", "webmcp", "checkout_webmcp", "acp"}; !slices.Equal(names, want) {
		t.Errorf("rails %v, want %v", names, want)
	}
	if ans.Rails[0].Status != "product_found" || ans.Rails[1].Status != "returned" || ans.Rails[3].Status != "detected" {
		t.Errorf("rails %+v", ans.Rails)
	}
	if len(ans.Blockers) != 0 || !strings.Contains(ans.Licence, "CC-BY-4.0") || ans.ReportOutcome == nil ||
		ans.ReportOutcome.URL != reportPath || ans.ReportOutcome.Method != "POST" {
		t.Errorf("blockers %v licence %q report %+v", ans.Blockers, ans.Licence, ans.ReportOutcome)
	}
	// A bare host and a www. twin find the same store.
	if ans, body := precheckOf(t, ts, "www."+st.Host); ans.Host != st.Host || !ans.Known {
		t.Errorf("www twin: %s", body)
	}
}

func TestPrecheckTraits(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	for _, tc := range []struct {
		what     string
		pick     func(*fixtures.Store) bool
		blocker  string
		checkout string // the checkout_link rail's status
	}{
		{"is blocked", func(s *fixtures.Store) bool { return isTrue(s.Expect.BlockStatus.Blocked) && s.Source == "seed" }, "edge_block", "not_measured"},
		{"is parked", func(s *fixtures.Store) bool { return isTrue(s.Expect.Parked) && s.Source == "seed" }, "parked", "not_measured"},
		{"disallows user agents", func(s *fixtures.Store) bool {
			return s.Expect.Robots["ChatGPT-User"] == "disallowed" && !isTrue(s.Expect.BlockStatus.Blocked) && s.Expect.Platform != nil
		}, "robots_disallows_agents", ""},
		{"is throttled", func(s *fixtures.Store) bool { return slices.Contains(s.Traits, "catalog:throttled") }, "catalog_throttled", ""},
		{"has no catalog", func(s *fixtures.Store) bool { return isFalse(s.Expect.CatalogAnswered) && s.Source == "seed" }, "no_catalog", "not_returned"},
	} {
		st := f.store(t, tc.what, tc.pick)
		var ans PrecheckAnswer
		resp, body := ts.getJSON(t, "/api/precheck?url="+st.Host, &ans)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", st.Host, resp.StatusCode, body)
		}
		var codes []string
		for _, b := range ans.Blockers {
			codes = append(codes, b.Code)
			if b.Message == "" {
				t.Errorf("%s: blocker %s without a message", st.Host, b.Code)
			}
		}
		if !slices.Contains(codes, tc.blocker) {
			t.Errorf("store that %s (%s): blockers %v, want %s", tc.what, st.Host, codes, tc.blocker)
		}
		if tc.checkout != "" && ans.Rails[1].Status != tc.checkout {
			t.Errorf("store that %s: checkout_link %q, want %q", tc.what, ans.Rails[1].Status, tc.checkout)
		}
		if ans.ReachableCheckout == nil && ans.Confidence != "low" {
			t.Errorf("store that %s: confidence %q with an unmeasured cart link", tc.what, ans.Confidence)
		}
	}
}

func TestPrecheckKnownFalse(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	for _, src := range []string{fixtures.SourceThirdParty, fixtures.SourceMapDerived, fixtures.SourceCampaign, fixtures.SourceOptedOut} {
		st := f.store(t, "comes from "+src, func(s *fixtures.Store) bool { return s.Source == src })
		var ans PrecheckAnswer
		resp, body := ts.getJSON(t, "/api/precheck?url="+st.Host, &ans)
		if resp.StatusCode != 200 || ans.Known {
			t.Errorf("%s store %s: %d known %v", src, st.Host, resp.StatusCode, ans.Known)
		}
		if strings.Contains(body, "scan_url") {
			t.Errorf("%s store %s has a scan_url, though it is in the directory", src, st.Host)
		}
		if src == fixtures.SourceOptedOut {
			if len(ans.Rails) != 0 || ans.PrecheckFallback == nil || ans.LastChecked != nil {
				t.Errorf("opted-out store shows its checks: %s", body)
			}
		} else if len(ans.Rails) == 0 || ans.Source != "directory" {
			t.Errorf("%s store: %s", src, body)
		}
	}
}

func TestPrecheckUnknownHostFallback(t *testing.T) {
	f := sharedReadFixture(t)
	dir := t.TempDir()
	f.writeTreeTo(t, dir)
	submitted := time.Now().Add(-3 * time.Hour).UTC().Truncate(time.Microsecond)
	known := f.store(t, "returns a checkout link", func(s *fixtures.Store) bool { return isTrue(s.Expect.CartLink) && s.Source == "seed" })
	later := time.Now().UTC().Truncate(time.Microsecond)
	appendState(t, dir,
		stateRec{inbox.TypeStoreSubmission, submitted, inbox.StoreSubmission{Hosts: []inbox.SubmittedHost{{Host: "newshop.test"}}}},
		stateRec{inbox.TypeStoreSubmission, later, inbox.StoreSubmission{Hosts: []inbox.SubmittedHost{{Host: known.Host}}}},
	)
	ts := f.newServer(t, Config{DataDir: dir})

	// Never seen: the fallback with nothing measured.
	var ans PrecheckAnswer
	resp, body := ts.getJSON(t, "/api/precheck?url=https://nowhere.test/", &ans)
	if resp.StatusCode != 200 {
		t.Fatalf("unknown host: %d %s", resp.StatusCode, body)
	}
	hasKeys(t, "unknown host", body, append(append([]string{"scan_url"}, precheckKeys...), fallbackKeys...)...)
	if !strings.HasPrefix(body, `{"host":"nowhere.test","last_checked":null,"checked_ago":"never checked","stale":true,"known":false,`) {
		t.Errorf("unknown host answer starts %.120s", body)
	}
	if ans.ScanURL != "/api/agent-checkout?url=nowhere.test" || ans.EvidenceLevel != "http-only" || ans.CheckoutTested ||
		ans.CheckedAt != nil || len(ans.Sources) != 0 || ans.Confidence != "none" || ans.ReachableCheckout != nil ||
		!strings.Contains(ans.Proves, NotProved) || ans.Note == "" {
		t.Errorf("unknown host: %s", body)
	}
	// Seen only by store submission: the fallback carries that time.
	ans, body = precheckOf(t, ts, "newshop.test")
	if ans.CheckedAt == nil || !ans.CheckedAt.Equal(submitted) || !slices.Equal(ans.Sources, []string{"store_submission"}) ||
		ans.Confidence != "low" || ans.LastChecked == nil || !ans.LastChecked.Equal(submitted) || ans.CheckedAgo != "3 hours ago" || ans.Known {
		t.Errorf("submitted host: %s", body)
	}
	for _, leak := range []string{"127.0.0.1", "::1", "dial tcp", "connection refused", "<html"} {
		if strings.Contains(body, leak) {
			t.Errorf("fallback leaks %q: %s", leak, body)
		}
	}
	// A known store with a newer plain-HTTP time: lastReachableCheck, while
	// last_checked stays the check behind the verdict.
	ans, body = precheckOf(t, ts, known.Host)
	if ans.LastReachableCheck == nil || !ans.LastReachableCheck.CheckedAt.Equal(later) ||
		ans.LastReachableCheck.EvidenceLevel != "http-only" || ans.LastReachableCheck.ReachabilityStale ||
		!strings.Contains(ans.LastReachableCheck.Proves, NotProved) || ans.LastChecked.Equal(later) || ans.PrecheckFallback != nil {
		t.Errorf("known host with a newer reachability: %s", body)
	}
	hasKeys(t, "lastReachableCheck", string(readJSON(t, ans.LastReachableCheck)), "checkedAt", "proves", "evidenceLevel", "reachability_stale")
}

func readJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPrecheckStale(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{Now: func() time.Time { return time.Now().Add(50 * time.Hour) }})
	st := f.store(t, "returns a checkout link", func(s *fixtures.Store) bool { return isTrue(s.Expect.CartLink) && s.Source == "seed" })
	var ans PrecheckAnswer
	if _, body := ts.getJSON(t, "/api/precheck?url="+st.Host, &ans); !ans.Stale || ans.CheckedAgo != "2 days ago" || ans.Confidence != "medium" {
		t.Errorf("a 50-hour-old check: %s", body)
	}
}

// TestPrecheckLiveCheckWins saves live checks in the state log: one newer
// than the snapshot wins over the directory row, an older one does not, and
// a live check of a host outside the directory is a history row.
// TestPrecheckLiveCheckIsNewerEvidence: a live check never replaces the
// snapshot's answer of a store it has (spec 4.2.1); it is newer plain-HTTP
// evidence: lastReachableCheck in precheck, liveCheck on the store card.
// A host the snapshot does not have is answered from its live check.
func TestPrecheckLiveCheckIsNewerEvidence(t *testing.T) {
	f := sharedReadFixture(t)
	dir := t.TempDir()
	f.writeTreeTo(t, dir)
	cartStore := f.store(t, "returns a checkout link", func(s *fixtures.Store) bool { return isTrue(s.Expect.CartLink) && s.Source == "seed" })
	older := f.store(t, "is another checkout store", func(s *fixtures.Store) bool {
		return isTrue(s.Expect.CartLink) && s.Source == "seed" && s.Host != cartStore.Host
	})
	now := time.Now().UTC().Truncate(time.Microsecond)
	live := func(host string, at time.Time, cart bool) *check.Result {
		return &check.Result{URL: "https://" + host + "/", Host: host, CatalogAnswered: ptrTo(true), ProductFound: ptrTo(true),
			CartLink: ptrTo(cart), UCPProfile: check.UCPProfile{Status: "valid"}, WebMCP: ptrTo(false), Platform: ptrTo("shopify"),
			BlockStatus: check.BlockStatus{Blocked: ptrTo(false)}, Reachability: check.Reachability{Reachable: ptrTo(true), HTTPStatus: 200},
			CheckoutWebMCP: check.CheckoutWebMCP{Status: "inferred"}, Fix: check.Fix{Code: "add_webmcp", Text: "Add WebMCP."},
			CheckedAt: at, MethodVersion: "check/1"}
	}
	appendState(t, dir,
		stateRec{inbox.TypeCheck, now, live(cartStore.Host, now, false)},
		stateRec{inbox.TypeCheck, f.crawled.Add(-time.Hour), live(older.Host, f.crawled.Add(-time.Hour), false)},
		stateRec{inbox.TypeCheck, now, live("outside.test", now, true)},
	)
	ts := f.newServer(t, Config{DataDir: dir})
	var card StoreCard
	ts.getJSON(t, "/api/store?host="+cartStore.Host, &card)
	if card.Verdict == nil || card.CheckedAt == nil || card.CheckedAt.Equal(now) {
		t.Fatalf("store card: %+v", card)
	}
	// The verdict stays the snapshot's (agents_can_buy with the UCP
	// schema; without it no profile is valid, and the verdict says so).
	if ans, body := precheckOf(t, ts, cartStore.Host); ans.Source != "directory" || !isTrue(ans.ReachableCheckout) ||
		ans.LastChecked == nil || !ans.LastChecked.Equal(*card.CheckedAt) || !ans.Known || ans.Verdict == nil || *ans.Verdict != *card.Verdict ||
		ans.LastReachableCheck == nil || !ans.LastReachableCheck.CheckedAt.Equal(now) || ans.LastReachableCheck.Proves != proveLiveReachable {
		t.Errorf("newer live check: %s", body)
	}
	if ans, body := precheckOf(t, ts, older.Host); ans.Source != "directory" || !isTrue(ans.ReachableCheckout) || ans.LastReachableCheck != nil {
		t.Errorf("older live check: %s", body)
	}
	if ans, body := precheckOf(t, ts, "outside.test"); ans.Source != "live_check" || !ans.Known ||
		ans.ScanURL != "" || ans.PrecheckFallback != nil || ans.Verdict == nil || *ans.Verdict != "agents_can_buy" {
		t.Errorf("live check outside the directory: %s", body)
	}
	// The store card keeps the snapshot's answer and shows the newer
	// live check beside it, with its own time.
	if _, body := ts.getJSON(t, "/api/store?host="+cartStore.Host, &card); card.CheckSource == nil || *card.CheckSource != "directory" ||
		card.Score == nil || card.Name == nil || *card.Name != cartStore.Name || card.Checks == nil || !isTrue(card.Checks.CartLink) ||
		card.LiveCheck == nil || !card.LiveCheck.CheckedAt.Equal(now) || !isFalse(card.LiveCheck.Checks.CartLink) {
		t.Errorf("store card with a newer live check: %s", body)
	}
	// A live check made by this server (the in-memory cache) counts too.
	later := time.Now().UTC().Truncate(time.Microsecond)
	ts.cache.put(live(older.Host, later, false))
	if ans, body := precheckOf(t, ts, older.Host); ans.Source != "directory" || !isTrue(ans.ReachableCheckout) ||
		ans.LastReachableCheck == nil || !ans.LastReachableCheck.CheckedAt.Equal(later) {
		t.Errorf("cached live check: %s", body)
	}
}

func ptrTo[T any](v T) *T { return &v }

func TestPrecheckErrors(t *testing.T) {
	f := sharedReadFixture(t)
	fixed := time.Now()
	ts := f.newServer(t, Config{Now: func() time.Time { return fixed }})
	for _, tc := range []struct{ url, want string }{
		{"", "url is required"},
		{"ftp://shop.test/", "only http and https"},
		{"http://10.0.0.1/", "private"},
		{"http://127.0.0.1/", "loopback"},
		{"http://[::1]/", "loopback"},
		{"http://localhost/", "loopback"},
		{"javascript:alert(1)", "http"},
	} {
		resp, body := ts.get(t, "/api/precheck?url="+tc.url)
		if resp.StatusCode != 400 || errorCode(t, body) != "invalid_request" || !strings.Contains(body, tc.want) {
			t.Errorf("url %q: %d %s, want 400 mentioning %q", tc.url, resp.StatusCode, body, tc.want)
		}
		if resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("url %q: an error is cacheable: %q", tc.url, resp.Header.Get("Cache-Control"))
		}
	}
	// 60 a minute per network: 7 used above, 53 more pass, the next is 429.
	for i := 0; i < 53; i++ {
		if resp, body := ts.get(t, "/api/precheck?url=nowhere.test"); resp.StatusCode != 200 {
			t.Fatalf("request %d: %d %s", i+8, resp.StatusCode, body)
		}
	}
	resp, body := ts.get(t, "/api/precheck?url=nowhere.test")
	if resp.StatusCode != 429 || errorCode(t, body) != "rate_limited" || resp.Header.Get("Retry-After") == "" {
		t.Errorf("61st request: %d %s", resp.StatusCode, body)
	}
	// Another network still gets answers.
	tp := f.newServer(t, Config{TrustProxy: true, Now: func() time.Time { return fixed }})
	for i := 0; i < 60; i++ {
		tp.get(t, "/api/precheck?url=nowhere.test", "X-Forwarded-For", "203.0.113.7")
	}
	if resp, _ := tp.get(t, "/api/precheck?url=nowhere.test", "X-Forwarded-For", "203.0.113.7"); resp.StatusCode != 429 {
		t.Errorf("network A, 61st: %d", resp.StatusCode)
	}
	if resp, _ := tp.get(t, "/api/precheck?url=nowhere.test", "X-Forwarded-For", "198.51.100.9"); resp.StatusCode != 200 {
		t.Errorf("network B: %d", resp.StatusCode)
	}
	// No snapshot: 503.
	empty := newTestServer(t, Config{})
	if resp, body := empty.get(t, "/api/precheck?url=shop.test"); resp.StatusCode != 503 || errorCode(t, body) != "unavailable" {
		t.Errorf("no snapshot: %d %s", resp.StatusCode, body)
	}
}

// TestPrecheckStats counts every precheck answered (spec 2.3: per request,
// in one row per host and UTC day), leaves internal agents out, keeps no
// address or user agent, and loses no count in a restart.
func TestPrecheckStats(t *testing.T) {
	f := sharedReadFixture(t)
	dir := t.TempDir()
	f.writeTreeTo(t, dir)
	ts := f.newServer(t, Config{DataDir: dir})
	a, b := f.world.Stores[0].Host, f.world.Stores[1].Host
	const ua = "TestAgent/7.1 (precheck-stats)"
	for _, q := range []struct{ host, ua string }{
		{a, ua}, {a, ua}, {"www." + a, ua}, {b, ua}, {"nowhere.test", ua},
		{f.world.Stores[2].Host, "SVC-monitor-internal/1.0"}, {f.world.Stores[3].Host, "svc-probe-internal"},
	} {
		if resp, body := ts.get(t, "/api/precheck?url="+q.host, "User-Agent", q.ua); resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", q.host, resp.StatusCode, body)
		}
	}
	stats := func(ts *testServer) PrecheckStats {
		t.Helper()
		var st PrecheckStats
		resp, body := ts.getJSON(t, "/api/precheck/stats", &st)
		if resp.StatusCode != 200 {
			t.Fatalf("stats: %d %s", resp.StatusCode, body)
		}
		hasKeys(t, "stats", body, "checks_served")
		return st
	}
	if st := stats(ts); st.ChecksServed != 5 || st.Today != 5 || st.Since == nil {
		t.Errorf("stats %+v, want 5 prechecks (a three times with its www twin, b, nowhere.test)", st)
	}
	ts.ts.Close()
	ts.Close()
	// Close wrote the counts: a record per host and day, not per request.
	var rows []string
	err := inbox.DirReader(filepath.Join(dir, "state")).Records(context.Background(), inbox.TypePrecheckRow, time.Time{}, func(r inbox.Record) error {
		var pr inbox.PrecheckRow
		if err := json.Unmarshal(r.Data, &pr); err != nil {
			return err
		}
		rows = append(rows, fmt.Sprintf("%s=%d", pr.Host, pr.N))
		return nil
	})
	want := []string{a + "=3", b + "=1", "nowhere.test=1"}
	sort.Strings(rows)
	sort.Strings(want)
	if err != nil || fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("precheck records %v %v, want %s", rows, err, want)
	}
	// A restart replays the rows.
	ts2 := f.newServer(t, Config{DataDir: dir})
	if st := stats(ts2); st.ChecksServed != 5 {
		t.Errorf("after a restart: %+v, want 5", st)
	}
	ts2.ts.Close()
	ts2.Close()
	// The next UTC day has rows of its own.
	ts3 := f.newServer(t, Config{DataDir: dir, Now: func() time.Time { return time.Now().Add(24 * time.Hour) }})
	ts3.get(t, "/api/precheck?url="+a, "User-Agent", ua)
	if st := stats(ts3); st.ChecksServed != 6 || st.Today != 1 {
		t.Errorf("next day: %+v, want 6 prechecks, 1 today", st)
	}
	// Nothing about the caller reaches the state log.
	logs, _ := filepath.Glob(filepath.Join(dir, "state", "log", "*"))
	for _, p := range logs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, leak := range []string{"127.0.0.1", "TestAgent", "SVC-monitor", "precheck-stats"} {
			if strings.Contains(string(b), leak) {
				t.Errorf("state log %s holds %q", p, leak)
			}
		}
	}
}

func TestReportCheckout(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	post := func(body string) (int, string) {
		resp, err := http.Post(ts.ts.URL+reportPath, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := post(`{"host":"shop.test","outcome":"checkout_reached","agent":"Test Agent"}`)
	if code != 201 || !strings.Contains(body, `"ok":true`) || !strings.Contains(body, `"outcome":"checkout_reached"`) {
		t.Errorf("report: %d %s", code, body)
	}
	for _, tc := range []struct {
		body string
		code int
	}{
		{`{"host":"shop.test","outcome":"bought"}`, 400},
		{`{"outcome":"no_cart"}`, 400},
		{`{"host":"10.0.0.1","outcome":"no_cart"}`, 400},
		{`not json`, 400},
		{`{"host":"shop.test","outcome":"no_cart","agent":"` + strings.Repeat("x", 9000) + `"}`, 413},
	} {
		if code, body := post(tc.body); code != tc.code {
			t.Errorf("%.60s: %d %s, want %d", tc.body, code, body, tc.code)
		}
	}
	saved := quotaReports.Max
	quotaReports.Max = 2
	defer func() { quotaReports.Max = saved }()
	post(`{"host":"shop.test","outcome":"no_cart"}`)
	if code, body := post(`{"host":"shop.test","outcome":"no_cart"}`); code != 429 {
		t.Errorf("over the report limit: %d %s", code, body)
	}
}
