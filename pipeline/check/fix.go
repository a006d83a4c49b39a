package check

// The one recommended fix is the first of these that applies, in this order.
// The order puts what stops every agent before what stops some, and what
// stops finding products before what stops buying them:
//
//  1. unblock_agents       the edge blocked the check (bot wall, challenge)
//  2. not_a_store          the host is parked or redirects to another brand
//  3. fix_unreachable      the homepage timed out, failed or was too large
//  4. allow_agents_robots  robots.txt disallows a user-initiated agent
//     (ChatGPT-User, Claude-User, Perplexity-User) at "/"
//  5. publish_catalog      no catalog route answered
//  6. unthrottle_catalog   the catalog answered empty with throttle signals
//     (429, Retry-After, a call limit at its maximum): agents are rate limited
//  7. fix_ucp_profile      the UCP profile is invalid, or cannot be read (5xx,
//     wall, timeout)
//  8. publish_ucp_profile  no UCP profile is served
//  9. add_product_jsonld   no product data was found
//
// 10. publish_policies     a returns, shipping, privacy or terms page is missing
// 11. add_webmcp           no WebMCP tool in the server HTML
// 12. none                 nothing to fix that plain HTTP can see
var fixes = []struct {
	code    string
	text    string
	applies func(*Result) bool
}{
	{"unblock_agents", "Your bot protection refused the check. Let identified AI shopping agents through the edge (bot wall, challenge or WAF rule), or they cannot see your store at all.",
		func(r *Result) bool { return isTrue(r.BlockStatus.Blocked) }},
	{"not_a_store", "This host does not serve a store: it is parked or redirects to another brand. List the store's own domain instead.",
		func(r *Result) bool {
			return isTrue(r.Reachability.Parked) || isTrue(r.Reachability.RedirectsToOtherBrand)
		}},
	{"fix_unreachable", "The homepage did not answer in time or failed. Make it answer a plain HTTPS GET within a few seconds.",
		func(r *Result) bool { return !isTrue(r.Reachability.Reachable) }},
	{"allow_agents_robots", "robots.txt disallows user-initiated AI agents (ChatGPT-User, Claude-User or Perplexity-User) at /. Allow them so agents acting for a shopper can load your pages.",
		func(r *Result) bool {
			for _, a := range userAgents {
				if v, ok := r.Robots.Agents[a]; ok && v.Verdict == "disallowed" {
					return true
				}
			}
			return false
		}},
	{"publish_catalog", "No catalog answered over plain HTTP. Publish a machine-readable catalog: your platform's storefront MCP endpoint, /products.json or a Store API.",
		func(r *Result) bool { return isFalse(r.CatalogAnswered) }},
	{"unthrottle_catalog", "Your catalog answered empty with throttle signals (HTTP 429, Retry-After or a call limit at its maximum), so agents were rate limited before they saw a product. Let identified AI shopping agents read the catalog at a modest rate.",
		func(r *Result) bool { return r.Catalog.Throttled }},
	{"fix_ucp_profile", "Your UCP profile at /.well-known/ucp has errors or cannot be read. Serve it with status 200 and fix the errors the validator lists so agents can use it.",
		func(r *Result) bool { return r.UCPProfile.Status == "invalid" || r.UCPProfile.Status == "unreachable" }},
	{"publish_ucp_profile", "No UCP profile at /.well-known/ucp. Publish one that declares a dev.ucp.shopping service and a checkout capability.",
		func(r *Result) bool { return r.UCPProfile.Status == "missing" }},
	{"add_product_jsonld", "No product data was found. Add schema.org Product JSON-LD (name, price, currency, availability, GTIN or SKU, image) to product pages.",
		func(r *Result) bool { return r.ProductData != nil && r.ProductData.Source == nil }},
	{"publish_policies", "A returns, shipping, privacy or terms page is not linked from the homepage. Link all four so agents can answer shoppers' questions.",
		func(r *Result) bool {
			return isFalse(r.Policies.Returns) || isFalse(r.Policies.Shipping) || isFalse(r.Policies.Privacy) || isFalse(r.Policies.Terms)
		}},
	{"add_webmcp", "No WebMCP tool in the page HTML. Declare a search or cart tool (a <form toolname> or modelContext.registerTool) so in-browser agents can use it.",
		func(r *Result) bool { return isFalse(r.WebMCP) }},
}

// userAgents are the user-initiated fetchers: a disallow for them stops an
// agent acting for a shopper right now.
var userAgents = []string{"ChatGPT-User", "Claude-User", "Perplexity-User"}

// chooseFix returns the first fix of the priority order that applies.
func chooseFix(r *Result) Fix {
	for _, f := range fixes {
		if f.applies(r) {
			return Fix{Code: f.code, Text: f.text}
		}
	}
	return Fix{Code: "none", Text: "Nothing to fix that a plain-HTTP check can see. This does not prove an agent completed checkout."}
}

func isTrue(b *bool) bool  { return b != nil && *b }
func isFalse(b *bool) bool { return b != nil && !*b }
