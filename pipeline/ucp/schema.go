package ucp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"svc/pipeline/fetch"
)

// officialBase is where UCP publishes its schemas, one folder per release:
// https://ucp.dev/<release>/schemas/<path>. Every published file's $id is
// its URL there, and cross-file $refs are absolute, so a folder holding
// <release>/<path> can stand in for the site.
const officialBase = "https://ucp.dev/"

// capabilityConfigs are the capabilities whose schema file defines the shape
// of a business's entry ($defs[<name>].business_schema), checked by rule
// ucp.capability.config. The 2026-08-25 closure in the shared folder holds
// only the profile files, so these fall back to the draft copies, which match
// 2026-08-25 for business profiles (../shared/ucp/schema/SOURCE.md).
var capabilityConfigs = []struct{ name, file string }{
	{"dev.ucp.common.identity_linking", "common/identity_linking.json"},
	{"dev.ucp.shopping.fulfillment", "shopping/fulfillment.json"},
	{"dev.ucp.shopping.permalink", "shopping/permalink.json"},
	{"dev.ucp.shopping.split_payments", "shopping/split_payments.json"},
}

// schemaSet is the compiled schemas; it is read-only and shared by all
// validations.
type schemaSet struct {
	business compiled
	// capConfig maps a capability name to its business entry schema.
	capConfig map[string]compiled
}

// compiled is a schema and its quick plan (nil when it has none).
type compiled struct {
	s *jsonschema.Schema
	q *quick
}

func newCompiled(s *jsonschema.Schema) compiled { return compiled{s, newQuick(s)} }

// validate returns the library's error for v: from the quick plan, which
// finds a valid v valid and explains an invalid one (quickerr.go), or from
// the library itself when the plan cannot tell or there is none.
func (c compiled) validate(v any) error {
	if c.q != nil {
		if err, ok := c.q.explain(v); ok {
			return err
		}
	}
	return c.s.Validate(v)
}

// schemaLoader resolves https://ucp.dev/<release>/schemas/<path> from a
// folder, or from the official site through the safe client with a disk
// cache. It refuses every other URL, so a schema can never make the
// validator reach anywhere else.
type schemaLoader struct {
	ctx    context.Context
	dir    string
	cache  string
	client *fetch.Client
}

// Load implements jsonschema.URLLoader.
func (l *schemaLoader) Load(u string) (any, error) {
	release, rel, err := splitSchemaURL(u)
	if err != nil {
		return nil, err
	}
	var b []byte
	if l.dir != "" {
		b, err = os.ReadFile(filepath.Join(l.dir, release, filepath.FromSlash(rel)))
		if err != nil {
			return nil, fmt.Errorf("load %s from folder: %w", u, err)
		}
	} else {
		b, err = l.fetchCached(u, release, rel)
		if err != nil {
			return nil, err
		}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("load %s: not JSON: %w", u, err)
	}
	return doc, nil
}

// fetchCached reads a schema from the cache, or fetches it once and caches it.
func (l *schemaLoader) fetchCached(u, release, rel string) ([]byte, error) {
	var file string
	if l.cache != "" {
		file = filepath.Join(l.cache, release, filepath.FromSlash(rel))
		if b, err := os.ReadFile(file); err == nil {
			return b, nil
		}
	}
	if l.client == nil {
		return nil, fmt.Errorf("load %s: no schema folder and no HTTP client", u)
	}
	resp, err := l.client.Get(l.ctx, u)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("load %s: HTTP status %d", u, resp.StatusCode)
	}
	if file != "" {
		// A failed cache write only costs a fetch next time.
		_ = writeFileAtomic(file, resp.Body)
	}
	return resp.Body, nil
}

// splitSchemaURL checks that u is a schema file under the official base and
// returns its release folder and relative path.
func splitSchemaURL(u string) (release, rel string, err error) {
	rest, ok := strings.CutPrefix(u, officialBase)
	if ok {
		release, rel, ok = strings.Cut(rest, "/schemas/")
	}
	if !ok || !(datePattern(release) || release == "draft") {
		return "", "", fmt.Errorf("load %s: only https://ucp.dev/<release>/schemas/ is allowed", u)
	}
	if rel == "" || path.Clean(rel) != rel || strings.HasPrefix(rel, "/") || strings.Contains(rel, "..") || !strings.HasSuffix(rel, ".json") {
		return "", "", fmt.Errorf("load %s: not a schema file path", u)
	}
	for _, c := range rel {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '/') {
			return "", "", fmt.Errorf("load %s: not a schema file path", u)
		}
	}
	return release, rel, nil
}

func writeFileAtomic(name string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// compileSchemas compiles the business entry point and the capability
// schemas. Only the business schema is required; a capability schema that
// cannot be loaded just leaves its config unchecked.
func compileSchemas(ctx context.Context, dir, cache string, client *fetch.Client) (*schemaSet, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "uri", Validate: validateURIFormat})
	c.UseLoader(&schemaLoader{ctx: ctx, dir: dir, cache: cache, client: client})
	c.UseRegexpEngine(compilePattern)
	business, err := c.Compile(BusinessEntryPoint)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", BusinessEntryPoint, err)
	}
	set := &schemaSet{business: newCompiled(business), capConfig: map[string]compiled{}}
	for _, cc := range capabilityConfigs {
		for _, release := range []string{TargetRelease, "draft"} {
			loc := officialBase + release + "/schemas/" + cc.file + "#/$defs/" + cc.name + "/business_schema"
			if s, err := c.Compile(loc); err == nil {
				set.capConfig[cc.name] = newCompiled(s)
				break
			}
		}
	}
	return set, nil
}

// scopeToken matches scopeTokenPattern: a reverse-domain name (which has no
// colon), a colon, and a lower-case word.
func scopeToken(s string) bool {
	i := strings.IndexByte(s, ':')
	if i < 0 || !reverseDomain(s[:i]) {
		return false
	}
	word := s[i+1:]
	if word == "" || word[0] < 'a' || word[0] > 'z' {
		return false
	}
	for j := 1; j < len(word); j++ {
		if c := word[j]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// schemaRetry is how long a failed load of the official schemas is
// remembered before the next validation tries again.
const schemaRetry = time.Minute

// Patterns the UCP schemas use on every profile, matched by hand: Go's
// regexp costs about a microsecond per string, and a profile has dozens.
const (
	versionPattern       = `^\d{4}-\d{2}-\d{2}$`
	reverseDomainPattern = `^[a-z](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9_-]*[a-z0-9_])?)+$`
	// scopeTokenPattern names identity linking scopes ({capability}:{scope}).
	scopeTokenPattern = `^[a-z](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9_-]*[a-z0-9_])?)+:[a-z][a-z0-9_]*$`
)

// pattern is a hand-written matcher standing in for a regular expression.
type pattern struct {
	src   string
	match func(string) bool
}

func (p pattern) String() string            { return p.src }
func (p pattern) MatchString(s string) bool { return p.match(s) }

// compilePattern is the schema compiler's regexp engine: the known patterns
// by hand, anything else with Go's regexp (RE2; the UCP patterns use no
// construct where it differs from ECMAScript).
func compilePattern(src string) (jsonschema.Regexp, error) {
	switch src {
	case versionPattern:
		return pattern{src, datePattern}, nil
	case reverseDomainPattern:
		return pattern{src, reverseDomain}, nil
	case scopeTokenPattern:
		return pattern{src, scopeToken}, nil
	}
	return regexp.Compile(src)
}
