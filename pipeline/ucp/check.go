package ucp

import (
	"slices"
	"strconv"
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
