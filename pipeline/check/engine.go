package check

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"sort"
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
	return &Engine{client: opts.Client, ucp: opts.UCP, now: opts.Now, maxProductPages: opts.MaxProductPages}
}

// Check runs the store check on a public homepage or product URL. The only
// error is for a URL that is invalid or unsafe (errors.Is(err,
// fetch.ErrRefused)) or a cancelled ctx; a store that cannot be reached is a
// result whose Reachability says so.
func (e *Engine) Check(ctx context.Context, rawURL string) (*Result, error) {
	u, err := fetch.ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
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
		e.storeSignals(ctx, origin, u, page, res)
	}
	res.Fix = chooseFix(res)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return res, nil
}

// storeSignals measures everything that needs a store homepage: platform,
// WebMCP, policies, catalog and cart, product data, discovery documents.
func (e *Engine) storeSignals(ctx context.Context, origin string, asked *url.URL, page *detect.Page, res *Result) {
	plat := detect.DetectPlatform(page)
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

	// Catalog: storefront MCP, else /products.json, else the Store API.
	var catalogCurrency string
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
		} else if ps, ok := e.storeAPI(ctx, origin, res); ok {
			res.Catalog.Source = "store_api"
			res.CatalogAnswered = ptr(true)
			res.Catalog.Products = ptr(len(ps))
			res.ProductFound = ptr(anyPriced(ps))
			catalogCurrency = firstCurrency(ps)
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
	res.ProductData, read = e.productData(ctx, asked, page, func() []detect.Product {
		readProductsJSON()
		return productsJSON
	})
	res.Market = marketOf(page, read.page, catalogCurrency)
	res.PageText = pageTextOf(page, read)

	res.ACP = e.acp(ctx, origin)
	res.MCPServerCard = e.mcpCard(ctx, origin)
}

// storeAPI tries the WooCommerce Store API product lists.
func (e *Engine) storeAPI(ctx context.Context, origin string, res *Result) ([]detect.Product, bool) {
	for _, p := range []string{"/wp-json/wc/store/v1/products", "/wp-json/wc/store/products"} {
		resp, ok, err := e.getJSON(ctx, origin+p)
		if err != nil || !ok {
			continue
		}
		ps, err := detect.ParseWooProducts(resp.Body)
		if err != nil {
			continue
		}
		if len(ps) == 0 && detect.DetectThrottle(resp.StatusCode, resp.Header, true).Throttled {
			res.Catalog.Throttled = true
		}
		return nonNil(ps), true
	}
	return nil, false
}

// productRead is what the product data read leaves for the market and the
// page text: the product page read last (nil when none answered), and the
// product whose data was kept with where it came from.
type productRead struct {
	page    *detect.Page
	product *detect.Product
	source  string // detect.DescJSONLD or detect.DescCatalog
	url     string
}

// productData reads Product JSON-LD from the asked URL (when it is not the
// homepage) and the product pages the homepage links to, and falls back to
// the public products.json.
func (e *Engine) productData(ctx context.Context, asked *url.URL, home *detect.Page, productsJSON func() []detect.Product) (*ProductData, productRead) {
	var read productRead
	var pages []string
	if asked.Path != "" && asked.Path != "/" {
		pages = append(pages, asked.String())
	}
	for _, l := range detect.ProductLinks(home) {
		if len(pages) >= e.maxProductPages {
			break
		}
		if !contains(pages, l) {
			pages = append(pages, l)
		}
	}
	for _, pu := range pages {
		resp, err := e.client.Get(ctx, pu)
		if err != nil || resp.StatusCode != 200 {
			continue
		}
		pp := detect.NewPage(resp.URL, resp.StatusCode, resp.Header, resp.Body)
		read.page, read.url = pp, resp.URL.Redacted()
		ld := detect.ExtractJSONLD(pp)
		if p, ok := detect.BestProduct(ld.Products); ok {
			read.product, read.source = &p, detect.DescJSONLD
			return productDataFrom(p, "jsonld", resp.URL.Redacted()), read
		}
	}
	if p, ok := detect.BestProduct(productsJSON()); ok {
		read.product, read.source = &p, detect.DescCatalog
		return productDataFrom(p, "products_json", ""), read
	}
	return &ProductData{}, read
}

// marketOf decides the store's market from the homepage, the product page
// read (nil for none) and the currency a catalog quoted ("" for none).
func marketOf(home, product *detect.Page, catalogCurrency string) Market {
	sig := detect.ReadMarketSignals(home)
	if product != nil {
		sig.Merge(detect.ReadMarketSignals(product))
	}
	if catalogCurrency != "" {
		sig.AddCurrency(detect.MarketCatalogCurrency, catalogCurrency)
	}
	for _, l := range []*[]detect.Declared{&sig.Currencies, &sig.Countries, &sig.Locales} {
		*l = nonNil(*l)
	}
	m := detect.DecideMarket(sig)
	out := Market{Declarations: &sig}
	if m.Country != "" {
		out.Country, out.Basis = ptr(m.Country), ptr(m.Basis)
	}
	if m.Currency != "" {
		out.Currency = ptr(m.Currency)
	}
	return out
}

// pageTextOf judges the first description the pages gave: the kept
// product's (JSON-LD, else catalog), else the product page's meta
// description, else the homepage's (see detect.JudgeDescription).
func pageTextOf(home *detect.Page, read productRead) PageText {
	type cand struct{ text, source, url, name string }
	var cands []cand
	if p := read.product; p != nil {
		u := read.url
		if read.source == detect.DescCatalog {
			u = ""
		}
		cands = append(cands, cand{p.Description, read.source, u, p.Name})
	}
	if read.page != nil {
		cands = append(cands, cand{detect.MetaDescription(read.page), detect.DescProductMeta, read.url, ""})
	}
	if home != nil {
		u := ""
		if home.URL != nil {
			u = home.URL.Redacted()
		}
		cands = append(cands, cand{detect.MetaDescription(home), detect.DescHomeMeta, u, ""})
	}
	for _, c := range cands {
		j, ok := detect.JudgeDescription(c.text, c.source, c.name)
		if !ok {
			continue
		}
		return PageText{
			Description: ptr(j.Text), Source: ptr(c.source), URL: c.url, Words: ptr(j.Words),
			UseCaseMention: ptr(j.UseCaseMentioned()), UseCases: nonNil(j.UseCases),
			AgentFriendly: ptr(j.AgentFriendly()), Issues: nonNil(j.Issues),
		}
	}
	return PageText{}
}

// firstCurrency is the first currency a catalog's products quote.
func firstCurrency(ps []detect.Product) string {
	for _, p := range ps {
		for _, o := range p.Offers {
			if o.Currency != "" {
				return o.Currency
			}
		}
	}
	return ""
}

func productDataFrom(p detect.Product, source, pageURL string) *ProductData {
	c := p.Completeness()
	pd := &ProductData{Source: ptr(source), URL: pageURL, Complete: c.Complete()}
	if p.Name != "" {
		pd.Name = ptr(p.Name)
	}
	if len(p.Offers) > 0 {
		o := p.Offers[0]
		if c.Price {
			pd.Price = ptr(o.Price)
		}
		if o.Currency != "" {
			pd.Currency = ptr(o.Currency)
		}
		if o.Availability != "" {
			pd.Availability = ptr(o.Availability)
		}
	}
	if p.GTIN != "" {
		pd.GTIN = ptr(p.GTIN)
	}
	if p.SKU != "" {
		pd.SKU = ptr(p.SKU)
	}
	if len(p.Images) > 0 {
		pd.Image = ptr(p.Images[0])
	}
	return pd
}

// robots reads /robots.txt and gives every AI agent's verdict for "/".
// A robots.txt that got no HTTP answer at all (DNS, connection, TLS,
// timeout) was not read: its status is unreachable and every verdict is
// unmeasured. RFC 9309's complete disallow applies to a server that
// answered with an error (5xx), not to a file nobody could ask for: a
// store that cannot be reached is unreachable, not disallowing agents.
func (e *Engine) robots(ctx context.Context, origin string, res *Result) {
	resp, err := e.client.Get(ctx, origin+"/robots.txt")
	if err != nil {
		res.Robots = Robots{Status: RobotsUnreachable, Agents: map[string]AgentVerdict{}}
		return
	}
	res.Robots = robotsResult(detect.RobotsFromResponse(resp.StatusCode, resp.Body))
}

// RobotsUnreachable is the robots status of a robots.txt no HTTP answer
// came for; its agents' verdicts are unmeasured.
const RobotsUnreachable = "unreachable"

func robotsResult(r *detect.Robots) Robots {
	out := Robots{HTTPStatus: r.HTTPStatus, Agents: map[string]AgentVerdict{}}
	switch r.State {
	case detect.RobotsParsed:
		out.Status = "ok"
	case detect.RobotsUnavailable:
		out.Status = "not_found"
	default:
		out.Status = "error"
	}
	for _, v := range detect.RobotsReport(r, "") {
		out.Agents[v.Agent.Token] = AgentVerdict{Verdict: string(v.Home.Verdict), Purpose: string(v.Agent.Purpose)}
	}
	return out
}

// robotsAllowAll reports whether no AI agent is disallowed at "/".
func robotsAllowAll(r Robots) bool {
	for _, v := range r.Agents {
		if v.Verdict == string(detect.Disallowed) {
			return false
		}
	}
	return true
}

// ucpProfile validates /.well-known/ucp with the full validator.
func (e *Engine) ucpProfile(ctx context.Context, origin string, res *Result) {
	if e.ucp == nil {
		return
	}
	rep, err := e.ucp.ValidateURL(ctx, origin, ucp.URLOptions{})
	if err != nil {
		if errors.Is(err, ucp.ErrTooLarge) {
			res.UCPProfile.Status = ucp.VerdictInvalid
			res.UCPProfile.ErrorRules = []string{"ucp.doc.size"}
			return
		}
		res.UCPProfile.Status = ucp.VerdictUnreachable
		return
	}
	p := UCPProfile{
		Status: rep.Verdict(), URL: rep.Source.ProfileURL, HTTPStatus: rep.Source.Status,
		SchemaSource: rep.SchemaSource.Type, ErrorRules: []string{}, WarningRules: []string{},
	}
	if p.Status == ucp.VerdictValid || p.Status == ucp.VerdictInvalid || p.Status == ucp.VerdictUnvalidated {
		p.DeclaredVersion = rep.DeclaredVersion
		if p.Status != ucp.VerdictUnvalidated {
			p.Valid = ptr(rep.IsValid()) // unvalidated: null, neither valid nor invalid
		}
		p.Errors, p.Warnings = rep.Counts.Errors, rep.Counts.Warnings
		p.ErrorRules = ruleIDs(rep.Errors)
		p.WarningRules = ruleIDs(rep.Warnings)
		if len(rep.Profile) > 0 {
			p.DirectoryCount = ptr(ucp.CountsInDirectory(rep.Profile))
			p.ShoppingService, p.Checkout = profileHints(rep.Profile)
		}
	}
	res.UCPProfile = p
}

// ruleIDs returns the distinct rule ids of items, sorted.
func ruleIDs(items []ucp.Item) []string {
	out := []string{}
	for _, it := range items {
		if !contains(out, it.Rule) {
			out = append(out, it.Rule)
		}
	}
	sort.Strings(out)
	return out
}

// profileHints reads whether the profile declares a dev.ucp.shopping
// service and a checkout capability (the service's own hints).
func profileHints(profile []byte) (*bool, *bool) {
	var doc struct {
		UCP struct {
			Services     map[string]json.RawMessage `json:"services"`
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		} `json:"ucp"`
	}
	if json.Unmarshal(profile, &doc) != nil {
		return nil, nil
	}
	_, shopping := doc.UCP.Services["dev.ucp.shopping"]
	_, checkout := doc.UCP.Capabilities["dev.ucp.shopping.checkout"]
	return ptr(shopping), ptr(checkout)
}

// acp probes the ACP discovery document.
func (e *Engine) acp(ctx context.Context, origin string) Discovery {
	const path = "/.well-known/acp.json"
	resp, ok, err := e.getJSON(ctx, origin+path)
	if err != nil || !ok {
		return Discovery{Found: ptr(false)}
	}
	var doc struct {
		Protocol struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"protocol"`
	}
	if json.Unmarshal(resp.Body, &doc) != nil || !strings.EqualFold(doc.Protocol.Name, "acp") {
		return Discovery{Found: ptr(false)}
	}
	return Discovery{Found: ptr(true), Path: path, Version: doc.Protocol.Version}
}

// mcpCardPaths are where MCP server cards have been seen (draft SEP-2127).
var mcpCardPaths = []string{"/.well-known/mcp.json", "/.well-known/mcp/server-card.json", "/.well-known/mcp-server-card"}

func (e *Engine) mcpCard(ctx context.Context, origin string) Discovery {
	for _, p := range mcpCardPaths {
		resp, ok, err := e.getJSON(ctx, origin+p)
		if err != nil || !ok {
			continue
		}
		var doc map[string]any
		if json.Unmarshal(resp.Body, &doc) == nil && len(doc) > 0 {
			return Discovery{Found: ptr(true), Path: p}
		}
	}
	return Discovery{Found: ptr(false)}
}

// CheckoutTools are the Checkout WebMCP tools that run inside a platform's hosted checkout (SIGNALS.md).
var CheckoutTools = []string{"navigate_to_storefront", "get_checkout", "update_checkout", "complete_checkout"}

// checkoutWebMCP is platform-only: evidence when the page itself declares a
// checkout tool, an inference for Shopify, unknown otherwise. detected stays
// null without evidence.
func checkoutWebMCP(platform string, wm detect.WebMCP) CheckoutWebMCP {
	var seen []string
	for _, t := range wm.Tools {
		if contains(CheckoutTools, t) {
			seen = append(seen, t)
		}
	}
	switch {
	case len(seen) > 0:
		return CheckoutWebMCP{Status: "evidence", Detected: ptr(true), Tools: seen,
			Reason: "Evidence: the store's server HTML declares checkout WebMCP tools. Buyer approval is required before any order."}
	case platform == detect.PlatformShopify:
		return CheckoutWebMCP{Status: "inferred", Tools: append([]string(nil), CheckoutTools...),
			Reason: "Inferred from the platform: Shopify's hosted checkout registers these WebMCP tools at runtime; nothing on this store shows them from outside. Buyer approval is required."}
	}
	return CheckoutWebMCP{Status: "unknown", Tools: []string{},
		Reason: "Not measurable from outside: Checkout WebMCP runs inside a platform's hosted checkout, and nothing shows it for this store."}
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
