package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/datasets"
	"svc/fixtures"
	"svc/pipeline"
	"svc/pipeline/fetch"
	"svc/pipeline/inbox"
)

// fixtureClient starts the fixture world and returns a safe client that
// reaches it (1 s per request, so the world's slow stores time out).
func fixtureClient(t *testing.T) (*fixtures.World, *fetch.Client) {
	t.Helper()
	world := fixtures.Generate(1, fixtures.DefaultStores)
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{Slow: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM(), Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return world, client
}

// writeStoresTable writes the stores table of a version folder as the
// snapshot publishes it.
func writeStoresTable(t *testing.T, dir, version string, hosts ...string) {
	t.Helper()
	var rows []datasets.Row
	for _, h := range hosts {
		rows = append(rows, datasets.Row{h, "Name", "home", "seed", nil, nil, nil})
	}
	c, err := datasets.FromRows(datasets.Stores, rows)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := datasets.WriteParquet(&buf, c); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "public", "data", version, "stores.parquet"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// postJSON posts body to path as the network addr (X-Forwarded-For; the
// test servers trust it).
func (ts *testServer) postJSON(t *testing.T, path, addr, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, ts.ts.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if addr != "" {
		req.Header.Set("X-Forwarded-For", addr)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func hasTrait(st fixtures.Store, prefix string) bool {
	for _, tr := range st.Traits {
		if strings.HasPrefix(tr, prefix) {
			return true
		}
	}
	return false
}

// expectedOutcome is what a submission of a fixture store must give, from
// the traits the generator gave it.
func expectedOutcome(st fixtures.Store) (outcome, reason string) {
	switch {
	case hasTrait(st, "parked:"):
		return OutcomeRejected, ReasonParked
	case hasTrait(st, "redirect:other_brand"):
		return OutcomeRejected, ReasonOtherBrand
	case hasTrait(st, "unreachable:"):
		return OutcomeRejected, ReasonUnreachable
	}
	return OutcomeAccepted, "" // bot walls included: a store is there
}

func TestSubmitStoresOutcomes(t *testing.T) {
	world, client := fixtureClient(t)
	dir := t.TempDir()
	writeTree(t, dir, "2026-11-16", nil)
	listed := world.Stores[0].Host
	writeStoresTable(t, dir, "2026-11-16", listed, "www."+world.Stores[1].Host)
	ts := newTestServer(t, Config{DataDir: dir, Client: client, TrustProxy: true})

	// One request with one store of each kind: every gate of the world,
	// a few bot walls, same-brand redirects, a single-page app, healthy
	// stores, a listed store and its twin, and entries that are no hosts.
	var hosts []string
	want := map[string]HostResult{}
	add := func(st fixtures.Store) {
		if _, ok := want[st.Host]; ok || len(hosts) == 40 {
			return
		}
		out, reason := expectedOutcome(st)
		hosts = append(hosts, "https://"+strings.ToUpper(st.Host)+"/some/product")
		want[st.Host] = HostResult{Host: st.Host, Outcome: out, Reason: reason}
	}
	walls := 0
	for _, st := range world.Stores[2:] {
		if hasTrait(st, "block:") && walls < 3 {
			walls++
			add(st)
		}
		for _, p := range []string{"parked:", "redirect:", "unreachable:", "soft404:"} {
			if hasTrait(st, p) {
				add(st)
			}
		}
	}
	for _, st := range world.Stores[2:] {
		if out, _ := expectedOutcome(st); out == OutcomeAccepted && !hasTrait(st, "block:") {
			add(st)
		}
	}
	hosts = append(hosts, listed, world.Stores[1].Host, "nosuchstore.test", listed)
	want[listed] = HostResult{Host: listed, Outcome: OutcomeAlreadyListed}
	want[world.Stores[1].Host] = HostResult{Host: world.Stores[1].Host, Outcome: OutcomeAlreadyListed}
	want["nosuchstore.test"] = HostResult{Host: "nosuchstore.test", Outcome: OutcomeRejected, Reason: ReasonNotAStore}
	invalid := []string{"http://10.0.0.1/", "192.0.2.7", "localhost", "intranet", "ftp://shop.example/", "not a host"}
	hosts = append(hosts, invalid...)
	body, _ := json.Marshal(StoreSubmission{Hosts: hosts, Category: " Pets "})
	code, resp := ts.postJSON(t, "/api/stores/submit", "198.51.100.1", string(body))
	if code != 200 {
		t.Fatalf("submit: %d %s", code, resp)
	}
	var res StoreSubmitResult
	if err := json.Unmarshal([]byte(resp), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != len(want)+len(invalid) {
		t.Errorf("%d results for %d distinct entries", len(res.Results), len(want)+len(invalid))
	}
	counts := map[string]int{}
	var accepted []string
	for i, r := range res.Results {
		counts[r.Outcome]++
		if i >= len(res.Results)-len(invalid) {
			if r.Outcome != OutcomeRejected || r.Reason != ReasonInvalidHost || r.Message == "" {
				t.Errorf("entry %q: %+v, want rejected invalid_host with a message", invalid[i-(len(res.Results)-len(invalid))], r)
			}
			continue
		}
		w, ok := want[r.Host]
		if !ok {
			t.Errorf("unexpected result %+v", r)
			continue
		}
		if r.Outcome != w.Outcome || r.Reason != w.Reason {
			t.Errorf("%s: %s %s (%s), want %s %s", r.Host, r.Outcome, r.Reason, r.Message, w.Outcome, w.Reason)
		}
		if r.Outcome == OutcomeRejected && r.Message == "" {
			t.Errorf("%s: rejected without a message", r.Host)
		}
		if r.Outcome == OutcomeAccepted {
			accepted = append(accepted, r.Host)
		}
	}
	if res.Accepted != counts[OutcomeAccepted] || res.AlreadyListed != counts[OutcomeAlreadyListed] ||
		res.Rejected != counts[OutcomeRejected] || res.Limited != 0 || res.Accepted < 10 || res.Rejected < 10 {
		t.Errorf("counts %d/%d/%d/%d, outcomes %v", res.Accepted, res.AlreadyListed, res.Rejected, res.Limited, counts)
	}
	for _, reason := range []string{ReasonParked, ReasonOtherBrand, ReasonUnreachable, ReasonNotAStore, ReasonInvalidHost} {
		if !strings.Contains(resp, `"reason":"`+reason+`"`) {
			t.Errorf("no host was rejected as %s", reason)
		}
	}

	// The accepted hosts are in the state log with the category, for the
	// next crawl, and are listed from now on, also after a restart.
	stores, err := pipeline.ReadSubmittedStores(context.Background(), inbox.DirReader(filepath.Join(dir, "state")), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range stores {
		got = append(got, s.Host)
		if s.Source != "submitted" || s.Category != "pets" {
			t.Errorf("state: %+v", s)
		}
	}
	if diff := cmp.Diff(accepted, got); diff != "" {
		t.Errorf("accepted hosts in the state log (-want +got):\n%s", diff)
	}
	ts.ts.Close()
	ts.Close()
	ts = newTestServer(t, Config{DataDir: dir, Client: client, TrustProxy: true})
	body, _ = json.Marshal(StoreSubmission{URL: accepted[0], Hosts: []string{"www." + accepted[1]}})
	_, resp = ts.postJSON(t, "/api/stores/submit", "198.51.100.2", string(body))
	res = StoreSubmitResult{}
	json.Unmarshal([]byte(resp), &res)
	if res.AlreadyListed != 2 || len(res.Results) != 2 {
		t.Errorf("after a restart: %s", resp)
	}
}

func TestSubmitStoresLimits(t *testing.T) {
	world, client := fixtureClient(t)
	ts := newTestServer(t, Config{DataDir: t.TempDir(), Client: client, TrustProxy: true})
	var healthy []string
	for _, st := range world.Stores {
		if out, _ := expectedOutcome(st); out == OutcomeAccepted && !hasTrait(st, "block:") {
			healthy = append(healthy, st.Host)
		}
	}
	// A network with 198 of its 200 daily host checks used: two hosts are
	// checked, the rest come back limited, already listed ones still say so.
	caller := ts.state.Key("203.0.113.9")
	if n := ts.limits.takeUpTo(caller, 198, quotaStoreHosts); n != 198 {
		t.Fatalf("took %d", n)
	}
	body, _ := json.Marshal(StoreSubmission{Hosts: healthy[:5]})
	code, resp := ts.postJSON(t, "/api/stores/submit", "203.0.113.9", string(body))
	var res StoreSubmitResult
	json.Unmarshal([]byte(resp), &res)
	if code != 200 || res.Accepted != 2 || res.Limited != 3 {
		t.Fatalf("over the host quota: %d %s", code, resp)
	}
	for _, r := range res.Results[2:] {
		if r.Outcome != OutcomeLimited || r.Reason != ReasonDailyLimit || !strings.Contains(r.Message, "00:00 UTC") {
			t.Errorf("limited host: %+v", r)
		}
	}
	body, _ = json.Marshal(StoreSubmission{Hosts: healthy[:3]})
	_, resp = ts.postJSON(t, "/api/stores/submit", "203.0.113.9", string(body))
	res = StoreSubmitResult{}
	json.Unmarshal([]byte(resp), &res)
	if res.AlreadyListed != 2 || res.Limited != 1 {
		t.Errorf("listed hosts need no quota: %s", resp)
	}
	// The site-wide host quota limits every network.
	if n := ts.limits.takeUpTo("anyone", quotaSiteSubHosts.Max, quotaSiteSubHosts); n != quotaSiteSubHosts.Max-2 {
		t.Fatalf("site quota took %d", n)
	}
	body, _ = json.Marshal(StoreSubmission{URL: healthy[6]})
	_, resp = ts.postJSON(t, "/api/stores/submit", "203.0.113.10", string(body))
	if !strings.Contains(resp, `"limited":1`) {
		t.Errorf("site-wide limit: %s", resp)
	}

	// 20 requests a day per network; the 21st is a 429, whatever it holds.
	for i := range quotaStoreSubmits.Max {
		if code, resp := ts.postJSON(t, "/api/stores/submit", "192.0.2.50", `{"url":"`+world.Stores[0].Host+`"}`); code != 200 {
			t.Fatalf("request %d: %d %s", i+1, code, resp)
		}
	}
	code, resp = ts.postJSON(t, "/api/stores/submit", "192.0.2.50", `{"url":"`+world.Stores[0].Host+`"}`)
	if code != 429 || errorCode(t, resp) != "rate_limited" {
		t.Errorf("21st request: %d %s", code, resp)
	}
	// Another network is not limited by it.
	if code, _ := ts.postJSON(t, "/api/stores/submit", "192.0.2.51", `{"url":"`+world.Stores[0].Host+`"}`); code != 200 {
		t.Errorf("other network: %d", code)
	}
}

func TestSubmitStoresBadRequests(t *testing.T) {
	_, client := fixtureClient(t)
	ts := newTestServer(t, Config{DataDir: t.TempDir(), Client: client})
	many := make([]string, 51)
	for i := range many {
		many[i] = fmt.Sprintf("s%d.example", i)
	}
	manyBody, _ := json.Marshal(StoreSubmission{Hosts: many})
	fifty, _ := json.Marshal(StoreSubmission{URL: "a.example", Hosts: many[:50]})
	for _, tc := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"empty object", `{}`, 400, "no stores"},
		{"empty hosts", `{"hosts":[],"url":"  "}`, 400, "no stores"},
		{"blank hosts", `{"hosts":["", " "]}`, 400, "no stores"},
		{"51 hosts", string(manyBody), 400, "the limit is 50"},
		{"url and 50 hosts", string(fifty), 400, "the limit is 50"},
		{"bad category", `{"url":"a.example","category":"cars"}`, 400, "is not one of apparel"},
		{"unknown field", `{"host":"a.example"}`, 400, `unknown field \"host\"`},
		{"hosts a string", `{"hosts":"a.example"}`, 400, "hosts has the wrong type"},
		{"not json", `a.example`, 400, "one JSON object"},
		{"two objects", `{"url":"a.example"} {}`, 400, "nothing after it"},
		{"empty body", ``, 400, "one JSON object"},
		{"too large", `{"hosts":["` + strings.Repeat("a", 200<<10) + `"]}`, 413, "larger than 128 KB"},
	} {
		code, body := ts.postJSON(t, "/api/stores/submit", "", tc.body)
		if code != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %.300s, want %d mentioning %q", tc.name, code, body, tc.status, tc.want)
		}
	}
	// Bad requests use none of the daily quota.
	if got := ts.limits.remaining(ts.state.Key("127.0.0.1"), quotaStoreSubmits); got != quotaStoreSubmits.Max {
		t.Errorf("bad requests used the quota: %d left", got)
	}
	// Without a client the endpoint is unavailable.
	ts2 := newTestServer(t, Config{DataDir: t.TempDir()})
	if code, body := ts2.postJSON(t, "/api/stores/submit", "", `{"url":"a.example"}`); code != 503 || errorCode(t, body) != "unavailable" {
		t.Errorf("no client: %d %s", code, body)
	}
	// GET is not the method.
	if resp, body := ts.get(t, "/api/stores/submit"); resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET: %d %s", resp.StatusCode, body)
	}
}

// TestSubmitStoresConcurrent sends one host from many requests at once:
// it is accepted once and the state log holds it once.
func TestSubmitStoresConcurrent(t *testing.T) {
	world, client := fixtureClient(t)
	dir := t.TempDir()
	ts := newTestServer(t, Config{DataDir: dir, Client: client, TrustProxy: true})
	host := world.Stores[3].Host
	outcomes := make(chan string, 8)
	for i := range 8 {
		go func() {
			_, resp := ts.postJSON(t, "/api/stores/submit", fmt.Sprintf("192.0.2.%d", 100+i), `{"url":"`+host+`"}`)
			var res StoreSubmitResult
			json.Unmarshal([]byte(resp), &res)
			if len(res.Results) != 1 {
				outcomes <- "bad: " + resp
				return
			}
			outcomes <- res.Results[0].Outcome
		}()
	}
	n := map[string]int{}
	for range 8 {
		n[<-outcomes]++
	}
	if n[OutcomeAccepted] != 1 || n[OutcomeAlreadyListed] != 7 {
		t.Errorf("outcomes %v, want 1 accepted and 7 already listed", n)
	}
	stores, _ := pipeline.ReadSubmittedStores(context.Background(), inbox.DirReader(filepath.Join(dir, "state")), time.Time{})
	if len(stores) != 1 {
		t.Errorf("state holds %d stores", len(stores))
	}
}

// TestSubmitStoresDirectoryFollowsSnapshot publishes a new snapshot under
// a running server: its stores are already listed from the reload on.
func TestSubmitStoresDirectoryFollowsSnapshot(t *testing.T) {
	world, client := fixtureClient(t)
	dir := t.TempDir()
	writeTree(t, dir, "2026-11-16", nil) // stores.csv only: shop.example
	ts := newTestServer(t, Config{DataDir: dir, Client: client})
	a, b := world.Stores[0].Host, world.Stores[1].Host
	_, resp := ts.postJSON(t, "/api/stores/submit", "", `{"hosts":["shop.example","`+a+`"]}`)
	if !strings.Contains(resp, `{"host":"shop.example","outcome":"already_listed"}`) || !strings.Contains(resp, `"accepted":1`) {
		t.Fatalf("first snapshot (CSV table): %s", resp)
	}
	writeTree(t, dir, "2026-11-23", nil)
	writeStoresTable(t, dir, "2026-11-23", b)
	if err := ts.Reload(); err != nil {
		t.Fatal(err)
	}
	_, resp = ts.postJSON(t, "/api/stores/submit", "", `{"hosts":["`+a+`","`+b+`"]}`)
	if !strings.Contains(resp, `"already_listed":2`) {
		t.Errorf("after the reload: %s", resp)
	}
}

// TestSubmitStoresPrecheckAtOnce: precheck sees an accepted store's
// plain-HTTP reachability as soon as the submission answers, not only
// after a restart replays the state log (issue 16, item 8).
func TestSubmitStoresPrecheckAtOnce(t *testing.T) {
	f := sharedReadFixture(t)
	// A larger world of the same seed: its first stores are the snapshot's,
	// the rest are stores the snapshot has never seen.
	world := fixtures.Generate(1, fixtures.DefaultStores+40)
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM(), Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f.writeTreeTo(t, dir)
	ts := f.newServer(t, Config{DataDir: dir, Client: client, TrustProxy: true})
	var host string
	for _, st := range world.Stores[fixtures.DefaultStores:] {
		if out, _ := expectedOutcome(st); out == OutcomeAccepted && !hasTrait(st, "block:") && st.Source == fixtures.SourceSeed {
			host = st.Host
			break
		}
	}
	if host == "" {
		t.Fatal("no healthy store outside the snapshot")
	}
	before, b := precheckOf(t, ts, host)
	if before.PrecheckFallback == nil || before.CheckedAt != nil {
		t.Fatalf("before the submission: %s", b)
	}
	code, resp := ts.postJSON(t, "/api/stores/submit", "198.51.100.9", `{"url": "https://`+host+`/"}`)
	if code != 200 || !strings.Contains(resp, `"accepted":1`) {
		t.Fatalf("submit: %d %s", code, resp)
	}
	ans, body := precheckOf(t, ts, host)
	if ans.PrecheckFallback == nil || ans.CheckedAt == nil || !slices.Equal(ans.Sources, []string{"store_submission"}) ||
		ans.Confidence != "low" || ans.Proves != proveReachable {
		t.Errorf("precheck right after the submission: %s", body)
	}
	// The same answer after a restart (the state log replayed).
	ts.ts.Close()
	ts.Close()
	ts = f.newServer(t, Config{DataDir: dir, Client: client, TrustProxy: true})
	again, body2 := precheckOf(t, ts, host)
	if again.CheckedAt == nil || ans.CheckedAt == nil || !again.CheckedAt.Equal(*ans.CheckedAt) {
		t.Errorf("after a restart: %s, before it: %s", body2, body)
	}
}
