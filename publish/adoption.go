package publish

import "time"

// The adoption document, api/agent-checkout/adoption.json (spec 2.8): the
// aggregate stage builds it from sql/aggregate_figures.sql, the pages and
// the server read it. Every share is a count out of the stores where the
// signal was measured (n), never out of all stores: an unmeasured store is
// left out, not counted as "no". Percentages are count/n × 100 rounded half
// away from zero to one decimal, null when n is 0.

// Share is a count out of the stores where it was measured.
type Share struct {
	Count int64    `json:"count"`
	N     int64    `json:"n"`
	Pct   *float64 `json:"pct"`
}

// CheckoutWebMCPCounts counts the Checkout WebMCP status against the
// stores whose platform was measured (N): Measured (a browser shopper
// read the checkout page's tools), Evidence, Inferred and Unknown split
// N. MeasuredDetected is the share of the Measured stores where tools
// were seen. Stores whose platform was not measured are NotChecked,
// outside N.
type CheckoutWebMCPCounts struct {
	N                int64 `json:"n"`
	Measured         Share `json:"measured"`
	MeasuredDetected Share `json:"measuredDetected"`
	Evidence         Share `json:"evidence"`
	Inferred         Share `json:"inferred"`
	Unknown          Share `json:"unknown"`
	NotChecked       int64 `json:"notChecked"`
}

// AdoptionCounts are the adoption counts of one group of stores.
type AdoptionCounts struct {
	Stores           int64                `json:"stores"`  // listed in the directory
	Checked          int64                `json:"checked"` // with a completed check
	ValidUCP         Share                `json:"validUcp"`
	UCPDirectory     Share                `json:"ucpDirectoryCount"`
	AgentCatalogs    Share                `json:"agentCatalogs"`
	CatalogAnswered  Share                `json:"catalogAnswered"`
	StorefrontWebMCP Share                `json:"storefrontWebmcp"`
	CheckoutWebMCP   CheckoutWebMCPCounts `json:"checkoutWebmcp"`
	CheckoutLinks    Share                `json:"checkoutLinks"`
	BuyAgentCatalog  Share                `json:"buyAgentCatalog"`
	BuyBrowser       Share                `json:"buyBrowser"`
	AgentsCanBuy     Share                `json:"agentsCanBuy"`
	Blocked          Share                `json:"blocked"`
	AverageScore     *float64             `json:"averageScore"` // over stores with a score; 1 decimal
}

// CategoryAdoption is one category's counts; Category is null for stores
// listed without one.
type CategoryAdoption struct {
	Category *string `json:"category"`
	AdoptionCounts
}

// PlatformAdoption is one platform's counts; Platform is null for stores
// whose platform was not measured (gated or failed checks).
type PlatformAdoption struct {
	Platform *string `json:"platform"`
	AdoptionCounts
}

// PlatformCoverage says how much of the checked directory a platform was
// measured for, and which.
type PlatformCoverage struct {
	Checked        int64           `json:"checked"`
	Measured       Share           `json:"measured"` // out of checked
	NotMeasured    int64           `json:"notMeasured"`
	HostedPlatform Share           `json:"hostedPlatform"` // shopify or bigcommerce, out of measured
	Platforms      []PlatformShare `json:"platforms"`
}

// PlatformShare is one platform's share of the stores whose platform was
// measured.
type PlatformShare struct {
	Platform string `json:"platform"`
	Share
}

// SeriesPoint is one run's headline counts; the series carries over from
// the previous run's adoption.json.
type SeriesPoint struct {
	Date             string               `json:"date"`
	StoresChecked    int64                `json:"storesChecked"`
	ValidUCP         Share                `json:"validUcp"`
	AgentCatalogs    Share                `json:"agentCatalogs"`
	StorefrontWebMCP Share                `json:"storefrontWebmcp"`
	CheckoutWebMCP   CheckoutWebMCPCounts `json:"checkoutWebmcp"`
	CheckoutLinks    Share                `json:"checkoutLinks"`
	AgentsCanBuy     Share                `json:"agentsCanBuy"`
}

// AdoptionChanges sums this run's week-over-week changes per signal.
type AdoptionChanges struct {
	Since  string        `json:"since"` // the previous run's snapshot date
	Week   string        `json:"week"`
	Fields []FieldChange `json:"fields"`
}

// FieldChange counts stores whose signal became true (Gained) or stopped
// being true (Lost). Field listed counts stores that joined or left.
type FieldChange struct {
	Field  string `json:"field"`
	Gained int64  `json:"gained"`
	Lost   int64  `json:"lost"`
}

// Adoption is api/agent-checkout/adoption.json (spec 2.8).
type Adoption struct {
	Now              AdoptionCounts     `json:"now"`
	Categories       []CategoryAdoption `json:"categories"`
	ByPlatform       []PlatformAdoption `json:"byPlatform"`
	PlatformCoverage PlatformCoverage   `json:"platformCoverage"`
	Series           []SeriesPoint      `json:"series"`
	Changes          *AdoptionChanges   `json:"changes"`  // null when no previous run was read
	Rechecks         *int64             `json:"rechecks"` // null when no previous run was read
	Methodology      string             `json:"methodology"`
	GeneratedAt      time.Time          `json:"generatedAt"`
	AsOf             time.Time          `json:"asOf"`
	Available        bool               `json:"available"`
	SnapshotDate     string             `json:"snapshotDate"`
	Note             string             `json:"note"`
	License          string             `json:"license"`
	Cite             string             `json:"cite"`
}
