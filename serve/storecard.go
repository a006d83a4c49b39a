package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"svc/datasets"
	"svc/pipeline/fetch"
	"svc/pipeline/pages"
	"svc/serve/readlayer"
)

// The store hub (GET /api/store, spec 2.15): the saved public card of one
// store: its checks, brand claim, links, platform and saved robots policy.
// It is a superset of the store_card tool's card. The answer of a store
// in the snapshot is the snapshot's: score, verdict, buy lanes and checks
// as measured there. A live check made since changes none of them (spec
// 4.2.1: no score changes, and a plain-HTTP check does not measure the
// browser lane, the score or product data): it is shown beside them, as
// liveCheck, newer plain-HTTP evidence with its own time. Only a host
// the snapshot does not have is answered from its live check. A host
// with no saved row answers 200 with known false and a link that runs a
// live check, the same shape as every saved-data read (the spec gives
// these reads no 404).

// StoreCard is the store hub. A null field is unmeasured.
type StoreCard struct {
	Host         string      `json:"host"`
	Known        bool        `json:"known"`
	InDirectory  bool        `json:"inDirectory"`
	Name         *string     `json:"name"`
	Category     *string     `json:"category"`
	Source       *string     `json:"source"`
	Platform     *string     `json:"platform"`
	Verdict      *string     `json:"verdict"`
	Score        *int64      `json:"score"`
	ScoreInputs  *int64      `json:"scoreInputs"`
	AgentsCanBuy *bool       `json:"agents_can_buy"`
	Buy          *BuyLanes   `json:"buy"`
	CheckedAt    *time.Time  `json:"checkedAt"`
	Stale        bool        `json:"stale"`
	CheckSource  *string     `json:"checkSource"`
	Checks       *CardChecks `json:"checks"`
	Robots       *CardRobots `json:"robots"`
	// LiveCheck is a live check newer than the snapshot: newer plain-HTTP
	// evidence with its own time, beside the snapshot's answer (which it
	// does not change). null when there is none, and when the card itself
	// is a live check's (checkSource live_check).
	LiveCheck *CardLiveCheck `json:"liveCheck"`
	// BrandClaim is the brand's own statement: not measured, never
	// scored; null while the service has none.
	BrandClaim *json.RawMessage `json:"brandClaim"`
	Links      CardLinks        `json:"links"`
	Svc100ID   *string          `json:"svc100Id"`
	AddedOn    *string          `json:"addedOn"`
	Snapshot   string           `json:"snapshot"`
	License    string           `json:"license"`
	Note       string           `json:"note"`
}

// CardLiveCheck is a live check (GET /api/agent-checkout) newer than the
// snapshot's check of the store: what it measured over plain HTTP, and
// when. It is evidence beside the snapshot's answer, not a replacement.
type CardLiveCheck struct {
	CheckedAt     time.Time   `json:"checkedAt"`
	Source        string      `json:"source"`        // live_check
	EvidenceLevel string      `json:"evidenceLevel"` // http-only
	ResultURL     string      `json:"resultUrl"`     // the store page, which shows it
	Checks        *CardChecks `json:"checks"`
	Robots        *CardRobots `json:"robots"`
	Note          string      `json:"note"`
}

const liveCheckNote = "A live plain-HTTP check made after the snapshot, at checkedAt. It is newer evidence shown beside the snapshot's answer: " +
	"it changes no score, verdict or buy lane (those stay the snapshot's until the next snapshot checks the store again), and it does not " +
	"measure the browser lane or product data. Does not prove an agent completed checkout."

// BuyLanes are the two buy lanes (spec 1.3).
type BuyLanes struct {
	AgentCatalog *bool `json:"agent_catalog"`
	Browser      *bool `json:"browser"`
}

// CardChecks are the saved check's signals.
type CardChecks struct {
	CatalogAnswered  *bool              `json:"catalogAnswered"`
	CatalogSource    *string            `json:"catalogSource"`
	CatalogProducts  *int64             `json:"catalogProducts"`
	CatalogThrottled *bool              `json:"catalogThrottled"`
	ProductFound     *bool              `json:"productFound"`
	CartLink         *bool              `json:"cartLink"`
	UCPProfile       CardUCP            `json:"ucpProfile"`
	WebMCP           *bool              `json:"webmcp"`
	WebMCPTools      json.RawMessage    `json:"webmcpTools"`
	CheckoutWebMCP   CardCheckoutWebMCP `json:"checkoutWebmcp"`
	StorefrontMCP    CardStorefrontMCP  `json:"storefrontMcp"`
	BlockStatus      CardBlock          `json:"blockStatus"`
	Reachability     CardReach          `json:"reachability"`
	ProductData      CardProductData    `json:"productData"`
	Policies         CardPolicies       `json:"policies"`
	ACP              CardDiscovery      `json:"acp"`
	MCPServerCard    CardDiscovery      `json:"mcpServerCard"`
	Fix              CardFix            `json:"fix"`
	CheckError       *string            `json:"checkError"`
	MethodVersion    *string            `json:"methodVersion"`
}

// CardUCP is the UCP profile result.
type CardUCP struct {
	Status             *string         `json:"status"`
	Valid              *bool           `json:"valid"`
	DeclaredVersion    *string         `json:"declaredVersion"`
	CountsInDirectory  *bool           `json:"countsInDirectory"`
	Errors             *int64          `json:"errors"`
	Warnings           *int64          `json:"warnings"`
	ErrorRules         json.RawMessage `json:"errorRules"`
	WarningRules       json.RawMessage `json:"warningRules"`
	ShoppingService    *bool           `json:"shoppingService"`
	CheckoutCapability *bool           `json:"checkoutCapability"`
	URL                *string         `json:"url"`
	CheckedAt          *time.Time      `json:"checkedAt"`
}

// CardCheckoutWebMCP is Checkout WebMCP: measured where a browser
// shopper reached the checkout page, else from the platform. Tools and
// Reason are the snapshot's (store_answers); a live check's row has none.
type CardCheckoutWebMCP struct {
	Status   *string         `json:"status"`
	Detected *bool           `json:"detected"`
	Tools    json.RawMessage `json:"tools,omitempty"`
	Reason   *string         `json:"reason,omitempty"`
}

// CardStorefrontMCP is the platform's storefront MCP endpoint.
type CardStorefrontMCP struct {
	Detected *bool           `json:"detected"`
	Tools    json.RawMessage `json:"tools"`
}

// CardBlock says whether the store blocked the check.
type CardBlock struct {
	Blocked                 *bool   `json:"blocked"`
	Reason                  *string `json:"reason"`
	EdgeBlockBehindAllowAll *bool   `json:"edgeBlockBehindAllowAll"`
}

// CardReach describes the homepage fetch.
type CardReach struct {
	Reachable             *bool   `json:"reachable"`
	HTTPStatus            *int64  `json:"httpStatus"`
	Error                 *string `json:"error"`
	Parked                *bool   `json:"parked"`
	RedirectsToOtherBrand *bool   `json:"redirectsToOtherBrand"`
}

// CardProductData summarises product data; the full read is
// GET /api/agent-checkout/product-data.
type CardProductData struct {
	Source          *string `json:"source"`
	Complete        *bool   `json:"complete"`
	VendorReadiness *string `json:"vendorReadiness"`
}

// CardPolicies are the policy pages linked from the homepage.
type CardPolicies struct {
	Returns  *bool `json:"returns"`
	Shipping *bool `json:"shipping"`
	Privacy  *bool `json:"privacy"`
	Terms    *bool `json:"terms"`
}

// CardDiscovery is a well-known discovery document.
type CardDiscovery struct {
	Found *bool   `json:"found"`
	Path  *string `json:"path,omitempty"`
	Ver   *string `json:"version,omitempty"`
}

// CardFix is the one recommended fix.
type CardFix struct {
	Code *string `json:"code"`
	Text *string `json:"text"`
}

// CardRobots is the saved robots.txt policy: the file's status and each
// AI agent's verdict for "/".
type CardRobots struct {
	Status *string            `json:"status"`
	Agents map[string]*string `json:"agents"`
}

// CardLinks are where to go next. Badge and claim are null for a host
// with no store page.
type CardLinks struct {
	SvcURL      string  `json:"svcUrl"`
	Homepage    string  `json:"homepage"`
	UCPProfile  *string `json:"ucpProfile"`
	ProductPage *string `json:"productPage"`
	ProductData string  `json:"productData"`
	AgentFacts  string  `json:"agentFacts"`
	Precheck    string  `json:"precheck"`
	LiveCheck   string  `json:"liveCheck"`
	Dataset     string  `json:"dataset"`
	// Badge is an SVG of the store's verdict (/stores/<host>/badge.svg).
	Badge *string `json:"badge"`
	// Claim is the brand-statement section of the store page
	// (/stores/<host>/#claim): the statement recorded, and how a brand's
	// statement is taken.
	Claim *string `json:"claim"`
}

// parseHost checks a host (or URL) parameter and returns the host name.
func parseHost(raw, param string) (string, error) {
	if strings.TrimSpace(raw) == "" {
		return "", fail(ErrInvalid, "%s is required: the store's host name, e.g. ?%s=shop.example", param, param)
	}
	u, err := fetch.ParseURL(raw)
	if err != nil {
		if r, ok := fetch.IsRefused(err); ok {
			return "", fail(ErrInvalid, "invalid host: %s", r.Reason)
		}
		return "", fail(ErrInvalid, "invalid host")
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), nil
}

// StoreCard answers GET /api/store and the store_card tool.
func (s *Server) StoreCard(ctx context.Context, caller string, p StoreParams) (*StoreCard, error) {
	host, err := parseHost(p.Host, "host")
	if err != nil {
		return nil, err
	}
	// A free saved-data read (spec 8): no quota.
	rl, dir, err := s.hostView(caller, host, "store")
	if err != nil {
		return nil, err
	}
	defer rl.Release()
	return s.storeCard(rl, host, dir, s.liveRow(host, dir)), nil
}

func (s *Server) storeCard(rl readlayer.Source, host string, dir, live *readlayer.Row) *StoreCard {
	q := url.QueryEscape(host)
	c := &StoreCard{
		Host: host, InDirectory: dir != nil, Snapshot: rl.Version(),
		License: datasets.License,
		Links: CardLinks{
			SvcURL: s.storeLink(host), Homepage: "https://" + host + "/",
			ProductData: s.link("/api/agent-checkout/product-data?host=" + q),
			AgentFacts:  s.link("/api/agent-facts?host=" + q),
			Precheck:    s.link("/api/precheck?url=" + q),
			LiveCheck:   s.link("/api/agent-checkout?url=" + q),
			Dataset:     s.link("/data/latest/store_answers.csv"),
		},
	}
	row, source := dir, "directory"
	if dir == nil && live != nil {
		row, source = live, "live_check"
	}
	if row == nil || (dir != nil && dir.Text(readlayer.FSource) == "opted-out") {
		// No page is published for this host: link its (empty) card.
		c.Links.SvcURL = s.link("/api/store?host=" + q)
		c.Stale = true
		c.Note = "No saved check of this host: links.liveCheck runs one (its result shows here afterwards). Reads never fetch from the store."
		if dir != nil {
			c.Source = dir.Str(readlayer.FSource)
			c.Note = "This store opted out of the directory: its saved checks are not shown."
		}
		return c
	}
	c.Known = !unknownSources[row.Text(readlayer.FSource)]
	c.CheckSource = &source
	c.Name, c.Category, c.Source, c.Platform = row.Str(readlayer.FName), row.Str(readlayer.FCategory), row.Str(readlayer.FSource), row.Str(readlayer.FPlatform)
	c.Verdict, c.Score, c.ScoreInputs = row.Str(readlayer.FVerdict), row.Int(readlayer.FScore), row.Int(readlayer.FScoreInputs)
	c.AgentsCanBuy = row.Bool(readlayer.FAgentsCanBuy)
	c.Buy = &BuyLanes{AgentCatalog: row.Bool(readlayer.FBuyCatalog), Browser: row.Bool(readlayer.FBuyBrowser)}
	c.CheckedAt = row.Time(readlayer.FCheckedAt)
	c.Stale = c.CheckedAt == nil || s.now().Sub(*c.CheckedAt) >= StaleAfter
	if dir != nil {
		c.Svc100ID = dir.Str(readlayer.FSvc100ID)
		if t := dir.Time(readlayer.FAddedOn); t != nil {
			d := t.Format(time.DateOnly)
			c.AddedOn = &d
		}
		if u := dir.Str(readlayer.FSvcURL); u != nil {
			c.Links.SvcURL = *u
		}
	}
	c.Checks = cardChecks(row)
	c.Robots = cardRobots(row)
	c.Links.UCPProfile = row.Str(readlayer.FUCPProfileURL)
	c.Links.ProductPage = row.Str(readlayer.FProductURL)
	if pages.ValidHost(host) { // the store has a page
		badge, claim := s.link(pages.StoreURL(host)+"badge.svg"), s.link(pages.StoreURL(host)+"#claim")
		c.Links.Badge, c.Links.Claim = &badge, &claim
	}
	c.Note = "Saved public data, " + source + " check. A missing (null) field was not measured. " +
		"Validation is not certification; a returned checkout link means checkout was reachable, not that a purchase happened. " +
		"No brand claim is recorded (brandClaim null); brand claims never change scores."
	if row.Live {
		c.Note += " This host is not in the snapshot: the card is its live check, which does not measure the score or the browser lane (null)."
	}
	if dir != nil && live != nil && newer(live, dir) {
		c.LiveCheck = &CardLiveCheck{CheckedAt: *live.Time(readlayer.FCheckedAt), Source: "live_check", EvidenceLevel: evidenceHTTPOnly,
			ResultURL: s.storeLink(host), Checks: cardChecks(live), Robots: cardRobots(live), Note: liveCheckNote}
		c.Note += " liveCheck holds a newer live plain-HTTP check with its own time; it changes none of the snapshot's figures."
	}
	return c
}

// cardRobots is a row's saved robots policy.
func cardRobots(r *readlayer.Row) *CardRobots {
	out := &CardRobots{Status: r.Str(readlayer.FRobotsStatus), Agents: map[string]*string{}}
	for _, a := range datasets.RobotsAgents {
		out.Agents[a] = r.Str(readlayer.RobotsField(a))
	}
	return out
}

// rawList is a JSON list column as a raw value, null when unmeasured.
func rawList(r *readlayer.Row, f int) json.RawMessage {
	if v := r.Str(f); v != nil && json.Valid([]byte(*v)) {
		return json.RawMessage(*v)
	}
	return json.RawMessage("null")
}

// cardCheckoutWebMCP reads Checkout WebMCP; the tools and reason only
// where the row has them (a snapshot of store_answers with them).
func cardCheckoutWebMCP(r *readlayer.Row) CardCheckoutWebMCP {
	c := CardCheckoutWebMCP{Status: r.Str(readlayer.FCheckoutWebMCP), Detected: r.Bool(readlayer.FCWDetected)}
	if reason := r.Str(readlayer.FCWReason); reason != nil && *reason != "" {
		c.Tools, c.Reason = rawList(r, readlayer.FCWTools), reason
	}
	return c
}

func cardChecks(r *readlayer.Row) *CardChecks {
	return &CardChecks{
		CatalogAnswered: r.Bool(readlayer.FCatalog), CatalogSource: r.Str(readlayer.FCatalogSource),
		CatalogProducts: r.Int(readlayer.FCatalogCount), CatalogThrottled: r.Bool(readlayer.FThrottled),
		ProductFound: r.Bool(readlayer.FProductFound), CartLink: r.Bool(readlayer.FCartLink),
		UCPProfile: CardUCP{
			Status: r.Str(readlayer.FUCPStatus), Valid: r.Bool(readlayer.FUCPValid), DeclaredVersion: r.Str(readlayer.FUCPVersion),
			CountsInDirectory: r.Bool(readlayer.FUCPCounts), Errors: r.Int(readlayer.FUCPErrors), Warnings: r.Int(readlayer.FUCPWarnings),
			ErrorRules: rawList(r, readlayer.FUCPErrRules), WarningRules: rawList(r, readlayer.FUCPWarnRules),
			ShoppingService: r.Bool(readlayer.FUCPShopping), CheckoutCapability: r.Bool(readlayer.FUCPCheckout),
			URL: r.Str(readlayer.FUCPProfileURL), CheckedAt: r.Time(readlayer.FUCPCheckedAt),
		},
		WebMCP: r.Bool(readlayer.FWebMCP), WebMCPTools: rawList(r, readlayer.FWebMCPTools),
		CheckoutWebMCP: cardCheckoutWebMCP(r),
		StorefrontMCP:  CardStorefrontMCP{Detected: r.Bool(readlayer.FStorefrontMCP), Tools: rawList(r, readlayer.FMCPTools)},
		BlockStatus:    CardBlock{Blocked: r.Bool(readlayer.FBlocked), Reason: r.Str(readlayer.FBlockReason), EdgeBlockBehindAllowAll: r.Bool(readlayer.FEdgeBehindAll)},
		Reachability: CardReach{Reachable: r.Bool(readlayer.FReachable), HTTPStatus: r.Int(readlayer.FHTTPStatus), Error: r.Str(readlayer.FReachError),
			Parked: r.Bool(readlayer.FParked), RedirectsToOtherBrand: r.Bool(readlayer.FOtherBrand)},
		ProductData: CardProductData{Source: r.Str(readlayer.FPDSource), Complete: r.Bool(readlayer.FPDComplete), VendorReadiness: r.Str(readlayer.FVendorStatus)},
		Policies: CardPolicies{Returns: r.Bool(readlayer.FPolReturns), Shipping: r.Bool(readlayer.FPolShipping),
			Privacy: r.Bool(readlayer.FPolPrivacy), Terms: r.Bool(readlayer.FPolTerms)},
		ACP:           CardDiscovery{Found: r.Bool(readlayer.FACPFound), Ver: r.Str(readlayer.FACPVersion)},
		MCPServerCard: CardDiscovery{Found: r.Bool(readlayer.FMCPCard), Path: r.Str(readlayer.FMCPCardPath)},
		Fix:           CardFix{Code: r.Str(readlayer.FFixCode), Text: r.Str(readlayer.FFix)},
		CheckError:    r.Str(readlayer.FCheckError), MethodVersion: r.Str(readlayer.FMethodVersion),
	}
}

func (s *Server) storeHub(w http.ResponseWriter, r *http.Request) error {
	return serveRead(s, w, r, decodeStore, s.StoreCard, cacheFiveMinutes)
}
