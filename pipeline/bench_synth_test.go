package pipeline

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"svc/datasets"
	"svc/fixtures"
	"svc/pipeline/check"
)

// Synthetic runs for the benchmarks: a run folder with run.json,
// checks.parquet and ucp_validations.parquet for any number of stores,
// generated without a crawl. Each store draws its outcome from a PRNG
// seeded by its index (and the week, for the stores that change), so the
// files are the same on every machine. The mix follows the fixture world:
// failed checks, unreachable, parked and blocked hosts, and shops on five
// platforms with every kind of catalog, cart, UCP, WebMCP, robots, product
// data and policy outcome, so every branch of the aggregate SQL sees rows.
// checks.result_json is the check engine's own JSON of the synthetic
// result (CheckRow), so it has the size and shape of a real one.

// synthStores is the store count of the benchmarks: SVC_BENCH_ROWS, else
// def.
func synthStores(tb testing.TB, def int) int {
	tb.Helper()
	s := os.Getenv("SVC_BENCH_ROWS")
	if s == "" {
		return def
	}
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil || n <= 0 {
		tb.Fatalf("SVC_BENCH_ROWS=%q: want a positive count", s)
	}
	return n
}

// writeSynthRun writes DATA/work/<id>/ for n stores dated date and returns
// the folder. Week w > 0 is a later run over the same directory: 1 % of
// the stores left it, n/100 new ones joined and 5 % of the others changed
// their outcome, so the changes table has rows of every kind.
func writeSynthRun(tb testing.TB, data, id, date string, n, week int) string {
	tb.Helper()
	day, err := time.Parse(time.DateOnly, date)
	if err != nil {
		tb.Fatal(err)
	}
	started := day.Add(6*time.Hour + 30*time.Minute + 123456*time.Microsecond)
	if _, err := OpenRun(data, id, started); err != nil {
		tb.Fatal(err)
	}
	dir := RunDir(data, id)

	// Store indexes of this week: week 0 has 0..n-1; later weeks drop
	// every hundredth and add as many past n.
	idx := make([]int, 0, n+n/100)
	for i := range n {
		if week > 0 && i%100 == 99 {
			continue
		}
		idx = append(idx, i)
	}
	if week > 0 {
		for i := range n / 100 {
			idx = append(idx, n+week*n+i)
		}
	}
	checks := make([]datasets.Row, len(idx))
	ucps := make([]datasets.Row, len(idx))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Go(func() {
			for k := w; k < len(idx); k += workers {
				checks[k], ucps[k] = synthStore(idx[k], week, started)
			}
		})
	}
	wg.Wait()
	for _, f := range []struct {
		name string
		t    *datasets.Table
		rows []datasets.Row
	}{{ChecksFile, datasets.Checks, checks}, {UCPFile, datasets.UCPValidations, ucps}} {
		c, err := datasets.FromRows(f.t, f.rows)
		if err != nil {
			tb.Fatal(err)
		}
		clear(f.rows)
		file, err := os.Create(filepath.Join(dir, f.name))
		if err != nil {
			tb.Fatal(err)
		}
		bw := bufio.NewWriterSize(file, 1<<20)
		if err := datasets.WriteParquet(bw, c); err != nil {
			tb.Fatal(err)
		}
		if err := bw.Flush(); err != nil {
			tb.Fatal(err)
		}
		if err := file.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

var (
	synthTLDs      = []string{"com", "shop", "store", "co.uk", "de", "com.au", "io", "fr"}
	synthWords     = []string{"north", "maple", "atlas", "lumen", "cedar", "harbor", "copper", "velvet", "juniper", "summit", "pebble", "orchid"}
	synthSources   = []string{"seed", "seed", "seed", "seed", "seed", "seed", "submitted", "third-party-list", "third-party-list", "map-derived", "campaign"}
	synthPlatforms = []string{"shopify", "shopify", "shopify", "shopify", "woocommerce", "woocommerce", "bigcommerce", "magento", "custom", "custom"}
	synthBlocks    = []string{"cloudflare", "datadome", "akamai", "rate_limited", "forbidden"}
	synthCurrency  = []string{"USD", "EUR", "GBP", "AUD", "CAD"}
	synthAvail     = []string{"https://schema.org/InStock", "https://schema.org/OutOfStock", "https://schema.org/PreOrder"}
	synthUCPErrors = []string{"ucp.version.format", "services.missing", "capabilities.checkout.endpoint", "schema.required"}
	synthUCPWarns  = []string{"ucp.version.old", "services.shopping.mcp", "signing_keys.missing"}
	synthFixes     = map[string]string{
		"unblock_agents":      "Your bot protection refused the check. Let identified AI shopping agents through the edge (bot wall, challenge or WAF rule), or they cannot see your store at all.",
		"not_a_store":         "This host does not serve a store: it is parked or redirects to another brand. List the store's own domain instead.",
		"fix_unreachable":     "The homepage did not answer in time or failed. Make it answer a plain HTTPS GET within a few seconds.",
		"allow_agents_robots": "robots.txt disallows user-initiated AI agents (ChatGPT-User, Claude-User or Perplexity-User) at /. Allow them so agents acting for a shopper can load your pages.",
		"publish_catalog":     "No catalog answered over plain HTTP. Publish a machine-readable catalog: your platform's storefront MCP endpoint, /products.json or a Store API.",
		"fix_ucp_profile":     "Your UCP profile at /.well-known/ucp has errors or cannot be read. Serve it with status 200 and fix the errors the validator lists so agents can use it.",
		"publish_ucp_profile": "No UCP profile at /.well-known/ucp. Publish one that declares a dev.ucp.shopping service and a checkout capability.",
		"add_product_jsonld":  "No product data was found. Add schema.org Product JSON-LD (name, price, currency, availability, GTIN or SKU, image) to product pages.",
		"add_webmcp":          "No WebMCP tool in the page HTML. Declare a search or cart tool (a <form toolname> or modelContext.registerTool) so in-browser agents can use it.",
		"none":                "Nothing to fix that a plain-HTTP check can see. This does not prove an agent completed checkout.",
	}
)

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

// chance is true with probability p.
func chance(r *rand.Rand, p float64) bool { return r.Float64() < p }

func synthBool(r *rand.Rand, p float64) *bool { v := chance(r, p); return &v }

// synthStore returns store i's checks and ucp_validations rows in week w.
func synthStore(i, week int, started time.Time) (checkRow, ucpRow datasets.Row) {
	seed := uint64(0)
	if week > 0 && i%20 == 7 {
		seed = uint64(week) // 5 % of the stores change from week to week
	}
	r := rand.New(rand.NewPCG(uint64(i), 0x5eed+seed))
	host := fmt.Sprintf("%s-%s-%d.%s", pick(r, synthWords), pick(r, synthWords), i, pick(r, synthTLDs))
	st := Store{Host: host, Name: strings.ToUpper(host[:1]) + host[1:strings.IndexByte(host, '-')] + " Goods",
		Source: pick(r, synthSources)}
	if !chance(r, 0.03) {
		st.Category = pick(r, fixtures.Categories)
	}
	at := started.Add(time.Duration(r.Int64N(int64(5 * time.Hour)))).Truncate(time.Microsecond)
	rec := CrawlRecord{Store: st}
	ucpRow = datasets.Row{host, "not_checked", nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil}
	if chance(r, 0.02) {
		rec.Error = "check failed: " + pick(r, []string{"timeout", "panic", "canceled"})
		return CheckRow(rec), ucpRow
	}
	res := &check.Result{URL: "https://" + host + "/", Host: host, CheckedAt: at, MethodVersion: check.MethodVersion}
	rec.Result = res
	fix := "none"
	res.Robots = check.Robots{Status: "not_checked", Agents: map[string]check.AgentVerdict{}}
	res.UCPProfile.Status = "not_checked"
	res.CheckoutWebMCP.Status = "unknown"
	ucpRow[13] = at
	switch u := r.Float64(); {
	case u < 0.05: // unreachable
		res.Reachability = check.Reachability{Reachable: ptrTo(false), Error: pick(r, []string{"timeout", "connection_failed", "http_5xx", "too_large"})}
		res.UCPProfile.Status = "unreachable"
		fix = "fix_unreachable"
		ucpRow[1], ucpRow[11] = "unreachable", "homepage_unreachable"
	case u < 0.07: // parked or another brand
		res.Reachability = check.Reachability{Reachable: ptrTo(true), HTTPStatus: 200, Parked: synthBool(r, 0.6)}
		res.Reachability.RedirectsToOtherBrand = ptrTo(!*res.Reachability.Parked)
		res.BlockStatus.Blocked = ptrTo(false)
		fix = "not_a_store"
		synthUCP(r, res, ucpRow, host, 0.0, 0.02)
	case u < 0.13: // blocked at the edge
		res.Reachability = check.Reachability{Reachable: ptrTo(true), HTTPStatus: pick(r, []int{403, 429, 503}), Parked: ptrTo(false), RedirectsToOtherBrand: ptrTo(false)}
		res.BlockStatus = check.BlockStatus{Blocked: ptrTo(true), Reason: pick(r, synthBlocks), EdgeBlockBehindAllowAll: chance(r, 0.5)}
		fix = "unblock_agents"
		res.UCPProfile.Status = "unreachable"
		ucpRow[1], ucpRow[11] = "unreachable", "blocked"
	default:
		fix = synthShop(r, res, ucpRow, host)
	}
	res.Fix = check.Fix{Code: fix, Text: synthFixes[fix]}
	return CheckRow(rec), ucpRow
}

func ptrTo[T any](v T) *T { return &v }

// synthShop fills a reachable store's signals and returns its fix code.
func synthShop(r *rand.Rand, res *check.Result, ucpRow datasets.Row, host string) string {
	platform := pick(r, synthPlatforms)
	res.Platform = &platform
	res.Reachability = check.Reachability{Reachable: ptrTo(true), HTTPStatus: 200, FinalURL: res.URL, Parked: ptrTo(false), RedirectsToOtherBrand: ptrTo(false)}
	res.BlockStatus.Blocked = ptrTo(false)

	// robots.txt
	res.Robots.Status = pick(r, []string{"ok", "ok", "ok", "ok", "ok", "ok", "not_found", "not_found", "error"})
	res.Robots.HTTPStatus = map[string]int{"ok": 200, "not_found": 404, "error": 503}[res.Robots.Status]
	userDisallowed := false
	for _, a := range datasets.RobotsAgents {
		v := "no_rule"
		switch {
		case res.Robots.Status == "error":
			v = "disallowed"
		case res.Robots.Status == "ok":
			v = pick(r, []string{"allowed", "allowed", "allowed", "no_rule", "disallowed"})
		}
		if v == "disallowed" && strings.HasSuffix(a, "-User") {
			userDisallowed = true
		}
		res.Robots.Agents[a] = check.AgentVerdict{Verdict: v, Purpose: "user"}
	}

	// Catalog, product and cart.
	smcp := platform == "shopify" && chance(r, 0.7) || platform == "bigcommerce" && chance(r, 0.3)
	if platform == "shopify" || platform == "bigcommerce" {
		res.StorefrontMCP.Detected = &smcp
		res.StorefrontMCP.Tools = []string{}
		if smcp {
			res.StorefrontMCP.Endpoint = res.URL + "api/mcp"
			res.StorefrontMCP.ProtocolVersion = "2025-06-18"
			res.StorefrontMCP.Tools = []string{"search_shop_catalog", "get_product_details", "get_cart", "update_cart"}
			res.StorefrontMCP.CartTools = ptrTo(chance(r, 0.95))
		}
	}
	answered := smcp
	switch {
	case smcp:
		res.Catalog.Source = "storefront_mcp"
	case platform == "shopify" && chance(r, 0.8):
		answered, res.Catalog.Source = true, "products_json"
	case platform != "custom" && chance(r, 0.5):
		answered, res.Catalog.Source = true, "store_api"
	case chance(r, 0.1):
		answered, res.Catalog.Source = true, "products_json"
	}
	res.CatalogAnswered = &answered
	if answered {
		res.Catalog.Products = ptrTo(r.IntN(250))
		res.Catalog.Throttled = chance(r, 0.03)
		if !res.Catalog.Throttled {
			res.ProductFound = ptrTo(*res.Catalog.Products > 0 && chance(r, 0.92))
		}
	}
	if smcp && res.ProductFound != nil && *res.ProductFound {
		res.CartLink = synthBool(r, 0.75)
	}

	// Product data.
	pd := &check.ProductData{}
	res.ProductData = pd
	if res.ProductFound != nil && *res.ProductFound || chance(r, 0.3) {
		src := pick(r, []string{"jsonld", "jsonld", "jsonld", "products_json"})
		pd.Source = &src
		if src == "jsonld" {
			pd.URL = fmt.Sprintf("%sproducts/item-%d", res.URL, r.IntN(10000))
		}
		field := func(p float64, v string) *string {
			if chance(r, p) {
				return &v
			}
			return nil
		}
		pd.Name = field(0.98, "Item "+fmt.Sprint(r.IntN(100000)))
		pd.Price = field(0.95, fmt.Sprintf("%d.%02d", 1+r.IntN(500), r.IntN(100)))
		if src == "jsonld" {
			pd.Currency = field(0.9, pick(r, synthCurrency))
		}
		pd.Availability = field(0.8, pick(r, synthAvail))
		pd.GTIN = field(0.4, fmt.Sprintf("%013d", r.Int64N(1e13)))
		pd.SKU = field(0.6, fmt.Sprintf("SKU-%06d", r.IntN(1e6)))
		pd.Image = field(0.9, fmt.Sprintf("https://cdn.%s/img/%d.jpg", host, r.IntN(1e6)))
		pd.Complete = pd.Name != nil && pd.Price != nil && pd.Currency != nil && pd.Availability != nil &&
			(pd.GTIN != nil || pd.SKU != nil) && pd.Image != nil
	}

	// WebMCP, checkout WebMCP, policies, discovery documents.
	res.WebMCP = synthBool(r, 0.06)
	res.WebMCPDetail.Tools = []string{}
	if *res.WebMCP {
		res.WebMCPDetail = check.WebMCPDetail{Declarative: true, Tools: []string{"search", "add_to_cart"}, Evidence: "form toolname"}
	}
	res.CheckoutWebMCP.Tools = []string{}
	switch {
	case chance(r, 0.01):
		res.CheckoutWebMCP = check.CheckoutWebMCP{Status: "evidence", Detected: ptrTo(true), Tools: []string{"get_checkout", "update_checkout", "complete_checkout"}, Reason: "declared on the page"}
	case platform == "shopify":
		res.CheckoutWebMCP.Status, res.CheckoutWebMCP.Reason = "inferred", "Shopify's hosted checkout"
	default:
		res.CheckoutWebMCP.Reason = "not observable over plain HTTP"
	}
	res.Policies = check.Policies{Returns: synthBool(r, 0.75), Shipping: synthBool(r, 0.8), Privacy: synthBool(r, 0.9), Terms: synthBool(r, 0.7)}
	res.ACP.Found = synthBool(r, 0.02)
	if *res.ACP.Found {
		res.ACP.Path, res.ACP.Version = "/.well-known/acp.json", "2026-01-30"
	}
	res.MCPServerCard.Found = synthBool(r, 0.03)
	if *res.MCPServerCard.Found {
		res.MCPServerCard.Path = pick(r, []string{"/.well-known/mcp.json", "/.well-known/mcp/server-card.json"})
	}

	pValid, pInvalid := 0.04, 0.08
	if platform == "shopify" {
		pValid, pInvalid = 0.3, 0.2
	}
	synthUCP(r, res, ucpRow, host, pValid, pInvalid)

	switch {
	case userDisallowed:
		return "allow_agents_robots"
	case !answered:
		return "publish_catalog"
	case res.UCPProfile.Status == "invalid" || res.UCPProfile.Status == "unreachable":
		return "fix_ucp_profile"
	case res.UCPProfile.Status == "missing":
		return "publish_ucp_profile"
	case pd.Source == nil:
		return "add_product_jsonld"
	case !*res.Policies.Returns || !*res.Policies.Shipping || !*res.Policies.Privacy || !*res.Policies.Terms:
		return "publish_policies"
	case !*res.WebMCP:
		return "add_webmcp"
	}
	return "none"
}

// synthUCP draws the UCP profile outcome into the check result and the
// store's ucp_validations row, with a report of the validator's shape and
// size (about 2 KB).
func synthUCP(r *rand.Rand, res *check.Result, row datasets.Row, host string, pValid, pInvalid float64) {
	p := &res.UCPProfile
	p.URL = "https://" + host + "/.well-known/ucp"
	p.ErrorRules, p.WarningRules = []string{}, []string{}
	row[2], row[10] = p.URL, "folder"
	u := r.Float64()
	switch {
	case u < 0.01:
		p.Status = "unreachable"
		row[1], row[11] = "unreachable", pick(r, []string{"timeout", "tls", "connection_failed"})
		row[7], row[8], row[9] = int64(1), int64(0), int64(0)
		row[12] = synthReport(host, false, nil, []string{"ucp.http.status"}, nil, 0, "null")
		return
	case u < 0.01+pValid:
		p.Status = "valid"
	case u < 0.01+pValid+pInvalid:
		p.Status = "invalid"
	default:
		p.Status = "missing"
		p.HTTPStatus = 404
		p.Valid = ptrTo(false)
		row[1], row[3], row[5] = "missing", int64(404), false
		row[7], row[8], row[9] = int64(1), int64(0), int64(0)
		row[12] = synthReport(host, false, nil, []string{"ucp.http.status"}, nil, 404, "null")
		return
	}
	v := "2026-08-25"
	p.HTTPStatus = 200
	p.DeclaredVersion = &v
	p.Valid = ptrTo(p.Status == "valid")
	p.ShoppingService = synthBool(r, 0.9)
	p.Checkout = synthBool(r, 0.7)
	p.DirectoryCount = ptrTo(*p.ShoppingService)
	p.SchemaSource = "folder"
	if p.Status == "invalid" {
		p.Errors = 1 + r.IntN(3)
		p.ErrorRules = synthUCPErrors[:p.Errors]
	}
	p.Warnings = r.IntN(3)
	p.WarningRules = synthUCPWarns[:p.Warnings]
	profile := fmt.Sprintf(`{"ucp":{"version":%q,"services":{"dev.ucp.shopping":[{"version":%q,"spec":"https://ucp.dev/specification/overview","transport":"rest","endpoint":"https://%s/ucp/v1"}]},`+
		`"capabilities":{"dev.ucp.shopping.checkout":[{"version":%q,"spec":"https://ucp.dev/specification/checkout","schema":"https://ucp.dev/2026-08-25/schemas/shopping/checkout.json"}]}},"signing_keys":[]}`,
		v, v, host, v)
	row[1], row[3], row[4], row[5], row[6] = p.Status, int64(200), v, *p.Valid, *p.DirectoryCount
	row[7], row[8], row[9] = int64(p.Errors), int64(p.Warnings), int64(1)
	row[12] = synthReport(host, *p.Valid, &v, p.ErrorRules, p.WarningRules, 200, profile)
}

// synthReport is a validation report of the validator's shape.
func synthReport(host string, valid bool, version *string, errs, warns []string, status int, profile string) string {
	items := func(rules []string, what string) string {
		var out []string
		for _, e := range rules {
			out = append(out, fmt.Sprintf(`{"path":"/ucp","rule":%q,"message":"%s: rule %s","specUrl":"https://ucp.dev/2026-08-25/specification/overview/#error-codes","hint":false}`, e, what, e))
		}
		return "[" + strings.Join(out, ",") + "]"
	}
	ver := "null"
	if version != nil {
		ver = strconv.Quote(*version)
	}
	checks := []string{"https", "no_redirect", "status", "cache_control", "validator", "content_type", "tls"}
	var hc []string
	for _, c := range checks {
		st, detail := "pass", "checked"
		if status != 200 && c != "https" && c != "no_redirect" {
			st, detail = "skipped", "no profile answer to check"
		}
		hc = append(hc, fmt.Sprintf(`{"rule":"ucp.http.%s","status":%q,"detail":%q}`, c, st, detail))
	}
	return fmt.Sprintf(`{"valid":%t,"schema":{"release":"2026-08-25","entryPoint":"https://ucp.dev/2026-08-25/schemas/profile.json#/$defs/business_schema","checked":%t,"valid":%t,"errorCount":%d},`+
		`"declaredVersion":%s,"counts":{"errors":%d,"warnings":%d,"info":1},"errors":%s,"warnings":%s,"info":[{"path":"","rule":"ucp.size","message":"profile size"}],`+
		`"summary":"%d errors, %d warnings, 1 info item.","source":{"type":"url","url":"https://%s/","profileUrl":"https://%s/.well-known/ucp","finalUrl":"https://%s/.well-known/ucp","status":%d},`+
		`"httpChecks":[%s],"profile":%s,"schemaSource":{"type":"folder","location":"/srv/ucp/schema"},`+
		`"note":"Validation is not certification: a valid UCP profile does not prove that its endpoints work or that an agent can buy."}`,
		valid, status == 200, valid, len(errs), ver, len(errs), len(warns), items(errs, "error"), items(warns, "warning"),
		len(errs), len(warns), host, host, host, status, strings.Join(hc, ","), profile)
}
