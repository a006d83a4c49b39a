package ciclient

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The rules: how each check reads its answer. `svc check --help` documents
// them for users.

func outPass(d string) Outcome       { return Outcome{Status: StatusPass, Detail: d} }
func outFail(d string) Outcome       { return Outcome{Status: StatusFail, Detail: d} }
func outUnmeasured(d string) Outcome { return Outcome{Status: StatusUnmeasured, Detail: d} }

// evalUCP reads the live validation report (spec 2.4).
func evalUCP(r *UCPReport) Outcome {
	if r.Valid == nil {
		return outUnmeasured("the validation report has no verdict")
	}
	src := r.Source
	where := "/.well-known/ucp"
	if s := src.ProfileURL; s != nil && *s != "" {
		where = clean(*s)
	}
	if *r.Valid {
		d := "valid UCP profile"
		if v := r.DeclaredVersion; v != nil {
			d += " (version " + clean(*v) + ")"
		}
		if n := r.Counts.Warnings; n > 0 {
			d += ", " + plural(n, "warning")
		}
		return outPass(d)
	}
	if fe := src.FetchError; fe != nil && *fe != "" {
		return outUnmeasured("the profile could not be fetched (" + clean(*fe) + ")")
	}
	if st := src.Status; st != nil {
		switch status := *st; {
		case status == 404 || status == 410:
			return outFail(fmt.Sprintf("no UCP profile at %s (HTTP %d)", where, status))
		case status < 200 || status >= 300:
			return outUnmeasured(fmt.Sprintf("the profile could not be read (HTTP %d)", status))
		}
	}
	if r.Profile == nil {
		return outFail("no UCP profile at " + where + " (the answer is not JSON)")
	}
	n := r.Counts.Errors
	if e := r.Schema.Error; n == 0 && e != nil && *e != "" {
		return outUnmeasured("the validator could not load the UCP JSON Schema")
	}
	d := "invalid UCP profile: " + plural(n, "error")
	var rules []string
	for _, it := range r.Errors {
		if s := it.Rule; s != nil && *s != "" && !slices.Contains(rules, clean(*s)) {
			rules = append(rules, clean(*s))
		}
	}
	if len(rules) > 3 {
		rules = append(rules[:3], "…")
	}
	if len(rules) > 0 {
		d += " (" + strings.Join(rules, ", ") + ")"
	}
	return outFail(d)
}

// savedRules read the checks other than ucp from the live check's answer
// (spec 2.1), one rule per name of Names after ucp.
var savedRules = map[string]func(*CheckAnswer) Outcome{
	"webmcp":       evalWebMCP,
	"catalog":      evalCatalog,
	"checkout":     evalCheckout,
	"mcp":          evalMCP,
	"robots":       evalRobots,
	"product-data": evalProductData,
	"policies":     evalPolicies,
}

func evalWebMCP(a *CheckAnswer) Outcome {
	switch b := a.WebMCP; {
	case b == nil:
		return outUnmeasured(gateReason(a, "not measured"))
	case *b:
		var tools []string
		for _, s := range a.WebMCPDetail.Tools {
			if s != nil {
				tools = append(tools, clean(*s))
			}
		}
		if len(tools) > 0 {
			return outPass("WebMCP tools in the server HTML: " + strings.Join(tools, ", "))
		}
		return outPass("WebMCP in the server HTML")
	default:
		return outFail("no WebMCP in the server HTML")
	}
}

func evalCatalog(a *CheckAnswer) Outcome {
	answered := "catalog answered"
	if s := a.Catalog.Source; s != nil && *s != "" {
		answered += " (" + clean(*s) + ")"
	}
	ca, pf := a.CatalogAnswered, a.ProductFound
	switch {
	case ca == nil:
		return outUnmeasured(gateReason(a, "not measured"))
	case !*ca:
		return outFail("no catalog answered")
	case pf == nil:
		if t := a.Catalog.Throttled; t != nil && *t {
			return outUnmeasured(answered + " but throttled; no product seen")
		}
		return outUnmeasured(answered + "; product not measured")
	case *pf:
		return outPass(answered + ", product found")
	default:
		return outFail(answered + " with no product")
	}
}

func evalCheckout(a *CheckAnswer) Outcome {
	switch b := a.CartLink; {
	case b == nil:
		return outUnmeasured(gateReason(a, "no product could be added to a cart"))
	case *b:
		return outPass("the cart returned a checkout link (a boolean; the URL is never kept)")
	default:
		return outFail("no checkout link from the cart")
	}
}

func evalMCP(a *CheckAnswer) Outcome {
	sm := a.StorefrontMCP
	switch b := sm.Detected; {
	case b == nil:
		return outUnmeasured(gateReason(a, "not measured"))
	case *b:
		d := "storefront MCP endpoint answered"
		if n := len(sm.Tools); n > 0 {
			d += " (" + plural(n, "tool") + ")"
		}
		return outPass(d)
	default:
		return outFail("no storefront MCP endpoint")
	}
}

func evalRobots(a *CheckAnswer) Outcome {
	agents, st := a.Robots.Agents, a.Robots.Status
	if st == nil || *st == "not_checked" || len(agents) == 0 {
		return outUnmeasured(gateReason(a, "robots.txt not checked"))
	}
	keys := make([]string, 0, len(agents))
	for k := range agents {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var users, disallowed []string
	for _, k := range keys {
		v := agents[k]
		if p := v.Purpose; p == nil || *p != "user" {
			continue
		}
		users = append(users, clean(k))
		if vd := v.Verdict; vd != nil && *vd == "disallowed" {
			disallowed = append(disallowed, clean(k))
		}
	}
	switch {
	case len(users) == 0:
		return outUnmeasured("no user-initiated AI agent in the robots reading")
	case len(disallowed) > 0:
		return outFail("robots.txt disallows " + strings.Join(disallowed, ", "))
	case *st == "not_found":
		return outPass("no robots.txt: no restrictions")
	}
	return outPass("user-initiated AI agents allowed: " + strings.Join(users, ", "))
}

func evalProductData(a *CheckAnswer) Outcome {
	pd := a.ProductData
	if pd == nil {
		return outUnmeasured(gateReason(a, "not measured"))
	}
	src := pd.Source
	if src == nil {
		return outFail("no product data found")
	}
	if c := pd.Complete; c != nil && *c {
		return outPass("complete product data (" + clean(*src) + ")")
	}
	var missing []string
	for _, f := range []struct {
		name  string
		value *string
	}{{"name", pd.Name}, {"price", pd.Price}, {"currency", pd.Currency}, {"availability", pd.Availability}} {
		if f.value == nil {
			missing = append(missing, f.name)
		}
	}
	if pd.GTIN == nil && pd.SKU == nil {
		missing = append(missing, "gtin or sku")
	}
	if pd.Image == nil {
		missing = append(missing, "image")
	}
	if len(missing) == 0 {
		return outFail("incomplete product data (" + clean(*src) + ")")
	}
	return outFail("incomplete product data (" + clean(*src) + "): no " + strings.Join(missing, ", "))
}

func evalPolicies(a *CheckAnswer) Outcome {
	p := a.Policies
	var missing, unknown []string
	for _, f := range []struct {
		name  string
		found *bool
	}{{"returns", p.Returns}, {"shipping", p.Shipping}, {"privacy", p.Privacy}, {"terms", p.Terms}} {
		switch b := f.found; {
		case b == nil:
			unknown = append(unknown, f.name)
		case !*b:
			missing = append(missing, f.name)
		}
	}
	switch {
	case len(missing) > 0:
		return outFail("no policy page found for " + strings.Join(missing, ", "))
	case len(unknown) > 0:
		return outUnmeasured(gateReason(a, "not measured"))
	}
	return outPass("returns, shipping, privacy and terms pages found")
}

// gateReason says why a store's fields are null, when the answer shows it.
func gateReason(a *CheckAnswer, fallback string) string {
	bs, re := a.BlockStatus, a.Reachability
	if b := bs.Blocked; b != nil && *b {
		if r := bs.Reason; r != nil && *r != "" {
			return "the store blocked the check (" + clean(*r) + ")"
		}
		return "the store blocked the check"
	}
	if b := re.Reachable; b != nil && !*b {
		if e := re.Error; e != nil && *e != "" {
			return "the store could not be reached (" + clean(*e) + ")"
		}
		if n := re.HTTPStatus; n != 0 {
			return fmt.Sprintf("the store could not be reached (HTTP %d)", n)
		}
		return "the store could not be reached"
	}
	if b := re.Parked; b != nil && *b {
		return "the host is a parked domain"
	}
	if b := re.RedirectsToOtherBrand; b != nil && *b {
		return "the host redirects to another brand"
	}
	return fallback
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// controlChars are replaced in text from the API, so the table stays one
// line per check and both clients encode the same JSON.
var controlChars = regexp.MustCompile("[\x00-\x1f\x7f\u2028\u2029]")

func clean(s string) string { return controlChars.ReplaceAllString(s, " ") }
