package check

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"svc/pipeline/fetch"
)

// Storefront MCP tool names (SIGNALS.md). search_shop_catalog is the older
// name of search_catalog, still served by some stores: accept both.
var (
	catalogTools = []string{"search_catalog", "search_shop_catalog"}
	detailTools  = []string{"get_product_details"}
	cartUpdate   = "update_cart"
	cartRead     = "get_cart"
)

// mcpOutcome is what the storefront MCP endpoint told us.
type mcpOutcome struct {
	detected        bool
	protocolVersion string
	serverName      string
	tools           []string
	answered        bool // the catalog tool gave a well-formed answer
	products        int
	throttled       bool
	cartTools       bool
	cartLink        bool
	cartCreated     bool // update_cart answered with a cart (no tool error)
	firstProduct    any  // the first product of the answer, for product data
	calls           []MCPCall
}

// storefrontMCP probes /api/mcp: initialize, tools/list, a catalog search,
// product details, then one item into a cart and the cart read back. A
// checkout URL in the cart sets cartLink; the URL itself is never kept.
func (e *Engine) storefrontMCP(ctx context.Context, base string) (out mcpOutcome) {
	m := &mcpClient{http: e.client, endpoint: base + "/api/mcp"}
	defer func() { out.calls = m.calls }()
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	_, err := m.call(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "svc-checker", "version": "1.0"},
	}, &init)
	if err != nil {
		var rpcErr *rpcError
		if !errors.As(err, &rpcErr) {
			return out // not an MCP endpoint (or not reachable)
		}
		// A JSON-RPC error is still an MCP server; go on to tools/list.
	} else {
		out.protocolVersion, out.serverName = init.ProtocolVersion, init.ServerInfo.Name
	}
	var list struct {
		Tools []mcpTool `json:"tools"`
	}
	if _, err := m.call(ctx, "tools/list", map[string]any{}, &list); err != nil {
		out.detected = out.protocolVersion != ""
		return out
	}
	out.detected = true
	for _, t := range list.Tools {
		out.tools = append(out.tools, t.Name)
	}
	has := func(name string) bool {
		for _, t := range out.tools {
			if t == name {
				return true
			}
		}
		return false
	}
	out.cartTools = has(cartUpdate)
	var search string
	for _, t := range catalogTools {
		if has(t) {
			search = t
			break
		}
	}
	if search == "" {
		return out
	}
	data, hdr, err := m.callTool(ctx, search, map[string]any{"query": "", "context": "agent-commerce readiness check"})
	if err != nil {
		var rpcErr *rpcError
		if errors.As(err, &rpcErr) && rpcErr.Code == 429 {
			out.throttled = true
		}
		return out
	}
	products, ok := productList(data)
	if !ok {
		return out
	}
	out.answered = true
	out.products = len(products)
	if len(products) == 0 {
		out.throttled = throttled(hdr)
		return out
	}
	out.firstProduct = products[0]
	productID := findString(products[0], "product_id", "productId", "id")
	if productID != "" && has(detailTools[0]) {
		if d, _, err := m.callTool(ctx, detailTools[0], map[string]any{"product_id": productID}); err == nil {
			if p, ok := findKey(d, "product"); ok {
				out.firstProduct = p
			}
		}
	}
	if !out.cartTools {
		return out
	}
	variant := findString(out.firstProduct, "variant_id", "variantId", "product_variant_id", "merchandise_id")
	if variant == "" {
		variant = productID
	}
	if variant == "" {
		return out
	}
	cart, _, err := m.callTool(ctx, cartUpdate, map[string]any{
		"add_items": []any{map[string]any{"product_variant_id": variant, "quantity": 1}},
	})
	if err != nil {
		return out
	}
	out.cartCreated = cart != nil
	out.cartLink = findString(cart, "checkout_url", "checkoutUrl") != ""
	if out.cartLink {
		m.calls[len(m.calls)-1].Note = "cart with a checkout link (not followed)"
	}
	if cartID := findString(cart, "cart_id", "cartId", "id"); cartID != "" && has(cartRead) {
		if c, _, err := m.callTool(ctx, cartRead, map[string]any{"cart_id": cartID}); err == nil {
			if findString(c, "checkout_url", "checkoutUrl") != "" {
				out.cartLink = true
				m.calls[len(m.calls)-1].Note = "cart with a checkout link (not followed)"
			}
		}
	}
	return out
}

// throttled reads the signs that an empty answer is a throttled one rather
// than an empty catalog: Retry-After, or a call-limit header at its ceiling.
func throttled(h http.Header) bool {
	if h == nil {
		return false
	}
	if h.Get("Retry-After") != "" {
		return true
	}
	for _, k := range []string{"X-Shopify-Shop-Api-Call-Limit", "X-Ratelimit-Remaining", "X-RateLimit-Remaining"} {
		v := h.Get(k)
		if v == "" {
			continue
		}
		if used, limit, ok := strings.Cut(v, "/"); ok && strings.TrimSpace(used) == strings.TrimSpace(limit) {
			return true
		}
		if strings.TrimSpace(v) == "0" {
			return true
		}
	}
	return false
}

// getJSON fetches path and reports whether the answer is JSON (by content
// type and by parsing): a single-page app answering HTML 200 for every path
// is a soft 404, not a catalog.
func (e *Engine) getJSON(ctx context.Context, u string) (resp *fetch.Response, isJSON bool, err error) {
	// Of a 404 or 410 the callers read the status alone (isJSON is false),
	// so a crawl may confirm one it kept with HEAD.
	resp, err = e.client.Do(ctx, fetch.Request{URL: u, Header: http.Header{"Accept": {"application/json"}}, StatusOnlyIfAbsent: true})
	if err != nil {
		return nil, false, err
	}
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	body := strings.TrimSpace(string(resp.Body))
	isJSON = resp.StatusCode == http.StatusOK &&
		!strings.Contains(ct, "html") &&
		(strings.HasPrefix(body, "{") || strings.HasPrefix(body, "["))
	return resp, isJSON, nil
}
