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

// StoreAnswers is one plain answer per store: the first file to use.
var StoreAnswers = &Table{
	Name:  "store_answers",
	Title: "Store answers",
	Description: "One plain answer per store: can AI agents reach checkout, the readiness score and both buy lanes. " +
		"The first file to use. Null means not measured.",
	Key: []string{"host"},
	Columns: []Column{
		hostColumn,
		opt("name", String, "Store name as listed in the directory."),
		opt("category", String, "Directory category slug (for example apparel, footwear, beauty)."),
		opt("platform", String, "Detected commerce platform (for example shopify, woocommerce, custom); null when not detected."),
		req("source", String, "How the store entered the dataset; see stores.source."),
		opt("agents_can_buy", Bool, "True when either buy lane reached checkout or the cart. Not a completed order; null when neither lane was measured."),
		opt("buy_agent_catalog", Bool, "buy.agent_catalog lane: a plain-HTTP hosted-platform catalog/cart check plus a valid UCP profile reached the cart. Not a browser session."),
		opt("buy_browser", Bool, "buy.browser lane: the service's browser shoppers reached the cart or checkout."),
		opt("score", Int64, "Readiness score 0-100 from measured signals only; null when nothing was measured."),
		opt("cart_link", Bool, "The catalog check returned a checkout link (boolean only; no URL is ever stored)."),
		opt("ucp_valid", Bool, "The store's UCP profile validated against the UCP 2026-08-25 schema and rules."),
		opt("webmcp", Bool, "A storefront WebMCP adapter was detected in the server HTML."),
		opt("blocked", Bool, "The store blocked the check (bot wall, challenge or rate limit)."),
		opt("fix", String, "The one recommended fix."),
		opt("checked_at", Timestamp, "When the store was last checked (UTC)."),
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
		opt("country", String, "ISO 3166-1 alpha-2 country the store sells to, when known."),
		opt("svc100_id", String, "Id in the SVC-100 v1 test set (svc100-v1-NNN) when the store is one of the 100."),
		opt("added_on", Date, "Day the store joined the directory (UTC)."),
	},
}

// UCPValidations holds one UCP profile validation per store.
// The UCP validator issue fills in the report columns.
var UCPValidations = &Table{
	Name:        "ucp_validations",
	Title:       "UCP validations",
	Description: "One UCP profile validation per store against the UCP 2026-08-25 schema and spec rules. Validation is not certification.",
	Key:         []string{"host"},
	Columns: []Column{
		hostColumn,
		opt("profile_url", String, "URL the profile was fetched from."),
		opt("declared_version", String, "UCP version the profile declares."),
		opt("valid", Bool, "The profile validated with no errors; null when no profile was found."),
		opt("errors", Int64, "Number of errors."),
		opt("warnings", Int64, "Number of warnings."),
		opt("info", Int64, "Number of info items."),
		opt("schema_source", String, "Where the schema came from (local folder or ucp.dev)."),
		opt("report", JSON, "The full validation report."),
		opt("checked_at", Timestamp, "When the profile was validated (UTC)."),
	},
}

// AgentFacts holds typed decisions read from a store's pages.
var AgentFacts = &Table{
	Name:  "agent_facts",
	Title: "Agent facts",
	Description: "Typed decisions from a stored plain-HTTP page scrape: use-case mention, price clarity, " +
		"agent-friendly description, cart-blocker suspicion and readiness score, each with a confidence and an evidence hash.",
	Key: []string{"host", "fact"},
	Columns: []Column{
		hostColumn,
		req("fact", String, "Decision type: use_case_mention, price_clarity, agent_friendly_description, cart_blocker_suspicion or readiness_score."),
		opt("value", JSON, "The decision."),
		opt("confidence", Float64, "Confidence 0-1."),
		opt("evidence_sha256", String, "sha256 (hex) of the evidence the decision was read from."),
		opt("source_url", String, "Page the evidence came from."),
		opt("checked_at", Timestamp, "When the page was read (UTC)."),
	},
}

// ProductData holds one product-data read per store.
var ProductData = &Table{
	Name:        "product_data",
	Title:       "Product data",
	Description: "Product data per store from Product JSON-LD, or the public products.json when the page has none, and vendor readiness read from saved public evidence (not vendor approval).",
	Key:         []string{"host"},
	Columns: []Column{
		hostColumn,
		opt("product_url", String, "Product page read."),
		opt("source", String, "json-ld or products.json."),
		opt("product_data", JSON, "The product fields found."),
		opt("vendor_readiness", JSON, "vendorReadiness: search-vendor agentic-checkout readiness read from saved public evidence."),
		opt("checked_at", Timestamp, "When the product data was read (UTC)."),
	},
}

// Policies holds the policy pages found per store.
var Policies = &Table{
	Name:        "policies",
	Title:       "Policies",
	Description: "Store policy pages (returns, shipping, privacy, terms) found by the plain-HTTP check.",
	Key:         []string{"host", "policy"},
	Columns: []Column{
		hostColumn,
		req("policy", String, "Policy kind: returns, shipping, privacy or terms."),
		opt("found", Bool, "A policy page of this kind was found."),
		opt("url", String, "Policy page URL."),
		opt("checked_at", Timestamp, "When the policy was read (UTC)."),
	},
}

// LeaderboardResults holds one row per agent run and SVC-100 store.
var LeaderboardResults = &Table{
	Name:  "leaderboard_results",
	Title: "Leaderboard results",
	Description: "Cart outcomes over the SVC-100 v1 test set per agent run, stopped before payment: the service's own runs " +
		"and unverified outside submissions (verified false).",
	Key: []string{"run_id", "store_id"},
	Columns: []Column{
		req("run_id", String, "Run id."),
		req("agent", String, "Agent name."),
		req("path", String, "Agent path: browser, ucp, mcp, acp, api or other."),
		req("verified", Bool, "True for the service's own measured runs; false for unverified outside submissions."),
		req("store_id", String, "SVC-100 v1 store id (svc100-v1-NNN)."),
		req("outcome", String, "added_to_cart, checkout_reached, no_cart, blocked, error or not_attempted."),
		opt("at", Timestamp, "When the store was attempted (UTC)."),
		opt("steps", Int64, "Steps the agent took."),
		opt("seconds", Float64, "Seconds the attempt took."),
		opt("evidence_url", String, "Evidence link supplied with the run."),
	},
}

// Changes holds week-over-week changes per store.
var Changes = &Table{
	Name:        "changes",
	Title:       "Changes",
	Description: "Per store, what changed since the previous weekly snapshot.",
	Key:         []string{"host", "week", "field"},
	Columns: []Column{
		hostColumn,
		req("week", Date, "Snapshot date the change was seen in."),
		req("field", String, "store_answers column that changed."),
		opt("previous", JSON, "Value in the previous snapshot; null when unmeasured."),
		opt("current", JSON, "Value in this snapshot; null when unmeasured."),
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
