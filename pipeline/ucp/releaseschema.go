package ucp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The JSON Schema of a business profile in each release a UCP agent may
// meet. The validator checks every profile against TargetRelease (spec
// 9.2); an agent that speaks an older release to a business still on it
// checks the profile against that release's own schema instead, since the
// format moved between releases: in 2026-01-11 capabilities are an array
// of {name, version, spec, schema} and a service is one object with a
// member per transport (rest, mcp, a2a, embedded); from 2026-01-23 both are
// registries keyed by name, each key holding an array of entries.
var releaseEntryPoints = map[string]string{
	"2026-01-11":  officialBase + "2026-01-11/schemas/discovery/profile.json",
	"2026-01-23":  officialBase + "2026-01-23/schemas/discovery/profile.json#/$defs/business_profile",
	"2026-04-08":  officialBase + "2026-04-08/schemas/discovery/profile.json#/$defs/business_profile",
	TargetRelease: BusinessEntryPoint,
}

// Releases are the UCP releases whose business profile schema
// ValidateRelease knows, oldest first.
func Releases() []string { return append([]string(nil), knownReleases...) }

// ErrUnknownRelease is matched by the error of ValidateRelease for a
// release it has no schema for.
var ErrUnknownRelease = errors.New("not a UCP release with a known business profile schema")

// releaseSchemas holds the compiled schema of each release, compiled on
// first use (a failure is kept: the folder does not change under a run).
type releaseSchemas struct {
	mu  sync.Mutex
	got map[string]releaseSchema
}

type releaseSchema struct {
	s   *jsonschema.Schema
	err error
}

// ReleaseError is one place where a profile breaks its release's schema:
// the JSON pointer of the instance and what is wrong there.
type ReleaseError struct {
	Pointer string
	Message string
}

func (e ReleaseError) String() string { return "at '" + e.Pointer + "': " + e.Message }

// ValidateRelease checks a business profile document against the JSON
// Schema of the given release only (no spec rules, no hosting checks): no
// ReleaseError when it conforms. The schemas come from the same source as
// the validator's (the folder, else the cache or ucp.dev). A release
// without a known schema gives ErrUnknownRelease; a schema that cannot be
// loaded, or a document that is not JSON, gives an error that says so.
func (v *Validator) ValidateRelease(ctx context.Context, profile []byte, release string) ([]ReleaseError, error) {
	s, err := v.releaseSchema(ctx, release)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(profile))
	if err != nil {
		return nil, fmt.Errorf("the profile is not JSON: %w", err)
	}
	err = s.Validate(doc)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	// The library lists the leaf failures as "- at '<pointer>': <message>".
	var out []ReleaseError
	for _, line := range strings.Split(ve.Error(), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "- at '")
		if !ok {
			continue
		}
		ptr, msg, ok := strings.Cut(rest, "': ")
		if ok {
			out = append(out, ReleaseError{Pointer: ptr, Message: msg})
		}
	}
	if len(out) == 0 {
		out = []ReleaseError{{Pointer: "", Message: strings.TrimSpace(ve.Error())}}
	}
	return out, nil
}

func (v *Validator) releaseSchema(ctx context.Context, release string) (*jsonschema.Schema, error) {
	entry, ok := releaseEntryPoints[release]
	if !ok {
		return nil, fmt.Errorf("release %q: %w (%s)", release, ErrUnknownRelease, strings.Join(knownReleases, ", "))
	}
	v.releases.mu.Lock()
	defer v.releases.mu.Unlock()
	if got, ok := v.releases.got[release]; ok {
		return got.s, got.err
	}
	l := &schemaLoader{ctx: context.WithoutCancel(ctx), dir: v.cfg.SchemaDir, cache: v.cfg.CacheDir}
	if !v.cfg.Offline {
		l.client = v.cfg.Client
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "uri", Validate: validateURIFormat})
	c.UseLoader(l)
	c.UseRegexpEngine(compilePattern)
	s, err := c.Compile(entry)
	if err != nil {
		err = fmt.Errorf("the UCP %s schema could not be loaded: %w", release, err)
	}
	if v.releases.got == nil {
		v.releases.got = map[string]releaseSchema{}
	}
	v.releases.got[release] = releaseSchema{s, err}
	return s, err
}
