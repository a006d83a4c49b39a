package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolArgs are arguments that make every tool answer over the fixture
// snapshot: a known store for the store tools.
func toolArgs(host string) map[string]map[string]any {
	return map[string]map[string]any{
		"can_agent_checkout":        {"url": "https://" + host + "/"},
		"find_agent_ready_stores":   {"category": "apparel", "limit": 5},
		"ask_svc":                   {"url": "https://" + host + "/"},
		"precheck":                  {"url": "https://" + host + "/"},
		"validate_ucp_profile":      {"profile": map[string]any{"ucp": map[string]any{"version": "2026-08-25", "services": map[string]any{}, "payment_handlers": map[string]any{}}}},
		"get_agent_facts":           {"host": host},
		"list_category_agent_facts": {"category": "apparel", "limit": 3},
		"product_data_check":        {"host": host},
		"vendor_checkout_readiness": {"host": host},
		"store_card":                {"host": host},
		"agent_leaderboard":         {"include_stores": true},
		"protocol_matrix":           {"protocol": "ucp"},
		"agent_commerce_adoption":   {},
		"dataset_info":              {},
		"submit_store":              {"hosts": []string{host}, "category": "apparel"},
		"submit_leaderboard_run":    {"spec": "svc-leaderboard-submission/v1", "test_set": "SVC-100 v1"}, // invalid on purpose: isError
	}
}

// TestMCPToolsThroughSDK drives every tool with the SDK's own client over
// HTTP, in a full initialize → tools/list → tools/call session.
func TestMCPToolsThroughSDK(t *testing.T) {
	f := sharedReadFixture(t)
	_, eng, v, fc := fixtureEngineClient(t)
	ts := f.newServer(t, Config{Engine: eng, UCP: v, Client: fc})
	host := f.world.Stores[0].Host

	client := mcp.NewClient(&mcp.Implementation{Name: "svc-test", Version: "1"}, nil)
	sess, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.ts.URL + "/api/ask"}, nil)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	defer sess.Close()
	list, err := sess.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := toolArgs(host)
	if len(list.Tools) != 16 || len(want) != 16 {
		t.Fatalf("tools/list gave %d tools, want the 16 of spec 4.3", len(list.Tools))
	}
	for _, tool := range list.Tools {
		args, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		if !strings.Contains(tool.Description, " ") || tool.InputSchema == nil {
			t.Errorf("%s: no description or input schema", tool.Name)
		}
		res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: tool.Name, Arguments: args})
		if err != nil {
			t.Errorf("%s: %v", tool.Name, err)
			continue
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if tool.Name == "submit_leaderboard_run" {
			if !res.IsError || text == "" {
				t.Errorf("invalid submission: isError %v %q", res.IsError, text)
			}
			continue
		}
		if res.IsError {
			t.Errorf("%s: isError: %s", tool.Name, text)
			continue
		}
		var fromText, fromStructured any
		if err := json.Unmarshal([]byte(text), &fromText); err != nil {
			t.Errorf("%s: content[0].text is not JSON: %.200s", tool.Name, text)
		}
		sb, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(sb, &fromStructured)
		tb, _ := json.Marshal(fromText)
		sb2, _ := json.Marshal(fromStructured)
		if !bytes.Equal(tb, sb2) {
			t.Errorf("%s: structuredContent differs from content[0].text", tool.Name)
		}
	}
	// Bad arguments are tool errors an agent can act on.
	for name, args := range map[string]map[string]any{
		"find_agent_ready_stores": {"limit": 51},
		"protocol_matrix":         {"protocol": "bitcoin"},
		"can_agent_checkout":      {},
		"store_card":              {"host": "x.test", "extra": 1},
		"submit_store":            {"category": "toys"},
	} {
		res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || !res.IsError {
			t.Errorf("%s %v: want isError, got %v %v", name, args, err, res)
		}
	}
}

// TestMCPBareToolsCall sends one JSON-RPC tools/call with no session and
// only Accept: application/json, as a simple client would.
func TestMCPBareToolsCall(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	for _, accept := range []string{"application/json", "application/json, text/event-stream", ""} {
		body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"agent_commerce_adoption","arguments":{}}}`
		req, _ := http.NewRequest(http.MethodPost, ts.ts.URL+"/api/ask", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var rpc struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		if resp.StatusCode != 200 || json.Unmarshal(b, &rpc) != nil || rpc.ID != 7 || rpc.Result.IsError || len(rpc.Result.Content) == 0 {
			t.Fatalf("Accept %q: %d %s", accept, resp.StatusCode, b)
		}
		if !strings.Contains(rpc.Result.Content[0].Text, `"asOf"`) {
			t.Errorf("adoption text lacks asOf: %.200s", rpc.Result.Content[0].Text)
		}
	}
	// The discovery card lists the same 16 tools and the endpoint.
	resp, body := ts.get(t, "/.well-known/mcp.json")
	var card MCPCard
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &card) != nil || len(card.Tools) != 16 ||
		!strings.HasSuffix(card.Endpoint, "/api/ask") || card.Authentication["type"] != "none" {
		t.Errorf("mcp.json: %d %.300s", resp.StatusCode, body)
	}
}

// TestAskIndexAnswer checks the REST Index answer over the snapshot.
func TestAskIndexAnswer(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	host := f.world.Stores[0].Host
	resp, body := ts.get(t, "/api/ask?url=https://"+host+"/")
	if resp.StatusCode != 200 {
		t.Fatalf("ask: %d %s", resp.StatusCode, body)
	}
	hasKeys(t, "ask", body, "score", "buy", "agents_can_buy", "agent_rails", "evidence", "llm_read")
	var ans AskAnswer
	json.Unmarshal([]byte(body), &ans)
	if !ans.Known || ans.AgentRails == nil || ans.AgentRails.CheckoutWebMCP.Reason == "" || ans.LLMRead.Status != LLMNotConfigured || len(ans.Rivals) != 0 {
		t.Errorf("answer: %+v", ans)
	}
	if resp, _ := ts.get(t, "/api/ask"); resp.StatusCode != 400 {
		t.Errorf("empty question: %d, want 400", resp.StatusCode)
	}
}

// callTool runs one tool over a session and returns its text and isError.
func callTool(t *testing.T, sess *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || len(res.Content) == 0 {
		t.Fatalf("%s %v: %v %+v", name, args, err, res)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

func sdkSession(t *testing.T, ts *testServer) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "svc-test", Version: "1"}, nil)
	sess, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.ts.URL + "/api/ask"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

// TestMCPToolErrorTexts: a failed call says what to fix in the tool's own
// argument terms: no REST query syntax, no HTTP methods, no repeated
// prefixes.
func TestMCPToolErrorTexts(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	sess := sdkSession(t, ts)
	host := f.world.Stores[0].Host
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"can_agent_checkout", map[string]any{"url": ""}, `missing required argument "url"`},
		{"precheck", map[string]any{"url": "  "}, `missing required argument "url"`},
		{"store_card", map[string]any{"host": ""}, `missing required argument "host"`},
		{"vendor_checkout_readiness", map[string]any{"host": ""}, `missing required argument "host"`},
		{"product_data_check", map[string]any{}, `give "host" or "url"`},
		{"get_agent_facts", map[string]any{"slug": "price_clarity"}, `give "host" or "url"`},
		{"get_agent_facts", map[string]any{"host": host, "slug": host}, `argument "slug" must be one of use_case_mention`},
		{"list_category_agent_facts", map[string]any{}, `missing argument "category"`},
		{"validate_ucp_profile", map[string]any{}, `give "url" or "profile"`},
		{"ask_svc", map[string]any{"url": ""}, `give "url", "brand", "category" or "q"`},
		{"submit_store", map[string]any{"category": "apparel"}, `give "url" or "hosts"`},
		{"store_card", map[string]any{"host": "http://10.0.0.1/"}, "invalid_request: invalid host"},
		{"precheck", map[string]any{"url": "ftp://shop.test/"}, "invalid_request: "},
	} {
		text, isErr := callTool(t, sess, c.tool, c.args)
		if !isErr || !strings.HasPrefix(text, c.want) {
			t.Errorf("%s %v: isError %v %q, want it to start %q", c.tool, c.args, isErr, text, c.want)
		}
		restTerms(t, c.tool, text)
	}
	// Rate limits: the code once, then the limit (ask_svc: 30 a minute).
	var text string
	for i := 0; i < 31; i++ {
		text, _ = callTool(t, sess, "ask_svc", map[string]any{"url": "https://" + host + "/"})
	}
	if text != "rate_limited: at most 30 ask requests a minute for your network; wait a minute" {
		t.Errorf("per-minute limit: %q", text)
	}
	lowerQuota(t, &quotaSavedReads, 0)
	text, _ = callTool(t, sess, "product_data_check", map[string]any{"host": host})
	if !strings.HasPrefix(text, "rate_limited: daily limit reached: 0 saved_reads per UTC day") {
		t.Errorf("daily limit: %q", text)
	}
	restTerms(t, "product_data_check", text)
}

// restTerms fails when a tool's text speaks REST: query syntax, HTTP
// methods, a repeated rate-limit prefix.
func restTerms(t *testing.T, tool, text string) {
	t.Helper()
	for _, bad := range []string{"?url=", "?host=", "&", "POST", "GET ", "query", "rate limited: rate limited", "rate_limited: rate limited"} {
		if strings.Contains(text, bad) {
			t.Errorf("%s: %q speaks REST (%q)", tool, text, bad)
		}
	}
}

// TestMCPAgentFactsTools: slug picks one decision, as the tool says, and
// limit counts stores, the same over MCP and REST.
func TestMCPAgentFactsTools(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	sess := sdkSession(t, ts)
	host := f.world.Stores[0].Host
	list, err := sess.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.Name != "get_agent_facts" {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Properties map[string]struct {
				Description string
				Enum        []string
			}
		}
		json.Unmarshal(b, &schema)
		slug := schema.Properties["slug"]
		if !slices.Equal(slug.Enum, factSlugs) || strings.Contains(slug.Description, "host") ||
			strings.Contains(tool.Description, "slug (its host)") || !strings.Contains(tool.Description, "slug picks one decision") {
			t.Errorf("get_agent_facts describes slug as %q %v: %s", slug.Description, slug.Enum, tool.Description)
		}
	}
	text, isErr := callTool(t, sess, "get_agent_facts", map[string]any{"host": host, "slug": "cart_blocker_suspicion"})
	var one AgentFactsAnswer
	if isErr || json.Unmarshal([]byte(text), &one) != nil || len(one.Facts) != 1 || one.Facts[0].Fact != "cart_blocker_suspicion" || one.Facts[0].Host != host {
		t.Errorf("get_agent_facts slug: %.300s", text)
	}
	for _, limit := range []int{1, 3} {
		text, isErr = callTool(t, sess, "list_category_agent_facts", map[string]any{"category": "footwear", "limit": limit})
		var viaMCP, viaREST AgentFactsAnswer
		json.Unmarshal([]byte(text), &viaMCP)
		ts.getJSON(t, "/api/agent-facts?category=footwear&limit="+strconv.Itoa(limit), &viaREST)
		hosts := map[string]bool{}
		for _, fact := range viaMCP.Facts {
			hosts[fact.Host] = true
		}
		a, _ := json.Marshal(viaMCP.Facts)
		b, _ := json.Marshal(viaREST.Facts)
		if isErr || len(hosts) != limit || len(viaMCP.Facts) <= limit || !bytes.Equal(a, b) {
			t.Errorf("limit %d: %d stores, %d facts; REST agrees: %v", limit, len(hosts), len(viaMCP.Facts), bytes.Equal(a, b))
		}
	}
}

// TestMCPStoreCardFree: the store card is a free read (spec 8), by MCP and
// REST; it leaves the saved-read quota to the reads that have one.
func TestMCPStoreCardFree(t *testing.T) {
	f := sharedReadFixture(t)
	ts := f.newServer(t, Config{})
	sess := sdkSession(t, ts)
	host := f.world.Stores[0].Host
	lowerQuota(t, &quotaSavedReads, 2)
	for i := 0; i < 5; i++ {
		if text, isErr := callTool(t, sess, "store_card", map[string]any{"host": host}); isErr {
			t.Fatalf("store_card %d: %s", i+1, text)
		}
		if resp, body := ts.get(t, "/api/store?host="+host); resp.StatusCode != 200 {
			t.Fatalf("/api/store %d: %d %s", i+1, resp.StatusCode, body)
		}
	}
	for i := 0; i < 2; i++ {
		if text, isErr := callTool(t, sess, "product_data_check", map[string]any{"host": host}); isErr {
			t.Fatalf("product_data_check %d after free store cards: %s", i+1, text)
		}
	}
	if text, isErr := callTool(t, sess, "product_data_check", map[string]any{"host": host}); !isErr || !strings.HasPrefix(text, "rate_limited: ") {
		t.Errorf("product_data_check over its quota: %v %q", isErr, text)
	}
}
