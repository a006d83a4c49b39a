package ciclient

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/pipeline/check"
	"svc/serve"
)

func ptr[T any](v T) *T { return &v }

// decodeJSON decodes text as the client does: into any, then the answer.
func decodeJSON[T any](t *testing.T, text string) T {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	var out T
	decode(&out, v)
	return out
}

// TestDecodeLenient pins how an answer is read: a field of another JSON
// type is nil (unmeasured), keys match exactly, a repeated key's last value
// wins whole, a number fills an int only when integral, and an array keeps
// its length whatever its entries.
func TestDecodeLenient(t *testing.T) {
	got := decodeJSON[CheckAnswer](t, `{
		"webmcp": "yes", "WebMCP": true, "cartLink": true, "cartLink": 1,
		"catalogAnswered": false, "Cached": true, "checkedAt": 12,
		"storefrontMcp": {"detected": true, "tools": ["a", 2, null, {}]},
		"webmcpDetail": {"tools": ["x", 3]},
		"robots": {"status": "ok", "agents": {"A": "allowed", "B": {"purpose": "user", "verdict": 1}}},
		"productData": {"name": "first", "source": "jsonld"}, "productData": {"source": "jsonld", "complete": "true"},
		"policies": [], "blockStatus": {"blocked": null, "reason": "cloudflare"},
		"reachability": {"reachable": false, "httpStatus": 502.0, "parked": "no"}
	}`)
	want := CheckAnswer{
		CatalogAnswered: ptr(false),
		StorefrontMCP:   StorefrontMCP{Detected: ptr(true), Tools: []*string{ptr("a"), nil, nil, nil}},
		WebMCPDetail:    WebMCPDetail{Tools: []*string{ptr("x"), nil}},
		Robots:          Robots{Status: ptr("ok"), Agents: map[string]Agent{"A": {}, "B": {Purpose: ptr("user")}}},
		ProductData:     &ProductData{Source: ptr("jsonld")},
		BlockStatus:     BlockStatus{Reason: ptr("cloudflare")},
		Reachability:    Reachability{Reachable: ptr(false), HTTPStatus: 502},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("answer (-want +got):\n%s", d)
	}

	rep := decodeJSON[UCPReport](t, `{"valid": false, "counts": {"errors": 2.5, "warnings": 1e1}, "source": {"status": 404.0},
		"errors": [{"rule": "a"}, "b", {"rule": 3}], "profile": false, "schema": {"error": ""}}`)
	wantRep := UCPReport{
		Valid:   ptr(false),
		Counts:  UCPCounts{Warnings: 10},
		Errors:  []UCPItem{{Rule: ptr("a")}, {}, {}},
		Source:  UCPSource{Status: ptr(404)},
		Profile: false,
		Schema:  UCPSchema{Error: ptr("")},
	}
	if d := cmp.Diff(wantRep, rep); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
	if got := decodeJSON[UCPReport](t, `{"profile": null}`); got.Profile != nil {
		t.Errorf("a null profile reads as %v, want nil", got.Profile)
	}
	e := decodeJSON[APIError](t, `{"error": {"code": "rate_limited", "message": 5}}`)
	if e.Error.Code == nil || *e.Error.Code != "rate_limited" || e.Error.Message != nil {
		t.Errorf("error body: %+v", e.Error)
	}
}

// TestDecodeServerAnswer writes a check the way the server does (its own
// types, encoding/json) and reads it back: every value the rules read must
// arrive as written.
func TestDecodeServerAnswer(t *testing.T) {
	res := &check.Result{
		Host:            "shop.example",
		CatalogAnswered: ptr(true),
		ProductFound:    ptr(false),
		CartLink:        ptr(true),
		WebMCP:          ptr(true),
		WebMCPDetail:    check.WebMCPDetail{Tools: []string{"search_catalog"}},
		StorefrontMCP:   check.StorefrontMCP{Detected: ptr(true), Tools: []string{"a", "b"}},
		Robots:          check.Robots{Status: "ok", Agents: map[string]check.AgentVerdict{"ChatGPT-User": {Verdict: "disallowed", Purpose: "user"}}},
		ProductData:     &check.ProductData{Source: ptr("jsonld"), Name: ptr("Mug"), SKU: ptr("M1"), Complete: true},
		Policies:        check.Policies{Returns: ptr(true), Terms: ptr(false)},
		BlockStatus:     check.BlockStatus{Blocked: ptr(true), Reason: "akamai"},
		Reachability:    check.Reachability{Reachable: ptr(false), HTTPStatus: 503, Error: "tls", Parked: ptr(false)},
		Catalog:         check.CatalogEvidence{Source: "products_json", Throttled: true},
		CheckedAt:       time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC),
	}
	b, err := json.Marshal(serve.CheckAnswer{Result: res, Cached: true, ResultURL: "/stores/shop.example/"})
	if err != nil {
		t.Fatal(err)
	}
	got := decodeJSON[CheckAnswer](t, string(b))
	want := CheckAnswer{
		CheckedAt:       ptr("2026-11-20T10:00:00Z"),
		Cached:          ptr(true),
		ResultURL:       ptr("/stores/shop.example/"),
		WebMCP:          ptr(true),
		WebMCPDetail:    WebMCPDetail{Tools: []*string{ptr("search_catalog")}},
		CatalogAnswered: ptr(true),
		ProductFound:    ptr(false),
		Catalog:         Catalog{Source: ptr("products_json"), Throttled: ptr(true)},
		CartLink:        ptr(true),
		StorefrontMCP:   StorefrontMCP{Detected: ptr(true), Tools: []*string{ptr("a"), ptr("b")}},
		Robots:          Robots{Status: ptr("ok"), Agents: map[string]Agent{"ChatGPT-User": {Verdict: ptr("disallowed"), Purpose: ptr("user")}}},
		ProductData:     &ProductData{Source: ptr("jsonld"), Name: ptr("Mug"), SKU: ptr("M1"), Complete: ptr(true)},
		Policies:        Policies{Returns: ptr(true), Terms: ptr(false)},
		BlockStatus:     BlockStatus{Blocked: ptr(true), Reason: ptr("akamai")},
		Reachability:    Reachability{Reachable: ptr(false), Error: ptr("tls"), HTTPStatus: 503, Parked: ptr(false)},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("answer (-want +got):\n%s", d)
	}
}
