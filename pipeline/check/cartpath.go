package check

import (
	"context"
	"errors"
	"net/url"

	"svc/pipeline/detect"
	"svc/pipeline/fetch"
)

// This file exports the pieces of the engine that the leaderboard's own
// agent-path runs drive (pipeline/leaderboard): the homepage gate, the
// storefront MCP catalog → cart attempt, and the MCP client itself. They
// are the same code Check uses, so a run and a check agree, and like Check
// they never follow, return or keep a checkout URL.

// Home is what a store's homepage told: the gate every agent path passes
// before it tries the catalog.
type Home struct {
	// Reachable is false when no usable answer came back: a fetch error
	// (ErrorClass says which) or a 5xx without wall markers ("http_5xx").
	Reachable  bool
	ErrorClass string
	// Blocked is true when a bot wall or a blocking status answered;
	// BlockReason names the wall's vendor or the status-only block.
	Blocked     bool
	BlockReason string
	// NotAStore is true for a parked domain or a redirect to another brand.
	NotAStore bool
}

// Ready reports whether the homepage is a shop an agent can go on with.
func (h Home) Ready() bool { return h.Reachable && !h.Blocked && !h.NotAStore }

// CheckHome fetches origin's homepage ("https://host") and classifies it as
// Check does: a fetch that fails (refusals included) is an unreachable
// store whose ErrorClass says why. The only error is a cancelled ctx.
func (e *Engine) CheckHome(ctx context.Context, origin string) (Home, error) {
	e = e.session(nil)
	home, err := e.client.Get(ctx, origin+"/")
	if ctx.Err() != nil {
		return Home{}, ctx.Err()
	}
	if err != nil {
		return Home{ErrorClass: ErrorClass(err)}, nil
	}
	page := detect.NewPage(home.URL, home.StatusCode, home.Header, home.Body)
	if block := detect.DetectBlock(page); block.Blocked {
		h := Home{Reachable: true, Blocked: true, BlockReason: block.Reason}
		if block.Wall && block.Vendor != "" {
			h.BlockReason = block.Vendor
		}
		return h, nil
	}
	if home.StatusCode >= 500 {
		return Home{ErrorClass: "http_5xx"}, nil
	}
	reqURL, _ := url.Parse(origin + "/")
	other := detect.DetectRedirect(reqURL, home.URL).AnotherBrand
	return Home{Reachable: true, NotAStore: other || detect.DetectParked(page).Parked}, nil
}

// StorefrontCart is how far the storefront MCP path got at one store:
// initialize and tools/list at /api/mcp, a catalog search, product
// details, one item into a cart with update_cart and the cart read back
// with get_cart.
type StorefrontCart struct {
	Endpoint        bool // /api/mcp answered as an MCP server
	Tools           []string
	CatalogTool     bool // search_catalog or search_shop_catalog is listed
	CatalogAnswered bool // the search gave a well-formed answer
	Products        int  // products in that answer
	Throttled       bool // empty or refused with throttle signals
	CartTool        bool // update_cart is listed
	CartCreated     bool // update_cart answered with a cart
	// CheckoutLink is true when the cart came back with a checkout URL.
	// The URL itself is dropped on the spot, never followed or kept.
	CheckoutLink bool
	// Calls are the requests made, in order, for a step log.
	Calls []MCPCall
}

// StorefrontCart runs the storefront MCP catalog → cart attempt on origin
// ("https://host"), the same calls Check makes, and stops before checkout.
func (e *Engine) StorefrontCart(ctx context.Context, origin string) StorefrontCart {
	e = e.session(nil)
	m := e.storefrontMCP(ctx, origin)
	return StorefrontCart{
		Endpoint: m.detected, Tools: nonNil(m.tools), CatalogTool: hasAny(m.tools, catalogTools),
		CatalogAnswered: m.answered, Products: m.products, Throttled: m.throttled,
		CartTool: m.cartTools, CartCreated: m.cartCreated, CheckoutLink: m.cartLink, Calls: nonNil(m.calls),
	}
}

// MCPClient is the engine's JSON-RPC client for an MCP endpoint over
// streamable HTTP (JSON or one SSE event per answer), through the safe
// client. It keeps no session.
type MCPClient struct{ m mcpClient }

// NewMCPClient returns a client for endpoint (an https URL).
func NewMCPClient(c *fetch.Client, endpoint string) *MCPClient {
	return &MCPClient{m: mcpClient{http: c, endpoint: endpoint}}
}

// Call sends one JSON-RPC request and decodes its result into out (when
// not nil). A JSON-RPC error comes back as an error RPCErrorCode reads.
func (c *MCPClient) Call(ctx context.Context, method string, params, out any) error {
	_, err := c.m.call(ctx, method, params, out)
	return err
}

// CallTool runs tools/call with params._meta set to meta (when not nil) and
// returns the tool's data as decoded JSON: structuredContent, else the JSON
// inside the first text item, else that text. A result with isError set is
// an error.
func (c *MCPClient) CallTool(ctx context.Context, name string, args, meta map[string]any) (any, error) {
	data, _, err := c.m.callToolMeta(ctx, name, args, meta)
	return data, err
}

// RPCErrorCode returns the JSON-RPC error code carried by err (429 for an
// HTTP 429, -1 for a tool result with isError set).
func RPCErrorCode(err error) (int, bool) {
	var e *rpcError
	if errors.As(err, &e) {
		return e.Code, true
	}
	return 0, false
}

// ProductList returns the products of a catalog answer: the first array
// under "products", "items" or "results", or the answer itself when it is
// an array.
func ProductList(v any) ([]any, bool) { return productList(v) }

// FindString walks decoded JSON depth-first (keys in order) and returns the
// first non-empty string or number stored under one of keys.
func FindString(v any, keys ...string) string { return findString(v, keys...) }
