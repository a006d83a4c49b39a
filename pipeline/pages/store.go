package pages

import (
	"context"
	"io"
	"slices"
	"strings"
	"time"

	"svc/datasets"
	"svc/pipeline/ucp"
	"svc/publish"
)

// Store is one store's saved card, as its page shows it. Its fields follow
// the store card of GET /api/store (spec 2.15); a nil field is unmeasured.
// The server fills it from the snapshot's saved card, or from the card of
// a live check newer than the snapshot.
type Store struct {
	Host                             string
	Name, Category, Source, Platform *string
	Verdict                          *string
	Score, ScoreInputs               *int64
	AgentsCanBuy                     *bool
	BuyAgentCatalog, BuyBrowser      *bool
	CheckedAt                        *time.Time
	Svc100ID, AddedOn                *string
	Known                            bool   // false for sources the directory does not vouch for
	CategoryPage                     string // the directory page of the store's category, "" when it has none
	InDirectory                      bool
	Live                             bool // the check is a live check newer than the snapshot
	CheckError                       *string
	MethodVersion                    *string
	Reachable                        *bool
	HTTPStatus                       *int64
	ReachError                       *string
	Parked, OtherBrand               *bool
	Blocked                          *bool
	BlockReason                      *string
	EdgeBlockBehindAllowAll          *bool
	CatalogAnswered                  *bool
	CatalogSource                    *string
	CatalogProducts                  *int64
	CatalogThrottled                 *bool
	ProductFound                     *bool
	CartLink                         *bool
	StorefrontMCP                    *bool
	StorefrontMCPTools               []string
	WebMCP                           *bool
	WebMCPTools                      []string
	CheckoutWebMCPStatus             *string
	CheckoutWebMCPDetected           *bool
	CheckoutWebMCPTools              []string
	CheckoutWebMCPReason             string
	UCPStatus                        *string
	UCPValid                         *bool
	UCPDeclaredVersion               *string
	UCPCountsInDirectory             *bool
	UCPErrors, UCPWarnings           *int64
	UCPErrorRules, UCPWarningRules   []string
	UCPURL                           *string
	UCPCheckedAt                     *time.Time
	UCPReport                        *ucp.Report // the full report, when saved
	ACPFound                         *bool
	ACPVersion                       *string
	MCPCardFound                     *bool
	MCPCardPath                      *string
	RobotsStatus                     *string
	Robots                           map[string]*string // agent → allowed, disallowed, no_rule
	ProductDataSource                *string
	ProductDataComplete              *bool
	VendorReadiness                  *string
	PolicyReturns, PolicyShipping    *bool
	PolicyPrivacy, PolicyTerms       *bool
	FixCode, Fix                     *string
	// LiveCheck is a live check newer than the snapshot, shown beside the
	// snapshot's answer, which it does not change; nil when there is none.
	LiveCheck *LiveCheck
	// Shop is what the service's browser shoppers did and saw here in the
	// latest run that covered the store (its published evidence); nil when
	// no shopper ran here.
	Shop *publish.ShopEvidence

	rails []Rail // Rails, once read
}

// LiveCheck is what a live plain-HTTP check (GET /api/agent-checkout)
// made after the snapshot measured, and when. It is the store card's
// liveCheck; a nil field is unmeasured.
type LiveCheck struct {
	CheckedAt                  time.Time
	Reachable, Blocked         *bool
	CatalogAnswered            *bool
	ProductFound, CartLink     *bool
	UCPStatus                  *string
	WebMCP, StorefrontMCP      *bool
	RobotsStatus, FixCode, Fix *string
}

// UCPWords is the live check's UCP profile status in words.
func (l *LiveCheck) UCPWords() Tri {
	st := derefStr(l.UCPStatus)
	if st == "" || st == "not_checked" {
		st = "not_measured"
	}
	return railWords(st)
}

// BadgePath is the address of the store's badge.
func (s *Store) BadgePath() string { return StoreURL(s.Host) + BadgeFile }

// unknownSources are the sources the directory does not vouch for: their
// stores are answered with known false (spec 2.2) and are not listed.
var unknownSources = map[string]bool{
	"third-party-list": true, "map-derived": true, "campaign": true, "opted-out": true,
}

// Listed reports whether the directory lists a store of this source.
func Listed(source string) bool { return !unknownSources[source] }

// Rail is one agent-commerce rail of a store's check: its status and,
// in words, what that proves and what it does not.
type Rail struct {
	Name      string // the rail's name in the API (precheck rails)
	Label     string
	Status    string // the API's status code
	Words     Tri
	Proves    string
	NotProves string
}

// notProved ends every rail's "does not prove" (spec 2.2).
const notProved = "Does not prove an agent completed checkout."

// railDefs are the rails in the order of the pre-checkout answer's rails.
var railDefs = []struct {
	name, label, proves, notProves string
}{
	{"catalog", "Catalog",
		"A catalog endpoint of the store (storefront MCP, /products.json, the WooCommerce Store API, or a headless platform's public GraphQL catalog: Vendure, EverShop) answered a plain-HTTP request; with the status product found, it held a named and priced product.",
		"That the catalog is complete, current or in stock for a shopper."},
	{"checkout_link", "Checkout link",
		"The store's cart, driven over plain HTTP, returned a checkout link. svc never opens or keeps the link.",
		"That a purchase happened: svc stops before payment."},
	{"ucp", "UCP profile",
		"The profile at /.well-known/ucp was checked against the UCP 2026-08-25 JSON Schema and the spec's rules.",
		"Validation is not certification: a valid profile does not show that its endpoints work."},
	{"storefront_mcp", "Storefront MCP",
		"The platform's storefront MCP endpoint answered JSON-RPC and listed catalog tools.",
		"That its cart tools complete an order."},
	{"webmcp", "WebMCP in the page",
		"The homepage's server HTML declares a WebMCP tool (a registerTool call or a form with a toolname).",
		"That the tool works in a browser: this is not a browser session."},
	{"checkout_webmcp", "Checkout WebMCP",
		"Whether the store's checkout offers agents WebMCP tools: measured where svc's browser shopper reached the checkout page, else evidence seen, inferred from the platform, or unknown.",
		"That an agent may pay on its own: a buyer's approval is still required."},
	{"acp", "ACP discovery",
		"The store serves an ACP discovery document at /.well-known/acp.json.",
		"That an ACP checkout works."},
}

// RailNames are the rails' API names, in answer order.
func RailNames() []string {
	out := make([]string, len(railDefs))
	for i, r := range railDefs {
		out[i] = r.name
	}
	return out
}

func tri(b *bool, yes, no string) string {
	switch {
	case b == nil:
		return "not_measured"
	case *b:
		return yes
	}
	return no
}

func isTrue(b *bool) bool  { return b != nil && *b }
func isFalse(b *bool) bool { return b != nil && !*b }

// Rails reads the rails of a store the way the pre-checkout answer does.
func (s *Store) Rails() []Rail {
	if s.rails == nil {
		s.rails = s.readRails()
	}
	return s.rails
}

func (s *Store) readRails() []Rail {
	status := map[string]string{
		"checkout_link":  tri(s.CartLink, "returned", "not_returned"),
		"storefront_mcp": tri(s.StorefrontMCP, "detected", "not_detected"),
		"webmcp":         tri(s.WebMCP, "detected", "not_detected"),
		"acp":            tri(s.ACPFound, "found", "not_found"),
	}
	switch {
	case s.CatalogAnswered == nil:
		status["catalog"] = "not_measured"
	case !*s.CatalogAnswered:
		status["catalog"] = "no_catalog"
	case isTrue(s.ProductFound):
		status["catalog"] = "product_found"
	case isFalse(s.ProductFound):
		status["catalog"] = "empty"
	case isTrue(s.CatalogThrottled):
		status["catalog"] = "throttled"
	default:
		status["catalog"] = "answered"
	}
	status["ucp"] = "not_measured"
	if v := derefStr(s.UCPStatus); v != "" && v != "not_checked" {
		status["ucp"] = v
	}
	status["checkout_webmcp"] = "not_measured"
	if v := derefStr(s.CheckoutWebMCPStatus); v != "" {
		status["checkout_webmcp"] = v
		if v == "measured" { // what the browser shopper saw at the checkout page
			status["checkout_webmcp"] = "measured_none"
			if s.CheckoutWebMCPDetected != nil && *s.CheckoutWebMCPDetected {
				status["checkout_webmcp"] = "measured_tools"
			}
		}
	}
	out := make([]Rail, len(railDefs))
	for i, d := range railDefs {
		st := status[d.name]
		out[i] = Rail{Name: d.name, Label: d.label, Status: st, Words: railWords(st),
			Proves: d.proves, NotProves: d.notProves + " " + notProved}
	}
	return out
}

func railWords(status string) Tri {
	switch status {
	case "product_found":
		return mark("yes", "Answered with a named, priced product")
	case "answered":
		return mark("partial", "Answered")
	case "empty":
		return mark("partial", "Answered, without a priced product")
	case "throttled":
		return mark("partial", "Answered empty, with throttle signals")
	case "no_catalog":
		return mark("no", "No catalog answered")
	case "returned":
		return mark("yes", "Returned a checkout link")
	case "not_returned":
		return mark("no", "No checkout link")
	case "valid":
		return mark("yes", "Valid")
	case "invalid":
		return mark("no", "Invalid")
	case "missing":
		return mark("no", "Missing: no profile served")
	case "unreachable":
		return mark("no", "Could not be read")
	case "detected", "found":
		return mark("yes", "Detected")
	case "not_detected", "not_found":
		return mark("no", "Not detected")
	case "measured_tools":
		return mark("yes", "Measured: WebMCP tools at the checkout page")
	case "measured_none":
		return mark("no", "Measured: no WebMCP tool at the checkout page")
	case "evidence":
		return mark("yes", "Evidence seen")
	case "inferred":
		return mark("partial", "Inferred from the platform")
	case "unknown":
		return mark("unknown", "Unknown")
	case "not_measured":
		return mark("unknown", "Not measured")
	}
	return mark("unknown", status)
}

// Blocker is one thing the saved check saw that stops agents.
type Blocker struct {
	Code    string
	Message string
}

// userAgents act for a shopper now: a robots.txt disallow for them stops
// an agent at the door.
var userAgents = []string{"ChatGPT-User", "Claude-User", "Perplexity-User"}

// Blockers lists what the saved check saw that stops agents, as the
// pre-checkout answer does.
func (s *Store) Blockers() []Blocker {
	var out []Blocker
	add := func(code, msg string) { out = append(out, Blocker{code, msg}) }
	if e := derefStr(s.CheckError); e != "" {
		add("check_failed", "The saved check could not run ("+e+"); nothing else was measured.")
	}
	if isTrue(s.Blocked) {
		msg := "The store's edge refused the check (bot wall, challenge or block)"
		if why := derefStr(s.BlockReason); why != "" {
			msg += ": " + why
		}
		add("edge_block", msg+".")
	}
	if isTrue(s.Parked) {
		add("parked", "The host serves a domain-parking page, not a store.")
	}
	if isTrue(s.OtherBrand) {
		add("redirects_to_other_brand", "The homepage redirects to another brand's domain.")
	}
	if isFalse(s.Reachable) {
		msg := "The homepage did not answer"
		if e := derefStr(s.ReachError); e != "" {
			msg += " (" + e + ")"
		}
		add("unreachable", msg+".")
	}
	var disallowed []string
	for _, a := range userAgents {
		if v := s.Robots[a]; v != nil && *v == "disallowed" {
			disallowed = append(disallowed, a)
		}
	}
	// Verdicts count only when a robots.txt answered (status ok, or error
	// for a 5xx, which RFC 9309 reads as complete disallow); one that got
	// no answer at all is unmeasured and stops no one.
	switch {
	case len(disallowed) == 0:
	case derefStr(s.RobotsStatus) == "ok":
		add("robots_disallows_agents", "robots.txt disallows "+strings.Join(disallowed, ", ")+" at /.")
	case derefStr(s.RobotsStatus) == "error":
		add("robots_disallows_agents", "robots.txt answered a server error, which RFC 9309 tells agents to read as disallowing everything: "+
			strings.Join(disallowed, ", ")+" may not load /.")
	}
	if isTrue(s.CatalogThrottled) {
		add("catalog_throttled", "The catalog answered empty with throttle signals: agents may be rate limited.")
	}
	if isFalse(s.CatalogAnswered) {
		add("no_catalog", "No catalog answered over plain HTTP, so an agent cannot find products without a browser.")
	}
	return out
}

// RobotAgent is one AI agent's robots.txt verdict for "/".
type RobotAgent struct {
	Agent   string
	Purpose string
	Verdict *string
}

// robotPurposes group the agents by what they fetch for.
var robotPurposes = map[string]string{
	"GPTBot": "training", "OAI-SearchBot": "search", "ChatGPT-User": "acting for a shopper",
	"ClaudeBot": "training", "Claude-SearchBot": "search", "Claude-User": "acting for a shopper",
	"PerplexityBot": "search", "Perplexity-User": "acting for a shopper",
	"Google-Extended": "training", "Applebot-Extended": "training", "CCBot": "training", "Bytespider": "training",
}

// RobotAgents lists every agent of the dataset with its verdict, in
// column order.
func (s *Store) RobotAgents() []RobotAgent {
	out := make([]RobotAgent, 0, len(datasets.RobotsAgents))
	for _, a := range datasets.RobotsAgents {
		out = append(out, RobotAgent{Agent: a, Purpose: robotPurposes[a], Verdict: s.Robots[a]})
	}
	return out
}

// Title is the store's name, or its host.
func (s *Store) Title() string {
	if n := derefStr(s.Name); n != "" {
		return n
	}
	return s.Host
}

// Rail returns the rail of that name.
func (s *Store) Rail(name string) Rail {
	for _, r := range s.Rails() {
		if r.Name == name {
			return r
		}
	}
	return Rail{Name: name, Words: railWords("not_measured")}
}

// NotAStore says whether the host is parked or redirects to another brand.
func (s *Store) NotAStore() Tri {
	switch {
	case isTrue(s.Parked) || isTrue(s.OtherBrand):
		return mark("no", "Yes: not a store")
	case s.Parked == nil && s.OtherBrand == nil:
		return mark("unknown", "Not measured")
	}
	return mark("yes", "No")
}

// ProductData says whether product data was found and is complete.
func (s *Store) ProductData() Tri {
	switch {
	case s.ProductDataSource != nil && isTrue(s.ProductDataComplete):
		return mark("yes", "Complete")
	case s.ProductDataSource != nil:
		return mark("partial", "Found, incomplete")
	case s.ProductDataComplete != nil:
		return mark("no", "None found")
	}
	return mark("unknown", "Not measured")
}

// CategoryPage is the directory page of a store's category: "" for a
// store the directory does not list.
func CategoryPage(category, source string) string {
	slug := CategorySlug(category)
	if !Listed(source) {
		return ""
	}
	if slug == "" {
		slug = uncategorized
	}
	return categoryPageURL(slug, 1)
}

// CanBuy is the plain answer to "can agents reach checkout?".
func (s *Store) CanBuy() Tri {
	return yesNo(s.AgentsCanBuy, "Yes: agents reached the cart or checkout", "No: no buy lane reached the cart or checkout")
}

// dirEntry is one row of the directory.
type dirEntry struct {
	Host      string
	Name      string
	Category  string // slug, uncategorized when null
	Verdict   *string
	CheckedAt *time.Time
	Score     *int64
}

// stores collects the directory's rows, and the hosts that have a page,
// from store_answers. The store pages themselves are not published (a
// million files a week, each fsync'd): svc serve renders /stores/<host>/
// from the snapshot's read layer with the same template. Opted-out stores
// have no page (the server's unknown-host page answers for them), nor has
// a host that cannot be a path segment.
func (b *builder) stores(ctx context.Context) error {
	b.pages = map[string]bool{}
	each := b.in.StoreAnswers
	if each == nil {
		answers := b.table(datasets.StoreAnswers)
		if answers == nil {
			return nil
		}
		each = func(_ context.Context, fn func(*datasets.Columns) error) error { return fn(answers) }
	}
	return each(ctx, func(answers *datasets.Columns) error {
		t := answers.Table()
		host, name, category, source := t.ColumnIndex("host"), t.ColumnIndex("name"), t.ColumnIndex("category"), t.ColumnIndex("source")
		verdict, checked, score := t.ColumnIndex("verdict"), t.ColumnIndex("checked_at"), t.ColumnIndex("score")
		for i := range answers.Len() {
			if i%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			h, _ := answers.Value(i, host).(string)
			src, _ := answers.Value(i, source).(string)
			if !validHost(h) || src == "opted-out" {
				continue
			}
			b.pages[h] = true
			if !Listed(src) {
				continue
			}
			e := dirEntry{Host: h, Name: h, Category: uncategorized}
			if n, _ := answers.Value(i, name).(string); n != "" {
				e.Name = n
			}
			if c, _ := answers.Value(i, category).(string); CategorySlug(c) != "" {
				e.Category = CategorySlug(c)
			}
			if v, ok := answers.Value(i, verdict).(string); ok {
				e.Verdict = &v
			}
			if v, ok := answers.Value(i, checked).(time.Time); ok {
				e.CheckedAt = &v
			}
			if v, ok := answers.Value(i, score).(int64); ok {
				e.Score = &v
			}
			b.listed = append(b.listed, e)
		}
		return nil
	})
}

// StorePage is the page of a store's saved card.
func StorePage(s *Store) *Page {
	return &Page{
		Title:       s.Title() + " (" + s.Host + ")",
		Description: "Can AI agents reach checkout at " + s.Host + "? svc's saved check, in plain words.",
		Section:     "directory",
		Data:        s,
	}
}

// RenderStore renders a store page for the server (a live check newer
// than the snapshot).
func RenderStore(w io.Writer, site *Site, s *Store) error {
	p := StorePage(s)
	p.Site = site
	return renderPage(w, "store", p)
}

// UnknownStore is what the unknown-host page shows.
type UnknownStore struct {
	Host string // the host asked for, as the server read it; "" when unusable
	// OptedOut is set for a store that asked not to be shown.
	OptedOut bool
}

// RenderUnknownStore renders the page of a host with no saved check.
func RenderUnknownStore(w io.Writer, site *Site, u UnknownStore) error {
	title := "No saved check"
	if u.Host != "" {
		title = "No saved check of " + u.Host
	}
	return renderPage(w, "unknown", &Page{Site: site, Title: title, Section: "directory", NoIndex: true, Data: u,
		Description: "svc has no saved check of this store yet. A live check measures it."})
}

// RenderNotFound renders the page for a path with no page.
func RenderNotFound(w io.Writer, site *Site, path string) error {
	return renderPage(w, "notfound", &Page{Site: site, Title: "Page not found", NoIndex: true, Data: path})
}

// sortEntries orders directory rows by category order, then name, then
// host.
func sortEntries(es []dirEntry) {
	rank := map[string]int{}
	for i, c := range categoryOrder {
		rank[c] = i + 1
	}
	// Each entry's sort key is computed once, not in every comparison: a
	// million stores are twenty million comparisons.
	type key struct {
		rank      int
		lowerName string
	}
	keys := make([]key, len(es))
	for i, e := range es {
		r := rank[e.Category]
		if r == 0 {
			r = len(categoryOrder) + 1
		}
		keys[i] = key{r, strings.ToLower(e.Name)}
	}
	idx := make([]int, len(es))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int {
		a, b := &es[i], &es[j]
		if ka, kb := keys[i].rank, keys[j].rank; ka != kb {
			return ka - kb
		}
		if c := strings.Compare(a.Category, b.Category); c != 0 {
			return c
		}
		if c := strings.Compare(keys[i].lowerName, keys[j].lowerName); c != 0 {
			return c
		}
		return strings.Compare(a.Host, b.Host)
	})
	sorted := make([]dirEntry, len(es))
	for k, i := range idx {
		sorted[k] = es[i]
	}
	copy(es, sorted)
}
