package check

// Reading a store's products: its products.json, the JSON-LD of its
// product pages, and the market and page text they show.

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"svc/pipeline/detect"
)

// storeAPIRoutes are the WooCommerce Store API product lists, as REST
// routes: the versioned one, and the older alias WooCommerce still
// registers (RoutesController::register_all_routes in WooCommerce 7.9
// registers every route under both wc/store and wc/store/v1).
var storeAPIRoutes = []string{"/wc/store/v1/products", "/wc/store/products"}

// storeAPI tries the WooCommerce Store API product lists under the REST
// roots the homepage announces (its Link header and <link
// rel="https://api.w.org/">: /wp-json/ with pretty permalinks,
// ?rest_route=/ without), then under /wp-json/. When /wp-json/ answered
// 404 on a store that shows WordPress or WooCommerce, the query form
// /?rest_route=/, which WordPress answers whatever its permalinks, is the
// fallback.
func (e *Engine) storeAPI(ctx context.Context, origin string, home *detect.Page, plat detect.Platform, res *Result) ([]detect.Product, bool) {
	roots := detect.RESTAPIRoots(home)
	wordpress := len(roots) > 0 || hasPlatformSignal(plat, detect.PlatformWooCommerce)
	for _, r := range []string{origin + "/wp-json/", origin + "/?rest_route=/"} {
		if u, err := url.Parse(r); err == nil {
			roots = append(roots, u)
		}
	}
	tried := map[string]bool{}
	notFound := false
	for i, root := range roots {
		if i == len(roots)-1 && !(wordpress && notFound) {
			break // the query-form fallback
		}
		for _, route := range storeAPIRoutes {
			u := detect.RESTRoute(root, route).String()
			if tried[u] {
				continue
			}
			tried[u] = true
			resp, ok, err := e.getJSON(ctx, u)
			if err != nil {
				continue
			}
			if resp.StatusCode == http.StatusNotFound && strings.Contains(u, "/wp-json/") {
				notFound = true
			}
			if !ok {
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
	}
	return nil, false
}

// hasPlatformSignal reports whether any signature of platform, weak or
// strong, was seen.
func hasPlatformSignal(plat detect.Platform, platform string) bool {
	for _, s := range plat.Signals {
		if s.Platform == platform {
			return true
		}
	}
	return false
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
// homepage: another path, or a product addressed by its query such as
// /?product=beanie) and the product pages the homepage links to, and falls back to
// the public products.json.
func (e *Engine) productData(ctx context.Context, asked *url.URL, home *detect.Page, catalog []detect.Product, productsJSON func() []detect.Product) (*ProductData, productRead) {
	var read productRead
	var pages []string
	if asked.Path != "" && asked.Path != "/" || detect.IsProductURL(asked) {
		pages = append(pages, asked.String())
	}
	// The homepage's product links, then the product pages the catalog
	// names (a WooCommerce home that lists posts links no product, but its
	// Store API gives each product's permalink, /?product=beanie without
	// pretty permalinks).
	links := detect.ProductLinks(home)
	for _, p := range catalog {
		if u := sameSiteURL(home, p.URL); u != "" {
			links = append(links, u)
		}
	}
	for _, l := range links {
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

// sameSiteURL returns raw as an absolute http(s) URL when it is on the
// homepage's site (its host or registrable domain), else "".
func sameSiteURL(home *detect.Page, raw string) string {
	if home == nil || home.URL == nil || raw == "" {
		return ""
	}
	u, err := home.URL.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	h, hh := strings.ToLower(u.Hostname()), strings.ToLower(home.URL.Hostname())
	if h != hh && (detect.RegistrableDomain(hh) == "" || detect.RegistrableDomain(h) != detect.RegistrableDomain(hh)) {
		return ""
	}
	u.Fragment = ""
	return u.String()
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
