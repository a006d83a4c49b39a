package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/pipeline/inbox"
	"svc/pipeline/inbox/pgtest"
	"svc/pipeline/leaderboard"
)

// twoReplicas starts two servers, each with its own data folder, sharing
// one PostgreSQL database, as two replicas behind a load balancer would.
func twoReplicas(t *testing.T, cfg Config) (a, b *testServer) {
	t.Helper()
	cfg.State, cfg.TrustProxy = pgtest.URL(t), true
	ca, cb := cfg, cfg
	ca.DataDir, cb.DataDir = t.TempDir(), t.TempDir()
	return newTestServer(t, ca), newTestServer(t, cb)
}

// TestReplicasPublishOneKey: replicas sharing a database publish one
// signing key, the one the pipeline reads from that database.
func TestReplicasPublishOneKey(t *testing.T) {
	a, b := twoReplicas(t, Config{})
	_, pa := a.get(t, "/.well-known/ucp")
	_, pb := b.get(t, "/.well-known/ucp")
	if pa != pb || !strings.Contains(pa, `"keys"`) {
		t.Fatalf("the replicas publish different profiles:\n%s\n%s", pa, pb)
	}
	key, err := leaderboard.LoadAgentKey(context.Background(), "", a.cfg.State)
	if err != nil {
		t.Fatal(err)
	}
	if pa != string(leaderboard.PlatformProfileWithKeys(key.PublicJWK())) {
		t.Errorf("the pipeline's key %s is not the one the replicas publish: %s", key.KeyID(), pa)
	}
}

func getAs(t *testing.T, ts *testServer, path, addr string) (int, string) {
	t.Helper()
	resp, body := ts.get(t, path, "X-Forwarded-For", addr)
	return resp.StatusCode, body
}

func TestReplicasShareFreshCheckQuota(t *testing.T) {
	world, eng, v := fixtureEngine(t)
	a, b := twoReplicas(t, Config{Engine: eng, UCP: v})
	if a.state.Key("x") != b.state.Key("x") {
		t.Fatal("the replicas key networks with different secrets")
	}
	// Ten fresh checks a day per network: five on each replica.
	for i := range quotaFreshChecks.Max {
		ts := []*testServer{a, b}[i%2]
		if code, body := getAs(t, ts, "/api/agent-checkout?url="+world.Stores[i].Host, "198.51.100.7"); code != 200 {
			t.Fatalf("fresh check %d: %d %s", i+1, code, body)
		}
	}
	for _, ts := range []*testServer{a, b} {
		code, body := getAs(t, ts, "/api/agent-checkout?url="+world.Stores[20].Host, "198.51.100.7")
		if code != 429 || errorCode(t, body) != "rate_limited" {
			t.Fatalf("11th fresh check of one network across replicas: %d %s", code, body)
		}
	}
	// Another network still has its quota.
	if code, body := getAs(t, b, "/api/agent-checkout?url="+world.Stores[20].Host, "198.51.100.8"); code != 200 {
		t.Fatalf("another network: %d %s", code, body)
	}
}

func TestReplicasShareCheckCacheAndClaim(t *testing.T) {
	world, eng, v := fixtureEngine(t)
	a, b := twoReplicas(t, Config{Engine: eng, UCP: v})
	host := world.Stores[0].Host
	var ans CheckAnswer
	code, body := getAs(t, a, "/api/agent-checkout?url="+host, "198.51.100.1")
	if json.Unmarshal([]byte(body), &ans); code != 200 || ans.Cached {
		t.Fatalf("first check on a: %d %s", code, body)
	}
	checked := ans.CheckedAt
	code, body = getAs(t, b, "/api/agent-checkout?url="+host, "198.51.100.2")
	ans = CheckAnswer{}
	if json.Unmarshal([]byte(body), &ans); code != 200 || !ans.Cached || !ans.CheckedAt.Equal(checked) {
		t.Fatalf("b did not serve a's check from the cache: %d %s", code, body)
	}
	// A check running on a answers 429 check_in_progress on b.
	other := world.Stores[1].Host
	release, ok, err := a.claim(context.Background(), other)
	if err != nil || !ok {
		t.Fatal("claim", ok, err)
	}
	code, body = getAs(t, b, "/api/agent-checkout?url="+other, "198.51.100.2")
	if code != 429 || errorCode(t, body) != "check_in_progress" {
		t.Fatalf("b checked a host a is checking: %d %s", code, body)
	}
	release()
	if code, body = getAs(t, b, "/api/agent-checkout?url="+other, "198.51.100.2"); code != 200 {
		t.Fatalf("after a's claim ended: %d %s", code, body)
	}
}

func TestReplicasShareSubmissionsAndPrecheckRows(t *testing.T) {
	world, client := fixtureClient(t)
	a, b := twoReplicas(t, Config{Client: client})
	var healthy []string
	for _, st := range world.Stores {
		if out, _ := expectedOutcome(st); out == OutcomeAccepted && !hasTrait(st, "block:") {
			healthy = append(healthy, st.Host)
		}
	}
	post := func(ts *testServer, hosts ...string) StoreSubmitResult {
		t.Helper()
		body, _ := json.Marshal(StoreSubmission{Hosts: hosts})
		code, resp := ts.postJSON(t, "/api/stores/submit", "203.0.113.4", string(body))
		var res StoreSubmitResult
		if json.Unmarshal([]byte(resp), &res); code != 200 {
			t.Fatalf("submit: %d %s", code, resp)
		}
		return res
	}
	if res := post(a, healthy[0]); res.Accepted != 1 {
		t.Fatalf("a: %+v", res)
	}
	res := post(b, healthy[0], "www."+healthy[0], healthy[1])
	got := map[string]string{}
	for _, r := range res.Results {
		got[r.Host] = r.Outcome
	}
	want := map[string]string{healthy[0]: OutcomeAlreadyListed, "www." + healthy[0]: OutcomeAlreadyListed, healthy[1]: OutcomeAccepted}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("b's outcomes %v, want %v", got, want)
	}
	// The pipeline reads both replicas' submissions from the same store.
	var hosts []string
	err := b.state.Records(context.Background(), inbox.TypeStoreSubmission, a.now(), func(r inbox.Record) error {
		var s inbox.StoreSubmission
		if err := json.Unmarshal(r.Data, &s); err != nil {
			return err
		}
		for _, h := range s.Hosts {
			hosts = append(hosts, h.Host)
		}
		return nil
	})
	if err != nil || strings.Join(hosts, " ") != healthy[0]+" "+healthy[1] {
		t.Fatalf("submission records: %v %v", hosts, err)
	}

	// No client address reaches the database: quota rows are keyed by the
	// HMAC of the network.
	conn, err := pgx.Connect(context.Background(), a.cfg.State)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, table := range []string{"records", "quota_counts", "submitted_hosts", "live_checks", "precheck_rows"} {
		var dump string
		if err := conn.QueryRow(context.Background(), "SELECT coalesce(string_agg(t::text, ' '), '') FROM "+table+" t").Scan(&dump); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(dump, "203.0.113") || strings.Contains(dump, "127.0.0.1") {
			t.Errorf("table %s holds a client address: %s", table, dump)
		}
		if table == "quota_counts" && !strings.Contains(dump, a.state.Key("203.0.113.4")) {
			t.Errorf("quota rows are not keyed by the network's HMAC: %s", dump)
		}
	}

	// Prechecks are counted per request, in one row per host and UTC day,
	// whichever replica served them: each replica sees its own counts at
	// once and the other's once both have synced.
	for _, ts := range []*testServer{a, b, a} {
		ts.countPrecheck("p.example")
	}
	b.countPrecheck("q.example")
	stats := func(ts *testServer) PrecheckStats {
		t.Helper()
		resp, body := ts.get(t, "/api/precheck/stats")
		var st PrecheckStats
		if err := json.Unmarshal([]byte(body), &st); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("precheck stats: %d %s", resp.StatusCode, body)
		}
		return st
	}
	if st := stats(a); st.ChecksServed != 2 || st.Today != 2 {
		t.Fatalf("a before syncing: %+v, want its own 2", st)
	}
	a.sync(context.Background())
	b.sync(context.Background())
	for _, ts := range []*testServer{a, b} {
		if st := stats(ts); st.ChecksServed != 4 || st.Today != 4 || st.Since == nil {
			t.Fatalf("precheck stats %+v, want 4 prechecks today", st)
		}
	}
	var rows int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM precheck_rows").Scan(&rows); err != nil || rows != 2 {
		t.Fatalf("precheck rows %d %v, want one per host and day (2)", rows, err)
	}
}

// What one replica accepts, the other lists within one sync (Config.Sync):
// a leaderboard run on the board, a live check on the store card and the
// precheck.
func TestReplicasListWhatTheOtherAccepted(t *testing.T) {
	f := sharedReadFixture(t)
	_, eng, v := fixtureEngine(t)
	a, b := twoReplicas(t, Config{Engine: eng, UCP: v, Sync: time.Hour}) // synced by hand below
	for _, ts := range []*testServer{a, b} {
		f.writeTreeTo(t, ts.dir)
		if err := ts.Reload(); err != nil {
			t.Fatal(err)
		}
	}
	code, body := a.postJSON(t, "/api/leaderboard/submit", "198.51.100.20", mustJSON(t, run(t, 12)))
	if code != 201 {
		t.Fatalf("submit on a: %d %s", code, body)
	}
	var rc LeaderboardReceipt
	if err := json.Unmarshal([]byte(body), &rc); err != nil {
		t.Fatal(err)
	}
	host := f.world.Stores[0].Host
	var ans CheckAnswer
	if code, body := getAs(t, a, "/api/agent-checkout?url="+host, "198.51.100.1"); code != 200 || json.Unmarshal([]byte(body), &ans) != nil {
		t.Fatalf("live check on a: %d %s", code, body)
	}
	card := func(ts *testServer) StoreCard {
		t.Helper()
		var c StoreCard
		if resp, body := ts.getJSON(t, "/api/store?host="+host, &c); resp.StatusCode != 200 {
			t.Fatalf("store card: %d %s", resp.StatusCode, body)
		}
		return c
	}
	if c := card(a); c.LiveCheck == nil || !c.LiveCheck.CheckedAt.Equal(ans.CheckedAt) {
		t.Fatalf("a's own card lacks its live check: %+v", c.LiveCheck)
	}
	if _, body := b.get(t, "/api/leaderboard"); len(unverifiedRuns(t, body)) != 0 {
		t.Fatal("b listed a's run before syncing: the test shows nothing")
	}
	if c := card(b); c.LiveCheck != nil {
		t.Fatal("b showed a's live check before syncing: the test shows nothing")
	}
	b.sync(context.Background())
	if _, body := b.get(t, "/api/leaderboard"); len(unverifiedRuns(t, body)) != 1 || unverifiedRuns(t, body)[0].ID != rc.ID {
		t.Errorf("b does not list the run a accepted: %.400s", body)
	}
	if c := card(b); c.LiveCheck == nil || !c.LiveCheck.CheckedAt.Equal(ans.CheckedAt) {
		t.Errorf("b's card lacks a's live check: %+v", c.LiveCheck)
	}
	var pa PrecheckAnswer
	if resp, body := b.getJSON(t, "/api/precheck?url="+host, &pa); resp.StatusCode != 200 || pa.LastReachableCheck == nil || !pa.LastReachableCheck.CheckedAt.Equal(ans.CheckedAt) {
		t.Errorf("b's precheck does not show a's live check (%s) as lastReachableCheck: %d %.300s", ans.CheckedAt, resp.StatusCode, body)
	}
	// Syncing again lists nothing twice; a lists its run once too.
	b.sync(context.Background())
	a.sync(context.Background())
	for _, ts := range []*testServer{a, b} {
		if _, body := ts.get(t, "/api/leaderboard"); len(unverifiedRuns(t, body)) != 1 {
			t.Errorf("after syncing again: %d runs listed", len(unverifiedRuns(t, body)))
		}
	}
}
