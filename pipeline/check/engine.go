package check

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"svc/pipeline/detect"
	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
)

// MethodVersion names the check method; it is published with every result
// and in the dataset manifest, and changes when what is measured changes.
const MethodVersion = "check/2"

// Options configure an Engine.
type Options struct {
	Client *fetch.Client    // the safe client; required
	UCP    *ucp.Validator   // nil: the UCP profile is "not_checked"
	Now    func() time.Time // default time.Now
	// MaxProductPages bounds the product pages read for JSON-LD; default 2.
	MaxProductPages int
}

// Engine runs store checks; it is safe for concurrent use. Within one check
// requests go out one at a time, so a store never sees more than one request
// of ours at once.
type Engine struct {
	client          *fetch.Client
	base            *fetch.Client // the client without a session's jar
	docs            *fetch.Docs   // the session's kept documents (CheckDocs); nil for none
	ucp             *ucp.Validator
	now             func() time.Time
	maxProductPages int
}

// New returns an engine over opts.
func New(opts Options) *Engine {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxProductPages <= 0 {
		opts.MaxProductPages = 2
	}
	return &Engine{client: opts.Client, base: opts.Client, ucp: opts.UCP, now: opts.Now, maxProductPages: opts.MaxProductPages}
}

// Check runs the store check on a public homepage or product URL. The only
// error is for a URL that is invalid or unsafe (errors.Is(err,
// fetch.ErrRefused)) or a cancelled ctx; a store that cannot be reached is a
// result whose Reachability says so.
func (e *Engine) Check(ctx context.Context, rawURL string) (*Result, error) {
	return e.CheckDocs(ctx, rawURL, nil)
}

// CheckDocs is Check asking conditionally for the documents docs keeps
// from the last run (fetch.Client.WithDocs): a document the store answers
// 304 for is read from its kept copy, so its findings are the ones a full
// download gives, and the result lists it in Reused with the date it was
// downloaded. What this check fetched is left in docs for the next run.
// A nil docs is Check.
func (e *Engine) CheckDocs(ctx context.Context, rawURL string, docs *fetch.Docs) (*Result, error) {
	u, err := fetch.ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	e = e.session(docs)
	origin := u.Scheme + "://" + u.Host
	res := &Result{
		URL:           u.String(),
		Host:          strings.TrimSuffix(strings.ToLower(u.Hostname()), "."),
		CheckedAt:     e.now().UTC().Truncate(time.Microsecond),
		MethodVersion: MethodVersion,
		Robots:        Robots{Status: "not_checked", Agents: map[string]AgentVerdict{}},
		UCPProfile:    UCPProfile{Status: "not_checked", ErrorRules: []string{}, WarningRules: []string{}},
		StorefrontMCP: StorefrontMCP{Tools: []string{}},
		WebMCPDetail:  WebMCPDetail{Tools: []string{}},
		CheckoutWebMCP: CheckoutWebMCP{Status: "unknown", Tools: []string{},
			Reason: "Not measured: the homepage could not be checked."},
	}

	home, homeErr := e.client.Get(ctx, origin+"/")
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var page *detect.Page
	gated := true
	switch {
	case homeErr != nil:
		res.Reachability = Reachability{Reachable: ptr(false), Error: ErrorClass(homeErr)}
	default:
		page = detect.NewPage(home.URL, home.StatusCode, home.Header, home.Body)
		res.Reachability = Reachability{Reachable: ptr(true), HTTPStatus: home.StatusCode, FinalURL: home.URL.Redacted()}
		block := detect.DetectBlock(page)
		res.BlockStatus = BlockStatus{Blocked: ptr(block.Blocked)}
		if block.Blocked {
			// The reason names the wall's vendor when a wall answered
			// (cloudflare, datadome, ...), else the status-only block
			// (rate_limited, forbidden, payment_required).
			res.BlockStatus.Reason = block.Reason
			res.BlockStatus.Vendor = block.Vendor
			res.BlockStatus.Kind = block.Reason
			if block.Wall && block.Vendor != "" {
				res.BlockStatus.Reason = block.Vendor
			}
			break
		}
		if home.StatusCode >= 500 {
			res.Reachability.Reachable = ptr(false)
			res.Reachability.Error = "http_5xx"
			break
		}
		// Parking and brand moves can only be judged on a page we saw.
		reqURL, _ := url.Parse(origin + "/")
		res.Reachability.RedirectsToOtherBrand = ptr(detect.DetectRedirect(reqURL, home.URL).AnotherBrand)
		res.Reachability.Parked = ptr(!*res.Reachability.RedirectsToOtherBrand && detect.DetectParked(page).Parked)
		gated = *res.Reachability.RedirectsToOtherBrand || *res.Reachability.Parked
	}

	// robots.txt is read for every store: it often answers when the
	// homepage does not, and an edge block behind an allow-all robots.txt is
	// a finding. The UCP profile is read when the homepage answered at all.
	e.robots(ctx, origin, res)
	if homeErr == nil {
		e.ucpProfile(ctx, origin, res)
	} else {
		res.UCPProfile.Status = ucp.VerdictUnreachable
	}
	if isTrue(res.BlockStatus.Blocked) && res.Robots.Status == "ok" {
		res.BlockStatus.EdgeBlockBehindAllowAll = robotsAllowAll(res.Robots)
	}

	if !gated {
		e.storeSignals(ctx, origin, u, page, home.RedirectSetCookies, res)
	}
	res.Fix = chooseFix(res)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if docs != nil {
		res.Reused = docs.Reused()
	}
	return res, nil
}

// storeSignals measures everything that needs a store homepage: platform,
// WebMCP, policies, catalog and cart, product data, discovery documents.
// redirectCookies are the Set-Cookie values of the redirects to the
// homepage, read for the platform's cookies.
func (e *Engine) storeSignals(ctx context.Context, origin string, asked *url.URL, page *detect.Page, redirectCookies []string, res *Result) {
	plat := detect.DetectPlatformCookies(page, redirectCookies)
	res.Platform = ptr(plat.Name)

	wm := detect.DetectWebMCP(page)
	res.WebMCP = ptr(wm.Detected)
	res.WebMCPDetail = WebMCPDetail{Tools: nonNil(wm.Tools)}
	for _, k := range wm.Kinds {
		switch k {
		case detect.WebMCPImperative:
			res.WebMCPDetail.Imperative = true
		case detect.WebMCPDeclarative:
			res.WebMCPDetail.Declarative = true
		}
	}
	if wm.Detected {
		res.WebMCPDetail.Evidence = "server HTML"
	}
	res.CheckoutWebMCP = checkoutWebMCP(plat.Name, wm)

	pol := detect.FindPolicies(page)
	res.Policies = Policies{
		Returns: ptr(pol.Returns != nil), Shipping: ptr(pol.Shipping != nil),
		Privacy: ptr(pol.Privacy != nil), Terms: ptr(pol.Terms != nil),
	}

	var productsJSON []detect.Product
	productsJSONRead := false
	readProductsJSON := func() {
		if productsJSONRead {
			return
		}
		productsJSONRead = true
		resp, ok, err := e.getJSON(ctx, origin+"/products.json")
		if err != nil || !ok {
			if err == nil && resp.StatusCode == 200 {
				res.Catalog.SoftNot = true
			}
			return
		}
		ps, err := detect.ParseShopifyProducts(resp.Body, resp.URL)
		if err == nil {
			productsJSON = nonNil(ps)
			if len(ps) == 0 && detect.DetectThrottle(resp.StatusCode, resp.Header, true).Throttled {
				res.Catalog.Throttled = true
			}
		}
	}

	// Catalog: storefront MCP, else /products.json, else the GraphQL
	// catalog of a Vendure or EverShop store (asked of those only), else
	// the WooCommerce Store API.
	var catalogCurrency string
	var catalogProducts []detect.Product // a catalog API's, for their product pages
	m := e.storefrontMCP(ctx, origin)
	res.StorefrontMCP = StorefrontMCP{
		Detected: ptr(m.detected && hasAny(m.tools, catalogTools)), Tools: nonNil(m.tools),
		ProtocolVersion: m.protocolVersion, ServerName: m.serverName,
	}
	if m.detected {
		res.StorefrontMCP.Endpoint = "/api/mcp"
		res.StorefrontMCP.CartTools = ptr(m.cartTools)
	}
	switch {
	case m.answered:
		res.Catalog.Source = "storefront_mcp"
		res.CatalogAnswered = ptr(true)
		res.Catalog.Products = ptr(m.products)
		switch {
		case m.products > 0:
			res.ProductFound = ptr(true)
			res.CartLink = ptr(m.cartLink)
		case m.throttled:
			res.Catalog.Throttled = true
			res.Catalog.Note = "The catalog answered empty with throttle signals: throttled, not an empty catalog."
		default:
			res.ProductFound = ptr(false)
			res.CartLink = ptr(false)
		}
	case m.throttled:
		res.Catalog.Throttled = true
	}
	if res.CatalogAnswered == nil {
		readProductsJSON()
		if productsJSON != nil {
			res.Catalog.Source = "products_json"
			res.CatalogAnswered = ptr(true)
			res.Catalog.Products = ptr(len(productsJSON))
			res.ProductFound = ptr(anyPriced(productsJSON))
		} else if ps, source, ok := e.headlessCatalog(ctx, origin, page, plat, res); ok {
			res.Catalog.Source = source
			res.CatalogAnswered = ptr(true)
			res.Catalog.Products = ptr(len(ps))
			res.ProductFound = ptr(anyPriced(ps))
			catalogCurrency = firstCurrency(ps)
			catalogProducts = ps
		} else if ps, ok := e.storeAPI(ctx, origin, page, plat, res); ok {
			res.Catalog.Source = "store_api"
			res.CatalogAnswered = ptr(true)
			res.Catalog.Products = ptr(len(ps))
			res.ProductFound = ptr(anyPriced(ps))
			catalogCurrency = firstCurrency(ps)
			catalogProducts = ps
		} else {
			res.CatalogAnswered = ptr(false)
		}
	}
	if res.CartLink == nil && !(m.detected && res.Catalog.Throttled) {
		res.CartLink = ptr(false)
	}
	if res.ProductFound != nil && !*res.ProductFound && res.Catalog.Throttled {
		res.ProductFound = nil
	}

	// Product data: JSON-LD of product pages, else /products.json.
	var read productRead
	res.ProductData, read = e.productData(ctx, asked, page, catalogProducts, func() []detect.Product {
		readProductsJSON()
		return productsJSON
	})
	res.Market = marketOf(page, read.page, catalogCurrency)
	res.PageText = pageTextOf(page, read)

	res.ACP = e.acp(ctx, origin)
	res.MCPServerCard = e.mcpCard(ctx, origin)
}

// session returns a copy of the engine for one check, whose client keeps
// the cookies the store sets for the length of that check only (a region,
// currency or consent gate passes as it does for a browser). The jar is
// never shared between checks or stores. docs, when set, are the store's
// kept documents the client asks about conditionally.
func (e *Engine) session(docs *fetch.Docs) *Engine {
	s := *e
	s.client = e.client.WithCookies().WithDocs(docs)
	s.docs = docs
	return &s
}

// plainClient is the engine's client without the session's cookies, asking
// conditionally for the session's kept documents; nil when there are none
// (the validator then uses its own).
func (e *Engine) plainClient() *fetch.Client {
	if e.docs == nil {
		return nil
	}
	return e.base.WithDocs(e.docs)
}

// ErrorClass reduces a fetch error to a class safe to publish: no address,
// body or raw error text.
func ErrorClass(err error) string {
	switch {
	case errors.Is(err, fetch.ErrRefused):
		if r, ok := fetch.IsRefused(err); ok {
			return "refused_" + r.Code
		}
		return "refused"
	case errors.Is(err, fetch.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, fetch.ErrTooLarge):
		return "too_large"
	}
	return "connection_failed"
}

func anyPriced(ps []detect.Product) bool {
	for _, p := range ps {
		if p.Name != "" && p.Completeness().Price {
			return true
		}
	}
	return false
}

func hasAny(have, want []string) bool {
	for _, w := range want {
		if contains(have, w) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
