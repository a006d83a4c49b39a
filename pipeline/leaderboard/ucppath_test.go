package leaderboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"svc/fixtures"
	"svc/pipeline/fetch"
	"svc/pipeline/httpsig"
	"svc/pipeline/steplog"
	"svc/pipeline/ucp"
)

// ucpWorld serves the fixture world and keeps the server, whose record of
// UCP operations holds the complete trap. svc's platform profile, with the
// public key of key, is served on svc-agent.test, as the demo does.
type ucpWorld struct {
	w      *fixtures.World
	srv    *fixtures.Server
	client *fetch.Client
	ucp    *ucp.Validator
	key    *httpsig.Key
}

// testAgentProfile is where the fixture world serves svc's profile.
const testAgentProfile = "https://svc-agent.test" + AgentProfilePath

// startUCPWorld serves the default fixture world with the UCP schema files
// when ../shared holds them, else without (as a clone from GitHub runs):
// the path's outcomes are the same either way (agent-path/4).
func startUCPWorld(t *testing.T) *ucpWorld {
	return startUCPWorldWith(t, fixtures.DefaultStores, fixtures.UCPSchemaDir() != "")
}

func startUCPWorldN(t *testing.T, stores int) *ucpWorld {
	return startUCPWorldWith(t, stores, fixtures.UCPSchemaDir() != "")
}

// startUCPWorldWith serves a world of the given size. With schemas the
// validator compiles ../shared/ucp/schema (the test skips when it is
// absent); without, it has no schema folder, an empty cache and never
// fetches ucp.dev: what a fresh clone's `svc demo` has offline, every
// profile it reads being valid, invalid by a rule, or unvalidated.
func startUCPWorldWith(t *testing.T, stores int, schemas bool) *ucpWorld {
	t.Helper()
	dir := ""
	if schemas {
		if dir = fixtures.UCPSchemaDir(); dir == "" {
			t.Skip("../shared/ucp/schema not found: this test runs the path with the schema files")
		}
	}
	key, err := httpsig.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	w := fixtures.Generate(1, stores)
	srv, err := fixtures.NewServer(w, fixtures.ServerOptions{Slow: 8 * time.Second,
		UCP: map[string][]byte{"svc-agent.test": PlatformProfileWithKeys(key.PublicJWK())}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ucp.New(context.Background(), ucp.Config{SchemaDir: dir, Client: client, CacheDir: t.TempDir(), Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	return &ucpWorld{w: w, srv: srv, client: client, ucp: v, key: key}
}

// signed are the options of a path that signs with the key the served
// profile publishes, as svc does.
func (uw *ucpWorld) signed(transport string) RunOptions {
	return RunOptions{Client: uw.client, UCP: uw.ucp, UCPTransport: transport, AgentProfile: testAgentProfile, AgentKey: uw.key}
}

// leaks lists what a step log must never hold: session ids, the continue
// and checkout URLs the fixture service sends, the item ids.
func leaks(log []steplog.Step) []string {
	b, _ := json.Marshal(log)
	s := string(b)
	var out []string
	for _, bad := range []string{"chk_", "cart_", "continue", "/checkouts/", "/cart/c/", "checkout_url", "key=fixture", "gid://"} {
		if strings.Contains(s, bad) {
			out = append(out, bad)
		}
	}
	return out
}

// TestUCPPathOverFixtureWorld is the table test of issue 21: every store of
// the fixture world that is a shop, over each binding, gets its known
// outcome, reason and UCP error code, the path signing its requests with
// the key its profile publishes (the stores that demand signatures verify
// them); no step log holds an id or a continue URL; and no request ever
// completed a checkout or carried payment (the trap). It runs with the
// UCP schema files (skipped without ../shared); the same truth holds
// without them (TestUCPPathWithoutSchemaFiles).
func TestUCPPathOverFixtureWorld(t *testing.T) {
	if testing.Short() {
		t.Skip("serves the fixture world")
	}
	testUCPPathOverWorld(t, startUCPWorldWith(t, fixtures.DefaultStores, true))
}

// TestUCPPathWithoutSchemaFiles (issue 35.3): over the fixture world
// without the UCP JSON Schema files, as a clone from GitHub has it, the
// path is measured (attempted) at every store whose profile it can use,
// and its outcomes are the fixture truth, which knows nothing of schema
// files: validity is a finding in the step log, never a gate. The stores
// the validator calls unvalidated or invalid are many (the world is built
// so), and they are driven to their binding like the rest.
func TestUCPPathWithoutSchemaFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("serves the fixture world")
	}
	uw := startUCPWorldWith(t, fixtures.DefaultStores, false)
	rows := testUCPPathOverWorld(t, uw)
	verdicts := map[string]int{}
	for _, r := range rows {
		if r.transport != "rest" {
			continue
		}
		want := r.want
		if want.Outcome == OutcomeNotAttempted && want.Reason != "not_a_store" {
			t.Errorf("%s: the truth has the path not attempted [%s] at a store", r.st.Host, want.Reason)
		}
		if r.got.Outcome == OutcomeNotAttempted && r.got.Reason != "not_a_store" {
			t.Errorf("%s: not_attempted [%s] without the schema files\nlog: %+v", r.st.Host, r.got.Reason, r.got.Log)
		}
		for _, s := range r.got.Log {
			if s.Action == "read_profile" {
				verdicts[strings.TrimPrefix(s.Note, "profile ")]++
			}
		}
		// A profile the validator could not call valid was still driven
		// past it, and the step log says what the report found.
		if slices.ContainsFunc(r.got.Log, func(s steplog.Step) bool {
			return s.Action == "read_profile" && (s.Note == "profile unvalidated" || s.Note == "profile invalid")
		}) && !slices.ContainsFunc(r.got.Log, func(s steplog.Step) bool {
			return s.Action == "validate_profile" && strings.Contains(s.Note, "not a gate")
		}) {
			t.Errorf("%s: no validate_profile step names the findings: %+v", r.st.Host, r.got.Log)
		}
	}
	// The run had no schemas: most readable profiles are unvalidated, and
	// those sessions are created all the same.
	if verdicts[ucp.VerdictUnvalidated] < 20 || verdicts[ucp.VerdictValid] != 0 {
		t.Errorf("read_profile verdicts %v: want many unvalidated and none valid without the schema files", verdicts)
	}
	reachedUnvalidated := slices.ContainsFunc(rows, func(r *ucpRow) bool {
		return r.got.Outcome == OutcomeCheckoutReached && slices.ContainsFunc(r.got.Log, func(s steplog.Step) bool {
			return s.Action == "read_profile" && s.Note == "profile unvalidated"
		})
	})
	if !reachedUnvalidated {
		t.Error("no checkout session was created at a store whose profile is unvalidated")
	}
}

// ucpRow is one store and binding of the world's table test.
type ucpRow struct {
	st        *fixtures.Store
	transport string
	want      fixtures.UCPPathTruth
	got       PathResult
}

// testUCPPathOverWorld runs the path at every store of uw over each
// binding, holds it to fixtures.Store.UCPPath and to what it must never
// do, and returns the rows.
func testUCPPathOverWorld(t *testing.T, uw *ucpWorld) []*ucpRow {
	t.Helper()
	type row = ucpRow
	var rows []*row
	for i := range uw.w.Stores {
		st := &uw.w.Stores[i]
		for _, tr := range []string{"rest", "mcp"} {
			rows = append(rows, &row{st: st, transport: tr, want: st.UCPPath(tr)})
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for _, r := range rows {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			res, err := RunPathLog(context.Background(), uw.signed(r.transport), PathUCP, "https://"+r.st.Host)
			if err != nil {
				t.Errorf("%s: %v", r.st.Host, err)
			}
			r.got = res
		}()
	}
	wg.Wait()
	reached := map[string]int{}
	kinds := map[string]bool{}
	for _, r := range rows {
		name := fmt.Sprintf("%s/%s %v", r.st.Host, r.transport, r.st.Traits)
		if r.got.Outcome != r.want.Outcome || (r.want.Reason != "" && r.got.Reason != r.want.Reason) {
			t.Errorf("%s: got %s [%s], want %s [%s]\nlog: %+v", name, r.got.Outcome, r.got.Reason, r.want.Outcome, r.want.Reason, r.got.Log)
			continue
		}
		if r.want.Code != "" && !slices.ContainsFunc(r.got.Log, func(s steplog.Step) bool { return slices.Contains(s.Codes, r.want.Code) }) {
			t.Errorf("%s: no step shows the UCP code %s: %+v", name, r.want.Code, r.got.Log)
		}
		if strings.Contains(r.got.Reason, ":") {
			t.Errorf("%s: reason %q holds a colon: a reason code is a fixed word", name, r.got.Reason)
		}
		if l := leaks(r.got.Log); len(l) > 0 {
			t.Errorf("%s: the step log leaks %v: %+v", name, l, r.got.Log)
		}
		for i, s := range r.got.Log {
			if s.N != i+1 {
				t.Errorf("%s: step %d numbered %d", name, i+1, s.N)
			}
		}
		if r.got.Outcome == OutcomeCheckoutReached {
			reached[r.transport]++
		}
		for _, tr := range r.st.Traits {
			if strings.HasPrefix(tr, "ucp_shop:") && r.got.Reason == r.want.Reason {
				kinds[tr+" "+r.want.Reason] = true
			}
		}
	}
	// The world is not all failures or all successes: both bindings
	// create sessions, and every failure kind is met.
	if reached["rest"] < 10 || reached["mcp"] < 2 {
		t.Errorf("checkout sessions created: %v, want many over REST and some over MCP", reached)
	}
	for _, want := range []string{"ucp_buyer_auth_required", "ucp_version_unsupported", "ucp_checkout_refused",
		"ucp_binding_timeout", "ucp_binding_unreachable", "ucp_transport_not_declared", "ucp_no_product_source",
		"ucp_no_usable_binding", "ucp_profile_invalid", "ucp_no_shopping_service"} {
		if !slices.ContainsFunc(rows, func(r *row) bool { return r.got.Reason == want }) {
			t.Errorf("no store ended with %s", want)
		}
	}

	// The trap: never a complete, never payment data.
	if traps := uw.srv.UCPTraps(); len(traps) != 0 {
		t.Errorf("the UCP path set the trap: %+v", traps)
	}
	// The store that demands signatures created its session: the
	// signatures verified.
	if !slices.ContainsFunc(rows, func(r *row) bool {
		return slices.Contains(r.st.Traits, "ucp_shop:signature_required") && r.got.Outcome == OutcomeCheckoutReached
	}) {
		t.Error("no store that demands signatures created a session")
	}
	// Every operation carried the agent profile and a signature; every
	// REST request a request id; every state-changing one an idempotency
	// key. Every created session was cancelled.
	// UCP-Agent names the version the path speaks: the one the store's
	// profile declares (a business refuses a newer one).
	created, cancelled := 0, 0
	for _, op := range uw.srv.UCPOps() {
		if op.Agent == "" && op.Op != "initialize" {
			t.Errorf("%s %s %s: no UCP-Agent profile", op.Host, op.Transport, op.Op)
		}
		if st, ok := uw.w.Lookup(op.Host); ok && op.Op != "initialize" && st.Expect.UCPProfile.Version != nil &&
			op.AgentVersion != *st.Expect.UCPProfile.Version {
			t.Errorf("%s %s %s: UCP-Agent version %q, the profile declares %s", op.Host, op.Transport, op.Op, op.AgentVersion, *st.Expect.UCPProfile.Version)
		}
		if !op.Signed {
			t.Errorf("%s %s %s: not signed", op.Host, op.Transport, op.Op)
		}
		if op.Transport == "rest" && !op.RequestID {
			t.Errorf("%s rest %s: no Request-Id", op.Host, op.Op)
		}
		mutating := op.Op == "create_cart" || op.Op == "create_checkout" || op.Op == "cancel_checkout"
		if mutating && !op.IdempotencyKey {
			t.Errorf("%s %s %s: no idempotency key", op.Host, op.Transport, op.Op)
		}
		switch op.Session {
		case "created":
			created++
		case "canceled":
			cancelled++
		}
	}
	if created == 0 || created != cancelled {
		t.Errorf("%d sessions created, %d cancelled: every one must be cancelled", created, cancelled)
	}
	// Hosting and schema defects are findings, not gates: a store whose
	// profile breaks a hosting rule (Cache-Control) or a spec rule gets a
	// session like any other.
	for _, trait := range []string{"ucp:bad_cache_no_store", "ucp:invalid:ucp.keys.location", "ucp:redirect"} {
		if !slices.ContainsFunc(rows, func(r *row) bool {
			return slices.Contains(r.st.Traits, trait) && r.got.Outcome == OutcomeCheckoutReached
		}) {
			t.Errorf("no store with %s created a session", trait)
		}
	}
	return rows
}

// TestUCPTrapRecordsComplete proves the trap can fire: a complete call and
// a body with payment data are recorded, so an empty record means neither
// happened.
func TestUCPTrapRecordsComplete(t *testing.T) {
	uw := startUCPWorld(t)
	var host string
	for _, st := range uw.w.Stores {
		if st.UCPPathAs("rest", fixtures.UCPAgentUnsigned).Outcome == OutcomeCheckoutReached {
			host = st.Host
			break
		}
	}
	if host == "" {
		t.Fatal("no store where the REST path creates a session")
	}
	ctx := context.Background()
	h := http.Header{"UCP-Agent": {`profile="https://agent.example/profile"`}, "Content-Type": {"application/json"}}
	for _, req := range []fetch.Request{
		{Method: http.MethodPost, URL: "https://" + host + "/ucp/v1/checkout-sessions/chk_0123456789ab_X/complete", Header: h, Body: []byte(`{}`)},
		{Method: http.MethodPost, URL: "https://" + host + "/ucp/v1/checkout-sessions", Header: h,
			Body: []byte(`{"line_items":[{"item":{"id":"X"},"quantity":1}],"payment":{"instruments":[{"type":"card"}]}}`)},
	} {
		if _, err := uw.client.Do(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	traps := uw.srv.UCPTraps()
	if len(traps) != 2 || traps[0].Trap != "complete_checkout" || traps[1].Trap != "payment" {
		t.Errorf("traps = %+v, want complete_checkout then payment", traps)
	}
}

// TestUCPFixtureRefusesNewerVersion: a fixture business refuses an agent
// that names a newer protocol version than its profile's, as the UCP
// authors' REST sample does (its src/index.ts version middleware), so the
// world holds the path to the version it names.
func TestUCPFixtureRefusesNewerVersion(t *testing.T) {
	uw := startUCPWorld(t)
	var st *fixtures.Store
	for i := range uw.w.Stores {
		s := &uw.w.Stores[i]
		if s.UCPPathAs("rest", fixtures.UCPAgentUnsigned).Outcome == OutcomeCheckoutReached {
			st = s
			break
		}
	}
	if st == nil {
		t.Fatal("no store where the REST path creates a session")
	}
	for _, c := range []struct {
		version string
		status  int
	}{{"2027-01-15", 422}, {*st.Expect.UCPProfile.Version, 201}, {"2026-01-11", 201}} {
		h := http.Header{"UCP-Agent": {`profile="https://agent.example/profile", version="` + c.version + `"`}, "Content-Type": {"application/json"}}
		resp, err := uw.client.Do(context.Background(), fetch.Request{Method: http.MethodPost, URL: "https://" + st.Host + "/ucp/v1/checkout-sessions",
			Header: h, Body: []byte(`{"line_items":[{"item":{"id":"none"},"quantity":1}]}`)})
		if err != nil {
			t.Fatal(err)
		}
		refused := strings.Contains(string(resp.Body), "version_unsupported")
		if refused != (c.status == 422) || c.status == 422 && resp.StatusCode != 422 {
			t.Errorf("version %s: %d %s", c.version, resp.StatusCode, resp.Body)
		}
	}
}

// TestUCPPathNeverCompletes holds the drivers to their list: complete is
// no operation of either binding, whatever a store's tool list offers.
func TestUCPPathNeverCompletes(t *testing.T) {
	rest := &ucpREST{run: &ucpRun{}}
	mcp := &ucpMCP{run: &ucpRun{}, tools: map[string]bool{"complete_checkout": true, "create_checkout": true}}
	for _, d := range []ucpDriver{rest, mcp} {
		if d.offers("complete_checkout") {
			t.Errorf("%T offers complete_checkout", d)
		}
		if a := d.do(context.Background(), "complete_checkout", "chk_1", nil); a.failure == "" {
			t.Errorf("%T performed complete_checkout: %+v", d, a)
		}
	}
}

// Cases ported from the official specification's examples
// (github.com/Universal-Commerce-Protocol/ucp, docs/specification/
// overview/index.md "Error Codes" / "Transport Bindings",
// shopping/checkout/rest.md "Error Response", identity-linking
// "identity_required"): each answer body and status maps to the path's
// reason.
func TestUCPAnswersFromSpecExamples(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		rpc    string
		body   string
		want   string
	}{
		{"REST version unsupported (overview Transport Bindings)", 422, "",
			`{"code":"version_unsupported","content":"Protocol version 2026-01-12 is not supported.","continue_url":"https://merchant.com/cart"}`, "ucp_version_unsupported"},
		{"REST discovery failure 424 (overview Transport Bindings)", 424, "",
			`{"code":"profile_unreachable","content":"Unable to fetch agent profile: connection timeout","continue_url":"https://merchant.com/cart"}`, "ucp_agent_profile_refused"},
		{"REST unauthorized without body (overview Transport Bindings)", 401, "", ``, "ucp_buyer_auth_required"},
		{"REST rate limit (overview Transport Bindings)", 429, "", ``, "throttled"},
		{"create checkout, all items out of stock (checkout rest.md Error Response)", 200, "",
			`{"ucp":{"version":"2026-01-11","status":"error"},"messages":[{"type":"error","code":"out_of_stock","content":"All requested items are currently out of stock","severity":"unrecoverable"}],"continue_url":"https://merchant.com/"}`, "ucp_checkout_refused"},
		{"capabilities incompatible (overview Transport Bindings)", 200, "",
			`{"ucp":{"version":"2026-08-25","status":"error","capabilities":{}},"messages":[{"type":"error","code":"capabilities_incompatible","content":"No compatible capabilities in the intersection","severity":"unrecoverable"}],"continue_url":"https://merchant.com"}`, "ucp_checkout_refused"},
		{"identity_required (identity-linking Error Handling)", 401, "",
			`{"messages":[{"type":"error","code":"identity_required","content":"User identity is required to access order history.","severity":"requires_buyer_review"}]}`, "ucp_buyer_auth_required"},
		{"MCP version unsupported (overview Transport Bindings)", 200, "error -32001",
			`{"code":"version_unsupported","content":"Protocol version 2026-01-12 is not supported."}`, "ucp_version_unsupported"},
		{"MCP unauthorized (overview Transport Bindings)", 200, "error -32000", ``, "ucp_checkout_refused"},
		{"REST signature_invalid (signatures.md REST Error Response)", 401, "",
			`{"code":"signature_invalid","content":"Request signature verification failed for key kid=platform-2026"}`, "ucp_signature_rejected"},
		{"MCP signature_invalid (signatures.md MCP Error Response)", 200, "error -32000",
			`{"code":"signature_invalid","content":"Signature verification failed for key kid=platform-2026"}`, "ucp_signature_rejected"},
		{"REST signature_missing (overview Error Codes, 401)", 401, "", `{"code":"signature_missing","content":"Signature required"}`, "ucp_signature_required"},
		{"REST key_not_found (overview Error Codes, 401)", 401, "", `{"code":"key_not_found","content":"kid=platform-2026"}`, "ucp_signature_rejected"},
		{"REST digest_mismatch (overview Error Codes, 400)", 400, "", `{"code":"digest_mismatch","content":"digest"}`, "ucp_signature_rejected"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := ucpAnswer{status: c.status, rpc: c.rpc}
			if c.body != "" {
				if err := json.Unmarshal([]byte(c.body), &a.body); err != nil {
					t.Fatal(err)
				}
				a.codes = codesOf(a.body)
			}
			r := &ucpRun{ops: 3}
			res, stop := r.failed(a, "ucp_checkout_refused")
			if !stop || res.Reason != c.want {
				t.Errorf("reason %q (stop %v), want %q", res.Reason, stop, c.want)
			}
		})
	}
	// The spec's create checkout answer (checkout rest.md "Create
	// Checkout", 201 with status incomplete) is a created session.
	var created map[string]any
	_ = json.Unmarshal([]byte(`{"ucp":{"version":"2026-08-25","capabilities":{"dev.ucp.shopping.checkout":[{"version":"2026-08-25"}]}},"id":"chk_1234567890","status":"incomplete","messages":[{"type":"error","code":"missing","path":"$.buyer.email","content":"Buyer email is required","severity":"recoverable"}],"currency":"USD"}`), &created)
	if a := (ucpAnswer{status: 201, body: created, codes: codesOf(created)}); !a.ok() || !slices.Equal(a.codes, []string{"missing"}) {
		t.Errorf("the spec's created checkout: ok %v codes %v", a.ok(), a.codes)
	}
}

// TestNegotiate ports the version rules of overview "Protocol Version":
// the newest mutual version, from version or supported_versions keys. The
// path speaks every published release (UCPVersions), so a business on an
// older one is spoken to in its own; a release svc does not know is no
// mutual version.
func TestNegotiate(t *testing.T) {
	for _, c := range []struct {
		version   string
		supported map[string]string
		want      string
	}{
		{"2026-08-25", nil, "2026-08-25"},
		{"2026-04-08", nil, "2026-04-08"},
		{"2026-01-23", nil, "2026-01-23"},
		{"2026-01-11", nil, "2026-01-11"},
		{"2027-01-15", map[string]string{"2026-08-25": "https://shop.example/.well-known/ucp/2026-08-25"}, "2026-08-25"},
		// The spec's example: both releases are spoken, the newer wins.
		{"2026-01-23", map[string]string{"2026-01-11": "https://business.example.com/.well-known/ucp/2026-01-11"}, "2026-01-23"},
		{"2027-01-15", nil, ""},
		{"2026-02-01", nil, ""}, // a date between releases is no release
	} {
		var d ucpDoc
		d.UCP.Version, d.UCP.SupportedVersions = c.version, c.supported
		if got := negotiate(d); got != c.want {
			t.Errorf("negotiate(%s, %v) = %q, want %q", c.version, c.supported, got, c.want)
		}
	}
}
