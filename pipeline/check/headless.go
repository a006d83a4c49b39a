package check

// The public GraphQL catalogs of headless stores, asked only of a store
// whose homepage signs itself as that platform: Vendure's Shop API and
// EverShop's storefront GraphQL. Both serve the storefront itself, with no
// key and no login.

import (
	"context"
	"encoding/json"
	"net/http"

	"svc/pipeline/detect"
	"svc/pipeline/fetch"
)

// Catalog sources of the headless platforms (Result.Catalog.Source).
const (
	sourceVendureShopAPI  = "vendure_shop_api"
	sourceEverShopGraphQL = "evershop_graphql"
)

// vendureShopAPIPath is Vendure's default apiOptions.shopApiPath
// ("shop-api", config/default-config.ts).
const vendureShopAPIPath = "/shop-api"

// everShopGraphQLPath is EverShop's storefront GraphQL endpoint: the
// public route /graphql of modules/graphql/api/graphql/route.json, which
// EverShop mounts under /api (lib/router/scanForRoutes.js).
const everShopGraphQLPath = "/api/graphql"

// headlessCatalog reads the public GraphQL catalog of a Vendure or EverShop
// store, the one the homepage's platform names; any other store gets no
// request. source is the Catalog.Source value; ok is false when the
// platform is neither or the endpoint gave no catalog answer.
func (e *Engine) headlessCatalog(ctx context.Context, origin string, home *detect.Page, plat detect.Platform, res *Result) (ps []detect.Product, source string, ok bool) {
	switch plat.Name {
	case detect.PlatformVendure:
		resp, ok := e.graphQL(ctx, origin+vendureShopAPIPath, detect.VendureProductsQuery)
		if !ok {
			return nil, "", false
		}
		ps, slugs, err := detect.ParseVendureProducts(resp.Body)
		if err != nil {
			return nil, "", false
		}
		// The Shop API names products by slug; their pages are the
		// homepage links that end in one.
		links := detect.SlugLinks(home, slugs)
		for i := range ps {
			ps[i].URL = links[slugs[i]]
		}
		e.markThrottle(ps, resp, res)
		return nonNil(ps), sourceVendureShopAPI, true
	case detect.PlatformEverShop:
		resp, ok := e.graphQL(ctx, origin+everShopGraphQLPath, detect.EverShopProductsQuery)
		if !ok {
			return nil, "", false
		}
		ps, err := detect.ParseEverShopProducts(resp.Body, resp.URL)
		if err != nil {
			return nil, "", false
		}
		e.markThrottle(ps, resp, res)
		return nonNil(ps), sourceEverShopGraphQL, true
	}
	return nil, "", false
}

// graphQL POSTs one query to endpoint and returns the answer when it is a
// JSON 200 (GraphQL servers answer a refused query with 200 and errors,
// which the parsers reject). The body is bounded by the client's limit.
func (e *Engine) graphQL(ctx context.Context, endpoint, query string) (*fetch.Response, bool) {
	body, err := json.Marshal(map[string]string{"query": query})
	if err != nil {
		return nil, false
	}
	resp, err := e.client.Do(ctx, fetch.Request{
		Method: http.MethodPost, URL: endpoint, Body: body,
		Header: http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}},
	})
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, false
	}
	return resp, true
}

// markThrottle flags an empty answer given with throttle signals.
func (e *Engine) markThrottle(ps []detect.Product, resp *fetch.Response, res *Result) {
	if len(ps) == 0 && detect.DetectThrottle(resp.StatusCode, resp.Header, true).Throttled {
		res.Catalog.Throttled = true
	}
}
