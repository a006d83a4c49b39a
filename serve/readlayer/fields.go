package readlayer

import (
	"strings"

	"svc/datasets"
)

// The columns a per-host read (precheck, store card, product data) looks
// up, gathered from several published tables into one record per host.
// A field is named after its column; columns of ucp_validations,
// product_data and stores that clash with a store_answers column get a
// prefix. Big JSON documents (the product data itself, vendor readiness,
// agent facts, the UCP report, result_json) stay out of the records and
// are read at the host's row when asked for (product data and agent facts
// from the row caches, rowcache.go): they would cost more memory than
// every other field together.

type fieldKind uint8

const (
	kStr  fieldKind = iota + 1 // String and JSON columns
	kBool                      // Bool
	kInt                       // Int64
	kTime                      // Timestamp and Date, as µs since the epoch
)

type rowField struct {
	name string
	kind fieldKind
}

// fieldSource maps one table's columns to fields: field names by column
// name, "" for a column of the same name. rowField, when set, is the field
// that keeps the file row number of the host's (first) row, and countField
// how many rows the host has: a table with several rows per host (multi),
// or whose documents stay in Parquet, is read at that row on request.
type fieldSource struct {
	table      *datasets.Table
	cols       map[string]string
	rowField   string
	countField string
	multi      bool // several rows per host, in a row
}

// checksSkipped are columns of checks that are not looked up per request:
// the whole result and the product fields (product_data holds them).
var checksSkipped = map[string]bool{
	"result_json": true, "product_name": true, "product_price": true, "product_currency": true,
	"product_availability": true, "product_gtin": true, "product_sku": true, "product_image": true,
}

var (
	rowFields    []rowField
	fieldSources []fieldSource
	// fieldIndex is built first: every field(...) below depends on it.
	fieldIndex = buildFields()
)

// buildFields fills rowFields and fieldSources and returns the index of
// the fields by name.
func buildFields() map[string]int {
	fieldIndex := map[string]int{}
	add := func(name string, typ datasets.Type) {
		if _, ok := fieldIndex[name]; ok {
			return
		}
		k := kStr
		switch typ {
		case datasets.Bool:
			k = kBool
		case datasets.Int64:
			k = kInt
		case datasets.Timestamp, datasets.Date:
			k = kTime
		case datasets.Float64:
			panic("serve: no float fields in the lookup record: " + name)
		}
		fieldIndex[name] = len(rowFields)
		rowFields = append(rowFields, rowField{name, k})
	}
	source := func(t *datasets.Table, cols map[string]string, opts ...func(*fieldSource)) {
		for c, f := range cols {
			i := t.ColumnIndex(c)
			if i < 0 {
				panic("serve: " + t.Name + " has no column " + c)
			}
			if f == "" {
				f = c
				cols[c] = c
			}
			add(f, t.Columns[i].Type)
		}
		fs := fieldSource{table: t, cols: cols}
		for _, o := range opts {
			o(&fs)
		}
		for _, f := range []string{fs.rowField, fs.countField} {
			if f != "" {
				add(f, datasets.Int64)
			}
		}
		fieldSources = append(fieldSources, fs)
	}
	sa := map[string]string{}
	for _, c := range datasets.StoreAnswers.Columns {
		if c.Name != "host" {
			sa[c.Name] = ""
		}
	}
	source(datasets.StoreAnswers, sa)
	ck := map[string]string{}
	for _, c := range datasets.Checks.Columns {
		if c.Name == "host" || checksSkipped[c.Name] {
			continue
		}
		if _, dup := sa[c.Name]; dup {
			continue // store_answers has it (a snapshot row reads it there)
		}
		ck[c.Name] = ""
	}
	// The documents a store page shows (the whole check result, the UCP
	// report) stay in Parquet, read at the host's row.
	source(datasets.Checks, ck, func(fs *fieldSource) { fs.rowField = "checks_row" })
	source(datasets.Stores, map[string]string{"svc100_id": "", "added_on": ""})
	source(datasets.UCPValidations, map[string]string{
		"profile_url": "ucp_profile_url", "http_status": "ucp_http_status", "errors": "ucp_errors",
		"warnings": "ucp_warnings", "info": "ucp_info", "checked_at": "ucp_checked_at",
	}, func(fs *fieldSource) { fs.rowField = "ucp_validations_row" })
	source(datasets.ProductData, map[string]string{
		"product_url": "", "source": "product_source", "vendor_readiness_status": "",
	}, func(fs *fieldSource) { fs.rowField = "product_data_row" })
	source(datasets.AgentFacts, map[string]string{}, func(fs *fieldSource) {
		fs.rowField, fs.countField, fs.multi = "agent_facts_row", "agent_facts_rows", true
	})
	return fieldIndex
}

// field returns the index of a lookup field; an unknown name is a
// programming error caught by the first test.
func field(name string) int {
	i, ok := fieldIndex[name]
	if !ok {
		panic("serve: no lookup field " + name)
	}
	return i
}

// Fields read again and again by the answers.
var (
	FName           = field("name")
	FCategory       = field("category")
	FPlatform       = field("platform")
	FSource         = field("source")
	FAgentsCanBuy   = field("agents_can_buy")
	FBuyCatalog     = field("buy_agent_catalog")
	FBuyBrowser     = field("buy_browser")
	FScore          = field("score")
	FScoreInputs    = field("score_inputs")
	FCartLink       = field("cart_link")
	FUCPValid       = field("ucp_valid")
	FWebMCP         = field("webmcp")
	FBlocked        = field("blocked")
	FFix            = field("fix")
	FFixCode        = field("fix_code")
	FCheckedAt      = field("checked_at")
	FVerdict        = field("verdict")
	FSvcURL         = field("svc_url")
	FCatalog        = field("catalog_answered")
	FProductFound   = field("product_found")
	FStorefrontMCP  = field("storefront_mcp")
	FUCPStatus      = field("ucp_status")
	FCheckoutWebMCP = field("checkout_webmcp_status")
	FCheckError     = field("check_error")
	FReachable      = field("reachable")
	FHTTPStatus     = field("http_status")
	FReachError     = field("reach_error")
	FBlockReason    = field("block_reason")
	FEdgeBehindAll  = field("edge_block_behind_allow_all")
	FParked         = field("parked")
	FOtherBrand     = field("redirects_to_other_brand")
	FCatalogSource  = field("catalog_source")
	FCatalogCount   = field("catalog_products")
	FThrottled      = field("catalog_throttled")
	FMCPTools       = field("storefront_mcp_tools")
	FWebMCPTools    = field("webmcp_tools")
	FCWDetected     = field("checkout_webmcp_detected")
	FCWTools        = field("checkout_webmcp_tools")
	FCWReason       = field("checkout_webmcp_reason")
	FUCPVersion     = field("ucp_declared_version")
	FUCPCounts      = field("ucp_counts_in_directory")
	FUCPErrRules    = field("ucp_error_rules")
	FUCPWarnRules   = field("ucp_warning_rules")
	FUCPShopping    = field("ucp_shopping_service")
	FUCPCheckout    = field("ucp_checkout_capability")
	FRobotsStatus   = field("robots_status")
	FPDSource       = field("product_data_source")
	FPDComplete     = field("product_data_complete")
	FPolReturns     = field("policy_returns")
	FPolShipping    = field("policy_shipping")
	FPolPrivacy     = field("policy_privacy")
	FPolTerms       = field("policy_terms")
	FACPFound       = field("acp_found")
	FACPVersion     = field("acp_version")
	FMCPCard        = field("mcp_card_found")
	FMCPCardPath    = field("mcp_card_path")
	FMethodVersion  = field("method_version")
	FSvc100ID       = field("svc100_id")
	FAddedOn        = field("added_on")
	FUCPProfileURL  = field("ucp_profile_url")
	FUCPErrors      = field("ucp_errors")
	FUCPWarnings    = field("ucp_warnings")
	FUCPCheckedAt   = field("ucp_checked_at")
	FProductURL     = field("product_url")
	FVendorStatus   = field("vendor_readiness_status")
	FProductRow     = field("product_data_row")
	FChecksRow      = field("checks_row")
	FUCPRow         = field("ucp_validations_row")
	FFactsRow       = field("agent_facts_row")
	FFactsRows      = field("agent_facts_rows")
)

// RobotsField is the checks column of one AI agent's robots verdict.
func RobotsField(agent string) int {
	return field("robots_" + strings.ToLower(strings.ReplaceAll(agent, "-", "_")))
}
