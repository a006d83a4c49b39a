package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"svc/publish"
)

// The MCP server at POST /api/ask (spec 4.3): the official Go SDK over
// streamable HTTP, stateless, JSON responses, so a bare tools/call works as
// well as an initialize → tools/list → tools/call session. Every tool calls
// the same function as its REST twin, with the same limits; its answer is
// the JSON of that data as content[0].text and as structuredContent, and a
// failure is isError with a message an agent can act on.

// mcpCategories are the store categories of submit_store (spec 2.12).
var mcpCategories = []string{"apparel", "footwear", "beauty", "home", "food-drink", "supplements", "outdoor", "kids", "pets", "electronics", "jewelry"}

type callerKey struct{}

// mcpTool is one tool: its definition and the function behind it.
type mcpTool struct {
	name, description string
	schema            map[string]any
	run               func(s *Server, ctx context.Context, caller string, args map[string]any) (any, error)
}

func obj(props map[string]any, required ...string) map[string]any {
	m := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		m["required"] = required
	}
	return m
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

const (
	noOrder      = " No order is placed: svc stops before payment, and a checkout link is never returned or stored."
	notCertified = " Validation is not certification: a valid profile does not prove its endpoints work."
	savedOnly    = " Reads saved data only: it fetches nothing from the store."
)

var mcpTools = []mcpTool{
	{"can_agent_checkout",
		"Checks one store now over plain HTTP: whether a catalog answered, a product was found and the storefront cart returned a checkout link (a boolean), plus the UCP profile, WebMCP, Checkout WebMCP, storefront MCP, robots rules per AI agent, product data, policies, block status and one recommended fix. null means unmeasured. Cached per host for 24 hours (cached: true). Limits: 50 requests and 10 fresh checks per network per UTC day." + noOrder,
		obj(map[string]any{"url": str("Public http or https homepage or product URL of the store.")}, "url"),
		func(s *Server, ctx context.Context, c string, a map[string]any) (any, error) {
			return s.CanAgentCheckout(ctx, c, liveCheckArgs(a))
		}},
	{"find_agent_ready_stores",
		fmt.Sprintf("Lists directory stores whose catalog found a product and returned a checkout link within the last %d days, by category (slug or shopper words) and product need. Category matching, not inventory search. Limits: 50 reads per network per day, shared with checkout reads.", int(AgentReadyWindow.Hours()/24)) + savedOnly,
		obj(map[string]any{
			"category": str("Category slug (apparel, footwear, beauty, home, food-drink, supplements, outdoor, kids, pets, electronics, jewelry) or shopper words."),
			"q":        str("Product need, in words."),
			"limit":    map[string]any{"type": "integer", "minimum": 1, "maximum": 50, "default": 10, "description": "Stores to return, 1 to 50."},
		}),
		func(s *Server, ctx context.Context, c string, a map[string]any) (any, error) {
			return s.FindAgentReadyStores(ctx, c, directoryArgs(a))
		}},
	{"ask_svc",
		"The Index answer for a store (url or brand = its host name) and/or a need (category, q): whether agents can reach checkout, the score, both buy lanes (buy.agent_catalog, buy.browser), agents_can_buy, agent_rails.checkout_webmcp, evidence receipts, and the model read (llm_read.status; pending means the answer was cut off and waits for a re-check, not that the model did not know). Rivals appear only when a real model read exists. Limits: 120 per network per UTC day, 30 a minute." + noOrder,
		obj(map[string]any{"url": str("Store homepage or product URL."), "brand": str("Store host name."), "category": str("Category slug or shopper words."), "q": str("Product need.")}),
		func(s *Server, ctx context.Context, c string, a map[string]any) (any, error) {
			return s.Ask(ctx, c, askArgs(a))
		}},
	{"precheck",
		"Pre-checkout answer for a store from saved data: known, reachable_checkout, rails with what each proves (none proves an agent completed checkout), blockers, confidence, when last checked and whether that is stale (24 hours or older). Unknown stores get a scan_url. Limit: 60 per network per minute." + savedOnly,
		obj(map[string]any{"url": str("Store homepage or product URL.")}, "url"),
		func(s *Server, ctx context.Context, c string, a map[string]any) (any, error) {
			return s.Precheck(ctx, c, precheckArgs(a), false)
		}},
	{"validate_ucp_profile",
		"Validates a UCP business profile against the UCP 2026-08-25 JSON Schema and the spec rules: give a url (store host, homepage or profile URL; fetched with at most 3 redirects and 6 s, plus hosting checks) or a pasted profile (any JSON; never fetched, at most 256 KB). Returns errors, warnings and info with JSON paths, rule ids and spec links. Limit: 300 URL validations per network per day; pasted profiles are unlimited." + notCertified,
		obj(map[string]any{"url": str("Store host, homepage or profile URL."), "profile": map[string]any{"description": "The profile: a JSON object, or a string holding its JSON text."}}),
		func(s *Server, ctx context.Context, c string, a map[string]any) (any, error) {
			var profile []byte
			if p, ok := a["profile"]; ok && p != nil {
				raw, _ := json.Marshal(p)
				b, err := profileBytes(raw)
				if err != nil {
					return nil, err
				}
				profile = b
			}
			return s.ValidateUCP(ctx, c, argStr(a, "url"), profile)
		}},
	{"get_agent_facts",
		"Typed facts about one store from a stored plain-HTTP page scrape: the five decisions use_case_mention, price_clarity, agent_friendly_description, cart_blocker_suspicion and readiness_score, each with a confidence and a sha256 of its evidence (null when unmeasured). Name the store by host or url; slug picks one decision. Daily read limit per network." + savedOnly,
		obj(map[string]any{
			"host": str("Store host."),
			"url":  str("Store URL, instead of host."),
			"slug": map[string]any{"type": "string", "enum": factSlugs, "description": "One decision to return; all five when left out."},
		}),
		func(s *Server, ctx context.Context, c string, a map[string]any) (any, error) {
			return s.AgentFacts(ctx, c, factsArgs(a))
		}},
	{"list_category_agent_facts",
		"Agent facts for the stores of one category (see get_agent_facts): the measured decisions of up to limit stores, by host. Daily read limit per network." + savedOnly,
		obj(map[string]any{
			"category": str("Category slug or shopper words."),
			"limit":    map[string]any{"type": "number", "minimum": 1, "maximum": 50, "default": 20, "description": "Stores, 1 to 50."},
		}),
		func(s *Server, ctx context.Context, c string, a map[string]any) (any, error) {
			return s.AgentFacts(ctx, c, factsArgs(a))
		}},
	{"product_data_check",
		"The product data a store publishes (Product JSON-LD, or the public products.json when the page has none), its policies and vendorReadiness (read from saved public evidence; not vendor approval, and merchant feed eligibility cannot be checked from outside). Daily read limit per network." + savedOnly,
		obj(map[string]any{"host": str("Store host."), "url": str("Store URL.")}),
		func(s *Server, ctx context.Context, c string, a map[string]any) (any, error) {
			return s.ProductData(ctx, c, productDataArgs(a))
		}},
	{"vendor_checkout_readiness",
		"A store's agentic-checkout readiness for search vendors, read from saved public evidence (the vendorReadiness field of product_data_check). Not vendor approval. Daily read limit per network." + savedOnly,
		obj(map[string]any{"host": str("Store host.")}, "host"),
		func(s *Server, ctx context.Context, c string, a map[string]any) (any, error) {
			p := productDataArgs(a)
			pd, err := s.ProductData(ctx, c, p)
			if err != nil {
				return nil, err
			}
			return map[string]any{"host": p.Host, "vendorReadiness": pd.VendorReadiness, "checkedAt": pd.CheckedAt,
				"note": "Read from saved public evidence; not vendor approval. Merchant feed eligibility cannot be checked from outside."}, nil
		}},
	{"store_card",
		"The saved public card of a store: checks, platform, saved robots policy, links, brand claim (from the brand, never scored), badge and claim URLs. A missing field is unmeasured. Free: no read limit." + savedOnly,
		obj(map[string]any{"host": str("Store host.")}, "host"),
		func(s *Server, ctx context.Context, c string, a map[string]any) (any, error) {
			card, err := s.StoreCard(ctx, c, storeArgs(a))
			if err != nil {
				return nil, err
			}
			b, _ := json.Marshal(card)
			var m map[string]any
			json.Unmarshal(b, &m)
			m["badgeUrl"], m["claimUrl"] = card.Links.Badge, card.Links.Claim // null for a host with no store page
			return m, nil
		}},
	{"agent_leaderboard",
		"Cart success over the fixed SVC-100 v1 test set (100 stores, stopped before payment) per agent path: browser shoppers A-E, the UCP path and the storefront MCP path, with n (the stores attempted), dates, evidence labels and Wilson 95% intervals; not_attempted results are counted apart (notAttempted, with reasons) and never enter n or a rate, and a path that attempted no store is Not measured (rate null), never 0; unverified outside submissions listed apart as self-reported. include_stores adds the 100-store grid." + savedOnly,
		obj(map[string]any{"include_stores": map[string]any{"type": "boolean", "description": "Include the per-store grid of 100 rows."}}),
		func(s *Server, ctx context.Context, c string, a map[string]any) (any, error) {
			return s.savedJSON(leaderboardArgs(a).path())
		}},
	{"protocol_matrix",
		"Adoption of agent-commerce protocols (ucp, acp, pap, webmcp, mcp, payments) across the stages declare, validate, answer and transact, each with a percentage and an evidence label (Measured, Inferred, Not measured; not measured is null, never 0). Give protocol for one row." + savedOnly,
		obj(map[string]any{"protocol": map[string]any{"type": "string", "enum": []string{"ucp", "acp", "pap", "webmcp", "mcp", "payments"}, "description": "One protocol's row."}}),
		func(s *Server, ctx context.Context, c string, a map[string]any) (any, error) {
			data, err := s.savedJSON(publish.ProtocolsPath)
			if err != nil || argStr(a, "protocol") == "" {
				return data, err
			}
			return filterRows(data, argStr(a, "protocol"))
		}},
	{"agent_commerce_adoption",
		"Adoption counts across the directory (a curated sample): valid UCP profiles, agent catalogs, storefront WebMCP, Checkout WebMCP (measured platform denominator; unknown and not checked kept apart), checkout links; by category and platform, with the series and asOf." + savedOnly,
		obj(map[string]any{}),
		func(s *Server, ctx context.Context, c string, a map[string]any) (any, error) {
			return s.savedJSON(publish.AdoptionPath)
		}},
	{"dataset_info",
		"The dataset manifest: versioned immutable download URLs, latest/ aliases (CSV and Parquet), row counts, sha256 of every file, method version and licence (CC-BY-4.0). The first file to use is store_answers (one plain answer per store).",
		obj(map[string]any{}),
		func(s *Server, ctx context.Context, c string, a map[string]any) (any, error) { return s.manifest() }},
	{"submit_store",
		"Adds stores to the open directory: url (one store) and/or hosts (at most 50), category. Each host is checked over HTTPS (live, not parked, not redirecting to another brand, not already listed) and answered accepted, already_listed, rejected (with the reason) or limited. Accepted stores get plain-HTTP checks in the next weekly run; no model calls. Rate limited per network.",
		obj(map[string]any{
			"url":      str("One store's homepage URL."),
			"hosts":    map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "maxItems": 50, "description": "Store hosts, at most 50."},
			"category": map[string]any{"type": "string", "enum": mcpCategories, "description": "The stores' category."},
		}),
		func(s *Server, ctx context.Context, c string, a map[string]any) (any, error) {
			req := StoreSubmission{URL: argStr(a, "url"), Category: argStr(a, "category")}
			if hs, ok := a["hosts"].([]any); ok {
				for _, h := range hs {
					if hstr, ok := h.(string); ok {
						req.Hosts = append(req.Hosts, hstr)
					}
				}
			}
			return s.SubmitStores(ctx, c, req)
		}},
	{"submit_leaderboard_run",
		"Submits one agent run over SVC-100 v1 (format svc-leaderboard-submission/v1: spec, test_set, agent, run with stopped_before_payment true, 10 to 100 results with ids from the test-set CSV). A new run is listed publicly as self-reported with status unverified; a duplicate of an earlier run returns its existing id. contact is private. Limits: 5 per network per day, 200 KB.",
		map[string]any{"type": "object", "description": "The submission body of spec 2.11; see GET /api/leaderboard/submit and /data/svc-100/v1/submission.schema.json.",
			"required": []string{"spec", "test_set", "agent", "run", "results"},
			"properties": map[string]any{
				"spec":     map[string]any{"const": "svc-leaderboard-submission/v1"},
				"test_set": map[string]any{"const": "SVC-100 v1"},
				"agent":    map[string]any{"type": "object"},
				"run":      map[string]any{"type": "object"},
				"results":  map[string]any{"type": "array", "minItems": 10, "maxItems": 100},
				"contact":  map[string]any{"type": "string"},
			}},
		func(s *Server, ctx context.Context, c string, a map[string]any) (any, error) {
			body, _ := json.Marshal(a)
			return s.SubmitLeaderboard(ctx, c, body)
		}},
}

// newMCPHandlers builds the MCP server and its streamable HTTP handlers:
// one answering JSON, one an event stream.
func (s *Server) newMCPHandlers() (jsonH, sseH http.Handler) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "svc", Title: "svc agent-commerce readiness", Version: "1.1.0"},
		&mcp.ServerOptions{Instructions: "Tools that say whether AI agents can find products and reach checkout at online stores, from svc's open measurements. svc stops before payment; null means unmeasured; validation is not certification."})
	for _, t := range mcpTools {
		t := t
		srv.AddTool(&mcp.Tool{Name: t.name, Description: t.description, InputSchema: t.schema},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				s.mcpCalls.Add(1)
				var args map[string]any
				if len(req.Params.Arguments) > 0 {
					if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
						return toolError("arguments must be a JSON object"), nil
					}
				}
				if args == nil {
					args = map[string]any{}
				}
				if msg := checkArgs(t, args); msg != "" {
					return toolError(msg), nil
				}
				caller, _ := ctx.Value(callerKey{}).(string)
				data, err := t.run(s, ctx, caller, args)
				if err != nil {
					return toolError(toolMessage(err)), nil
				}
				b, err := json.Marshal(data)
				if err != nil {
					return toolError("internal error"), nil
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
			})
	}
	handler := func(jsonResponse bool) http.Handler {
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
			&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: jsonResponse, MaxRequestBodyBytes: mcpMaxBody,
				// The API has no cookies and no ambient authority: DNS
				// rebinding gains an attacker nothing, and behind a proxy the
				// local address is loopback while the Host is public.
				DisableLocalhostProtection: true})
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// Simple clients send Accept: application/json (or nothing),
			// some only text/event-stream; mcpEndpoint picked the handler
			// that answers what they accept, so the SDK may take both.
			r.Header.Set("Accept", "application/json, text/event-stream")
			r = r.WithContext(context.WithValue(r.Context(), callerKey{}, s.caller(r)))
			h.ServeHTTP(w, r)
		})
	}
	return handler(true), handler(false)
}

// toolError is a failed tool call an agent can act on.
func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// toolMessage turns an API error into the tool's message: its code, then
// what to fix.
func toolMessage(err error) string {
	_, body, _ := classify(err)
	msg := body.Error.Message
	for _, p := range body.Error.Problems {
		msg += "; " + p.Path + ": " + p.Message
	}
	return body.Error.Code + ": " + msg
}

// mcpNeedOne names, per tool, arguments of which at least one must be
// given (not blank), so a call without them is answered in the tool's own
// terms rather than by the REST twin's message.
var mcpNeedOne = map[string][]string{
	"get_agent_facts":           {"host", "url"},
	"list_category_agent_facts": {"category"},
	"product_data_check":        {"host", "url"},
	"validate_ucp_profile":      {"url", "profile"},
	"ask_svc":                   {"url", "brand", "category", "q"},
	"submit_store":              {"url", "hosts"},
}

// checkArgs enforces the schema's properties the SDK does not check for a
// raw schema: unknown arguments, required ones (a blank string is not
// given), types, enums and bounds; then the tool's mcpNeedOne.
func checkArgs(t mcpTool, args map[string]any) string {
	props, _ := t.schema["properties"].(map[string]any)
	blank := func(k string) bool {
		v, ok := args[k]
		if sv, isStr := v.(string); isStr {
			return strings.TrimSpace(sv) == ""
		}
		return !ok || v == nil
	}
	if req, ok := t.schema["required"].([]string); ok {
		for _, r := range req {
			if blank(r) {
				msg := fmt.Sprintf("missing required argument %q", r)
				if p, _ := props[r].(map[string]any); p != nil && p["description"] != nil {
					msg += fmt.Sprintf(": %v", p["description"])
				}
				return msg
			}
		}
	}
	if t.schema["additionalProperties"] == false {
		for k := range args {
			if _, ok := props[k]; !ok {
				return fmt.Sprintf("unknown argument %q", k)
			}
		}
	}
	for k, v := range args {
		p, _ := props[k].(map[string]any)
		if p == nil || v == nil {
			continue
		}
		switch p["type"] {
		case "string":
			sv, ok := v.(string)
			if !ok {
				return fmt.Sprintf("argument %q must be a string", k)
			}
			if enum, ok := p["enum"].([]string); ok && !contains(enum, sv) {
				return fmt.Sprintf("argument %q must be one of %s", k, strings.Join(enum, ", "))
			}
		case "integer", "number":
			f, ok := v.(float64)
			if !ok || (p["type"] == "integer" && f != float64(int64(f))) {
				return fmt.Sprintf("argument %q must be a %s", k, p["type"])
			}
			if lo, ok := p["minimum"].(int); ok && f < float64(lo) {
				return fmt.Sprintf("argument %q must be at least %d", k, lo)
			}
			if hi, ok := p["maximum"].(int); ok && f > float64(hi) {
				return fmt.Sprintf("argument %q must be at most %d", k, hi)
			}
		case "boolean":
			if _, ok := v.(bool); !ok {
				return fmt.Sprintf("argument %q must be true or false", k)
			}
		case "array":
			a, ok := v.([]any)
			if !ok {
				return fmt.Sprintf("argument %q must be an array", k)
			}
			if hi, ok := p["maxItems"].(int); ok && len(a) > hi {
				return fmt.Sprintf("argument %q has %d items; at most %d", k, len(a), hi)
			}
		}
	}
	if need := mcpNeedOne[t.name]; len(need) > 0 && !slices.ContainsFunc(need, func(k string) bool { return !blank(k) }) {
		quoted := make([]string, len(need))
		for i, k := range need {
			quoted[i] = fmt.Sprintf("%q", k)
		}
		if len(need) == 1 {
			msg := "missing argument " + quoted[0]
			if p, _ := props[need[0]].(map[string]any); p != nil && p["description"] != nil {
				msg += fmt.Sprintf(": %v", p["description"])
			}
			return msg
		}
		return fmt.Sprintf("give %s or %s", strings.Join(quoted[:len(need)-1], ", "), quoted[len(need)-1])
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func argStr(a map[string]any, k string) string { s, _ := a[k].(string); return s }

func firstArg(a map[string]any, keys ...string) string {
	for _, k := range keys {
		if v := argStr(a, k); v != "" {
			return v
		}
	}
	return ""
}

func argInt(a map[string]any, k string, def int) int {
	if f, ok := a[k].(float64); ok {
		return int(f)
	}
	return def
}

// savedJSON returns a precomputed answer as decoded JSON.
func (s *Server) savedJSON(name string) (any, error) {
	f := s.file(name)
	if f == nil {
		return nil, fail(ErrUnavailable, "no published data yet: the first snapshot has not been written")
	}
	var v any
	if err := json.Unmarshal(f.body, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// manifest returns the latest dataset manifest.
func (s *Server) manifest() (any, error) {
	snap := s.current()
	if snap.version == "" {
		return nil, fail(ErrUnavailable, "no dataset has been published yet")
	}
	b, err := os.ReadFile(filepath.Join(s.public, "data", snap.version, "manifest.json"))
	if err != nil {
		return nil, fail(ErrUnavailable, "the manifest could not be read")
	}
	var v any
	return v, json.Unmarshal(b, &v)
}

// filterRows keeps one protocol's row of the protocol matrix.
func filterRows(data any, id string) (any, error) {
	m, ok := data.(map[string]any)
	if !ok {
		return data, nil
	}
	rows, _ := m["rows"].([]any)
	var keep []any
	for _, r := range rows {
		if rm, ok := r.(map[string]any); ok && rm["id"] == id {
			keep = append(keep, rm)
		}
	}
	if len(keep) == 0 {
		return nil, errors.New("no row for protocol " + id)
	}
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	out["rows"] = keep
	return out, nil
}

// MCPCard is the discovery card at /.well-known/mcp.json (the draft MCP
// server card): what the server is, where, how, and its tools. No auth.
type MCPCard struct {
	Name           string           `json:"name"`
	Title          string           `json:"title"`
	Description    string           `json:"description"`
	Version        string           `json:"version"`
	Endpoint       string           `json:"endpoint"`
	Transport      string           `json:"transport"`
	Authentication map[string]any   `json:"authentication"`
	Tools          []map[string]any `json:"tools"`
	Documentation  string           `json:"documentation"`
}

func (s *Server) mcpCard(w http.ResponseWriter, r *http.Request) error {
	card := MCPCard{
		Name: "svc", Title: "svc agent-commerce readiness", Version: "1.1.0",
		Description: "Whether AI agents can find products and reach checkout at online stores: live checks, UCP validation, saved reads, adoption, the SVC-100 leaderboard and contributions. Stops before payment; null means unmeasured.",
		Endpoint:    s.link("/api/ask"), Transport: "streamable-http",
		Authentication: map[string]any{"type": "none", "required": false},
		Documentation:  s.link("/openapi.json"),
	}
	for _, t := range mcpTools {
		card.Tools = append(card.Tools, map[string]any{"name": t.name, "description": t.description, "inputSchema": t.schema})
	}
	w.Header().Set("Cache-Control", cacheFiveMinutes)
	return writeJSON(w, http.StatusOK, card)
}
