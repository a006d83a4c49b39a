package ucp

import (
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// checker runs the spec rules beyond the JSON Schema on one profile. Rules
// the schema also enforces (key format, required members, key shape) are
// checked here too, so that they run when the schema could not be loaded;
// the report keeps one item per rule and path.
type checker struct {
	fs  *findings
	env checkEnv
	doc map[string]any
	ucp map[string]any // nil when missing or not an object

	// version is ucp.version when it is a valid date, else "".
	version string
	// release is the release whose rules apply (see ruleRelease).
	release string

	services, capabilities, handlers map[string]any
	// Sorted keys of the three registries, computed once.
	serviceKeys, capabilityKeys, handlerKeys []string
	capConfig                                map[string]compiled
}

func newChecker(doc map[string]any, fs *findings, env checkEnv) *checker {
	c := &checker{fs: fs, env: env, doc: doc, release: TargetRelease}
	c.ucp, _ = doc["ucp"].(map[string]any)
	if c.ucp != nil {
		c.services, _ = c.ucp["services"].(map[string]any)
		c.capabilities, _ = c.ucp["capabilities"].(map[string]any)
		c.handlers, _ = c.ucp["payment_handlers"].(map[string]any)
	}
	// One block holds the three key lists.
	block := make([]string, 0, len(c.services)+len(c.capabilities)+len(c.handlers))
	c.serviceKeys, block = appendSortedKeys(block, c.services)
	c.capabilityKeys, block = appendSortedKeys(block, c.capabilities)
	c.handlerKeys, _ = appendSortedKeys(block, c.handlers)
	return c
}

func (c *checker) run() {
	c.legacyShape()
	if c.ucp == nil {
		c.keys() // keys live outside ucp and can leak private material regardless
		return
	}
	c.protocolVersion()
	c.members()
	c.supportedVersions()
	c.serviceRegistry()
	c.capabilityRegistry()
	c.handlerRegistry()
	c.orphans()
	c.mapOrder()
	c.keys()
	c.presence()
}

// registry is one of the three name-keyed registries of the ucp object.
type registry struct {
	name string // "services", "capabilities", "payment_handlers"
	m    map[string]any
	keys []string // sorted
}

// entries calls fn for every object entry of every well-formed key of reg,
// in key order, with the entry's index and the length of the key's array.
// Keys that fail ucp.namespace.key_format are reported here and skipped:
// semantic rules do not run on them.
func (c *checker) entries(reg registry, fields uint8, fn func(key string, p entryPath, n int, e entry)) {
	for _, key := range reg.keys {
		if !reverseDomain(key) {
			c.fs.rule(ruleKeyFormat, "/ucp/"+reg.name+"/"+escapeToken(key), "key %q is not a reverse-domain name (lower case, at least two dot-separated labels, such as dev.ucp.shopping)", key)
			continue
		}
		arr, ok := reg.m[key].([]any)
		if !ok {
			continue // the schema reports it
		}
		for i, v := range arr {
			if m, ok := v.(map[string]any); ok {
				fn(key, entryPath{reg.name, key, i}, len(arr), readEntry(m, fields))
			}
		}
	}
}

// entry is a registry entry with the members the rules read, each looked
// up once; a member that is absent, or not among those read, is nil.
type entry struct {
	m                                    map[string]any
	version, spec, schema, id            any
	transport, endpoint, extends, config any
	hasSchema, hasEndpoint, hasConfig    bool
}

// Members readEntry reads besides version, spec and schema.
const (
	readID = 1 << iota
	readTransport
	readEndpoint
	readExtends
	readConfig
)

func readEntry(m map[string]any, fields uint8) entry {
	e := entry{m: m}
	e.version = m["version"]
	e.spec = m["spec"]
	e.schema, e.hasSchema = m["schema"]
	if fields&readID != 0 {
		e.id = m["id"]
	}
	if fields&readTransport != 0 {
		e.transport = m["transport"]
	}
	if fields&readEndpoint != 0 {
		e.endpoint, e.hasEndpoint = m["endpoint"]
	}
	if fields&readExtends != 0 {
		e.extends = m["extends"]
	}
	if fields&readConfig != 0 {
		e.config, e.hasConfig = m["config"]
	}
	return e
}

// entryPath is the JSON pointer of a registry entry,
// /ucp/<registry>/<key>/<index>, made into a string only for an item: most
// entries have none.
type entryPath struct {
	registry, key string
	i             int
}

func (p entryPath) String() string {
	return "/ucp/" + p.registry + "/" + escapeToken(p.key) + "/" + strconv.Itoa(p.i)
}

// at is the pointer of a member below the entry; rel starts with "/".
func (p entryPath) at(rel string) string { return p.String() + rel }

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

// firstPaths remembers the path where each value was first seen. Profiles
// list a handful of entries, so it compares them in turn, and takes a map
// only when a document has many.
type firstPaths[K comparable, P any] struct {
	list [maxFirstPathList]firstPath[K, P]
	n    int // used in list
	m    map[K]P
}

type firstPath[K comparable, P any] struct {
	k    K
	path P
}

const maxFirstPathList = 8

func (f *firstPaths[K, P]) get(k K) (P, bool) {
	if f.m != nil {
		p, ok := f.m[k]
		return p, ok
	}
	for _, x := range f.list[:f.n] {
		if x.k == k {
			return x.path, true
		}
	}
	var none P
	return none, false
}

// put records the first path of k, which get did not find.
func (f *firstPaths[K, P]) put(k K, path P) {
	if f.m == nil && f.n < maxFirstPathList {
		f.list[f.n] = firstPath[K, P]{k, path}
		f.n++
		return
	}
	if f.m == nil {
		f.m = make(map[K]P, 2*maxFirstPathList)
		for _, x := range f.list[:f.n] {
			f.m[x.k] = x.path
		}
	}
	f.m[k] = path
}

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

// orphans reports extensions none of whose parents is an active capability,
// repeating until nothing changes (an extension of a pruned extension is
// pruned too). A capability is active while it has a root entry (no extends)
// or a live extension entry; an entry listing itself is not its own parent.
func (c *checker) orphans() {
	type ext struct {
		key      string
		ki       int // index of key in keys
		i        int // index in the key's array
		from, to int // the parents in names
		orphan   bool
	}
	var extBuf [8]ext
	var nameBuf [16]string
	exts := extBuf[:0]
	names := nameBuf[:0] // the parents of every extension, one after another
	// roots[i] says whether keys[i] has a root entry, live[i] counts its live
	// extension entries.
	keys := c.capabilityKeys
	var rootBuf [16]bool
	var liveBuf [16]int
	var roots []bool
	var live []int
	if len(keys) <= len(rootBuf) {
		roots, live = rootBuf[:len(keys)], liveBuf[:len(keys)]
	} else {
		roots, live = make([]bool, len(keys)), make([]int, len(keys))
	}
	for ki, key := range keys {
		if !reverseDomain(key) {
			continue
		}
		arr, _ := c.capabilities[key].([]any)
		for i, v := range arr {
			e, ok := v.(map[string]any)
			if !ok {
				continue
			}
			from := len(names)
			switch x := e["extends"].(type) {
			case nil:
				roots[ki] = true
				continue
			case string:
				names = append(names, x)
			case []any:
				for _, p := range x {
					if s, ok := p.(string); ok {
						names = append(names, s)
					}
				}
			default:
				continue // the schema reports it
			}
			exts = append(exts, ext{key: key, ki: ki, i: i, from: from, to: len(names)})
		}
	}
	for i := range exts {
		x := &exts[i]
		live[x.ki]++
	}
	active := func(name string) bool {
		i, found := slices.BinarySearch(keys, name)
		return found && (roots[i] || live[i] > 0)
	}
	for changed := true; changed; {
		changed = false
		for i := range exts {
			x := &exts[i]
			if x.orphan {
				continue
			}
			alive := false
			for _, p := range names[x.from:x.to] {
				if p != x.key && active(p) {
					alive = true
					break
				}
			}
			if !alive {
				x.orphan, changed = true, true
				live[x.ki]--
			}
		}
	}
	path := func(x *ext) string { return "/ucp/capabilities/" + escapeToken(x.key) + "/" + itoa(x.i) + "/extends" }
	for i := range exts {
		x := &exts[i]
		if x.orphan {
			c.fs.rule(ruleOrphan, path(x), "%s extends %s, but no parent is an active capability of this profile; the extension can never take effect and must be left out",
				x.key, strings.Join(names[x.from:x.to], ", "))
			continue
		}
		var missing []string
		for _, p := range names[x.from:x.to] {
			if !active(p) {
				missing = append(missing, p)
			}
		}
		if len(missing) > 0 && x.to-x.from > 1 {
			c.fs.rule(rulePartialParent, path(x), "%s applies only where its parents are active; %s %s not declared", x.key, strings.Join(missing, ", "), isAre(len(missing)))
		}
	}
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
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

// add records an item at a severity other than the rule's default.
func (c *checker) add(sev Severity, rule, path, format string, args ...any) {
	c.fs.add(sev, rule, path, format, args...)
}

// sortedKeys returns m's keys in order; nil for a nil map.
func sortedKeys(m map[string]any) []string {
	keys, _ := appendSortedKeys(nil, m)
	return keys
}

// appendSortedKeys appends m's keys to block, sorted, and returns them (nil
// for an empty m, capped so that appending to them copies) and block.
func appendSortedKeys(block []string, m map[string]any) (keys, _ []string) {
	if len(m) == 0 {
		return nil, block
	}
	start := len(block)
	for k := range m {
		block = append(block, k)
	}
	keys = block[start:len(block):len(block)]
	slices.Sort(keys)
	return keys, block
}

// itoa formats an array index; small ones cost no allocation.
func itoa(i int) string { return strconv.Itoa(i) }
