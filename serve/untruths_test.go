package serve

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"svc/fixtures"
	"svc/pipeline/check"
	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
)

// TestUnreachableStoreAnswers is issue 16, item 7 as a user meets it: a
// live check of a store that cannot be reached at all (the connection is
// refused), then its store card and precheck. Unreachable is the finding;
// no robots.txt was read, so no agent is disallowed and no blocker says
// robots.txt disallows anyone; no UCP profile was read, so valid is null.
func TestUnreachableStoreAnswers(t *testing.T) {
	f := sharedReadFixture(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	client, err := fetch.New(fetch.Options{FixtureAddr: closed, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ucp.New(context.Background(), ucp.Config{Client: client, CacheDir: t.TempDir(), Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := f.newServer(t, Config{Engine: check.New(check.Options{Client: client, UCP: v}), UCP: v})
	const host = "gone-away.test"
	resp, body := ts.get(t, "/api/agent-checkout?url=https://"+host+"/")
	if resp.StatusCode != 200 {
		t.Fatalf("live check: %d %s", resp.StatusCode, body)
	}
	if strings.Contains(body, `"disallowed"`) || !strings.Contains(body, `"status":"unreachable"`) {
		t.Errorf("live check of an unreachable store: %s", body)
	}
	var card StoreCard
	_, body = ts.getJSON(t, "/api/store?host="+host, &card)
	if card.Robots == nil || card.Robots.Status == nil || *card.Robots.Status != check.RobotsUnreachable {
		t.Fatalf("store card robots: %s", body)
	}
	for a, verdict := range card.Robots.Agents {
		if verdict != nil {
			t.Errorf("store card: %s is %q, want null (no robots.txt was read)", a, *verdict)
		}
	}
	if u := card.Checks.UCPProfile; u.Valid != nil || u.Status == nil || *u.Status != "unreachable" {
		t.Errorf("store card UCP profile: valid %v status %v, want null and unreachable", u.Valid, u.Status)
	}
	if r := card.Checks.Reachability; r.Reachable == nil || *r.Reachable {
		t.Errorf("store card reachability: %s", body)
	}
	pre, body := precheckOf(t, ts, host)
	codes := map[string]bool{}
	for _, b := range pre.Blockers {
		codes[b.Code] = true
		if strings.Contains(b.Message, "robots.txt") {
			t.Errorf("precheck blocker about robots.txt, which was never read: %+v", b)
		}
	}
	if !codes["unreachable"] || codes["robots_disallows_agents"] {
		t.Errorf("precheck blockers %v, want unreachable and no robots blocker: %s", codes, body)
	}
	_, page := ts.get(t, "/stores/"+host+"/")
	if strings.Contains(page, "robots.txt disallows") || strings.Contains(page, "<code>robots_disallows_agents</code>") {
		t.Errorf("the store page invents a robots blocker")
	}
}

// TestRobotsBlockerWords: the robots blocker says what robots.txt did. A
// file that disallows the agents: "disallows"; a 5xx, which RFC 9309
// reads as complete disallow: says so; unreachable or unmeasured: none.
func TestRobotsBlockerWords(t *testing.T) {
	verdicts := func(v string) func(string) string { return func(string) string { return v } }
	for _, tc := range []struct {
		status, verdict, want string
	}{
		{"ok", "disallowed", "robots.txt disallows ChatGPT-User, Claude-User, Perplexity-User at /."},
		{"error", "disallowed", "robots.txt answered a server error"},
		{"unreachable", "disallowed", ""}, // a row written before verdicts were nulled
		{"not_checked", "disallowed", ""},
		{"ok", "allowed", ""},
		{"unreachable", "", ""},
	} {
		got := robotsBlocker(tc.status, verdicts(tc.verdict))
		if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
			t.Errorf("robots %s, verdicts %s: %q, want %q", tc.status, tc.verdict, got, tc.want)
		}
	}
}

// TestThrottledCatalogFix is issue 16, item 8: a store whose catalog
// answered empty with throttle signals gets the fix for it, not "nothing
// to fix", and precheck's catalog_throttled blocker agrees with it.
func TestThrottledCatalogFix(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	n := 0
	for _, st := range f.world.Stores {
		if !hasTrait(st, "catalog:throttled") || st.Source == fixtures.SourceOptedOut {
			continue
		}
		n++
		pre, body := precheckOf(t, ts, st.Host)
		throttled := false
		for _, b := range pre.Blockers {
			throttled = throttled || b.Code == "catalog_throttled"
		}
		var card StoreCard
		ts.getJSON(t, "/api/store?host="+st.Host, &card)
		fix := card.Checks.Fix.Code
		if !throttled || fix == nil || *fix == "none" {
			t.Errorf("%s %v: blockers %+v, fix %v", st.Host, st.Traits, pre.Blockers, fix)
			continue
		}
		// The fix is the throttle's unless one of higher priority applies.
		if *fix != st.Expect.Fix.Code || (st.Expect.Fix.Code != fixtures.FixUnthrottleCatalog && st.Expect.Fix.Code != fixtures.FixUCPProfile) {
			t.Errorf("%s: fix %s, want %s: %s", st.Host, *fix, st.Expect.Fix.Code, body)
		}
	}
	if n < 3 {
		t.Errorf("only %d throttled stores in the fixture world", n)
	}
}
