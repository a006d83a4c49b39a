// Package ucp validates UCP (Universal Commerce Protocol) business profiles,
// the document a store serves at https://<host>/.well-known/ucp, against the
// published UCP 2026-08-25 JSON Schema and the spec rules of
// ../shared/ucp/RULES.md, and reports every finding with its rule id,
// severity, JSON pointer and spec link (spec 2.4).
//
// A Validator is built once (New) and shared: the schemas are compiled once
// and it is safe for concurrent use. Validate checks pasted JSON without any
// network access; ValidateURL fetches a profile through the safe client and
// adds the hosting checks. CountsInDirectory is the directory's lighter test.
package ucp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"svc/pipeline/fetch"
)

// MaxProfileBytes is the largest profile accepted (spec 8: 256 KB).
const MaxProfileBytes = 256 << 10

// ErrTooLarge is matched by the error for a profile over MaxProfileBytes;
// the API answers it with 413.
var ErrTooLarge = errors.New("profile larger than 256 KB")

// Config configures a Validator.
type Config struct {
	// SchemaDir is a folder holding a copy of https://ucp.dev/<release>/schemas/
	// as <release>/<path> (flag --ucp-schema-dir, env SVC_UCP_SCHEMA_DIR).
	// When empty, the schemas are fetched from ucp.dev through Client once
	// and cached in CacheDir.
	SchemaDir string
	// CacheDir holds schemas fetched from ucp.dev, normally DIR/state/ucp-schema.
	CacheDir string
	// Client is the safe HTTP client; it is needed for ValidateURL and for
	// the official schema source.
	Client *fetch.Client
	// Resolver looks up endpoint hosts for ucp.url.public_host when a
	// profile is fetched; default net.DefaultResolver, except that a client
	// in fixture mode makes no lookups unless a Resolver is given (the
	// fixture world is not in the DNS).
	Resolver fetch.Resolver
	// Offline never fetches the official schemas: without SchemaDir (or a
	// filled CacheDir) the schema check is reported as not loaded. For
	// air-gapped servers, and tests, which must not reach the internet.
	Offline bool
}

// Validator validates UCP business profiles. It is safe for concurrent use.
type Validator struct {
	cfg    Config
	source SourceInfo
	// lookups says whether names are resolved for ucp.url.public_host.
	lookups bool

	set     atomic.Pointer[schemaSet]
	mu      sync.Mutex // serialises loading
	loadErr error
	loadAt  time.Time

	// releases are the schemas of ValidateRelease, by release.
	releases releaseSchemas
}

// New builds a Validator. With a SchemaDir the schemas are compiled now and a
// folder that does not hold them is an error; from ucp.dev they are loaded
// on first use, and a failure is reported in each report until a later
// attempt succeeds.
func New(ctx context.Context, cfg Config) (*Validator, error) {
	v := &Validator{cfg: cfg, lookups: cfg.Resolver != nil || cfg.Client == nil || !cfg.Client.FixtureMode()}
	if cfg.Resolver == nil {
		v.cfg.Resolver = net.DefaultResolver
	}
	if cfg.SchemaDir != "" {
		// The report is published: it names the release the folder holds,
		// never the folder's path on this machine.
		v.source = SourceInfo{Type: "folder", Location: "local copy of " + officialBase + TargetRelease + "/schemas/"}
		set, err := compileSchemas(ctx, cfg.SchemaDir, "", nil)
		if err != nil {
			return nil, fmt.Errorf("ucp schema folder %s: %w", cfg.SchemaDir, err)
		}
		v.set.Store(set)
		return v, nil
	}
	v.source = SourceInfo{Type: "official", Location: officialBase + TargetRelease + "/schemas/"}
	return v, nil
}

// SchemaSource says where the schemas come from.
func (v *Validator) SchemaSource() SourceInfo { return v.source }

// LoadSchemas loads the schemas now, giving ucp.dev (or the cache) at most
// timeout, and says why when they cannot be had: a caller that wants to
// know before it validates anything (the demo) calls it first. A folder
// source was loaded by New. Validations after a failure report the schema
// as not loaded until a later attempt succeeds.
func (v *Validator) LoadSchemas(ctx context.Context, timeout time.Duration) error {
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err := v.load(lctx)
	return err
}

// schemas returns the compiled schemas, loading them on first use.
func (v *Validator) schemas(ctx context.Context) (*schemaSet, error) {
	if s := v.set.Load(); s != nil {
		return s, nil
	}
	// The load serves every later validation: it must not die with the
	// request that happened to start it.
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	return v.load(lctx)
}

// load compiles the schemas from the cache or ucp.dev within ctx, once.
func (v *Validator) load(ctx context.Context) (*schemaSet, error) {
	if s := v.set.Load(); s != nil {
		return s, nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if s := v.set.Load(); s != nil {
		return s, nil
	}
	if v.loadErr != nil && time.Since(v.loadAt) < schemaRetry {
		return nil, v.loadErr
	}
	client := v.cfg.Client
	if v.cfg.Offline {
		client = nil // the cache alone
	}
	set, err := compileSchemas(ctx, "", v.cfg.CacheDir, client)
	v.loadAt = time.Now()
	if err != nil {
		v.loadErr = err
		return nil, err
	}
	v.loadErr = nil
	v.set.Store(set)
	return set, nil
}

// Validate checks a pasted profile. It never touches the network except to
// load the official schemas the first time. The only error is ErrTooLarge
// (wrapped); anything else, from garbage to a deeply nested document, gives
// a report. The report's Profile is profile itself, not a copy: the caller
// must not change profile while it uses the report.
func (v *Validator) Validate(ctx context.Context, profile []byte) (*Report, error) {
	if len(profile) > MaxProfileBytes {
		return nil, fmt.Errorf("validate pasted profile of %d bytes: %w", len(profile), ErrTooLarge)
	}
	r, _ := v.validate(ctx, profile, checkEnv{})
	r.done()
	r.Source = Source{Type: "pasted", Bytes: len(profile)}
	r.assemble(r.fs)
	return &r.Report, nil
}

// checkEnv is what an online validation adds to the offline rules.
type checkEnv struct {
	// profileHost is the host the profile was fetched from.
	profileHost string
}

// validation is a report under construction.
type validation struct {
	Report
	fs   findings
	doc  map[string]any
	maps *docMaps // the document's, to recycle
}

// done drops the document once the rules have run: its maps go to later
// parses.
func (r *validation) done() {
	r.doc = nil
	r.maps.recycle()
	r.maps = nil
}

// validate parses and checks a profile; the caller sets Source and calls
// assemble.
func (v *Validator) validate(ctx context.Context, raw []byte, env checkEnv) (*validation, bool) {
	r := &validation{}
	r.SchemaSource = v.source
	r.Schema = SchemaResult{Release: TargetRelease, EntryPoint: BusinessEntryPoint}
	doc, echo, maps, perr := parseDocument(raw, &r.fs)
	r.maps = maps
	if perr != nil {
		r.fs.rule(ruleJSONObject, "", "%s", perr.Error())
		r.Profile = []byte("null")
		return r, false
	}
	r.Profile = echo
	set, err := v.schemas(ctx)
	if err != nil {
		r.Schema.Error = err.Error()
	} else {
		n := schemaCheck(set.business, doc, &r.fs)
		valid := n == 0
		r.Schema.Checked, r.Schema.Valid, r.Schema.ErrorCount = true, &valid, n
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		r.fs.rule(ruleJSONObject, "", "the profile must be a JSON object, not %s", jsonType(doc))
		return r, false
	}
	r.doc = obj
	if u, ok := obj["ucp"].(map[string]any); ok {
		if s, ok := u["version"].(string); ok {
			s = strings.Clone(s) // not a view of the echo (parseProfile)
			r.DeclaredVersion = &s
		}
	}
	if len(raw) > 128<<10 {
		r.fs.rule(ruleDocSize, "", "the profile is %d bytes; verifiers may refuse profiles over 128 KiB, and documented profiles are a few KiB", len(raw))
	}
	c := newChecker(obj, &r.fs, env)
	if set != nil {
		c.capConfig = set.capConfig
	}
	c.run()
	return r, true
}
