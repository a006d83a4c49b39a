// Package check is the store check engine: given a public homepage or product
// URL, it measures over plain HTTP whether AI agents can find products and
// reach checkout there, and returns the result of spec section 2.1. The live
// check of the API and the crawl stage both call Engine.Check, so a store gets
// the same answer either way.
//
// Every measurement is a pointer or a nullable field: nil means unmeasured
// (blocked, unreachable, or not applicable), never false or zero. The engine
// never follows, returns, stores or logs a checkout URL: a cart that comes
// back with one sets CartLink to true, and the URL is dropped on the spot.
package check

import (
	"sort"
	"time"

	"svc/pipeline/detect"
	"svc/pipeline/fetch"
)

// Result is one store check (spec 2.1). JSON names are the contract.
type Result struct {
	URL  string `json:"url"`  // the URL asked for, normalised
	Host string `json:"host"` // lower-case host name

	CatalogAnswered *bool           `json:"catalogAnswered"`
	ProductFound    *bool           `json:"productFound"`
	CartLink        *bool           `json:"cartLink"`
	UCPProfile      UCPProfile      `json:"ucpProfile"`
	WebMCP          *bool           `json:"webmcp"`
	WebMCPDetail    WebMCPDetail    `json:"webmcpDetail"`
	CheckoutWebMCP  CheckoutWebMCP  `json:"checkoutWebmcp"`
	StorefrontMCP   StorefrontMCP   `json:"storefrontMcp"`
	Robots          Robots          `json:"robots"`
	ProductData     *ProductData    `json:"productData"`
	Policies        Policies        `json:"policies"`
	Platform        *string         `json:"platform"`
	BlockStatus     BlockStatus     `json:"blockStatus"`
	Reachability    Reachability    `json:"reachability"`
	Catalog         CatalogEvidence `json:"catalog"`
	ACP             Discovery       `json:"acp"`
	MCPServerCard   Discovery       `json:"mcpServerCard"`
	Fix             Fix             `json:"fix"`
	Market          Market          `json:"market"`
	PageText        PageText        `json:"pageText"`
	CheckedAt       time.Time       `json:"checkedAt"`
	MethodVersion   string          `json:"methodVersion"`
	// Reused lists the documents of this check that were not downloaded
	// again: the store answered 304 Not Modified to the crawl's
	// conditional request at CheckedAt, and the findings were derived from
	// the copy downloaded at the document's fetchedAt. Empty for a check
	// that downloaded everything (the live check always does).
	Reused []fetch.Reuse `json:"reused,omitempty"`
}

// BlockStatus says whether the store's edge refused the check.
type BlockStatus struct {
	Blocked *bool `json:"blocked"` // nil when the homepage could not be fetched at all
	// Reason is the wall's vendor when one was recognised, else Kind.
	Reason string `json:"reason"`
	Vendor string `json:"vendor,omitempty"`
	// Kind is what the refusal was whatever its vendor: challenge, captcha,
	// blocked, rate_limited, payment_required or forbidden.
	Kind string `json:"kind,omitempty"`
	// RobotsAllowAll is true when the block stands behind a robots.txt that
	// allows the agents: the edge refuses what robots.txt permits.
	EdgeBlockBehindAllowAll bool `json:"edgeBlockBehindAllowAll,omitempty"`
}

// Reachability describes the homepage fetch.
type Reachability struct {
	Reachable             *bool  `json:"reachable"`
	HTTPStatus            int    `json:"httpStatus,omitempty"`
	FinalURL              string `json:"finalUrl,omitempty"`
	Error                 string `json:"error,omitempty"` // a class, never a raw error or address
	Parked                *bool  `json:"parked"`
	RedirectsToOtherBrand *bool  `json:"redirectsToOtherBrand"`
}

// CatalogEvidence records which catalog route answered and how.
type CatalogEvidence struct {
	Source    string `json:"source,omitempty"` // storefront_mcp | products_json | vendure_shop_api | evershop_graphql | store_api
	Products  *int   `json:"products"`         // products in the answer
	Throttled bool   `json:"throttled,omitempty"`
	SoftNot   bool   `json:"soft404,omitempty"` // an HTML page answered where JSON was asked
	Note      string `json:"note,omitempty"`
}

// UCPProfile is the store's /.well-known/ucp, with the validator's verdict.
type UCPProfile struct {
	Status          string   `json:"status"` // valid | invalid | missing | unreachable | not_checked
	URL             string   `json:"url,omitempty"`
	HTTPStatus      int      `json:"httpStatus,omitempty"`
	DeclaredVersion *string  `json:"declaredVersion"`
	Valid           *bool    `json:"valid"`
	DirectoryCount  *bool    `json:"countsInDirectory"` // the lighter check: dated version + shopping service
	Errors          int      `json:"errors"`
	Warnings        int      `json:"warnings"`
	ErrorRules      []string `json:"errorRules"`   // ids of the error-level rules that fired, sorted
	WarningRules    []string `json:"warningRules"` // ids of the warning-level rules that fired, sorted
	ShoppingService *bool    `json:"shoppingService"`
	Checkout        *bool    `json:"checkoutCapability"`
	SchemaSource    string   `json:"schemaSource,omitempty"`
}

// WebMCPDetail backs the webmcp boolean with what was seen.
type WebMCPDetail struct {
	Imperative  bool     `json:"imperative"`
	Declarative bool     `json:"declarative"`
	Tools       []string `json:"tools"`
	Evidence    string   `json:"evidence,omitempty"`
}

// CheckoutWebMCP is the platform's hosted-checkout WebMCP (platform only).
type CheckoutWebMCP struct {
	Status   string   `json:"status"`   // evidence | inferred | not_detected | unknown
	Detected *bool    `json:"detected"` // nil unless there is evidence either way
	Tools    []string `json:"tools"`
	Reason   string   `json:"reason"`
}

// StorefrontMCP is the platform's storefront MCP endpoint.
type StorefrontMCP struct {
	Detected        *bool    `json:"detected"`
	Endpoint        string   `json:"endpoint,omitempty"`
	ProtocolVersion string   `json:"protocolVersion,omitempty"`
	ServerName      string   `json:"serverName,omitempty"`
	Tools           []string `json:"tools"`
	CartTools       *bool    `json:"cartTools"`
}

// Robots is the per-agent reading of robots.txt for "/".
type Robots struct {
	Status     string                  `json:"status"` // ok | not_found (4xx: no restrictions) | error (5xx: full disallow) | unreachable (no answer: unmeasured) | not_checked
	HTTPStatus int                     `json:"httpStatus,omitempty"`
	Agents     map[string]AgentVerdict `json:"agents"`
}

// AgentVerdict is one AI agent's reading.
type AgentVerdict struct {
	Verdict string `json:"verdict"` // allowed | disallowed | no_rule
	Purpose string `json:"purpose"` // training | search | user
}

// ProductData is what a product page (or the public catalog) says about one
// product. Nil fields were not found.
type ProductData struct {
	Source       *string `json:"source"` // jsonld | products_json; null when no product was found
	URL          string  `json:"url,omitempty"`
	Name         *string `json:"name"`
	Price        *string `json:"price"`
	Currency     *string `json:"currency"`
	Availability *string `json:"availability"`
	GTIN         *string `json:"gtin"`
	SKU          *string `json:"sku"`
	Image        *string `json:"image"`
	Complete     bool    `json:"complete"` // name, price, currency, availability, gtin or sku, image all present
}

// Policies says which policy pages were found from the homepage.
type Policies struct {
	Returns  *bool `json:"returns"`
	Shipping *bool `json:"shipping"`
	Privacy  *bool `json:"privacy"`
	Terms    *bool `json:"terms"`
}

// Discovery is a well-known discovery document (ACP, MCP server card).
type Discovery struct {
	Found   *bool  `json:"found"`
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
}

// Market is the country the store sells to, decided from what the store
// itself declares (detect.DecideMarket): its currency, a declared country,
// the region of its locale tags. Country and Basis are null when the
// declarations do not settle one, and Declarations is null when the store
// was not checked as a shop.
type Market struct {
	Country      *string               `json:"country"`
	Basis        *string               `json:"basis"`
	Currency     *string               `json:"currency"`
	Declarations *detect.MarketSignals `json:"declarations"`
}

// PageText is what the check keeps of the words a store uses to describe
// what it sells: one description (detect.JudgeDescription names where it
// comes from) and the two decisions read from it. Every field is null when
// the store was not checked as a shop or its pages gave no text.
type PageText struct {
	Description    *string  `json:"description"` // cleaned, at most detect.MaxDescriptionText characters
	Source         *string  `json:"source"`      // jsonld | catalog | product_meta | home_meta
	URL            string   `json:"url,omitempty"`
	Words          *int     `json:"words"`
	UseCaseMention *bool    `json:"useCaseMention"`
	UseCases       []string `json:"useCases"`
	AgentFriendly  *bool    `json:"agentFriendly"`
	Issues         []string `json:"issues"`
}

// Fix is the one recommended fix.
type Fix struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

func ptr[T any](v T) *T { return &v }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
