package datasets

import "strings"

// Checks holds one row per store and crawl run: every signal of the store
// check engine (pipeline/check), flattened. Nested lists are JSON text; the
// whole result is kept in result_json so no measurement is lost. Null
// always means the signal was not measured (the store was blocked,
// unreachable or parked, or the check failed).
var Checks = &Table{
	Name:  "checks",
	Title: "Store checks",
	Description: "One row per store: the plain-HTTP store check (catalog, cart link, UCP profile, WebMCP, " +
		"storefront MCP, robots rules per AI agent, product data, policies, platform, block status and the one fix). " +
		"cart_link is a boolean: no checkout URL is ever stored. Null means not measured.",
	Key: []string{"host"},
	Columns: append(append([]Column{
		hostColumn,
		opt("name", String, "Store name from the directory."),
		opt("category", String, "Store category from the directory."),
		req("source", String, "Where the directory row came from: seed, submitted, third-party-list, map-derived, campaign or opted-out."),
		opt("check_error", String, "Why the check itself failed (an error class such as timeout); null when it ran."),
		opt("checked_at", Timestamp, "When the check ran (UTC, microseconds)."),
		opt("method_version", String, "Version of the check method."),
		opt("reachable", Bool, "The homepage answered (not a timeout, connection failure, oversized body or 5xx)."),
		opt("http_status", Int64, "HTTP status of the homepage."),
		opt("reach_error", String, "Error class when the homepage did not answer: timeout, too_large, connection_failed, http_5xx."),
		opt("blocked", Bool, "The store's edge refused the check (bot wall, challenge, 401/402/403/429)."),
		opt("block_reason", String, "The wall's vendor (cloudflare, akamai, imperva, perimeterx, sucuri, aws_waf, datadome, siteground, vercel), else the kind of block: challenge, captcha or blocked for a page without a known vendor, or the status-only block (rate_limited, forbidden, payment_required)."),
		opt("edge_block_behind_allow_all", Bool, "Blocked at the edge although robots.txt disallows no AI agent."),
		opt("parked", Bool, "The host serves a domain-parking page."),
		opt("redirects_to_other_brand", Bool, "The homepage redirects to another brand's registrable domain."),
		opt("platform", String, "shopify, woocommerce, magento, bigcommerce, salesforce_commerce_cloud, shopware, prestashop, squarespace, wix, evershop, vendure, opencart, saleor, medusa, sylius, nopcommerce, volusion, shift4shop, square_online, ecwid, commercetools or custom, from page signatures."),
		opt("catalog_answered", Bool, "A catalog endpoint gave a well-formed answer (storefront MCP, /products.json, the GraphQL catalog of a Vendure or EverShop store, or a Store API)."),
		opt("catalog_source", String, "Which catalog answered: storefront_mcp, products_json, vendure_shop_api (Vendure's Shop API, POST /shop-api), evershop_graphql (EverShop's storefront GraphQL, POST /api/graphql) or store_api."),
		opt("catalog_products", Int64, "Products in the catalog answer."),
		opt("catalog_throttled", Bool, "The catalog answered empty with throttle signals."),
		opt("product_found", Bool, "The catalog answer held a product with a name and a price; null when throttled."),
		opt("cart_link", Bool, "The storefront MCP cart returned a checkout link (boolean only; the URL is never kept)."),
		opt("storefront_mcp", Bool, "POST /api/mcp answered JSON-RPC with a catalog search tool."),
		opt("storefront_mcp_tools", JSON, "Tool names the storefront MCP endpoint listed (JSON array)."),
		opt("webmcp", Bool, "A WebMCP tool in the homepage server HTML (registerTool call or a toolname form); not a browser session."),
		opt("webmcp_tools", JSON, "WebMCP tool names seen in the server HTML (JSON array)."),
		opt("checkout_webmcp_status", String, "Checkout WebMCP: evidence, inferred (from the platform) or unknown."),
		opt("checkout_webmcp_detected", Bool, "Checkout WebMCP seen; null unless there is evidence."),
		opt("ucp_status", String, "UCP profile at /.well-known/ucp: valid, invalid, missing, unreachable, unvalidated (read and no rule failed, but the run had no UCP schemas: neither valid nor invalid) or not_checked."),
		opt("ucp_declared_version", String, "ucp.version declared by the profile."),
		opt("ucp_valid", Bool, "The profile passed the UCP 2026-08-25 schema and every error-level rule. Not certification. Null when no profile was read or it was unvalidated."),
		opt("ucp_counts_in_directory", Bool, "The directory's lighter count: a dated version and a shopping service."),
		opt("ucp_error_rules", JSON, "Ids of the error-level UCP rules that fired (JSON array)."),
		opt("ucp_warning_rules", JSON, "Ids of the warning-level UCP rules that fired (JSON array)."),
		opt("ucp_shopping_service", Bool, "The profile declares a dev.ucp.shopping service (a service hint)."),
		opt("ucp_checkout_capability", Bool, "The profile declares dev.ucp.shopping.checkout (a service hint)."),
		opt("robots_status", String, "robots.txt: ok, not_found (4xx: no restrictions), error (5xx: complete disallow, RFC 9309), unreachable (no HTTP answer: not read, every agent's verdict null)."),
	}, robotsColumns()...), []Column{
		opt("product_data_source", String, "Where product data came from: jsonld (a product page) or products_json."),
		opt("product_name", String, "Product name."),
		opt("product_price", String, "Price as a decimal string (> 0)."),
		opt("product_currency", String, "ISO 4217 currency."),
		opt("product_availability", String, "schema.org availability."),
		opt("product_gtin", String, "GTIN."),
		opt("product_sku", String, "SKU."),
		opt("product_image", String, "Image URL."),
		opt("product_data_complete", Bool, "Name, price, currency, availability, GTIN or SKU, and image all present."),
		opt("policy_returns", Bool, "A returns page is linked from the homepage."),
		opt("policy_shipping", Bool, "A shipping page is linked from the homepage."),
		opt("policy_privacy", Bool, "A privacy page is linked from the homepage."),
		opt("policy_terms", Bool, "A terms page is linked from the homepage."),
		opt("acp_found", Bool, "/.well-known/acp.json serves an ACP discovery document."),
		opt("acp_version", String, "ACP version the discovery document declares."),
		opt("mcp_card_found", Bool, "An MCP server card was found at one of its draft paths."),
		opt("mcp_card_path", String, "Path of the MCP server card."),
		opt("fix_code", String, "The one recommended fix (a documented priority order)."),
		opt("result_json", JSON, "The whole check result as JSON (field names of the API's store check)."),
		opt("market", String, MarketDescription),
		opt("market_basis", String, "Which rule decided market: currency (the one country whose currency the store quotes), "+
			"currency_and_country (a declared country that uses it), currency_and_locale (a locale region that uses it) or "+
			"country (no currency; the declared countries agree); null with market."),
		opt("market_currency", String, "The ISO 4217 currency the market rule read (the strongest the store declares); null when none."),
		opt("market_declarations", JSON, "Every market declaration read, as {currencies, countries, locales}, each a list of {source, value}; "+
			"null when the store was not checked as a shop."),
		opt("description_text", String, "The one description the page-text decisions judged, cleaned (tags dropped, entities decoded), "+
			"at most 1,000 characters: the kept product's JSON-LD description, else its catalog description, else the product page's "+
			"meta description, else the homepage's; null when the pages gave none."),
		opt("description_source", String, "Where description_text comes from: jsonld, catalog, product_meta or home_meta."),
		opt("description_url", String, "Page description_text was read from, when it was a page."),
		opt("description_words", Int64, "Words in description_text."),
		opt("use_case_mention", Bool, "description_text says what the product is for or who it is for (a purpose phrase such as "+
			"\"designed for\", \"for\" an audience, activity or occasion of a fixed list, or a use phrase such as \"use it to\"); "+
			"null when there was no text."),
		opt("use_case_phrases", JSON, "The use-case phrases found (JSON array, at most 5)."),
		opt("agent_friendly_description", Bool, "description_text is usable by an agent: at least 20 words, no HTML or entities in a "+
			"plain-text field, no placeholder, more than the product's name, and a concrete fact (a number or a material, "+
			"ingredient, fit or spec term); null when there was no text."),
		opt("description_issues", JSON, "Why description_text is not agent friendly (JSON array of too_short, markup, placeholder, "+
			"repeats_name, no_specifics); [] when it is."),
	}...),
}

// MarketDescription says how the market columns are decided; store_answers
// and checks share it.
const MarketDescription = "ISO 3166-1 alpha-2 country the store sells to, from what the store itself declares: the currency it " +
	"quotes (Product JSON-LD priceCurrency, og:price:currency or product:price:currency, a catalog's currency_code, Shopify's " +
	"Shopify.currency), the countries it declares (a JSON-LD offer's shippingDetails destination, the addressCountry of its " +
	"address) and the region of its locale tags (the page's own hreflang, og:locale, <html lang>). The currency decides, narrowed " +
	"by a declared country, else a locale region, that uses it; a currency that names its country (USD the US, GBP the UK) " +
	"decides alone; a shared currency (EUR) needs such a region. Without a currency only declared countries that agree decide; " +
	"locale tags alone never do (site builders write en-US by default). Null when the declarations do not settle one country, " +
	"disagree, or the store was not checked. UCP business profiles have no market field. A store that prices per visitor " +
	"(geo-IP) is recorded with the market the check was served."

// RobotsAgents are the AI agents with a robots column in Checks, in column
// order: the agents of spec issue 3, grouped by purpose in the docs.
var RobotsAgents = []string{
	"GPTBot", "OAI-SearchBot", "ChatGPT-User", "ClaudeBot", "Claude-SearchBot", "Claude-User",
	"PerplexityBot", "Perplexity-User", "Google-Extended", "Applebot-Extended", "CCBot", "Bytespider",
}

func robotsColumns() []Column {
	var out []Column
	for _, a := range RobotsAgents {
		out = append(out, opt("robots_"+strings.ToLower(strings.ReplaceAll(a, "-", "_")), String,
			"robots.txt verdict for "+a+" at /: allowed, disallowed or no_rule (RFC 9309)."))
	}
	return out
}
