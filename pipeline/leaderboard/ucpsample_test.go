package leaderboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
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

// The UCP authors' REST sample server (github.com/Universal-Commerce-
// Protocol/samples, commit f10fc65, rest/nodejs; UCP 2026-01-11), as the
// lab runs it behind its front on https://ucp-sample.test
// (fixtures/platforms/ucpsample): sampleBusiness ports what the path meets
// of it, from its sources, so the path is held to it without Node. The
// sample has no test files of its own; the cases come from its code:
//
//   - src/api/discovery.ts: the profile (testdata/ucp-sample-2026-01-11.json
//     is its answer, read from the running sample), capabilities an array
//     of {name, version, spec, schema}, one service object with a rest
//     member; the endpoint, a literal http://localhost:3000 there, is the
//     public https origin a deployer puts in front;
//   - src/index.ts: the version middleware (a UCP-Agent version="..." newer
//     than 2026-01-11 is 400 {"error": "Unsupported UCP version: ..."}) and
//     the routes: POST /checkout-sessions, GET and PUT
//     /checkout-sessions/:id, POST /checkout-sessions/:id/complete and
//     /cancel;
//   - src/api/checkout.ts: create needs known item ids, currency and
//     payment (the zod schema of 2026-01-11 checkout.json) and stock
//     (gardenias has none: 400 "Insufficient stock"); 201 incomplete;
//     cancel of a canceled or completed session is 409;
//   - databases/products.db: the six products.
//
// Everything else on the host is the storefront of
// fixtures/platforms/ucpsample/site/, as the front serves it.
type sampleBusiness struct {
	profile []byte
	site    http.Handler

	mu       sync.Mutex
	log      []sampleRequest
	sessions map[string]string // id -> status
	n        int
}

// sampleRequest is one request the sample received.
type sampleRequest struct {
	Method, Path, Agent string
	Signed              bool
	Body                map[string]any
}

func (r sampleRequest) String() string { return r.Method + " " + r.Path }

// sampleStock is databases/transactions.db table inventory.
var sampleStock = map[string]int{"bouquet_roses": 1000, "pot_ceramic": 2000, "bouquet_sunflowers": 500,
	"bouquet_tulips": 1500, "orchid_white": 800, "gardenias": 0}

const sampleVersion = "2026-01-11"

var sampleAgentVersion = regexp.MustCompile(`version="([^"]+)"`)

func newSampleBusiness(t *testing.T, edit func(profile map[string]any)) *sampleBusiness {
	t.Helper()
	raw, err := os.ReadFile("testdata/ucp-sample-2026-01-11.json")
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	// The deployer's one setting: the public https origin as the endpoint.
	p["ucp"].(map[string]any)["services"].(map[string]any)["dev.ucp.shopping"].(map[string]any)["rest"].(map[string]any)["endpoint"] = "https://ucp-sample.test"
	if edit != nil {
		edit(p)
	}
	b, _ := json.Marshal(p)
	return &sampleBusiness{profile: b, site: http.FileServer(http.Dir("../../fixtures/platforms/ucpsample/site")), sessions: map[string]string{}}
}

func (s *sampleBusiness) requests() []sampleRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

func (s *sampleBusiness) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if r.Body != nil {
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(r.Body)
		_ = json.Unmarshal(buf.Bytes(), &body)
	}
	s.mu.Lock()
	s.log = append(s.log, sampleRequest{Method: r.Method, Path: r.URL.Path, Agent: r.Header.Get("UCP-Agent"),
		Signed: r.Header.Get("Signature-Input") != "", Body: body})
	s.mu.Unlock()
	answer := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	// src/index.ts: the version middleware runs before every route.
	if m := sampleAgentVersion.FindStringSubmatch(r.Header.Get("UCP-Agent")); m != nil && m[1] > sampleVersion {
		answer(http.StatusBadRequest, map[string]any{"error": "Unsupported UCP version: " + m[1]})
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/.well-known/ucp":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.profile)
	case r.Method == http.MethodPost && r.URL.Path == "/checkout-sessions":
		answer(s.create(body))
	case len(parts) == 2 && parts[0] == "checkout-sessions" && r.Method == http.MethodGet:
		s.mu.Lock()
		st, ok := s.sessions[parts[1]]
		s.mu.Unlock()
		if !ok {
			answer(http.StatusNotFound, map[string]any{"detail": "Checkout session not found"})
			return
		}
		answer(http.StatusOK, map[string]any{"id": parts[1], "status": st, "ucp": map[string]any{"version": "2022-01-01", "capabilities": []any{}}})
	case len(parts) == 3 && parts[0] == "checkout-sessions" && parts[2] == "cancel" && r.Method == http.MethodPost:
		s.mu.Lock()
		defer s.mu.Unlock()
		st, ok := s.sessions[parts[1]]
		switch {
		case !ok:
			answer(http.StatusNotFound, map[string]any{"detail": "Checkout session not found"})
		case st == "completed" || st == "canceled":
			answer(http.StatusConflict, map[string]any{"detail": "Cannot cancel a " + st + " checkout session"})
		default:
			s.sessions[parts[1]] = "canceled"
			answer(http.StatusOK, map[string]any{"id": parts[1], "status": "canceled"})
		}
	case len(parts) == 3 && parts[0] == "checkout-sessions" && parts[2] == "complete":
		// The trap: the log shows it; the path must never get here.
		answer(http.StatusBadRequest, map[string]any{"detail": "Missing payment data"})
	case parts[0] == "checkout-sessions" || parts[0] == "orders" || parts[0] == "testing":
		answer(http.StatusNotFound, map[string]any{"detail": "not found"})
	default:
		s.site.ServeHTTP(w, r)
	}
}

// create is CheckoutService.createCheckout: the request schema, then
// products, then stock.
func (s *sampleBusiness) create(body map[string]any) (int, any) {
	lines, _ := body["line_items"].([]any)
	_, hasCurrency := body["currency"].(string)
	_, hasPayment := body["payment"].(map[string]any)
	if lines == nil || !hasCurrency || !hasPayment {
		return http.StatusBadRequest, map[string]any{"detail": "invalid request: line_items, currency and payment are required"}
	}
	for i, l := range lines {
		lm, _ := l.(map[string]any)
		item, _ := lm["item"].(map[string]any)
		id, _ := item["id"].(string)
		if id == "" {
			return http.StatusBadRequest, map[string]any{"detail": fmt.Sprintf("Line item %d missing product ID", i)}
		}
		stock, ok := sampleStock[id]
		if !ok {
			return http.StatusBadRequest, map[string]any{"detail": "Product " + id + " not found"}
		}
		if q, _ := lm["quantity"].(float64); float64(stock) < q {
			return http.StatusBadRequest, map[string]any{"detail": "Insufficient stock for item " + id}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	id := fmt.Sprintf("0b5e%04d-7c1d-4e2a-9f3b-5a6c7d8e9f%02d", s.n, s.n)
	s.sessions[id] = "incomplete"
	return http.StatusCreated, map[string]any{"id": id, "status": "incomplete", "currency": body["currency"],
		"ucp": map[string]any{"version": "2022-01-01", "capabilities": []any{}}, "line_items": lines, "totals": []any{}, "links": []any{}}
}

// sampleWorld serves h on ucp-sample.test (every *.test name) through the
// lab front's listener, with a client and a validator that reach it.
type sampleWorld struct {
	client *fetch.Client
	ucp    *ucp.Validator
	key    *httpsig.Key
}

func startSample(t *testing.T, h http.Handler) *sampleWorld {
	t.Helper()
	dir := fixtures.UCPSchemaDir() // "" without ../shared: the path runs all the same (agent-path/4)
	ln, ca, err := fixtures.Listen("127.0.0.1:0", 0)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	client, err := fetch.New(fetch.Options{FixtureAddr: ln.Addr().String(), FixtureCA: ca, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ucp.New(t.Context(), ucp.Config{SchemaDir: dir, Client: client, CacheDir: t.TempDir(), Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	key, err := httpsig.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return &sampleWorld{client: client, ucp: v, key: key}
}

func (sw *sampleWorld) opts() RunOptions {
	return RunOptions{Client: sw.client, UCP: sw.ucp, AgentProfile: testAgentProfile, AgentKey: sw.key}
}

// apiRequests are the requests to the sample's own API, in order.
func apiRequests(log []sampleRequest) []sampleRequest {
	var out []sampleRequest
	for _, r := range log {
		if strings.HasPrefix(r.Path, "/checkout-sessions") || strings.HasPrefix(r.Path, "/orders") {
			out = append(out, r)
		}
	}
	return out
}

// TestUCPPathAtTheUCPSample drives the path at the sample as the lab
// serves it: it reads the 2026-01-11 profile (capabilities an array), takes
// an item id from the storefront's Product JSON-LD, creates a checkout
// session speaking 2026-01-11 (UCP-Agent names it: the sample refuses a
// newer version), reads it back, cancels it, and never completes it; every
// request to the API is signed.
func TestUCPPathAtTheUCPSample(t *testing.T) {
	biz := newSampleBusiness(t, nil)
	sw := startSample(t, biz)
	res, err := RunPathLog(t.Context(), sw.opts(), PathUCP, "https://ucp-sample.test")
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != OutcomeCheckoutReached || res.Reason != "ucp_checkout_created" {
		t.Fatalf("got %s [%s], want checkout_reached [ucp_checkout_created]\nlog: %+v", res.Outcome, res.Reason, res.Log)
	}
	api := apiRequests(biz.requests())
	var seen []string
	for _, r := range api {
		seen = append(seen, r.Method+" "+regexp.MustCompile(`/[0-9a-f-]{36}`).ReplaceAllString(r.Path, "/{id}"))
		if !strings.Contains(r.Agent, `version="2026-01-11"`) || !strings.Contains(r.Agent, `profile="`+testAgentProfile+`"`) {
			t.Errorf("%s: UCP-Agent %q does not name the profile and version 2026-01-11", r, r.Agent)
		}
		if !r.Signed {
			t.Errorf("%s: not signed", r)
		}
		if strings.HasSuffix(r.Path, "/complete") {
			t.Errorf("the path called complete: %s", r)
		}
	}
	want := []string{"POST /checkout-sessions", "GET /checkout-sessions/{id}", "POST /checkout-sessions/{id}/cancel"}
	if !slices.Equal(seen, want) {
		t.Fatalf("API requests %v, want %v", seen, want)
	}
	create := api[0].Body
	line := create["line_items"].([]any)[0].(map[string]any)
	if id := line["item"].(map[string]any)["id"]; id != "bouquet_roses" || create["currency"] != "USD" {
		t.Errorf("create: item %v currency %v, want the storefront's first product bouquet_roses in USD", id, create["currency"])
	}
	if pay, _ := create["payment"].(map[string]any); len(pay) != 0 {
		t.Errorf("create sent payment data: %v", pay)
	}
	biz.mu.Lock()
	for id, st := range biz.sessions {
		if st != "canceled" {
			t.Errorf("session %s left %s", id, st)
		}
	}
	biz.mu.Unlock()
	// The port holds the sample's version rule: the version the path would
	// have named before it spoke 2026-01-11 is refused.
	resp, err := sw.client.Do(t.Context(), fetch.Request{Method: http.MethodPost, URL: "https://ucp-sample.test/checkout-sessions",
		Header: http.Header{"UCP-Agent": {`profile="` + testAgentProfile + `", version="2026-08-25"`}, "Content-Type": {"application/json"}},
		Body:   []byte(`{"line_items":[{"item":{"id":"pot_ceramic"},"quantity":1}],"currency":"USD","payment":{}}`)})
	if err != nil || resp.StatusCode != http.StatusBadRequest || !bytes.Contains(resp.Body, []byte("Unsupported UCP version: 2026-08-25")) {
		t.Errorf("the sample's version middleware: %v %v", err, resp)
	}
	if l := leaks(res.Log); len(l) > 0 {
		t.Errorf("the step log leaks %v: %+v", l, res.Log)
	}
}

// TestUCPPathSampleHomepageFails: the path reads /.well-known/ucp itself,
// so a homepage in a redirect loop does not stop it; the item then comes
// from the public catalog (products.json, as a hosted store has one).
func TestUCPPathSampleHomepageFails(t *testing.T) {
	biz := newSampleBusiness(t, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/", http.StatusFound) })
	mux.HandleFunc("/products.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"products":[{"variants":[{"id":1,"sku":"orchid_white","available":true}]}]}`))
	})
	mux.Handle("/", biz)
	sw := startSample(t, mux)
	res, err := RunPathLog(t.Context(), sw.opts(), PathUCP, "https://ucp-sample.test")
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != OutcomeCheckoutReached {
		t.Fatalf("got %s [%s], want checkout_reached past a homepage redirect loop\nlog: %+v", res.Outcome, res.Reason, res.Log)
	}
	// Without a public catalog, the storefront is the only product source:
	// no product, but no error either (the profile was read).
	biz2 := newSampleBusiness(t, nil)
	mux2 := http.NewServeMux()
	mux2.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/", http.StatusFound) })
	mux2.Handle("/", biz2)
	sw2 := startSample(t, mux2)
	res, err = RunPathLog(t.Context(), sw2.opts(), PathUCP, "https://ucp-sample.test")
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != OutcomeNoCart || res.Reason != "ucp_no_product_source" {
		t.Errorf("got %s [%s], want no_cart [ucp_no_product_source]\nlog: %+v", res.Outcome, res.Reason, res.Log)
	}
}

// TestUCPPathUnknownRelease: a business on a release svc does not know
// gets no_cart ucp_version_unknown, a reason code without a value (no
// colon), the step log naming the release, and no request to its API.
func TestUCPPathUnknownRelease(t *testing.T) {
	for _, c := range []struct {
		version string
		want    string
	}{
		{"2027-01-15", "ucp_version_unknown"},
		{"2026-02-01", "ucp_version_unknown"}, // a date between releases names none
	} {
		biz := newSampleBusiness(t, func(p map[string]any) { p["ucp"].(map[string]any)["version"] = c.version })
		sw := startSample(t, biz)
		res, err := RunPathLog(t.Context(), sw.opts(), PathUCP, "https://ucp-sample.test")
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != OutcomeNoCart || res.Reason != c.want {
			t.Errorf("%s: got %s [%s], want no_cart [%s]\nlog: %+v", c.version, res.Outcome, res.Reason, c.want, res.Log)
		}
		if !slices.ContainsFunc(res.Log, func(s steplog.Step) bool {
			return s.Action == "negotiate_version" && strings.Contains(s.Note, c.version+" is no UCP release svc knows")
		}) {
			t.Errorf("%s: no step names the release: %+v", c.version, res.Log)
		}
		if api := apiRequests(biz.requests()); len(api) != 0 {
			t.Errorf("%s: requests to the API: %v", c.version, api)
		}
	}
}

// TestUCPPathSampleEndpointNotHTTPS: the sample as installed, its profile
// naming http://localhost:3000: the path sends nothing there, says why, and
// ends no_cart ucp_no_usable_binding (the profile's one REST binding is
// one it cannot use).
func TestUCPPathSampleEndpointNotHTTPS(t *testing.T) {
	biz := newSampleBusiness(t, func(p map[string]any) {
		p["ucp"].(map[string]any)["services"].(map[string]any)["dev.ucp.shopping"].(map[string]any)["rest"].(map[string]any)["endpoint"] = "http://localhost:3000"
	})
	sw := startSample(t, biz)
	res, err := RunPathLog(t.Context(), sw.opts(), PathUCP, "https://ucp-sample.test")
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != OutcomeNoCart || res.Reason != "ucp_no_usable_binding" ||
		!slices.ContainsFunc(res.Log, func(s steplog.Step) bool { return strings.Contains(s.Note, "not https") }) {
		t.Errorf("got %s [%s]\nlog: %+v", res.Outcome, res.Reason, res.Log)
	}
	if api := apiRequests(biz.requests()); len(api) != 0 {
		t.Errorf("requests to the API: %v", api)
	}
}

// TestShoppingBindingsByRelease reads the shopping bindings of each
// release's service shape.
func TestShoppingBindingsByRelease(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		want      []binding
	}{
		{"2026-01-11: one object, a member per transport",
			`{"ucp":{"services":{"dev.ucp.shopping":{"version":"2026-01-11","spec":"https://ucp.dev/specs/shopping","rest":{"schema":"https://ucp.dev/services/shopping/openapi.json","endpoint":"https://a.test"},"mcp":{"schema":"https://x","endpoint":"https://a.test/mcp"}}}}}`,
			[]binding{{"rest", "https://a.test"}, {"mcp", "https://a.test/mcp"}}},
		{"2026-01-23 on: an array of bindings",
			`{"ucp":{"services":{"dev.ucp.shopping":[{"version":"2026-01-23","transport":"mcp","endpoint":"https://a.test/mcp"},{"transport":"rest","endpoint":"https://a.test/ucp"}]}}}`,
			[]binding{{"mcp", "https://a.test/mcp"}, {"rest", "https://a.test/ucp"}}},
		{"one binding object", `{"ucp":{"services":{"dev.ucp.shopping":{"transport":"rest","endpoint":"https://a.test"}}}}`,
			[]binding{{"rest", "https://a.test"}}},
	} {
		if got := shoppingBindings([]byte(c.doc)); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	var d ucpDoc
	_ = json.Unmarshal([]byte(`{"ucp":{"capabilities":[{"name":"dev.ucp.shopping.checkout","version":"2026-01-11"},{"name":"dev.ucp.shopping.order"}]}}`), &d)
	if caps := d.capabilities(); !caps["dev.ucp.shopping.checkout"] || !caps["dev.ucp.shopping.order"] || len(caps) != 2 {
		t.Errorf("2026-01-11 capabilities: %v", caps)
	}
	_ = json.Unmarshal([]byte(`{"ucp":{"capabilities":{"dev.ucp.shopping.cart":[{"version":"2026-04-08"}]}}}`), &d)
	if caps := d.capabilities(); !caps["dev.ucp.shopping.cart"] || len(caps) != 1 {
		t.Errorf("keyed capabilities: %v", caps)
	}
}
