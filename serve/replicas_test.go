package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"svc/pipeline/inbox"
	"svc/pipeline/inbox/pgtest"
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

	// Precheck rows: one per host and UTC day, whichever replica served it.
	for _, ts := range []*testServer{a, b, a} {
		ts.countPrecheck("p.example")
	}
	b.countPrecheck("q.example")
	for _, ts := range []*testServer{a, b} {
		resp, body := ts.get(t, "/api/precheck/stats")
		var st PrecheckStats
		if json.Unmarshal([]byte(body), &st); resp.StatusCode != http.StatusOK || st.ChecksServed != 2 || st.Today != 2 || st.Since == nil {
			t.Fatalf("precheck stats: %d %s, want 2 rows today", resp.StatusCode, body)
		}
	}
}
