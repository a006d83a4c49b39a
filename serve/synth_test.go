package serve

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"svc/datasets"
)

// A synthetic snapshot of n stores, written with the datasets writers and
// no crawl: the load of the read benchmark. Values are drawn from a hash of
// the row number, with shares close to a real directory (a third of the
// stores on Shopify, a few percent blocked or unreachable), so column
// encodings and sizes are realistic.

// synthHost is the host of synthetic store i: random letters (as
// incompressible as real brand names, or more), then i for uniqueness.
func synthHost(i int) string {
	h := mix(i, 7)
	b := make([]byte, 0, 32)
	for k := range 6 + int(h%9) {
		b = append(b, byte('a'+(h>>(8+k*4))%26))
	}
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(i), 36)
	return string(b) + synthTLDs[(h>>58)%uint64(len(synthTLDs))]
}

var synthTLDs = []string{".com", ".com", ".com", ".co.uk", ".de", ".shop", ".store", ".net"}

// mix is a cheap, well-spread hash of (i, salt).
func mix(i, salt int) uint64 {
	x := uint64(i)*0x9E3779B97F4A7C15 + uint64(salt)*0xBF58476D1CE4E5B9
	x ^= x >> 31
	x *= 0x94D049BB133111EB
	x ^= x >> 29
	return x
}

// rowBuilder fills one reusable row by column name.
type rowBuilder struct {
	t   *datasets.Table
	idx map[string]int
	row datasets.Row
}

func newRowBuilder(t *datasets.Table) *rowBuilder {
	b := &rowBuilder{t: t, idx: map[string]int{}, row: make(datasets.Row, len(t.Columns))}
	for i, c := range t.Columns {
		b.idx[c.Name] = i
	}
	return b
}

func (b *rowBuilder) reset() { clear(b.row) }

func (b *rowBuilder) set(name string, v any) {
	i, ok := b.idx[name]
	if !ok {
		panic("synth: table " + b.t.Name + " has no column " + name)
	}
	b.row[i] = v
}

// synthStore is what every table of one synthetic store derives from.
type synthStore struct {
	host, name, category, source, platform string
	checked                                time.Time
	reachable, blocked, parked             bool
	catalog, product, cart, webmcp, mcp    *bool
	ucpStatus                              string
	pdSource                               string // "", jsonld, products_json
	policies                               [4]*bool
	robotsUser                             string
	fixCode                                string
}

func bp(b bool) *bool { return &b }

func synthStoreAt(i int, now time.Time) synthStore {
	h := mix(i, 1)
	s := synthStore{
		host:     synthHost(i),
		name:     synthName(i),
		category: categorySlugs[(h>>8)%uint64(len(categorySlugs))],
		source:   "seed",
		checked:  now.Add(-time.Duration((h>>16)%(14*24*3600)) * time.Second).Truncate(time.Microsecond),
	}
	switch r := (h >> 40) % 1000; {
	case r < 5:
		s.source = "third-party-list"
	case r < 8:
		s.source = "opted-out"
	case r < 60:
		s.source = "submitted"
	}
	p := (h >> 20) % 100
	s.reachable = p >= 4
	s.blocked = p >= 4 && p < 9
	s.parked = p == 9
	s.ucpStatus = "unreachable"
	s.fixCode = "fix_unreachable"
	if s.blocked {
		s.fixCode = "unblock_agents"
	}
	if s.parked {
		s.fixCode, s.ucpStatus = "not_a_store", "missing"
	}
	if !s.reachable || s.blocked || s.parked {
		return s
	}
	s.platform = []string{"shopify", "shopify", "shopify", "woocommerce", "woocommerce", "custom", "custom", "magento", "bigcommerce"}[(h>>28)%9]
	hosted := s.platform == "shopify" || s.platform == "bigcommerce"
	s.catalog = bp(hosted || s.platform == "woocommerce" || (h>>33)%4 == 0)
	s.product = bp(*s.catalog && (h>>35)%10 != 0)
	s.mcp = bp(s.platform == "shopify")
	s.cart = bp(*s.mcp && *s.product && (h>>37)%3 != 0)
	s.webmcp = bp((h>>39)%20 == 0)
	s.ucpStatus = []string{"valid", "invalid", "missing", "missing", "missing"}[(h>>41)%5]
	if hosted {
		s.ucpStatus = []string{"valid", "valid", "invalid", "missing"}[(h>>41)%4]
	}
	s.pdSource = []string{"jsonld", "jsonld", "products_json", ""}[(h>>44)%4]
	for k := range s.policies {
		s.policies[k] = bp((h>>(46+k))%5 != 0)
	}
	s.robotsUser = "allowed"
	if (h>>51)%25 == 0 {
		s.robotsUser = "disallowed"
	}
	s.fixCode = "add_webmcp"
	if !*s.webmcp && s.ucpStatus == "missing" {
		s.fixCode = "publish_ucp_profile"
	}
	return s
}

var synthWords = []string{"Goods", "Supply", "Outfitters", "Collective", "Co", "Shop", "Market", "House", "Studio", "Works",
	"Amber", "Fox", "River", "Stone", "Oak", "Harbor", "North", "Wild", "Bright", "Little", "Golden", "Blue", "Maple", "Iron"}

// synthName is a store name of three words drawn for i.
func synthName(i int) string {
	h := mix(i, 9)
	n := uint64(len(synthWords))
	return synthWords[10+(h>>4)%(n-10)] + " " + synthWords[10+(h>>12)%(n-10)] + " " + synthWords[(h>>20)%10]
}

// writeSynthSnapshot writes version under dataDir/public/data with n
// synthetic stores, a manifest and data/latest pointing at it.
func writeSynthSnapshot(dataDir, version string, n int, now time.Time) error {
	vdir := filepath.Join(dataDir, "public", "data", version)
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	stores := make([]synthStore, n)
	for i := range stores {
		stores[i] = synthStoreAt(i, now)
	}
	var files []map[string]any
	for _, t := range []*datasets.Table{datasets.StoreAnswers, datasets.Stores, datasets.Checks,
		datasets.UCPValidations, datasets.AgentFacts, datasets.ProductData, datasets.Policies} {
		c, err := synthTable(t, stores)
		if err != nil {
			return fmt.Errorf("synth %s: %w", t.Name, err)
		}
		name := t.Name + ".parquet"
		sum, err := writeHashed(filepath.Join(vdir, name), func(w io.Writer) error { return datasets.WriteParquet(w, c) })
		if err != nil {
			return fmt.Errorf("synth %s: %w", t.Name, err)
		}
		files = append(files, map[string]any{"path": name, "sha256": sum})
	}
	m, _ := json.Marshal(map[string]any{"version": version, "files": files})
	if err := os.WriteFile(filepath.Join(vdir, "manifest.json"), m, 0o644); err != nil {
		return err
	}
	latest := filepath.Join(dataDir, "public", "data", "latest")
	tmp := latest + ".tmp"
	os.Remove(tmp)
	if err := os.Symlink(version, tmp); err != nil {
		return err
	}
	return os.Rename(tmp, latest)
}

func writeHashed(path string, write func(io.Writer) error) (string, error) {
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<20)
	if err := write(bw); err != nil {
		f.Close()
		return "", err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// synthTable builds table t's rows for the synthetic stores.
func synthTable(t *datasets.Table, stores []synthStore) (*datasets.Columns, error) {
	per := 1
	switch t {
	case datasets.AgentFacts:
		per = len(factSlugs)
	case datasets.Policies:
		per = len(policyKinds)
	}
	c, err := datasets.NewColumns(t, len(stores)*per)
	if err != nil {
		return nil, err
	}
	b := newRowBuilder(t)
	for i := range stores {
		s := &stores[i]
		for k := range per {
			b.reset()
			b.set("host", s.host)
			fillSynth(b, s, k)
			if err := c.AppendRow(b.row); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

var policyKinds = []string{"privacy", "returns", "shipping", "terms"}

func orNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func fillSynth(b *rowBuilder, s *synthStore, k int) {
	shop := s.platform != ""
	ucpValid := map[string]any{"valid": true, "invalid": false, "missing": false}[s.ucpStatus]
	checked := s.checked
	switch b.t {
	case datasets.StoreAnswers, datasets.Checks:
		b.set("name", s.name)
		b.set("category", s.category)
		b.set("source", s.source)
		b.set("platform", orNil(s.platform))
		b.set("cart_link", s.cart)
		b.set("webmcp", s.webmcp)
		b.set("blocked", map[bool]*bool{true: bp(s.blocked)}[s.reachable])
		b.set("checked_at", checked)
		b.set("fix_code", s.fixCode)
		b.set("catalog_answered", s.catalog)
		b.set("product_found", s.product)
		b.set("storefront_mcp", s.mcp)
		b.set("ucp_status", s.ucpStatus)
		if shop {
			b.set("checkout_webmcp_status", map[bool]string{true: "inferred", false: "unknown"}[s.platform == "shopify"])
		}
	}
	switch b.t {
	case datasets.StoreAnswers:
		b.set("ucp_valid", ucpValid)
		var lane any
		if s.cart != nil && ucpValid != nil {
			lane = *s.cart && ucpValid.(bool)
		}
		b.set("buy_agent_catalog", lane)
		b.set("agents_can_buy", lane)
		verdict := "unreachable"
		switch {
		case s.blocked:
			verdict = "blocked"
		case s.parked:
			verdict = "not_a_store"
		case lane == true:
			verdict = "agents_can_buy"
		case s.cart != nil && *s.cart:
			verdict = "cart_without_valid_ucp"
		case s.product != nil && *s.product:
			verdict = "catalog_only"
		case shop:
			verdict = "no_agent_catalog"
		}
		b.set("verdict", verdict)
		b.set("fix", "Fix text for "+s.fixCode+".")
		b.set("svc_url", "/api/store?host="+s.host)
		if shop {
			b.set("score", int64(mix(len(s.host), int(checked.Unix()))%101))
			b.set("score_inputs", int64(7))
		} else if s.blocked {
			b.set("score", int64(0))
			b.set("score_inputs", int64(1))
		} else {
			b.set("score_inputs", int64(0))
		}
	case datasets.Stores:
		b.set("name", s.name)
		b.set("category", s.category)
		b.set("source", s.source)
		b.set("added_on", checked.Truncate(24*time.Hour))
	case datasets.Checks:
		b.set("method_version", "check/1")
		b.set("reachable", s.reachable)
		if s.reachable {
			b.set("http_status", map[bool]int64{true: 403, false: 200}[s.blocked])
			b.set("parked", s.parked)
			b.set("redirects_to_other_brand", false)
		} else {
			b.set("reach_error", "timeout")
		}
		if s.blocked {
			b.set("block_reason", "cloudflare")
			b.set("edge_block_behind_allow_all", true)
		}
		b.set("robots_status", "ok")
		for _, a := range datasets.RobotsAgents {
			v := "no_rule"
			if strings.HasSuffix(a, "-User") {
				v = s.robotsUser
			}
			b.set("robots_"+strings.ToLower(strings.ReplaceAll(a, "-", "_")), v)
		}
		if !shop {
			break
		}
		b.set("catalog_source", map[string]any{"shopify": "storefront_mcp", "woocommerce": "store_api"}[s.platform])
		b.set("catalog_products", int64(12))
		b.set("catalog_throttled", false)
		b.set("storefront_mcp_tools", map[bool]string{true: `["search_shop_catalog","get_cart","update_cart"]`, false: `[]`}[*s.mcp])
		b.set("webmcp_tools", map[bool]string{true: `["search"]`, false: `[]`}[*s.webmcp])
		b.set("ucp_valid", ucpValid)
		if s.ucpStatus != "missing" {
			b.set("ucp_declared_version", "2026-08-25")
			b.set("ucp_counts_in_directory", true)
			b.set("ucp_error_rules", `[]`)
			b.set("ucp_warning_rules", `[]`)
		}
		b.set("product_data_source", orNil(s.pdSource))
		if s.pdSource != "" {
			b.set("product_name", "Product of "+s.name)
			b.set("product_price", "24.00")
			b.set("product_currency", "USD")
			b.set("product_availability", "https://schema.org/InStock")
			b.set("product_sku", fmt.Sprintf("SKU-%d", mix(len(s.host), 3)%100000))
			b.set("product_image", "https://"+s.host+"/images/p1.jpg")
		}
		b.set("product_data_complete", s.pdSource == "jsonld")
		b.set("policy_privacy", s.policies[0])
		b.set("policy_returns", s.policies[1])
		b.set("policy_shipping", s.policies[2])
		b.set("policy_terms", s.policies[3])
		b.set("acp_found", false)
		b.set("mcp_card_found", false)
		b.set("result_json", `{"host":"`+s.host+`","fix":{"code":"`+s.fixCode+`"},"methodVersion":"check/1"}`)
	case datasets.UCPValidations:
		b.set("status", s.ucpStatus)
		b.set("profile_url", "https://"+s.host+"/.well-known/ucp")
		b.set("valid", ucpValid)
		b.set("checked_at", checked)
		if s.ucpStatus == "valid" || s.ucpStatus == "invalid" {
			b.set("http_status", int64(200))
			b.set("declared_version", "2026-08-25")
			b.set("errors", map[bool]int64{true: 0, false: 2}[s.ucpStatus == "valid"])
			b.set("warnings", int64(1))
			b.set("info", int64(0))
			b.set("schema_source", "folder")
		}
	case datasets.AgentFacts:
		fact := factSlugs[k]
		b.set("fact", fact)
		b.set("checked_at", checked)
		if fact == "use_case_mention" || fact == "agent_friendly_description" || !shop {
			b.set("note", "Not measured: the check method saves no page text.")
			return
		}
		ev := `{"platform":"` + s.platform + `","fact":"` + fact + `"}`
		sum := sha256.Sum256([]byte(ev))
		b.set("value", `"clear"`)
		b.set("confidence", 0.7)
		b.set("evidence", ev)
		b.set("evidence_sha256", hex.EncodeToString(sum[:]))
		b.set("source_url", "https://"+s.host+"/")
		b.set("note", "Synthetic.")
	case datasets.ProductData:
		if !shop {
			return
		}
		b.set("checked_at", checked)
		status := "not_ready"
		if s.pdSource != "" {
			b.set("source", s.pdSource)
			b.set("product_url", "https://"+s.host+"/products/p1")
			b.set("product_data", `{"name":"Product of `+s.name+`","price":"24.00","currency":"USD","availability":"https://schema.org/InStock","gtin":null,"sku":"SKU-1","image":"https://`+s.host+`/images/p1.jpg","complete":`+fmt.Sprint(s.pdSource == "jsonld")+`}`)
			status = map[bool]string{true: "ready", false: "partial"}[s.pdSource == "jsonld"]
		}
		b.set("vendor_readiness_status", status)
		b.set("vendor_readiness", `{"status":"`+status+`","present":[],"missing":[],"basis":"Saved public product data.","note":"Not vendor approval."}`)
	case datasets.Policies:
		b.set("policy", policyKinds[k])
		b.set("checked_at", checked)
		if shop {
			b.set("found", s.policies[k])
		}
	}
}
