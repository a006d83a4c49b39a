package pages

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"svc/datasets"
	"svc/pipeline/check"
	"svc/pipeline/ucp"
)

// The tests build a store's page the way the server does, from the
// published tables: store_answers first, then checks, ucp_validations,
// stores and product_data (serve's TestStorePages checks the served
// pages of a real snapshot).

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
