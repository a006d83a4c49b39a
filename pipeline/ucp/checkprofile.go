package ucp

// Rules on the ucp object as a whole: its version, members,
// supported_versions and map_order, what a profile declares at all, and the
// launch-era layout.

import (
	"slices"
	"strings"
)

// protocolVersion checks ucp.version.
func (c *checker) protocolVersion() {
	raw, ok := c.ucp["version"].(string)
	if !ok {
		return // missing or not a string: the schema reports it
	}
	if !c.dateValue("/ucp", "version", raw, "ucp.version") {
		c.release = TargetRelease
		return
	}
	c.version = raw
	c.release = ruleRelease(raw)
	if !isKnownRelease(raw) {
		used := "the rules of release " + c.release
		c.fs.rule(ruleKnownRelease, "/ucp/version", "%s is not a UCP release this validator knows (%s); it was checked against the UCP %s JSON Schema and %s",
			raw, strings.Join(knownReleases, ", "), TargetRelease, used)
	}
}

// dateValue checks a version value at p/field and reports
// ucp.version.format.
func (c *checker) dateValue(p, field, v, what string) bool {
	if validDate(v) {
		return true
	}
	path := p + "/" + escapeToken(field)
	switch {
	case v == "draft" || strings.Contains(strings.ToLower(v), "draft"):
		c.fs.rule(ruleVersionFormat, path, "%s is %q: a profile must advertise a dated release (YYYY-MM-DD), never a pre-release name", what, v)
	case datePattern(v):
		c.fs.rule(ruleVersionFormat, path, "%s %q is not a real calendar date", what, v)
	default:
		c.fs.rule(ruleVersionFormat, path, "%s %q is not a YYYY-MM-DD release date", what, v)
	}
	return false
}

// ucpMembers are the members UCP defines in the ucp object.
var ucpMembers = []string{"version", "services", "capabilities", "payment_handlers", "supported_versions", "map_order",
	"status", "request_constraints", "ucp"}

// members checks the reserved members of the ucp object.
func (c *checker) members() {
	if _, ok := c.ucp["ucp"]; ok {
		c.fs.rule(ruleNoRecursion, "/ucp/ucp", "a ucp object must not be nested directly inside ucp")
	}
	known := 0
	for _, k := range ucpMembers {
		if _, ok := c.ucp[k]; ok {
			known++
		}
	}
	if known == len(c.ucp) {
		return // looking members up costs less than visiting them
	}
	var unknown []string
	for k := range c.ucp {
		if !slices.Contains(ucpMembers, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		c.fs.rule(ruleUnknownMember, "/ucp/"+escapeToken(k), "%q is not a member UCP defines in the ucp object; extension data must not be placed there and consumers ignore it", k)
	}
}

// supportedVersions checks ucp.supported_versions: dated keys older than the
// profile's version, and https URLs on public hosts.
func (c *checker) supportedVersions() {
	sv, ok := c.ucp["supported_versions"].(map[string]any)
	if !ok {
		return
	}
	for _, k := range sortedKeys(sv) {
		p := "/ucp/supported_versions/" + escapeToken(k)
		if c.dateValue("/ucp/supported_versions", k, k, "supported_versions key") && c.version != "" && k >= c.version {
			c.fs.rule(ruleSVOlder, p, "supported_versions lists older versions only, but %s is not older than ucp.version %s", k, c.version)
		}
		s, ok := sv[k].(string)
		if !ok {
			continue
		}
		info := c.url(s)
		if info.err != nil {
			c.fs.rule(ruleSVHTTPS, p, "the profile URL for %s is not a valid absolute URL: %v", k, info.err)
			continue
		}
		u := info.web
		if u.scheme != "https" {
			c.fs.rule(ruleSVHTTPS, p, "the profile URL for %s must use https, not %s:", k, u.scheme)
		}
		if why := hostProblem(u.host); why != "" {
			c.fs.rule(rulePublicHost, p, "the profile URL for %s's host %s %s; fetchers must refuse it", k, u.host, why)
		}
	}
}

// mapOrder checks ucp.map_order: present targets, present keys, no repeats.
func (c *checker) mapOrder() {
	mo, ok := c.ucp["map_order"].(map[string]any)
	if !ok {
		return
	}
	for _, target := range sortedKeys(mo) {
		p := "/ucp/map_order/" + escapeToken(target)
		var m map[string]any
		switch target {
		case "services":
			m = c.services
		case "capabilities":
			m = c.capabilities
		case "payment_handlers":
			m = c.handlers
		default:
			c.fs.rule(ruleMapOrder, p, "map_order names %q, which is not services, capabilities or payment_handlers", target)
			continue
		}
		if m == nil {
			c.fs.rule(ruleMapOrder, p, "map_order names %s, which this profile does not have", target)
			continue
		}
		list, _ := mo[target].([]any)
		seen := map[string]bool{}
		for i, v := range list {
			s, ok := v.(string)
			if !ok {
				continue
			}
			switch {
			case seen[s]:
				c.fs.rule(ruleMapOrder, p+"/"+itoa(i), "%q is listed twice", s)
			case m[s] == nil:
				c.fs.rule(ruleMapOrder, p+"/"+itoa(i), "%q is not a key of %s", s, target)
			}
			seen[s] = true
		}
	}
}

// presence covers what a profile declares as a whole: capabilities at all,
// the shopping service the capabilities need, and the service's hints.
func (c *checker) presence() {
	capKeys := c.capabilityKeys
	if len(capKeys) == 0 {
		c.fs.rule(ruleCapNone, "/ucp", "the profile declares no capability; that is allowed, but agents need one (such as dev.ucp.shopping.checkout) to do anything")
	}
	hasBinding := func(service string) (found, rest bool) {
		arr, _ := c.services[service].([]any)
		for _, v := range arr {
			if e, ok := v.(map[string]any); ok {
				found = true
				if t, _ := e["transport"].(string); t == "rest" || t == "mcp" {
					rest = true
				}
			}
		}
		return found, rest
	}
	shopping, agentBinding := hasBinding("dev.ucp.shopping")
	needShopping, needCommon := false, false
	for _, k := range capKeys {
		needShopping = needShopping || strings.HasPrefix(k, "dev.ucp.shopping.")
		needCommon = needCommon || strings.HasPrefix(k, "dev.ucp.common.location.")
	}
	if needShopping && !shopping {
		c.fs.rule(ruleShopping, "/ucp/services", "dev.ucp.shopping capabilities are declared but services has no dev.ucp.shopping binding, so platforms cannot reach them")
	}
	if common, _ := hasBinding("dev.ucp.common"); needCommon && !common && atLeast(c.release, "2026-08-25") {
		c.fs.rule(ruleShopping, "/ucp/services", "dev.ucp.common.location capabilities are declared but services has no dev.ucp.common binding, so platforms cannot reach them")
	}
	// The service's own hints, where no UCP rule above already said it.
	switch {
	case len(capKeys) == 0 || needShopping && !shopping:
	case !shopping:
		c.fs.rule(hintShoppingService, "/ucp/services", "svc hint, not a UCP requirement: agents find a store's catalog, cart and checkout through a dev.ucp.shopping service, and this profile declares none")
	case !agentBinding:
		c.fs.rule(hintAgentBinding, "/ucp/services/dev.ucp.shopping", "svc hint, not a UCP requirement: the dev.ucp.shopping service has no rest or mcp binding, which is what agents call directly")
	}
	if len(capKeys) > 0 && c.capabilities["dev.ucp.shopping.cart"] == nil && c.capabilities["dev.ucp.shopping.checkout"] == nil {
		c.fs.rule(hintCartOrCheckout, "/ucp/capabilities", "svc hint, not a UCP requirement: neither dev.ucp.shopping.cart nor dev.ucp.shopping.checkout is declared, so an agent cannot reach a cart or checkout through UCP")
	}
}

// legacyShape recognises the launch-era 2026-01-11 layout, so the report
// says what happened instead of only echoing "must be array".
func (c *checker) legacyShape() {
	if c.ucp != nil {
		for _, k := range c.serviceKeys {
			if m, ok := c.services[k].(map[string]any); ok && (m["rest"] != nil || m["mcp"] != nil || m["a2a"] != nil || m["embedded"] != nil) {
				c.fs.rule(ruleLegacyShape, "/ucp/services/"+escapeToken(k), "this is the 2026-01-11 layout (a service object with rest/mcp sub-objects); since 2026-01-23 each service is an array of bindings with a transport field")
			}
		}
		if _, ok := c.ucp["capabilities"].([]any); ok {
			c.fs.rule(ruleLegacyShape, "/ucp/capabilities", "this is the 2026-01-11 layout (capabilities as an array of {name, ...}); capabilities are now an object keyed by capability name, each an array of entries")
		}
	}
	if p, ok := c.doc["payment"].(map[string]any); ok && p["handlers"] != nil {
		c.fs.rule(ruleLegacyShape, "/payment/handlers", "this is the 2026-01-11 layout (top-level payment.handlers); payment handlers now live in ucp.payment_handlers, keyed by handler name")
	}
}
