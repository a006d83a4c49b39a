package serve

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"svc/datasets"
	"svc/pipeline"
	"svc/pipeline/check"
)

// The columns a per-host read (precheck, store card, product data) looks
// up, gathered from several published tables into one record per host.
// A field is named after its column; columns of ucp_validations,
// product_data and stores that clash with a store_answers column get a
// prefix. Big JSON documents (the product data itself, vendor readiness,
// agent facts, the UCP report, result_json) stay in Parquet and are read
// with DuckDB when asked for: they would cost more memory than every
// other field together.

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

// storeRow is one host's lookup record, decoded. A missing value is null
// (unmeasured), never zero.
type storeRow struct {
	host string
	vals []rowValue
	// live is set for a row built from a live check rather than a snapshot.
	live bool
}

type rowValue struct {
	ok bool
	s  string
	n  int64
}

func newStoreRow(host string) *storeRow {
	return &storeRow{host: host, vals: make([]rowValue, len(rowFields))}
}

func (r *storeRow) str(f int) *string {
	if v := r.vals[f]; v.ok {
		return &v.s
	}
	return nil
}

// text returns the string or "" when null.
func (r *storeRow) text(f int) string { return r.vals[f].s }

func (r *storeRow) boolean(f int) *bool {
	if v := r.vals[f]; v.ok {
		b := v.n != 0
		return &b
	}
	return nil
}

func (r *storeRow) isTrue(f int) bool  { v := r.vals[f]; return v.ok && v.n != 0 }
func (r *storeRow) isFalse(f int) bool { v := r.vals[f]; return v.ok && v.n == 0 }

func (r *storeRow) integer(f int) *int64 {
	if v := r.vals[f]; v.ok {
		return &v.n
	}
	return nil
}

func (r *storeRow) time(f int) *time.Time {
	if v := r.vals[f]; v.ok {
		t := time.UnixMicro(v.n).UTC()
		return &t
	}
	return nil
}

func (r *storeRow) setStr(f int, s string) { r.vals[f] = rowValue{ok: true, s: s} }
func (r *storeRow) setBool(f int, b bool) {
	r.vals[f] = rowValue{ok: true}
	if b {
		r.vals[f].n = 1
	}
}

// set stores a canonical datasets value (nil for null) in field f.
func (r *storeRow) set(f int, v any) error {
	switch x := v.(type) {
	case nil:
		r.vals[f] = rowValue{}
	case string:
		r.vals[f] = rowValue{ok: true, s: x}
	case bool:
		r.setBool(f, x)
	case int64:
		r.vals[f] = rowValue{ok: true, n: x}
	case time.Time:
		r.vals[f] = rowValue{ok: true, n: x.UnixMicro()}
	case *string:
		if x == nil {
			r.vals[f] = rowValue{}
			return nil
		}
		return r.set(f, *x)
	case *bool:
		if x == nil {
			r.vals[f] = rowValue{}
			return nil
		}
		r.setBool(f, *x)
	default:
		return fmt.Errorf("field %s: unexpected %T", rowFields[f].name, v)
	}
	return nil
}

// A rowCodec turns rows into records and back. String values are
// dictionary-coded per field while a field has few distinct values (enums,
// tool lists, fix texts, versions); the host inside a value is replaced by
// a mark first, so "https://<host>/.well-known/ucp" is one dictionary
// entry for every store. A field that passes dictMax distinct values
// stores further new values inline. The dictionaries are built while a
// snapshot loads and frozen before the first lookup; the zero-dictionary
// codec (inlineCodec) codes every value inline.
type rowCodec struct {
	dicts [][]string
	index []map[string]uint64 // while building; nil once frozen
}

// dictMax bounds one field's dictionary.
const dictMax = 4096

// hostMark stands for the row's host inside a string value. NUL never
// appears in the published text columns; a value that holds one is coded
// inline without substitution.
const hostMark = "\x00"

// String codes: an inline value as is, an inline value with the host
// marked, or dictionary entry code-codeDict.
const (
	codeRaw    = 0
	codeMarked = 1
	codeDict   = 2
)

func newRowCodec() *rowCodec {
	return &rowCodec{dicts: make([][]string, len(rowFields)), index: make([]map[string]uint64, len(rowFields))}
}

// inlineCodec codes every string inline: for rows kept outside a snapshot
// (live checks), where no dictionary may grow.
var inlineCodec = &rowCodec{}

// freeze ends dictionary building.
func (c *rowCodec) freeze() { c.index = nil }

// encode appends the record form of r to buf: a null bitmap, then the
// values of the non-null fields in field order.
func (c *rowCodec) encode(buf []byte, r *storeRow) []byte {
	nb := (len(rowFields) + 7) / 8
	start := len(buf)
	buf = append(buf, make([]byte, nb)...)
	for i, v := range r.vals {
		if !v.ok {
			continue
		}
		buf[start+i/8] |= 1 << (i % 8)
		switch rowFields[i].kind {
		case kStr:
			buf = c.appendString(buf, i, r.host, v.s)
		case kBool:
			buf = append(buf, byte(v.n))
		case kInt, kTime:
			buf = binary.AppendVarint(buf, v.n)
		}
	}
	return buf
}

func (c *rowCodec) appendString(buf []byte, f int, host, s string) []byte {
	if strings.Contains(s, hostMark) {
		buf = binary.AppendUvarint(buf, codeRaw)
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		return append(buf, s...)
	}
	if host != "" {
		s = strings.ReplaceAll(s, host, hostMark)
	}
	if c.index != nil {
		m := c.index[f]
		if m == nil {
			m = map[string]uint64{}
			c.index[f] = m
		}
		k, ok := m[s]
		if !ok && len(c.dicts[f]) < dictMax {
			s = strings.Clone(s) // the value may be a slice of a whole batch
			k, ok = uint64(len(c.dicts[f])), true
			m[s] = k
			c.dicts[f] = append(c.dicts[f], s)
		}
		if ok {
			return binary.AppendUvarint(buf, codeDict+k)
		}
	}
	buf = binary.AppendUvarint(buf, codeMarked)
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

var errCorruptRow = errors.New("corrupt lookup record")

// decode is encode's reverse.
func (c *rowCodec) decode(host string, rec []byte) (*storeRow, error) {
	r := newStoreRow(host)
	nb := (len(rowFields) + 7) / 8
	if len(rec) < nb {
		return nil, errCorruptRow
	}
	bits, rest := rec[:nb], rec[nb:]
	for i := range rowFields {
		if bits[i/8]&(1<<(i%8)) == 0 {
			continue
		}
		switch rowFields[i].kind {
		case kStr:
			code, k := binary.Uvarint(rest)
			if k <= 0 {
				return nil, errCorruptRow
			}
			rest = rest[k:]
			var s string
			switch {
			case code >= codeDict:
				if i >= len(c.dicts) || code-codeDict >= uint64(len(c.dicts[i])) {
					return nil, errCorruptRow
				}
				s = c.dicts[i][code-codeDict]
			default:
				b, tail, ok := readChunk(rest)
				if !ok {
					return nil, errCorruptRow
				}
				s, rest = string(b), tail
			}
			if code != codeRaw && strings.Contains(s, hostMark) {
				s = strings.ReplaceAll(s, hostMark, host)
			}
			r.vals[i] = rowValue{ok: true, s: s}
		case kBool:
			if len(rest) < 1 {
				return nil, errCorruptRow
			}
			r.vals[i] = rowValue{ok: true, n: int64(rest[0])}
			rest = rest[1:]
		case kInt, kTime:
			n, k := binary.Varint(rest)
			if k <= 0 {
				return nil, errCorruptRow
			}
			r.vals[i] = rowValue{ok: true, n: n}
			rest = rest[k:]
		}
	}
	return r, nil
}

// Fields read again and again by the answers.
var (
	fName           = field("name")
	fCategory       = field("category")
	fPlatform       = field("platform")
	fSource         = field("source")
	fAgentsCanBuy   = field("agents_can_buy")
	fBuyCatalog     = field("buy_agent_catalog")
	fBuyBrowser     = field("buy_browser")
	fScore          = field("score")
	fScoreInputs    = field("score_inputs")
	fCartLink       = field("cart_link")
	fUCPValid       = field("ucp_valid")
	fWebMCP         = field("webmcp")
	fBlocked        = field("blocked")
	fFix            = field("fix")
	fFixCode        = field("fix_code")
	fCheckedAt      = field("checked_at")
	fVerdict        = field("verdict")
	fSvcURL         = field("svc_url")
	fCatalog        = field("catalog_answered")
	fProductFound   = field("product_found")
	fStorefrontMCP  = field("storefront_mcp")
	fUCPStatus      = field("ucp_status")
	fCheckoutWebMCP = field("checkout_webmcp_status")
	fCheckError     = field("check_error")
	fReachable      = field("reachable")
	fHTTPStatus     = field("http_status")
	fReachError     = field("reach_error")
	fBlockReason    = field("block_reason")
	fEdgeBehindAll  = field("edge_block_behind_allow_all")
	fParked         = field("parked")
	fOtherBrand     = field("redirects_to_other_brand")
	fCatalogSource  = field("catalog_source")
	fCatalogCount   = field("catalog_products")
	fThrottled      = field("catalog_throttled")
	fMCPTools       = field("storefront_mcp_tools")
	fWebMCPTools    = field("webmcp_tools")
	fCWDetected     = field("checkout_webmcp_detected")
	fUCPVersion     = field("ucp_declared_version")
	fUCPCounts      = field("ucp_counts_in_directory")
	fUCPErrRules    = field("ucp_error_rules")
	fUCPWarnRules   = field("ucp_warning_rules")
	fUCPShopping    = field("ucp_shopping_service")
	fUCPCheckout    = field("ucp_checkout_capability")
	fRobotsStatus   = field("robots_status")
	fPDSource       = field("product_data_source")
	fPDComplete     = field("product_data_complete")
	fPolReturns     = field("policy_returns")
	fPolShipping    = field("policy_shipping")
	fPolPrivacy     = field("policy_privacy")
	fPolTerms       = field("policy_terms")
	fACPFound       = field("acp_found")
	fACPVersion     = field("acp_version")
	fMCPCard        = field("mcp_card_found")
	fMCPCardPath    = field("mcp_card_path")
	fMethodVersion  = field("method_version")
	fSvc100ID       = field("svc100_id")
	fAddedOn        = field("added_on")
	fUCPProfileURL  = field("ucp_profile_url")
	fUCPErrors      = field("ucp_errors")
	fUCPWarnings    = field("ucp_warnings")
	fUCPCheckedAt   = field("ucp_checked_at")
	fProductURL     = field("product_url")
	fVendorStatus   = field("vendor_readiness_status")
	fProductRow     = field("product_data_row")
	fChecksRow      = field("checks_row")
	fUCPRow         = field("ucp_validations_row")
	fFactsRow       = field("agent_facts_row")
	fFactsRows      = field("agent_facts_rows")
)

// robotsField is the checks column of one AI agent's robots verdict.
func robotsField(agent string) int {
	return field("robots_" + strings.ToLower(strings.ReplaceAll(agent, "-", "_")))
}

// rowFromCheck builds a lookup row from a live check (GET
// /api/agent-checkout), with the checks columns exactly as the crawl would
// write them (pipeline.CheckRow) and the store_answers columns a live
// check decides: verdict, ucp_valid, the agent-catalog lane and the fix.
// The score and the browser lane are not measured by a live check: null.
func rowFromCheck(res *check.Result, dir *storeRow) *storeRow {
	r := newStoreRow(res.Host)
	st := pipeline.Store{Host: res.Host}
	if dir != nil {
		st.Name, st.Category, st.Source = dir.text(fName), dir.text(fCategory), dir.text(fSource)
		for _, f := range []int{fSvc100ID, fAddedOn, fSvcURL} {
			r.vals[f] = dir.vals[f]
		}
	}
	row := pipeline.CheckRow(pipeline.CrawlRecord{Store: st, Result: res})
	for j, c := range datasets.Checks.Columns {
		if i, ok := fieldIndex[c.Name]; ok && j < len(row) && !checksSkipped[c.Name] {
			_ = r.set(i, canonical(row[j]))
		}
	}
	r.live = true
	if dir == nil {
		r.vals[fSource] = rowValue{} // not in the directory
	}
	ucpOK := map[string]any{"valid": true, "invalid": false, "missing": false}[res.UCPProfile.Status]
	_ = r.set(fUCPValid, ucpOK)
	// buy.agent_catalog: cart link AND a valid profile, three-valued.
	var lane any
	switch {
	case r.isFalse(fCartLink) || ucpOK == false:
		lane = false
	case r.isTrue(fCartLink) && ucpOK == true:
		lane = true
	}
	_ = r.set(fBuyCatalog, lane)
	_ = r.set(fAgentsCanBuy, lane)
	if res.Fix.Text != "" {
		r.setStr(fFix, res.Fix.Text)
	}
	if res.Platform == nil {
		r.vals[fCheckoutWebMCP] = rowValue{}
	}
	r.vals[fScore], r.vals[fScoreInputs] = rowValue{}, rowValue{}
	r.setStr(fVerdict, liveVerdict(r))
	return r
}

// liveVerdict is aggregate_signals.sql's verdict for a live check (no
// browser lane).
func liveVerdict(r *storeRow) string {
	switch {
	case !r.vals[fCheckedAt].ok:
		return "check_failed"
	case r.isTrue(fAgentsCanBuy):
		return "agents_can_buy"
	case r.isTrue(fBlocked):
		return "blocked"
	case r.isTrue(fParked) || r.isTrue(fOtherBrand):
		return "not_a_store"
	case !r.vals[fPlatform].ok:
		return "unreachable"
	case r.isTrue(fCartLink):
		return "cart_without_valid_ucp"
	case r.isTrue(fCatalog) && !r.vals[fProductFound].ok:
		return "catalog_throttled"
	case r.isTrue(fProductFound):
		return "catalog_only"
	}
	return "no_agent_catalog"
}

// canonical turns the Go values of a datasets.Row (as pipeline.CheckRow
// builds them) into the canonical ones storeRow.set takes.
func canonical(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case *int64:
		if x == nil {
			return nil
		}
		return *x
	case *time.Time:
		if x == nil {
			return nil
		}
		return *x
	}
	return v
}
