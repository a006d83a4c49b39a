package ucp

// Rules on the three registries: services and their transports,
// capabilities and payment handlers, entry by entry.

import (
	"strings"
)

// serviceRegistry checks ucp.services.
func (c *checker) serviceRegistry() {
	if c.services == nil {
		return
	}
	reg := registry{"services", c.services, c.serviceKeys}
	c.keyRules(reg)
	type binding struct{ key, transport, version string }
	var seen firstPaths[binding, entryPath]
	c.entries(reg, readTransport|readEndpoint|readConfig, func(key string, p entryPath, n int, ent entry) {
		e := &ent
		c.entryVersion(key, p, e, true)
		c.specURL(p, e)
		c.schemaURL(key, p, e)
		transport, _ := e.transport.(string)
		endpoint, hasEndpoint := e.endpoint.(string)
		endpointPresent := e.hasEndpoint
		switch transport {
		case "rest", "mcp", "a2a":
			if !endpointPresent {
				c.fs.rule(ruleEndpointReq, p.String(), "a %s binding must carry an endpoint", transport)
			}
		case "embedded":
			c.embeddedConfig(p, e)
		}
		if hasEndpoint {
			c.endpoint(p, transport, endpoint)
		}
		if key == "dev.ucp.shopping" {
			c.transportSchema(p, transport, e)
		}
		// Bindings of different keys differ: only a key with several
		// entries can repeat one.
		if v, ok := e.version.(string); ok && transport != "" && n > 1 {
			id := binding{key, transport, v}
			if first, dup := seen.get(id); dup {
				c.fs.rule(ruleDupBinding, p.String(), "a second %s binding with version %s under %s (first at %s); each entry should pair the service with a different binding", transport, v, key, first)
			} else {
				seen.put(id, p)
			}
		}
	})
}

// endpoint checks the endpoint URL of the binding at p.
func (c *checker) endpoint(p entryPath, transport, s string) {
	info := c.url(s)
	if info.err != nil {
		c.fs.rule(ruleEndpointHTTPS, p.at("/endpoint"), "the endpoint is not a valid absolute URL: %v", info.err)
		return
	}
	u := info.web
	if u.scheme != "https" {
		c.fs.rule(ruleEndpointHTTPS, p.at("/endpoint"), "the endpoint must use https, not %s:", u.scheme)
	}
	if why := hostProblem(u.host); why != "" {
		c.fs.rule(rulePublicHost, p.at("/endpoint"), "the endpoint's host %s %s; fetchers must refuse it", u.host, why)
	}
	if strings.HasSuffix(u.path, "/") {
		c.fs.rule(ruleTrailingSlash, p.at("/endpoint"), "the endpoint should not end with \"/\": operation paths are appended to it verbatim")
	}
	if transport == "a2a" && !hasSuffixFold(u.path, ".json") {
		c.fs.rule(ruleA2ACard, p.at("/endpoint"), "for a2a the endpoint is the Agent Card URL, conventionally https://<host>/.well-known/agent-card.json; this one does not look like a JSON document")
	}
}

// embeddedConfig checks the embedded binding's config (the schema does too).
func (c *checker) embeddedConfig(p entryPath, e *entry) {
	cfg, ok := e.config, e.hasConfig
	if !ok {
		return
	}
	m, ok := cfg.(map[string]any)
	if !ok {
		c.fs.rule(ruleEmbeddedCfg, p.at("/config"), "the embedded config must be an object")
		return
	}
	for _, field := range []string{"delegate", "color_scheme"} {
		v, ok := m[field]
		if !ok {
			continue
		}
		arr, ok := v.([]any)
		if !ok {
			c.fs.rule(ruleEmbeddedCfg, p.at("/config/"+field), "%s must be an array of strings", field)
			continue
		}
		for i, x := range arr {
			s, ok := x.(string)
			switch {
			case !ok:
				c.fs.rule(ruleEmbeddedCfg, p.at("/config/"+field+"/"+itoa(i)), "%s entries must be strings", field)
			case field == "color_scheme" && s != "light" && s != "dark":
				c.fs.rule(ruleEmbeddedCfg, p.at("/config/"+field+"/"+itoa(i)), "color_scheme entries must be \"light\" or \"dark\", not %q", s)
			}
		}
	}
}

// transportSchema checks that a dev.ucp.shopping binding points at the
// official description of its transport.
func (c *checker) transportSchema(p entryPath, transport string, e *entry) {
	var tail string // the official URL after the release
	switch transport {
	case "rest":
		tail = "/services/shopping/rest.openapi.json"
	case "mcp":
		tail = "/services/shopping/mcp.openrpc.json"
	case "embedded":
		tail = "/services/shopping/embedded.openrpc.json"
	default:
		return
	}
	v, _ := e.version.(string)
	if !validDate(v) {
		return
	}
	const head = "https://ucp.dev/"
	s, ok := e.schema.(string)
	if ok && len(s) == len(head)+len(v)+len(tail) && strings.HasPrefix(s, head) && strings.HasSuffix(s, tail) && s[len(head):len(head)+len(v)] == v {
		return
	}
	want := head + v + tail
	if !ok {
		c.add(SevInfo, ruleTransportSch, p.String(), "the %s binding has no schema; platforms expect %s", transport, want)
		return
	}
	if s != want {
		c.fs.rule(ruleTransportSch, p.at("/schema"), "the %s binding's schema should be %s, not %s", transport, want, s)
	}
}

// capabilityRegistry checks ucp.capabilities.
func (c *checker) capabilityRegistry() {
	if c.capabilities == nil {
		return
	}
	reg := registry{"capabilities", c.capabilities, c.capabilityKeys}
	c.keyRules(reg)
	type capVersion struct{ key, version string }
	var seen firstPaths[capVersion, entryPath]
	c.entries(reg, readExtends, func(key string, p entryPath, n int, ent entry) {
		e := &ent
		c.entryVersion(key, p, e, true)
		spec, hasSpec := c.specURL(p, e)
		if !e.hasSchema {
			c.fs.rule(ruleCapSchemaReq, p.String(), "a capability must declare its schema URL")
		}
		schema, hasSchema := c.schemaURL(key, p, e)
		if hasSchema && strings.HasPrefix(key, "dev.ucp.") {
			c.officialSchemaURL(p, e, &schema)
		}
		if c.release == "2026-04-08" && hasSpec {
			c.specAuthority(key, p, e, &spec)
		}
		c.extendsFormat(p, e)
		if v, ok := e.version.(string); ok && n > 1 { // as for bindings
			if first, dup := seen.get(capVersion{key, v}); dup {
				c.fs.rule(ruleDupVersion, p.String(), "a second %s entry with version %s (first at %s); entries exist to advertise different versions", key, v, first)
			} else {
				seen.put(capVersion{key, v}, p)
			}
		}
		c.capabilityConfig(key, p, e)
		if key == "dev.ucp.common.identity_linking" {
			c.identityProviders(p, e)
		}
	})
}

// handlerRegistry checks ucp.payment_handlers.
func (c *checker) handlerRegistry() {
	if c.handlers == nil {
		return
	}
	reg := registry{"payment_handlers", c.handlers, c.handlerKeys}
	var seen firstPaths[string, entryPath]
	c.entries(reg, readID, func(key string, p entryPath, n int, ent entry) {
		e := &ent
		c.entryVersion(key, p, e, false)
		c.specURL(p, e)
		c.schemaURL(key, p, e)
		if id, ok := e.id.(string); ok {
			if first, dup := seen.get(id); dup {
				c.fs.rule(ruleHandlerID, p.at("/id"), "payment handler id %q is also used at %s/id; ids tell handler instances apart", id, first)
			} else {
				seen.put(id, p)
			}
		}
	})
}
