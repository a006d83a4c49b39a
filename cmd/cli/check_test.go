package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/fixtures"
	"svc/pipeline/check"
	"svc/pipeline/detect"
	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
	"svc/serve"
)

// checkAPI serves the real API (serve.New) with live checks and UCP
// validation routed to the fixture world, and returns its base URL. Each
// API allows 10 fresh checks a day per network: a test checks at most ten
// hosts per API.
func checkAPI(t *testing.T, world *fixtures.World) string {
	t.Helper()
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{Slow: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM(), Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ucp.New(context.Background(), ucp.Config{SchemaDir: fixtures.UCPSchemaDir(), Client: client, CacheDir: t.TempDir(), Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := serve.New(serve.Config{DataDir: t.TempDir(), Engine: check.New(check.Options{Client: client, UCP: v}), UCP: v})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts.URL
}

// checkOracleHosts picks ten stores of the world whose known answers cover
// pass, fail and unmeasured for every check.
func checkOracleHosts(t *testing.T, w *fixtures.World) []fixtures.Store {
	t.Helper()
	var out []fixtures.Store
	out = append(out, w.Stores[0]) // every check passes
	for _, trait := range []string{
		"webmcp:none", "block:cloudflare", "unreachable:http_500", "robots:block_user_agents",
		"policy_missing:returns", "ucp:missing", "catalog:throttled", "jsonld:partial", "parked:sedo",
	} {
		out = append(out, storeWithPrefix(t, w, trait))
	}
	return out
}

// storeWithPrefix returns the first store with a trait starting with p, or
// for "webmcp:none" the first reachable store whose webmcp is false.
func storeWithPrefix(t *testing.T, w *fixtures.World, p string) fixtures.Store {
	t.Helper()
	for _, s := range w.Stores {
		if p == "webmcp:none" {
			if s.Expect.WebMCP != nil && !*s.Expect.WebMCP {
				return s
			}
			continue
		}
		for _, tr := range s.Traits {
			if strings.HasPrefix(tr, p) {
				return s
			}
		}
	}
	t.Fatalf("no store with trait %s", p)
	return fixtures.Store{}
}

// oracle is the status each check must have for a store, from the fixture
// world's known answers and the mapping documented in `svc check --help`.
func oracle(e fixtures.Expect) map[string]string {
	tri := func(b *bool) string {
		switch {
		case b == nil:
			return statusUnmeasured
		case *b:
			return statusPass
		}
		return statusFail
	}
	m := map[string]string{
		"webmcp":   tri(e.WebMCP),
		"checkout": tri(e.CartLink),
		"mcp":      tri(e.StorefrontMCP),
	}
	switch e.UCPProfile.Status {
	case "valid":
		m["ucp"] = statusPass
	case "invalid", "missing":
		m["ucp"] = statusFail
	default:
		m["ucp"] = statusUnmeasured
	}
	switch {
	case e.CatalogAnswered == nil:
		m["catalog"] = statusUnmeasured
	case !*e.CatalogAnswered:
		m["catalog"] = statusFail
	default:
		m["catalog"] = tri(e.ProductFound)
	}
	m["robots"] = statusUnmeasured
	if len(e.Robots) > 0 {
		m["robots"] = statusPass
		for _, a := range detect.AIAgents() {
			if a.Purpose == detect.PurposeUser && e.Robots[a.Token] == "disallowed" {
				m["robots"] = statusFail
			}
		}
	}
	switch pd := e.ProductData; {
	case pd == nil:
		m["product-data"] = statusUnmeasured
	case pd.Source == nil:
		m["product-data"] = statusFail
	case pd.Name && pd.Price && pd.Currency && pd.Availability && pd.GTINOrSKU && pd.Image:
		m["product-data"] = statusPass
	default:
		m["product-data"] = statusFail
	}
	switch p := e.Policies; {
	case p == nil:
		m["policies"] = statusUnmeasured
	case p.Returns && p.Shipping && p.Privacy && p.Terms:
		m["policies"] = statusPass
	default:
		m["policies"] = statusFail
	}
	return m
}

// checkDoc is the --json document as a reader sees it.
type checkDoc struct {
	Version string   `json:"version"`
	API     string   `json:"api"`
	Require []string `json:"require"`
	Hosts   []struct {
		Host   string `json:"host"`
		Passed bool   `json:"passed"`
		Checks map[string]struct {
			Status   string `json:"status"`
			Required bool   `json:"required"`
			Detail   string `json:"detail"`
		} `json:"checks"`
		SavedCheck *struct {
			CheckedAt *string `json:"checkedAt"`
			Cached    *bool   `json:"cached"`
			ResultURL *string `json:"resultUrl"`
		} `json:"savedCheck"`
		Errors []struct {
			Endpoint string `json:"endpoint"`
			Status   int    `json:"status"`
			Code     string `json:"code"`
			Message  string `json:"message"`
		} `json:"errors"`
	} `json:"hosts"`
	Passed   bool `json:"passed"`
	ExitCode int  `json:"exitCode"`
}

// TestCheckFixtureAnswers runs `svc check` against the real API over the
// fixture world: every check of every host must say what the store's known
// answers say, and the second run must reuse the saved checks.
func TestCheckFixtureAnswers(t *testing.T) {
	world := fixtures.Generate(1, fixtures.DefaultStores)
	api := checkAPI(t, world)
	stores := checkOracleHosts(t, world)
	args := []string{"check", "--api", api, "--require", "all", "--json"}
	for _, s := range stores {
		args = append(args, s.Host)
	}
	code, stdout, stderr := runSvc(t, args...)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (some checks fail)\n%s", code, stderr)
	}
	var doc checkDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("--json is not the document: %v\n%s", err, stdout)
	}
	schema := fixtures.UCPSchemaDir() != ""
	if len(doc.Hosts) != len(stores) {
		t.Fatalf("%d hosts in the document, want %d", len(doc.Hosts), len(stores))
	}
	for i, s := range stores {
		h := doc.Hosts[i]
		want := oracle(s.Expect)
		if !schema {
			// Without the UCP schemas a profile that breaks no rule is
			// unvalidated: the check cannot call it passed or failed.
			want = oracle(s.ExpectWithoutUCPSchemas())
		}
		got := map[string]string{}
		for n, c := range h.Checks {
			got[n] = c.Status
			if !c.Required || c.Detail == "" {
				t.Errorf("%s %s: required %v detail %q", s.Host, n, c.Required, c.Detail)
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (%v): statuses (-want +got):\n%s", s.Host, s.Traits, d)
		}
		if h.SavedCheck == nil || h.SavedCheck.Cached == nil || *h.SavedCheck.Cached || h.SavedCheck.CheckedAt == nil || len(h.Errors) != 0 {
			t.Errorf("%s: saved check %+v errors %+v, want a fresh check and no errors", s.Host, h.SavedCheck, h.Errors)
		}
	}
	if strings.Contains(stdout, "checkout_url") || strings.Contains(stdout, "/checkouts/") {
		t.Error("the output carries a checkout URL")
	}

	// The first store passes every check (ucp only with the schemas); a
	// second run is served from the 24-hour cache.
	require := "all"
	if !schema {
		require = strings.Join(checkNames[1:], ",")
	}
	code, stdout, stderr = runSvc(t, "check", "--api", api, "--require", require, "--json", stores[0].Host)
	json.Unmarshal([]byte(stdout), &doc)
	if code != 0 || !doc.Passed || doc.Hosts[0].SavedCheck == nil || doc.Hosts[0].SavedCheck.Cached == nil || !*doc.Hosts[0].SavedCheck.Cached {
		t.Errorf("second run: exit %d, %s\n%s", code, stdout, stderr)
	}
}

// cannedAPI is a test server with canned answers per host, for the edges
// the real API does not show on demand (429, 5xx, broken answers, slowness).
type cannedAPI struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []string // "PATH url-param user-agent"
}

const (
	cannedValid   = `{"valid":true,"declaredVersion":"2026-08-25","counts":{"errors":0,"warnings":1,"info":0},"errors":[],"source":{"type":"url","profileUrl":"https://{HOST}/.well-known/ucp","status":200},"profile":{},"schema":{"checked":true,"valid":true}}`
	cannedInvalid = `{"valid":false,"declaredVersion":"2026-08-25","counts":{"errors":5,"warnings":0,"info":0},"errors":[{"rule":"ucp.keys.shape"},{"rule":"ucp.version.format"},{"rule":"ucp.keys.shape"},{"rule":"ucp.url.spec_https"},{"rule":"ucp.extension.orphan"}],"source":{"type":"url","profileUrl":"https://{HOST}/.well-known/ucp","status":200},"profile":{"ucp":{}},"schema":{"checked":true,"valid":false}}`
	cannedWall    = `{"valid":false,"declaredVersion":null,"counts":{"errors":1,"warnings":0,"info":0},"errors":[{"rule":"ucp.http.status"}],"source":{"type":"url","profileUrl":"https://{HOST}/.well-known/ucp","status":403},"profile":null,"schema":{"checked":false,"valid":null}}`
	cannedMissing = `{"valid":false,"declaredVersion":null,"counts":{"errors":1,"warnings":0,"info":0},"errors":[],"source":{"type":"url","profileUrl":"https://{HOST}/.well-known/ucp","status":404},"profile":null,"schema":{"checked":false,"valid":null}}`
	cannedGood    = `{"url":"https://{HOST}/","host":"{HOST}","catalogAnswered":true,"productFound":true,"cartLink":true,"webmcp":true,"webmcpDetail":{"tools":["search_catalog"]},"storefrontMcp":{"detected":true,"tools":["search_catalog","update_cart"]},"robots":{"status":"ok","agents":{"GPTBot":{"verdict":"disallowed","purpose":"training"},"ChatGPT-User":{"verdict":"allowed","purpose":"user"},"Claude-User":{"verdict":"no_rule","purpose":"user"}}},"productData":{"source":"jsonld","name":"Mug","price":"12.00","currency":"EUR","availability":"InStock","gtin":null,"sku":"M1","image":"https://{HOST}/m.jpg","complete":true},"policies":{"returns":true,"shipping":true,"privacy":true,"terms":true},"blockStatus":{"blocked":false,"reason":""},"reachability":{"reachable":true,"parked":false,"redirectsToOtherBrand":false},"catalog":{"source":"storefront_mcp","products":3},"checkedAt":"2026-11-20T10:00:00Z","cached":true,"resultUrl":"/stores/{HOST}/"}`
	cannedBad     = `{"host":"{HOST}","catalogAnswered":true,"productFound":null,"cartLink":false,"webmcp":false,"webmcpDetail":{"tools":[]},"storefrontMcp":{"detected":false,"tools":[]},"robots":{"status":"ok","agents":{"Perplexity-User":{"verdict":"disallowed","purpose":"user"},"Claude-User":{"verdict":"disallowed","purpose":"user"},"ChatGPT-User":{"verdict":"allowed","purpose":"user"}}},"productData":{"source":"jsonld","name":"<b>Mug & Co</b>","price":null,"currency":"EUR","availability":"InStock","gtin":null,"sku":null,"image":"x","complete":false},"policies":{"returns":false,"shipping":true,"privacy":null,"terms":false},"blockStatus":{"blocked":false},"reachability":{"reachable":true},"catalog":{"source":"products_json|x","throttled":true},"checkedAt":"2026-11-20T10:00:00.5Z","cached":false,"resultUrl":"/stores/{HOST}/"}`
	cannedBlocked = `{"host":"{HOST}","catalogAnswered":null,"productFound":null,"cartLink":null,"webmcp":null,"storefrontMcp":{"detected":null,"tools":[]},"robots":{"status":"ok","agents":{"ChatGPT-User":{"verdict":"allowed","purpose":"user"}}},"productData":null,"policies":{"returns":null,"shipping":null,"privacy":null,"terms":null},"blockStatus":{"blocked":true,"reason":"cloudflare"},"reachability":{"reachable":true},"checkedAt":"2026-11-20T10:00:00Z","cached":true}`
	cannedParked  = `{"host":"{HOST}","webmcp":null,"robots":{"status":"not_found","agents":{"Claude-User":{"verdict":"no_rule","purpose":"user"}}},"reachability":{"reachable":true,"parked":true}}`
	cannedWeird   = `{"host":"{HOST}","webmcp":"yes","catalogAnswered":1,"cartLink":"true","storefrontMcp":[],"robots":{"status":"ok","agents":[]},"productData":"jsonld","policies":{"returns":"yes"},"reachability":{"reachable":false,"error":"tls\u0007bad\u2028line"},"checkedAt":12,"cached":"no"}`
	cannedLimited = `{"error":{"code":"rate_limited","message":"daily limit reached: 10 fresh_checks per UTC day for your network; it resets at 00:00 UTC"}}`
)

// newCannedAPI serves canned answers. The host decides the behaviour; a
// host the table does not know is "good".
func newCannedAPI(t *testing.T) *cannedAPI {
	t.Helper()
	c := &cannedAPI{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := r.URL.Query().Get("url")
		c.mu.Lock()
		c.reqs = append(c.reqs, r.URL.Path+" "+target+" "+r.Header.Get("User-Agent"))
		c.mu.Unlock()
		host := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(target, "https://"), "http://"), "/")
		validate := r.URL.Path == "/api/ucp/validate"
		if r.URL.Path != "/api/ucp/validate" && r.URL.Path != "/api/agent-checkout" {
			http.Error(w, "no such endpoint", http.StatusNotFound)
			return
		}
		answer := func(status int, body string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprint(w, strings.ReplaceAll(body, "{HOST}", host))
		}
		name := strings.SplitN(host, ".", 2)[0]
		switch {
		case name == "bad":
			answer(200, map[bool]string{true: cannedInvalid, false: cannedBad}[validate])
		case name == "blocked":
			answer(200, map[bool]string{true: cannedWall, false: cannedBlocked}[validate])
		case name == "parked":
			answer(200, map[bool]string{true: cannedMissing, false: cannedParked}[validate])
		case name == "weird":
			answer(200, map[bool]string{true: `{"valid":"true"}`, false: cannedWeird}[validate])
		case name == "limited" && !validate, name == "ucplimited" && validate:
			w.Header().Set("Retry-After", "3600")
			answer(429, cannedLimited)
		case name == "down5xx":
			answer(503, `{"error":{"code":"unavailable","message":"live checks are unavailable on this server; saved results remain readable"}}`)
		case name == "bare502":
			w.WriteHeader(502)
			fmt.Fprint(w, "<html>Bad Gateway</html>")
		case name == "notjson":
			fmt.Fprint(w, "<html>not the API</html>")
		case name == "array":
			answer(200, "[]")
		case name == "big":
			answer(200, `{"pad":"`+strings.Repeat("x", 5<<20)+`"}`)
		case name == "refused":
			answer(400, `{"error":{"code":"invalid_request","message":"invalid or unsafe store URL: loopback"}}`)
		case name == "slow":
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		case validate:
			answer(200, cannedValid)
		default:
			answer(200, cannedGood)
		}
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *cannedAPI) requests() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.reqs...)
}

// closedURL is an http URL nothing listens on.
func closedURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String()
	ln.Close()
	return u
}

// checkCase is one run of both clients. API is "canned", "closed" or ""
// (no --api flag).
type checkCase struct {
	name    string
	args    []string
	api     string
	env     map[string]string
	summary string // "file": add --summary with a fresh file; "dir": a directory
	code    int
	out     []string // substrings of stdout
	reqs    int      // API requests made; -1: do not count
}

func checkCases() []checkCase {
	return []checkCase{
		{name: "pass", args: []string{"good.test"}, api: "canned", code: 0, out: []string{"good.test: passed", "ucp           pass        yes       valid UCP profile (version 2026-08-25), 1 warning", "1 of 1 hosts passed (required: ucp, webmcp); exit 0"}, reqs: 2},
		{name: "required check fails", args: []string{"bad.test"}, api: "canned", code: 1, out: []string{"bad.test: FAILED (ucp fail, webmcp fail)", "invalid UCP profile: 5 errors (ucp.keys.shape, ucp.version.format, ucp.url.spec_https, …)"}, reqs: 2},
		{name: "failing checks not required", args: []string{"--require", "robots", "good.test", "blocked.test"}, api: "canned", code: 0, reqs: 4},
		{name: "required check unmeasured", args: []string{"blocked.test"}, api: "canned", code: 1, out: []string{"unmeasured  yes       the store blocked the check (cloudflare)", "the profile could not be read (HTTP 403)"}, reqs: 2},
		{name: "require all passes", args: []string{"--require", "all", "good.test"}, api: "canned", code: 0, out: []string{"required: ucp, webmcp, catalog, checkout, mcp, robots, product-data, policies"}},
		{name: "require all fails", args: []string{"--require=all", "good.test", "bad.test", "parked.test"}, api: "canned", code: 1, out: []string{"1 of 3 hosts passed"}},
		{name: "require none", args: []string{"--require", "none", "bad.test"}, api: "canned", code: 0, out: []string{"(required: none); exit 0"}},
		{name: "require is case and space tolerant", args: []string{"--require", " Checkout , MCP", "good.test"}, api: "canned", code: 0, out: []string{"(required: checkout, mcp)"}},
		{name: "json", args: []string{"--json", "good.test", "bad.test", "blocked.test", "parked.test"}, api: "canned", code: 1, out: []string{`"version": "svc-check/1"`, `"exitCode": 1`}},
		{name: "json=false", args: []string{"--json=false", "good.test"}, api: "canned", code: 0, out: []string{"good.test: passed"}},
		{name: "summary", args: []string{"good.test", "bad.test"}, api: "canned", summary: "file", code: 1},
		{name: "hosts reduced to scheme and host, deduplicated", args: []string{"https://GOOD.test/products/mug?x=1", "good.test.", "http://good.test:80/"}, api: "canned", code: 0, out: []string{"1 of 1 hosts passed"}, reqs: 2},
		{name: "IDN and IPv6 hosts", args: []string{"Bücher.test", "http://[::1]:8080/x", "https://[::1]:443"}, api: "canned", code: 0, out: []string{"xn--bcher-kva.test: passed", "[::1]:8080: passed", "[::1]: passed", "3 of 3 hosts passed"}, reqs: 6},
		{name: "odd types are unmeasured", args: []string{"--require", "all", "--json", "weird.test"}, api: "canned", code: 1, out: []string{`"detail": "the store could not be reached (tls bad line)"`}},
		{name: "host refused by the API", args: []string{"refused.test"}, api: "canned", code: 1, out: []string{"not checked: the API refused the host: invalid or unsafe store URL: loopback"}},
		{name: "rate limited", args: []string{"limited.test"}, api: "canned", code: 3, out: []string{"error: /api/agent-checkout: HTTP 429 rate_limited: daily limit reached"}},
		{name: "rate limited, not required", args: []string{"--require", "ucp", "limited.test"}, api: "canned", code: 0},
		{name: "validate rate limited", args: []string{"--require", "webmcp", "ucplimited.test"}, api: "canned", code: 0},
		{name: "rate limit beats network error and failure", args: []string{"bad.test", "down5xx.test", "limited.test"}, api: "canned", code: 3},
		{name: "network error beats failure", args: []string{"bad.test", "down5xx.test"}, api: "canned", code: 2},
		{name: "API 503", args: []string{"--json", "down5xx.test"}, api: "canned", code: 2, out: []string{`"code": "unavailable"`}},
		{name: "API 502 without JSON", args: []string{"bare502.test"}, api: "canned", code: 2, out: []string{"HTTP 502 http_502: the API answered HTTP 502"}},
		{name: "answer not JSON", args: []string{"notjson.test"}, api: "canned", code: 2, out: []string{"bad_answer: the API's answer is not JSON"}},
		{name: "answer not an object", args: []string{"array.test"}, api: "canned", code: 2, out: []string{"not a JSON object"}},
		{name: "answer too large", args: []string{"big.test"}, api: "canned", code: 2, out: []string{"larger than 4 MiB"}},
		{name: "timeout", args: []string{"--timeout", "0.3", "slow.test"}, api: "canned", code: 2, out: []string{"not checked: the API did not answer within 0.3 s"}, reqs: 1},
		{name: "API unreachable", args: []string{"good.test", "bad.test"}, api: "closed", code: 2, out: []string{"error: /api/agent-checkout: unreachable: could not connect to the API"}},
		{name: "API unreachable, none required", args: []string{"--require", "none", "good.test"}, api: "closed", code: 0},
		{name: "SVC_API", args: []string{"good.test"}, env: map[string]string{"SVC_API": "canned"}, code: 0, reqs: 2},
		{name: "--api beats SVC_API", args: []string{"good.test"}, api: "canned", env: map[string]string{"SVC_API": "http://127.0.0.1:1"}, code: 0, reqs: 2},
		{name: "--api with trailing slash", args: []string{"--api", "canned/", "good.test"}, code: 0, reqs: 2},

		{name: "unknown check", args: []string{"--require", "ucp,nope", "good.test"}, api: "canned", code: 64},
		{name: "all with a name", args: []string{"--require", "all,ucp", "good.test"}, api: "canned", code: 64},
		{name: "empty require", args: []string{"--require", "", "good.test"}, api: "canned", code: 64},
		{name: "no host", args: []string{"--require", "ucp"}, api: "canned", code: 64},
		{name: "bad host scheme", args: []string{"ftp://good.test/"}, api: "canned", code: 64},
		{name: "host with password", args: []string{"user:pw@good.test"}, api: "canned", code: 64},
		{name: "bad api", args: []string{"--api", "ftp://127.0.0.1/", "good.test"}, code: 64},
		{name: "api with query", args: []string{"--api", "http://127.0.0.1:8080/?x=1", "good.test"}, code: 64},
		{name: "zero timeout", args: []string{"--timeout", "0", "good.test"}, api: "canned", code: 64},
		{name: "bad timeout", args: []string{"--timeout", "soon", "good.test"}, api: "canned", code: 64},
		{name: "unknown flag", args: []string{"--nope", "good.test"}, api: "canned", code: 64},
		{name: "flag without value", args: []string{"good.test", "--require"}, api: "canned", code: 64},
		{name: "summary not writable", args: []string{"good.test"}, api: "canned", summary: "dir", code: 64},
	}
}

// TestCheckValidate captures the parsed options without running anything.
func TestCheckValidate(t *testing.T) {
	o := &checkOptions{
		hosts:   []string{"Shop.Example", "https://shop.example/p/1?x=2", "http://Other.example:8080/", "https://third.example:443/"},
		require: " MCP,ucp ,mcp",
		api:     "https://svc.example/base//",
		timeout: "2.5",
	}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%q %q %v %v", o.required, o.apiBase, o.timeoutSec, o.targets)
	want := `["ucp" "mcp"] "https://svc.example/base" 2.5 [{shop.example https://shop.example/} {other.example:8080 http://other.example:8080/} {third.example https://third.example/}]`
	if got != want {
		t.Errorf("parsed options:\n got %s\nwant %s", got, want)
	}
	for _, tc := range []checkOptions{
		{hosts: []string{"a.example"}, require: "ucp,nope", api: checkDefaultAPI, timeout: "1"},
		{hosts: []string{"a.example"}, require: "none,ucp", api: checkDefaultAPI, timeout: "1"},
		{hosts: []string{"a.example"}, require: "ucp,,webmcp", api: checkDefaultAPI, timeout: "1"},
		{hosts: []string{"a.example"}, require: "ucp", api: "127.0.0.1:8080", timeout: "1"},
		{hosts: []string{"a.example"}, require: "ucp", api: "http://user:pw@127.0.0.1:8080", timeout: "1"},
		{hosts: []string{"a.example"}, require: "ucp", api: checkDefaultAPI, timeout: "3601"},
		{hosts: []string{"a.example"}, require: "ucp", api: checkDefaultAPI, timeout: "Inf"},
		{hosts: []string{"a.example"}, require: "ucp", api: checkDefaultAPI, timeout: "-1"},
		{hosts: []string{"a b.example"}, require: "ucp", api: checkDefaultAPI, timeout: "1"},
		{hosts: []string{"https://"}, require: "ucp", api: checkDefaultAPI, timeout: "1"},
	} {
		var ue *usageError
		if err := tc.validate(); !errors.As(err, &ue) {
			t.Errorf("%+v: %v, want a usage error", tc, err)
		}
	}
}

// argv builds the arguments and environment of a case, and the summary path.
func (tc checkCase) argv(t *testing.T, canned, closed string) ([]string, []string, string) {
	sub := func(s string) string {
		s = strings.Replace(s, "canned", canned, 1)
		return strings.Replace(s, "closed", closed, 1)
	}
	var args []string
	if tc.api != "" {
		args = append(args, "--api", sub(tc.api))
	}
	for _, a := range tc.args {
		if strings.HasPrefix(a, "canned") {
			a = sub(a)
		}
		args = append(args, a)
	}
	var summary string
	switch tc.summary {
	case "file":
		summary = filepath.Join(t.TempDir(), "summary.md")
		args = append(args, "--summary", summary)
	case "dir":
		args = append(args, "--summary", t.TempDir())
	}
	var env []string
	for k, v := range tc.env {
		env = append(env, k+"="+sub(v))
	}
	return args, env, summary
}

// TestCheckGo runs every case through `svc check`.
func TestCheckGo(t *testing.T) {
	for _, tc := range checkCases() {
		t.Run(tc.name, func(t *testing.T) {
			canned := newCannedAPI(t)
			args, env, summary := tc.argv(t, canned.URL, closedURL(t))
			t.Setenv("SVC_API", "")
			for _, kv := range env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			code, stdout, stderr := runSvc(t, append([]string{"check"}, args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			for _, s := range tc.out {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			reqs := canned.requests()
			if tc.code == 64 && len(reqs) != 0 {
				t.Errorf("a usage error made %d API requests", len(reqs))
			}
			if tc.reqs > 0 && len(reqs) != tc.reqs {
				t.Errorf("%d API requests, want %d: %q", len(reqs), tc.reqs, reqs)
			}
			for _, r := range reqs {
				if !strings.HasSuffix(r, " "+checkUserAgent) || !regexp.MustCompile(`^/api/(ucp/validate|agent-checkout) https?://[a-z0-9.:\[\]-]+/ `).MatchString(r) {
					t.Errorf("request %q: want an endpoint, url=scheme://host/ and the User-Agent %s", r, checkUserAgent)
				}
			}
			if tc.code == 2 || tc.code == 3 {
				if !strings.Contains(stderr, "svc check: ") {
					t.Errorf("stderr does not name the failed request:\n%s", stderr)
				}
			}
			if summary != "" {
				b, err := os.ReadFile(summary)
				if err != nil || !strings.HasPrefix(string(b), "### svc check: 1 of 2 hosts passed\n\n| host | result | ucp |") ||
					!strings.Contains(string(b), "| bad.test | ❌ failed | **❌ fail** | **❌ fail** |") {
					t.Errorf("summary: %v\n%s", err, b)
				}
				// A second run appends.
				runSvc(t, append([]string{"check"}, args...)...)
				b2, _ := os.ReadFile(summary)
				if string(b2) != string(b)+string(b) {
					t.Errorf("the second run did not append the same summary:\n%s", b2)
				}
			}
		})
	}
}

// TestCheckJSONShape pins the --json document: field order and the values
// of one passing and one failing host.
func TestCheckJSONShape(t *testing.T) {
	canned := newCannedAPI(t)
	code, stdout, _ := runSvc(t, "check", "--api", canned.URL, "--json", "--require", "ucp,checkout", "good.test", "limited.test")
	if code != 3 {
		t.Fatalf("exit %d, want 3", code)
	}
	want := `{
  "version": "svc-check/1",
  "api": "` + canned.URL + `",
  "require": [
    "ucp",
    "checkout"
  ],
  "hosts": [
    {
      "host": "good.test",
      "passed": true,
      "checks": {
        "ucp": {
          "status": "pass",
          "required": true,
          "detail": "valid UCP profile (version 2026-08-25), 1 warning"
        },
        "webmcp": {
          "status": "pass",
          "required": false,
          "detail": "WebMCP tools in the server HTML: search_catalog"
        },
        "catalog": {
          "status": "pass",
          "required": false,
          "detail": "catalog answered (storefront_mcp), product found"
        },
        "checkout": {
          "status": "pass",
          "required": true,
          "detail": "the cart returned a checkout link (a boolean; the URL is never kept)"
        },
        "mcp": {
          "status": "pass",
          "required": false,
          "detail": "storefront MCP endpoint answered (2 tools)"
        },
        "robots": {
          "status": "pass",
          "required": false,
          "detail": "user-initiated AI agents allowed: ChatGPT-User, Claude-User"
        },
        "product-data": {
          "status": "pass",
          "required": false,
          "detail": "complete product data (jsonld)"
        },
        "policies": {
          "status": "pass",
          "required": false,
          "detail": "returns, shipping, privacy and terms pages found"
        }
      },
      "savedCheck": {
        "checkedAt": "2026-11-20T10:00:00Z",
        "cached": true,
        "resultUrl": "/stores/good.test/"
      },
      "errors": []
    },
    {
      "host": "limited.test",
      "passed": false,
      "checks": {
        "ucp": {
          "status": "pass",
          "required": true,
          "detail": "valid UCP profile (version 2026-08-25), 1 warning"
        },
        "webmcp": {
          "status": "unmeasured",
          "required": false,
          "detail": "not checked: rate limited by the API: daily limit reached: 10 fresh_checks per UTC day for your network; it resets at 00:00 UTC"
        },
        "catalog": {
          "status": "unmeasured",
          "required": false,
          "detail": "not checked: rate limited by the API: daily limit reached: 10 fresh_checks per UTC day for your network; it resets at 00:00 UTC"
        },
        "checkout": {
          "status": "unmeasured",
          "required": true,
          "detail": "not checked: rate limited by the API: daily limit reached: 10 fresh_checks per UTC day for your network; it resets at 00:00 UTC"
        },
        "mcp": {
          "status": "unmeasured",
          "required": false,
          "detail": "not checked: rate limited by the API: daily limit reached: 10 fresh_checks per UTC day for your network; it resets at 00:00 UTC"
        },
        "robots": {
          "status": "unmeasured",
          "required": false,
          "detail": "not checked: rate limited by the API: daily limit reached: 10 fresh_checks per UTC day for your network; it resets at 00:00 UTC"
        },
        "product-data": {
          "status": "unmeasured",
          "required": false,
          "detail": "not checked: rate limited by the API: daily limit reached: 10 fresh_checks per UTC day for your network; it resets at 00:00 UTC"
        },
        "policies": {
          "status": "unmeasured",
          "required": false,
          "detail": "not checked: rate limited by the API: daily limit reached: 10 fresh_checks per UTC day for your network; it resets at 00:00 UTC"
        }
      },
      "savedCheck": null,
      "errors": [
        {
          "endpoint": "/api/agent-checkout",
          "status": 429,
          "code": "rate_limited",
          "message": "daily limit reached: 10 fresh_checks per UTC day for your network; it resets at 00:00 UTC"
        }
      ]
    }
  ],
  "passed": false,
  "exitCode": 3
}
`
	if d := cmp.Diff(want, stdout); d != "" {
		t.Errorf("--json (-want +got):\n%s", d)
	}
}

// TestCheckDetails pins the detail of every rule of the mapping that the
// fixture world does not show: the canned bad, blocked, parked and weird
// hosts.
func TestCheckDetails(t *testing.T) {
	canned := newCannedAPI(t)
	_, stdout, _ := runSvc(t, "check", "--api", canned.URL, "--json", "bad.test", "blocked.test", "parked.test", "weird.test")
	var doc checkDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, h := range doc.Hosts {
		for n, c := range h.Checks {
			got[h.Host+" "+n] = c.Status + ": " + c.Detail
		}
	}
	want := map[string]string{
		"bad.test ucp":              "fail: invalid UCP profile: 5 errors (ucp.keys.shape, ucp.version.format, ucp.url.spec_https, …)",
		"bad.test webmcp":           "fail: no WebMCP in the server HTML",
		"bad.test catalog":          "unmeasured: catalog answered (products_json|x) but throttled; no product seen",
		"bad.test checkout":         "fail: no checkout link from the cart",
		"bad.test mcp":              "fail: no storefront MCP endpoint",
		"bad.test robots":           "fail: robots.txt disallows Claude-User, Perplexity-User",
		"bad.test product-data":     "fail: incomplete product data (jsonld): no price, gtin or sku",
		"bad.test policies":         "fail: no policy page found for returns, terms",
		"blocked.test ucp":          "unmeasured: the profile could not be read (HTTP 403)",
		"blocked.test webmcp":       "unmeasured: the store blocked the check (cloudflare)",
		"blocked.test catalog":      "unmeasured: the store blocked the check (cloudflare)",
		"blocked.test checkout":     "unmeasured: the store blocked the check (cloudflare)",
		"blocked.test mcp":          "unmeasured: the store blocked the check (cloudflare)",
		"blocked.test robots":       "pass: user-initiated AI agents allowed: ChatGPT-User",
		"blocked.test product-data": "unmeasured: the store blocked the check (cloudflare)",
		"blocked.test policies":     "unmeasured: the store blocked the check (cloudflare)",
		"parked.test ucp":           "fail: no UCP profile at https://parked.test/.well-known/ucp (HTTP 404)",
		"parked.test webmcp":        "unmeasured: the host is a parked domain",
		"parked.test catalog":       "unmeasured: the host is a parked domain",
		"parked.test checkout":      "unmeasured: the host is a parked domain",
		"parked.test mcp":           "unmeasured: the host is a parked domain",
		"parked.test robots":        "pass: no robots.txt: no restrictions",
		"parked.test product-data":  "unmeasured: the host is a parked domain",
		"parked.test policies":      "unmeasured: the host is a parked domain",
		"weird.test ucp":            "unmeasured: the validation report has no verdict",
		"weird.test webmcp":         "unmeasured: the store could not be reached (tls bad line)",
		"weird.test catalog":        "unmeasured: the store could not be reached (tls bad line)",
		"weird.test checkout":       "unmeasured: the store could not be reached (tls bad line)",
		"weird.test mcp":            "unmeasured: the store could not be reached (tls bad line)",
		"weird.test robots":         "unmeasured: the store could not be reached (tls bad line)",
		"weird.test product-data":   "unmeasured: the store could not be reached (tls bad line)",
		"weird.test policies":       "unmeasured: the store could not be reached (tls bad line)",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("details (-want +got):\n%s", d)
	}
}

// nodeBin returns the node binary, or skips the test when there is none
// (or it is older than Node 18, which has no global fetch).
func nodeBin(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the Node client svc-check.mjs is not tested")
	}
	out, err := exec.Command(node, "--version").Output()
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	major, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
	if err != nil || major < 18 {
		t.Skipf("node %s is older than 18: the Node client svc-check.mjs is not tested", v)
	}
	return node
}

const nodeScript = "../svc-check/svc-check.mjs"

// runNode runs the Node client.
func runNode(t *testing.T, node string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(node, append([]string{nodeScript}, args...)...)
	cmd.Env = append(append(os.Environ(), "SVC_API="), env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("node: %v", err)
	}
	return code, out.String(), errOut.String()
}

// TestCheckParity runs every case through both clients against the same
// canned API: the exit codes, the table or JSON and the summary must be the
// same bytes.
func TestCheckParity(t *testing.T) {
	node := nodeBin(t)
	for _, tc := range checkCases() {
		t.Run(tc.name, func(t *testing.T) {
			canned := newCannedAPI(t)
			args, env, summary := tc.argv(t, canned.URL, closedURL(t))
			t.Setenv("SVC_API", "")
			for _, kv := range env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			goCode, goOut, goErr := runSvc(t, append([]string{"check"}, args...)...)
			var goSummary []byte
			if summary != "" {
				goSummary, _ = os.ReadFile(summary)
				os.Remove(summary)
			}
			nodeCode, nodeOut, nodeErr := runNode(t, node, env, args...)
			if goCode != nodeCode {
				t.Fatalf("exit: go %d, node %d\ngo stderr:\n%s\nnode stderr:\n%s", goCode, nodeCode, goErr, nodeErr)
			}
			if goCode == 64 {
				return // usage text differs by design (cobra's, the script's)
			}
			if d := cmp.Diff(goOut, nodeOut); d != "" {
				t.Errorf("stdout (-go +node):\n%s\nnode stderr:\n%s", d, nodeErr)
			}
			if summary != "" {
				nodeSummary, _ := os.ReadFile(summary)
				if d := cmp.Diff(string(goSummary), string(nodeSummary)); d != "" {
					t.Errorf("summary (-go +node):\n%s", d)
				}
			}
		})
	}
}

// TestCheckParityFixtureWorld compares the two clients' JSON, table and
// summary against the real API over the fixture world (the first run fills
// the 24-hour cache, so both then read the same saved checks). The API
// allows 50 live-check reads a day per network: this test makes 38.
func TestCheckParityFixtureWorld(t *testing.T) {
	node := nodeBin(t)
	world := fixtures.Generate(1, fixtures.DefaultStores)
	api := checkAPI(t, world)
	args := []string{"--api", api, "--require", "all"}
	for _, s := range checkOracleHosts(t, world) {
		args = append(args, s.Host)
	}
	if code, _, stderr := runSvc(t, append([]string{"check"}, args...)...); code != 1 {
		t.Fatalf("warm-up run: exit %d\n%s", code, stderr)
	}
	for _, run := range []struct {
		mode  string
		hosts int
	}{{"--json", 10}, {"--json=false", 4}} {
		mode := run.mode
		dir := t.TempDir()
		a := append(append([]string{}, args[:4+run.hosts]...), mode, "--summary", filepath.Join(dir, "go.md"))
		goCode, goOut, _ := runSvc(t, append([]string{"check"}, a...)...)
		a[len(a)-1] = filepath.Join(dir, "node.md")
		nodeCode, nodeOut, nodeErr := runNode(t, node, nil, a...)
		if goCode != 1 || nodeCode != 1 {
			t.Errorf("%s: exit go %d node %d, want 1\n%s", mode, goCode, nodeCode, nodeErr)
		}
		if d := cmp.Diff(goOut, nodeOut); d != "" {
			t.Errorf("%s: stdout (-go +node):\n%s", mode, d)
		}
		goMD, _ := os.ReadFile(filepath.Join(dir, "go.md"))
		nodeMD, _ := os.ReadFile(filepath.Join(dir, "node.md"))
		if d := cmp.Diff(string(goMD), string(nodeMD)); d != "" || len(goMD) == 0 {
			t.Errorf("%s: summary (-go +node):\n%s", mode, d)
		}
	}
}

// TestCheckNodeTestRunner runs the Node client's own tests (node --test)
// with the real API over the fixture world in SVC_CHECK_TEST_API and the
// statuses its hosts must show in SVC_CHECK_TEST_EXPECT. This is how
// `make test` runs them.
func TestCheckNodeTestRunner(t *testing.T) {
	node := nodeBin(t)
	world := fixtures.Generate(1, fixtures.DefaultStores)
	api := checkAPI(t, world)
	expect := map[string]map[string]string{}
	for _, s := range checkOracleHosts(t, world) {
		want := oracle(s.Expect)
		if fixtures.UCPSchemaDir() == "" {
			delete(want, "ucp")
		}
		expect[s.Host] = want
	}
	b, _ := json.Marshal(expect)
	cmd := exec.Command(node, "--test", "svc-check.test.mjs")
	cmd.Dir = filepath.Dir(nodeScript)
	cmd.Env = append(os.Environ(), "SVC_API=", "SVC_CHECK_TEST_API="+api, "SVC_CHECK_TEST_EXPECT="+string(b))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^# fail 0$`).Match(out) || regexp.MustCompile(`(?m)^# skipped [1-9]`).Match(out) {
		t.Errorf("node --test did not run every test:\n%s", out)
	}
	t.Logf("%s", out)
}
