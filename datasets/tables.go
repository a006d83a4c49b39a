package datasets

// The published tables (issue 5, item 1). These are skeletons: the key and
// the columns that the spec and the issue already fix. The check engine,
// UCP and aggregate work add their measured columns here, in this one
// place; writers, views, manifest and datapackage.json follow.
//
// Conventions: one snake_case column per fact; a measured value that was
// not measured is null, never zero, false or ""; times are UTC timestamps;
// nested values that are not queried column-wise are JSON text.

func req(name string, typ Type, desc string) Column {
	return Column{Name: name, Type: typ, Description: desc}
}

func opt(name string, typ Type, desc string) Column {
	return Column{Name: name, Type: typ, Nullable: true, Description: desc}
}

var hostColumn = req("host", String,
	"Store hostname, lower case, without scheme, port or trailing dot.")

// StoreAnswers is one plain answer per store: the first file to use. Its
// first fifteen columns are the ones the skeleton fixed (benchmarks and
// publish tests build rows positionally); columns added later go at the end.
var StoreAnswers = &Table{
	Name:  "store_answers",
	Title: "Store answers",
	Description: "One plain answer per store: can AI agents reach checkout, the readiness score and both buy lanes. " +
		"The first file to use. Null means not measured. " +
		"score (0-100) is computed from measured readiness signals only: catalog_answered 25, a valid UCP profile 20, " +
		"complete product data 15, product_found 10, webmcp 10, all four policy pages 10, robots.txt allowing the " +
		"user-initiated agents (ChatGPT-User, Claude-User, Perplexity-User) 10. score = round(100 x (sum of the weights " +
		"of the measured signals that hold) / (sum of the weights of the measured signals)); unmeasured signals are left " +
		"out of both sums, never counted as 0. A store whose edge blocked the check scores 0 (agents cannot reach it); " +
		"a host that is unreachable, parked, redirects to another brand or whose check failed has a null score. " +
		"The buy lanes and the cart link are reported beside the score and never change it.",
	Key: []string{"host"},
	Columns: []Column{
		hostColumn,
		opt("name", String, "Store name as listed in the directory."),
		opt("category", String, "Directory category slug (for example apparel, footwear, beauty)."),
		opt("platform", String, "Detected commerce platform (shopify, woocommerce, magento, bigcommerce, salesforce_commerce_cloud, shopware, prestashop, squarespace, wix, evershop, vendure, opencart, saleor, medusa, sylius, nopcommerce, volusion, shift4shop, square_online, ecwid, commercetools or custom); null when the homepage could not be checked as a shop."),
		req("source", String, "How the store entered the dataset; see stores.source."),
		opt("agents_can_buy", Bool, "True when either buy lane reached checkout or the cart; false when a lane was measured and none reached it. Not a completed order; null when neither lane was measured."),
		opt("buy_agent_catalog", Bool, "buy.agent_catalog lane: the plain-HTTP hosted-platform catalog/cart check returned a checkout link (cart_link) and the UCP profile is valid (ucp_valid). False when either was measured and failed; null otherwise. Not a browser session."),
		opt("buy_browser", Bool, "buy.browser lane: the service's browser shoppers reached the cart or checkout (stopped before payment); null when no browser run covered the store."),
		opt("score", Int64, "Readiness score 0-100 from measured signals only (formula in the table description); null when nothing was measured."),
		opt("cart_link", Bool, "The catalog check's cart returned a checkout link (boolean only; no URL is ever stored)."),
		opt("ucp_valid", Bool, "The store's UCP profile validated against the UCP 2026-08-25 schema and rules; false when the profile is invalid or missing; null when it could not be read, or was read but could not be validated because the run had no UCP schemas (ucp_status unvalidated). Not certification."),
		opt("webmcp", Bool, "A storefront WebMCP adapter was detected in the server HTML (not a browser session)."),
		opt("blocked", Bool, "The store blocked the check (bot wall, challenge or rate limit)."),
		opt("fix", String, "The one recommended fix, in words."),
		opt("checked_at", Timestamp, "When the store was last checked (UTC)."),
		opt("verdict", String, "The plain answer: agents_can_buy (a buy lane reached the cart or checkout), "+
			"cart_without_valid_ucp (the cart returned a checkout link but the UCP profile is not valid), "+
			"catalog_throttled (the catalog answered empty with throttle signals: not an empty catalog), "+
			"catalog_only (a catalog answered with a priced product; no lane reached the cart), "+
			"no_agent_catalog (the store answered but no catalog with a product did), blocked, not_a_store "+
			"(parked or redirects to another brand), unreachable, or check_failed."),
		opt("svc_url", String, "The store's page on svc (/stores/<host>/): its saved answer in plain words; GET /api/store?host= gives it as JSON."),
		opt("fix_code", String, "Code of the one recommended fix (see checks.fix_code)."),
		opt("catalog_answered", Bool, "A catalog endpoint gave a well-formed answer over plain HTTP (storefront MCP, /products.json, the GraphQL catalog of a Vendure or EverShop store, or a Store API)."),
		opt("product_found", Bool, "The catalog answer held a product with a name and a price; null when throttled or no catalog answered."),
		opt("storefront_mcp", Bool, "The hosted platform's storefront MCP endpoint listed catalog tools (an agent catalog)."),
		opt("ucp_status", String, "UCP profile verdict: valid, invalid, missing, unreachable, unvalidated (read and no rule failed, but the run had no UCP schemas to validate it against: neither valid nor invalid) or not_checked."),
		opt("checkout_webmcp_status", String, "Checkout WebMCP: measured (a browser shopper of the service reached the store's checkout page and read the WebMCP tools registered or declared there), evidence (the server HTML declares checkout tools), inferred (from the platform: no shopper reached checkout) or unknown; null when the platform was not measured."),
		opt("score_inputs", Int64, "How many of the score's seven signals were measured and used (1 for a blocked store, 0 when score is null)."),
		opt("market", String, MarketDescription),
		opt("market_basis", String, "Which rule decided market: currency, currency_and_country, currency_and_locale or country (see checks.market_basis); null with market."),
		opt("ucp_checkout_link", Bool, "A checkout came back through the store's UCP services to the service's UCP agent path (SVC-100 stores): "+
			"true when the path returned a checkout; false when it ended without one, or when the store's UCP profile is missing or "+
			"invalid (no UCP service could return one); null when not measured (a valid, unreadable or unvalidated profile the "+
			"path did not take to a cart). The weekly figure is the share of market = US stores where it is true. Method "+
			"agent-path/2 and later create a UCP checkout session (REST or MCP binding), reads it back and cancels it; true means a "+
			"session was created. It never completes one or sends payment. Not an order."),
		opt("checkout_webmcp_detected", Bool, "Checkout WebMCP tools were seen: with status measured, whether the checkout page a browser shopper reached registered or declared any WebMCP tool (true or false); with evidence, true; null otherwise (inferred or unknown: not seen)."),
		opt("checkout_webmcp_tools", JSON, "The Checkout WebMCP tool names (JSON array): those seen at the checkout page when measured, those the server HTML declares with evidence, the platform's hosted-checkout tools when inferred, [] otherwise. Names only."),
		opt("checkout_webmcp_reason", String, "Why checkout_webmcp_status is what it is, in words: which browser shoppers reached the checkout page and when, or that none did and what the status rests on instead."),
	},
}

// Stores is the open directory of stores the pipeline checks.
var Stores = &Table{
	Name:        "stores",
	Title:       "Stores",
	Description: "The open directory of stores svc checks, with where each one came from.",
	Key:         []string{"host"},
	Columns: []Column{
		hostColumn,
		opt("name", String, "Store name."),
		opt("category", String, "Directory category slug."),
		req("source", String, "How the store entered the dataset: seed, submitted, third-party-list, map-derived, campaign or opted-out."),
		opt("country", String, "ISO 3166-1 alpha-2 country the store sells to: store_answers.market of this run (how it is decided is there); null when unknown."),
		opt("svc100_id", String, "Id in the SVC-100 v1 test set (svc100-v1-NNN) when the store is one of the 100."),
		opt("added_on", Date, "Snapshot date of the first pipeline run whose directory listed the store (UTC)."),
	},
}

// UCPValidations holds one UCP profile validation per store, written by
// the validate stage (pipeline.Validate) and copied as is by aggregate.
var UCPValidations = &Table{
	Name:  "ucp_validations",
	Title: "UCP validations",
	Description: "One UCP profile validation per store against the UCP 2026-08-25 schema and spec rules, with the full report " +
		"(spec 2.4). Validation is not certification: a valid profile does not prove that its endpoints work. " +
		"Hosts whose homepage gave no HTTP answer in the crawl are not fetched again: their status is unreachable and report is null.",
	Key: []string{"host"},
	Columns: []Column{
		hostColumn,
		opt("status", String, "valid, invalid, missing (404, 410 or an HTML page), unreachable (no answer, 5xx, a wall), unvalidated (read and no rule failed, but the UCP JSON Schema could not be loaded: neither valid nor invalid) or not_checked (the store check itself failed)."),
		opt("profile_url", String, "URL the profile was fetched from (https://<host>/.well-known/ucp)."),
		opt("http_status", Int64, "HTTP status of the profile answer; null when none came."),
		opt("declared_version", String, "ucp.version the profile declares."),
		opt("valid", Bool, "The profile passed the JSON Schema and every error-level rule; null when no profile was read or it could not be validated (status unvalidated)."),
		opt("counts_in_directory", Bool, "The directory's lighter count: a dated version and a dev.ucp.shopping service (spec 4.2.3); null when no profile was read."),
		opt("errors", Int64, "Number of error items in the report."),
		opt("warnings", Int64, "Number of warning items in the report."),
		opt("info", Int64, "Number of info items in the report."),
		opt("schema_source", String, "Where the schema came from: folder (a local copy of ucp.dev) or official (ucp.dev, cached)."),
		opt("fetch_error", String, "Why the profile could not be read, as a class (timeout, too_large, tls, connection_failed, homepage_unreachable); never a raw error or an address."),
		opt("report", JSON, "The full validation report (spec 2.4): valid, schema, declaredVersion, counts, errors, warnings, info, summary, httpChecks, profile, schemaSource, note."),
		opt("checked_at", Timestamp, "When the profile was validated (UTC)."),
	},
}

// AgentFacts holds typed decisions read from a store's saved check.
var AgentFacts = &Table{
	Name:  "agent_facts",
	Title: "Agent facts",
	Description: "Typed decisions from the stored plain-HTTP check of each store: use_case_mention, price_clarity, " +
		"agent_friendly_description, cart_blocker_suspicion and readiness_score, each with a confidence and the sha256 " +
		"of its evidence (the evidence column holds the exact bytes hashed). A decision the saved evidence cannot " +
		"support is null, with a note saying why. use_case_mention and agent_friendly_description judge the one description " +
		"the check saved from the store's pages (checks.description_text) and are null only when the pages gave none.",
	Key: []string{"host", "fact"},
	Columns: []Column{
		hostColumn,
		req("fact", String, "Decision type: use_case_mention, price_clarity, agent_friendly_description, cart_blocker_suspicion or readiness_score."),
		opt("value", JSON, "The decision: price_clarity a string (clear, price_without_currency, no_price, no_product); "+
			"cart_blocker_suspicion an object {suspected, reasons}; readiness_score the store_answers score; "+
			"use_case_mention an object {mentioned, phrases}; agent_friendly_description an object {friendly, issues} "+
			"(rules in checks.use_case_mention and checks.agent_friendly_description)."),
		opt("confidence", Float64, "Confidence 0-1 in the decision, by a documented rule per fact (see note)."),
		opt("evidence_sha256", String, "sha256 (hex) of the evidence column's text."),
		opt("evidence", JSON, "The saved check fields the decision was read from, as compact JSON."),
		opt("source_url", String, "Page the evidence came from: the product page for price_clarity, the page of the judged description for use_case_mention and agent_friendly_description, else the homepage."),
		opt("checked_at", Timestamp, "When the store was checked (UTC)."),
		opt("note", String, "How the decision and its confidence were made, or why it is null."),
	},
}

// ProductData holds one product-data read per store.
var ProductData = &Table{
	Name:  "product_data",
	Title: "Product data",
	Description: "Product data per store from Product JSON-LD on a product page, or the public products.json when the page has none, " +
		"and vendor readiness: a search-vendor agentic-checkout readiness read from that saved public product data. " +
		"Vendor readiness is not vendor approval; merchant feed eligibility cannot be checked from outside.",
	Key: []string{"host"},
	Columns: []Column{
		hostColumn,
		opt("product_url", String, "Product page read, when the data came from JSON-LD."),
		opt("source", String, "jsonld (a product page) or products_json; null when no product data was found."),
		opt("product_data", JSON, "The product fields found: {name, price, currency, availability, gtin, sku, image, complete}; null when not measured."),
		opt("vendor_readiness_status", String, "ready (name, price, currency, availability, GTIN or SKU and image all present), partial (a product with some missing), not_ready (no product data found)."),
		opt("vendor_readiness", JSON, "vendorReadiness: {status, present, missing, basis, note}, read from the saved public product data; not vendor approval."),
		opt("checked_at", Timestamp, "When the product data was read (UTC)."),
	},
}

// Policies holds the policy pages found per store.
var Policies = &Table{
	Name:  "policies",
	Title: "Policies",
	Description: "Store policy pages (returns, shipping, privacy, terms) linked from the homepage, as found by the plain-HTTP check: " +
		"four rows per store. found is null when the homepage could not be checked as a shop.",
	Key: []string{"host", "policy"},
	Columns: []Column{
		hostColumn,
		req("policy", String, "Policy kind: returns, shipping, privacy or terms."),
		opt("found", Bool, "A policy page of this kind is linked from the homepage and answers."),
		opt("checked_at", Timestamp, "When the policy was read (UTC)."),
	},
}

// LeaderboardResults holds one row per agent run and SVC-100 store
// (written by pipeline/leaderboard).
var LeaderboardResults = &Table{
	Name:  "leaderboard_results",
	Title: "Leaderboard results",
	Description: "Cart outcomes over the SVC-100 v1 test set, one row per agent run and store, stopped before payment: " +
		"the service's own measured runs (browser shoppers A-E, the UCP path, the storefront MCP path) and unverified, " +
		"self-reported outside submissions (verified false). A cart success (added_to_cart or checkout_reached) is not an order.",
	Key: []string{"run_id", "store_id"},
	Columns: []Column{
		req("run_id", String, "Run id: svc-ucp-<run>, svc-mcp-<run> or svc-browser-<x>-<run> (browser shoppers a to e) for the pipeline's own runs, sub-<hex> for an outside submission."),
		req("store_id", String, "SVC-100 v1 store id (svc100-v1-NNN)."),
		req("host", String, "Store hostname, from svc-100.csv."),
		opt("path_id", String, "Leaderboard path of the service's own runs: browser-a to browser-e, ucp or mcp; null for outside submissions."),
		req("agent", String, "Agent name."),
		opt("agent_version", String, "Agent version, when given."),
		opt("agent_model", String, "Model the agent used, when given."),
		req("path", String, "Agent path: browser, ucp, mcp, acp, api or other."),
		req("verified", Bool, "True for the service's own measured runs; false for unverified outside submissions."),
		req("evidence", String, "Evidence label: Measured (the service's own run) or Self-reported (an unverified outside submission)."),
		req("fixture_data", Bool, "Always false: generated fixture runs are no longer published; kept for the table's shape."),
		req("outcome", String, "added_to_cart, checkout_reached, no_cart, blocked, error or not_attempted."),
		opt("cart_success", Bool, "The outcome is added_to_cart or checkout_reached (not a completed order); null when not_attempted: unmeasured, so avg(cart_success) over a run is its rate and count(cart_success) its n."),
		opt("reason", String, "Why the service's own run ended there (for example no_storefront_mcp, ucp_profile_missing, checkout_page_loaded, no_add_control); null otherwise."),
		opt("at", Timestamp, "When the store was attempted (UTC)."),
		opt("steps", Float64, "Steps the agent reported."),
		opt("seconds", Float64, "Seconds the attempt took."),
		opt("evidence_url", String, "Evidence link supplied with the result; for the browser shoppers, /data/shop/stores/<host>.json (step log and screenshot)."),
		opt("run_started_at", Timestamp, "When the run started (UTC)."),
		opt("run_finished_at", Timestamp, "When the run finished (UTC)."),
		opt("submitted_at", Timestamp, "When an outside submission was received (UTC); null for the service's own runs."),
	},
}

// Changes holds week-over-week changes per store.
var Changes = &Table{
	Name:  "changes",
	Title: "Changes",
	Description: "Per store, what changed from one weekly run to the next: every store_answers field whose value differs " +
		"from the previous run's, and listed when a store joined (previous false, current true) or left the directory. " +
		"Rows of earlier weeks are carried forward, so the table is the store's change history.",
	Key: []string{"host", "week", "field"},
	Columns: []Column{
		hostColumn,
		req("week", Date, "Snapshot date of the run the change was seen in."),
		req("field", String, "store_answers column that changed, or listed."),
		opt("previous", JSON, "Value in the previous run; null when unmeasured."),
		opt("current", JSON, "Value in this run; null when unmeasured."),
	},
}

// All returns every published table in publishing order; store_answers,
// the first file to use, comes first.
func All() []*Table {
	return []*Table{
		StoreAnswers, Stores, Checks, UCPValidations, AgentFacts,
		ProductData, Policies, LeaderboardResults, Changes,
	}
}
