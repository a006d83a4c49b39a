package ucp

// Rules on the members of a registry entry and its key: naming, version,
// spec and schema URLs, extends, config and identity providers.

import (
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// keyRules applies the naming rules to the keys of a service or capability
// registry.
func (c *checker) keyRules(reg registry) {
	for _, key := range reg.keys {
		if !reverseDomain(key) {
			continue
		}
		if strings.Count(key, ".") < 2 {
			c.fs.rule(ruleNaming, "/ucp/"+reg.name+"/"+escapeToken(key), "%s names should follow {reverse-domain}.{service}.{capability}, with at least three labels; %q has %d", singular(reg.name), key, strings.Count(key, ".")+1)
		}
		if strings.HasPrefix(key, "dev.ucp.") {
			c.devUCPKnown(reg.name, key)
		}
	}
}

// entryVersion checks an entry's version, and for dev.ucp.* services and
// capabilities that it equals ucp.version.
func (c *checker) entryVersion(key string, p entryPath, e *entry, devUCP bool) {
	v, ok := e.version.(string)
	if !ok {
		return
	}
	if !validDate(v) {
		c.dateValue(p.String(), "version", v, "version")
		return
	}
	if !devUCP || c.version == "" || !strings.HasPrefix(key, "dev.ucp.") || v == c.version {
		return
	}
	sev := SevError
	if !atLeast(c.release, "2026-08-25") {
		sev = SevWarning
	}
	c.add(sev, ruleDevUCPMatch, p.at("/version"), "%s entries must carry the profile's version %s, not %s; platforms drop mismatching entries (older versions belong in supported_versions profiles)", key, c.version, v)
}

// specURL checks an entry's spec URL: https, any host. It returns the
// URL's analysis, and false when there is no spec string.
func (c *checker) specURL(p entryPath, e *entry) (urlInfo, bool) {
	s, ok := e.spec.(string)
	if !ok {
		return urlInfo{}, false
	}
	info := c.url(s)
	if info.err != nil {
		c.fs.rule(ruleSpecHTTPS, p.at("/spec"), "the spec URL is not a valid absolute URL: %v", info.err)
		return info, true
	}
	if info.web.scheme != "https" {
		c.fs.rule(ruleSpecHTTPS, p.at("/spec"), "the spec URL must use https, not %s:", info.web.scheme)
	}
	return info, true
}

// schemaURL applies the authority binding and host rules to an entry's
// schema. It returns the URL's analysis, and false when there is no schema
// string.
func (c *checker) schemaURL(key string, p entryPath, e *entry) (urlInfo, bool) {
	s, ok := e.schema.(string)
	if !ok {
		return urlInfo{}, false
	}
	info := c.url(s)
	host := info.auth
	if info.authErr != nil {
		c.fs.rule(ruleAuthority, p.at("/schema"), "the schema URL %s cannot be bound to %s: %v; platforms treat the entry as absent", s, key, info.authErr)
		return info, true
	}
	if !boundTo(key, host) {
		c.fs.rule(ruleAuthority, p.at("/schema"), "the schema URL's host %s does not match the namespace of %s; %s would need a schema on %s (or a subdomain of it); platforms must not fetch it and treat the entry as absent",
			host, key, key, namespaceHost(key))
	}
	if info.err == nil {
		if why := hostProblem(info.web.host); why != "" {
			c.fs.rule(rulePublicHost, p.at("/schema"), "the schema URL's host %s %s; fetchers must refuse it", info.web.host, why)
		}
	}
	if suffix := sharedSuffix(host); suffix != "" {
		c.fs.rule(ruleSharedSuffix, p.at("/schema"), "the schema host %s is under the shared hosting suffix %s; publish under a registrable domain you control", host, suffix)
	}
	return info, true
}

// officialSchemaURL checks that a dev.ucp.* capability schema on ucp.dev
// (info is its analysis) is pinned to the entry's release.
func (c *checker) officialSchemaURL(p entryPath, e *entry, info *urlInfo) {
	u := info.web
	if info.err != nil || u.host != "ucp.dev" {
		return
	}
	v, _ := e.version.(string)
	if !validDate(v) {
		return
	}
	// u.path starts with "/" + v, then "/schemas/".
	if !(len(u.path) > len(v) && u.path[0] == '/' && u.path[1:1+len(v)] == v && strings.HasPrefix(u.path[1+len(v):], "/schemas/")) {
		c.fs.rule(ruleOfficialURL, p.at("/schema"), "official schemas are pinned per release: expected a path under /%s/schemas/, got %s", v, u.path)
	}
}

// specAuthority applies the 2026-04-08 rule that a capability's spec URL
// (info is its analysis) is on its namespace's origin too.
func (c *checker) specAuthority(key string, p entryPath, e *entry, info *urlInfo) {
	s, _ := e.spec.(string)
	if info.authErr == nil && boundTo(key, info.auth) {
		return
	}
	c.fs.rule(ruleSpecAuthority, p.at("/spec"), "in UCP 2026-04-08 a capability's spec URL must be on the origin of its namespace (%s for %s), not %s", namespaceHost(key), key, s)
}

// extendsFormat checks that extends names are reverse-domain names.
func (c *checker) extendsFormat(p entryPath, e *entry) {
	switch x := e.extends.(type) {
	case string:
		if !reverseDomain(x) {
			c.fs.rule(ruleKeyFormat, p.at("/extends"), "extends %q is not a reverse-domain capability name", x)
		}
	case []any:
		for i, v := range x {
			if s, ok := v.(string); ok && !reverseDomain(s) {
				c.fs.rule(ruleKeyFormat, p.at("/extends/"+itoa(i)), "extends %q is not a reverse-domain capability name", s)
			}
		}
	}
}

// capabilityConfig validates an entry of a known capability against that
// capability's business schema. Errors the profile schema already reports
// (the shared capability shape) are left out.
func (c *checker) capabilityConfig(key string, p entryPath, e *entry) {
	sch, ok := c.capConfig[key]
	if !ok || !atLeast(c.release, TargetRelease) {
		return
	}
	err := sch.validate(any(e.m))
	if err == nil {
		return
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return
	}
	var leaves []*jsonschema.ValidationError
	flatten(ve, &leaves)
	for _, l := range leaves {
		if strings.Contains(l.SchemaURL, "/capability.json#") || strings.Contains(l.SchemaURL, "/ucp.json#") {
			continue
		}
		msg := schemaMessage(l, ruleCapConfig)
		msg = key + " " + strings.TrimPrefix(msg, "JSON Schema: ")
		c.fs.rule(ruleCapConfig, p.at(leafPath(e.m, l)), "%s (checked against the capability's business schema)", msg)
	}
}

// identityProviders flags an oauth2 provider on the profile's own host: a
// business must not list its own authorization server.
func (c *checker) identityProviders(p entryPath, e *entry) {
	if c.env.profileHost == "" {
		return
	}
	cfg, _ := e.m["config"].(map[string]any)
	providers, _ := cfg["providers"].(map[string]any)
	for _, name := range sortedKeys(providers) {
		list, _ := providers[name].([]any)
		for i, x := range list {
			pr, _ := x.(map[string]any)
			if t, _ := pr["type"].(string); t != "oauth2" {
				continue
			}
			s, _ := pr["auth_url"].(string)
			info := c.url(s)
			u := info.web
			if info.err != nil {
				continue
			}
			if sameSite(u.host, c.env.profileHost) {
				c.fs.rule(ruleSelfProvider, p.at("/config/providers/"+escapeToken(name)+"/"+itoa(i)+"/auth_url"),
					"%s is the store's own host (%s); businesses must not list their own authorization server as a provider (direct OAuth already covers it)", u.host, c.env.profileHost)
			}
		}
	}
}
