package pages

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"svc/datasets"
	"svc/pipeline/check"
	"svc/pipeline/ucp"
)

// Store is one store's saved card, as its page shows it. Its fields follow
// the store card of GET /api/store (spec 2.15); a nil field is unmeasured.
// The snapshot fills it from the published tables; the server fills it
// from the card of a live check newer than the snapshot.
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

	rails []Rail // Rails, once read
}

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
		"A catalog endpoint of the store (storefront MCP, /products.json or a Store API) answered a plain-HTTP request; with the status product found, it held a named and priced product.",
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
		"Whether the platform's hosted checkout shows Checkout WebMCP: evidence seen, inferred from the platform, or unknown.",
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
	if len(disallowed) > 0 {
		add("robots_disallows_agents", "robots.txt disallows "+strings.Join(disallowed, ", ")+" at /.")
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

// ---- from the published tables ----

// rowReader reads one table's rows by host.
type rowReader struct {
	c     *datasets.Columns
	index map[string]int // host → row
}

func newRowReader(c *datasets.Columns) *rowReader {
	r := &rowReader{c: c, index: map[string]int{}}
	if c == nil {
		return r
	}
	j := c.Table().ColumnIndex("host")
	if j < 0 {
		return r
	}
	for i := range c.Len() {
		if h, ok := c.Value(i, j).(string); ok {
			r.index[h] = i
		}
	}
	return r
}

// row returns the row of host as column name → value, or nil.
type row struct {
	r *rowReader
	i int
}

func (r *rowReader) row(host string) *row {
	i, ok := r.index[host]
	if !ok {
		return nil
	}
	return &row{r, i}
}

func (w *row) get(col string) any {
	if w == nil {
		return nil
	}
	j := w.r.c.Table().ColumnIndex(col)
	if j < 0 {
		return nil
	}
	return w.r.c.Value(w.i, j)
}

func (w *row) str(col string) *string {
	if v, ok := w.get(col).(string); ok {
		return &v
	}
	return nil
}

func (w *row) boolean(col string) *bool {
	if v, ok := w.get(col).(bool); ok {
		return &v
	}
	return nil
}

func (w *row) integer(col string) *int64 {
	if v, ok := w.get(col).(int64); ok {
		return &v
	}
	return nil
}

func (w *row) time(col string) *time.Time {
	if v, ok := w.get(col).(time.Time); ok {
		return &v
	}
	return nil
}

// list reads a JSON array-of-strings column.
func (w *row) list(col string) []string {
	s := w.str(col)
	if s == nil {
		return nil
	}
	var out []string
	if json.Unmarshal([]byte(*s), &out) != nil {
		return nil
	}
	return out
}

// storeTables reads the tables a store page draws from.
type storeTables struct {
	answers, checks, ucp, stores, products *rowReader
}

func (b *builder) storeTables() *storeTables {
	return &storeTables{
		answers:  newRowReader(b.table(datasets.StoreAnswers)),
		checks:   newRowReader(b.table(datasets.Checks)),
		ucp:      newRowReader(b.table(datasets.UCPValidations)),
		stores:   newRowReader(b.table(datasets.Stores)),
		products: newRowReader(b.table(datasets.ProductData)),
	}
}

// store builds the card of host from the tables, as the server's store
// card reads them: store_answers first, then checks, ucp_validations,
// stores and product_data.
func (t *storeTables) store(host string) (*Store, error) {
	a, c, u, st, pd := t.answers.row(host), t.checks.row(host), t.ucp.row(host), t.stores.row(host), t.products.row(host)
	s := &Store{Host: host, InDirectory: true}
	s.Name, s.Category, s.Source, s.Platform = a.str("name"), a.str("category"), a.str("source"), a.str("platform")
	s.Known = !unknownSources[derefStr(s.Source)]
	s.CategoryPage = CategoryPage(derefStr(s.Category), derefStr(s.Source))
	s.Verdict, s.Score, s.ScoreInputs = a.str("verdict"), a.integer("score"), a.integer("score_inputs")
	s.AgentsCanBuy, s.BuyAgentCatalog, s.BuyBrowser = a.boolean("agents_can_buy"), a.boolean("buy_agent_catalog"), a.boolean("buy_browser")
	s.CheckedAt = a.time("checked_at")
	s.Svc100ID = st.str("svc100_id")
	if d := st.time("added_on"); d != nil {
		v := d.Format(time.DateOnly)
		s.AddedOn = &v
	}
	s.CheckError, s.MethodVersion = c.str("check_error"), c.str("method_version")
	s.Reachable, s.HTTPStatus, s.ReachError = c.boolean("reachable"), c.integer("http_status"), c.str("reach_error")
	s.Parked, s.OtherBrand = c.boolean("parked"), c.boolean("redirects_to_other_brand")
	s.Blocked, s.BlockReason, s.EdgeBlockBehindAllowAll = a.boolean("blocked"), c.str("block_reason"), c.boolean("edge_block_behind_allow_all")
	s.CatalogAnswered, s.CatalogSource = a.boolean("catalog_answered"), c.str("catalog_source")
	s.CatalogProducts, s.CatalogThrottled = c.integer("catalog_products"), c.boolean("catalog_throttled")
	s.ProductFound, s.CartLink = a.boolean("product_found"), a.boolean("cart_link")
	s.StorefrontMCP, s.StorefrontMCPTools = a.boolean("storefront_mcp"), c.list("storefront_mcp_tools")
	s.WebMCP, s.WebMCPTools = a.boolean("webmcp"), c.list("webmcp_tools")
	s.CheckoutWebMCPStatus, s.CheckoutWebMCPDetected = a.str("checkout_webmcp_status"), c.boolean("checkout_webmcp_detected")
	s.UCPStatus, s.UCPValid = a.str("ucp_status"), a.boolean("ucp_valid")
	s.UCPDeclaredVersion, s.UCPCountsInDirectory = c.str("ucp_declared_version"), c.boolean("ucp_counts_in_directory")
	s.UCPErrors, s.UCPWarnings = u.integer("errors"), u.integer("warnings")
	s.UCPErrorRules, s.UCPWarningRules = c.list("ucp_error_rules"), c.list("ucp_warning_rules")
	s.UCPURL, s.UCPCheckedAt = u.str("profile_url"), u.time("checked_at")
	s.ACPFound, s.ACPVersion = c.boolean("acp_found"), c.str("acp_version")
	s.MCPCardFound, s.MCPCardPath = c.boolean("mcp_card_found"), c.str("mcp_card_path")
	s.RobotsStatus = c.str("robots_status")
	s.Robots = map[string]*string{}
	for _, agent := range datasets.RobotsAgents {
		s.Robots[agent] = c.str("robots_" + strings.ToLower(strings.ReplaceAll(agent, "-", "_")))
	}
	s.ProductDataSource, s.ProductDataComplete = c.str("product_data_source"), c.boolean("product_data_complete")
	s.VendorReadiness = pd.str("vendor_readiness_status")
	s.PolicyReturns, s.PolicyShipping = c.boolean("policy_returns"), c.boolean("policy_shipping")
	s.PolicyPrivacy, s.PolicyTerms = c.boolean("policy_privacy"), c.boolean("policy_terms")
	s.FixCode, s.Fix = a.str("fix_code"), a.str("fix")

	// The whole check result holds what no column does: the reason and
	// tools of Checkout WebMCP.
	if rj := c.str("result_json"); rj != nil {
		var res check.Result
		if err := json.Unmarshal([]byte(*rj), &res); err != nil {
			return nil, fmt.Errorf("%s: checks.result_json: %w", host, err)
		}
		s.CheckoutWebMCPTools, s.CheckoutWebMCPReason = res.CheckoutWebMCP.Tools, res.CheckoutWebMCP.Reason
	}
	if rep := u.str("report"); rep != nil {
		var r ucp.Report
		if err := json.Unmarshal([]byte(*rep), &r); err != nil {
			return nil, fmt.Errorf("%s: ucp_validations.report: %w", host, err)
		}
		s.UCPReport = &r
	}
	return s, nil
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

// stores renders every store page and collects the directory rows. Opted-
// out stores get no page: their saved checks are not shown (the server's
// unknown-host page answers for them). Pages are rendered on every core;
// the files and rows are added in table order.
func (b *builder) stores(ctx context.Context) error {
	answers := b.table(datasets.StoreAnswers)
	b.pages = map[string]bool{}
	if answers == nil {
		return nil
	}
	t := b.storeTables()
	hostCol := answers.Table().ColumnIndex("host")
	type rendered struct {
		s    *Store
		body []byte
		err  error
	}
	n := answers.Len()
	out := make([]rendered, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				host, _ := answers.Value(i, hostCol).(string)
				if StoreFile(host) == "" {
					continue
				}
				s, err := t.store(host)
				if err != nil {
					out[i].err = err
					continue
				}
				if derefStr(s.Source) == "opted-out" {
					continue
				}
				body, err := b.renderStore(s)
				out[i] = rendered{s, body, err}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, r := range out {
		if r.err != nil {
			return r.err
		}
		s := r.s
		if s == nil {
			continue
		}
		b.add(StoreFile(s.Host), r.body, false)
		b.pages[s.Host] = true
		if !Listed(derefStr(s.Source)) {
			continue
		}
		cat := CategorySlug(derefStr(s.Category))
		if cat == "" {
			cat = uncategorized
		}
		b.listed = append(b.listed, dirEntry{Host: s.Host, Name: s.Title(), Category: cat,
			Verdict: s.Verdict, CheckedAt: s.CheckedAt, Score: s.Score})
	}
	return nil
}

// renderStore renders one store page; it is safe to call concurrently.
func (b *builder) renderStore(s *Store) ([]byte, error) {
	p := StorePage(s)
	p.Site = b.site
	var buf bytes.Buffer
	if err := renderPage(&buf, "store", p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
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
	slices.SortFunc(es, func(a, b dirEntry) int {
		ra, rb := rank[a.Category], rank[b.Category]
		if ra == 0 {
			ra = len(categoryOrder) + 1
		}
		if rb == 0 {
			rb = len(categoryOrder) + 1
		}
		if ra != rb {
			return ra - rb
		}
		if c := strings.Compare(a.Category, b.Category); c != 0 {
			return c
		}
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return strings.Compare(a.Host, b.Host)
	})
}
