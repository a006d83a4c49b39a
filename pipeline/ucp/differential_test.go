package ucp

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// referenceValidator is v with every schema check done by the library alone:
// no quick plan, neither its fast path for valid documents nor its
// explanations of invalid ones. It is the reference the fast paths are held
// to.
func referenceValidator(v *Validator) *Validator {
	set := v.set.Load()
	ref := &schemaSet{business: compiled{s: set.business.s}, capConfig: map[string]compiled{}}
	for k, c := range set.capConfig {
		ref.capConfig[k] = compiled{s: c.s}
	}
	r := &Validator{cfg: v.cfg, source: v.source, lookups: v.lookups}
	r.set.Store(ref)
	return r
}

// differentialProfiles are every example profile of ../shared/ucp (named by
// file) and the UCP profiles of the repository's own testdata.
func differentialProfiles(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	if dir := examplesDir(); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, f := range files {
			if filepath.Base(f) == "manifest.json" {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out["shared/"+filepath.Base(f)] = b
		}
	}
	files, _ := filepath.Glob(filepath.Join("..", "leaderboard", "testdata", "ucp-*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out["repo/"+filepath.Base(f)] = b
	}
	return out
}

// renderLeaves is the flattened error list of err as the report reads it,
// one line per error (location, schema location, kind, rule and message),
// sorted: the library lists an object's members in map order.
func renderLeaves(doc any, err error) []string {
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []string{"not a validation error: " + err.Error()}
	}
	var leaves []*jsonschema.ValidationError
	flatten(ve, &leaves)
	var out []string
	for _, l := range leaves {
		path := leafPath(doc, l)
		rule := classify(l, path)
		out = append(out, fmt.Sprintf("%s | %s | %T | %s | %s", path, l.SchemaURL, l.ErrorKind, rule, schemaMessage(l, rule)))
	}
	slices.Sort(out)
	return out
}

// checkExplained holds the quick plan's errors for doc to the library's:
// the same verdict and the same flattened errors. It reports whether the
// plan answered (false: it declined and the library validated).
func checkExplained(t *testing.T, name string, c compiled, doc any) bool {
	t.Helper()
	fast, ok := c.q.explain(doc)
	lib := c.s.Validate(doc)
	if !ok {
		return false
	}
	if (fast == nil) != (lib == nil) {
		t.Errorf("%s: quick plan says valid=%v, the library valid=%v (%v)", name, fast == nil, lib == nil, lib)
		return true
	}
	if diff := cmp.Diff(renderLeaves(doc, lib), renderLeaves(doc, fast)); diff != "" {
		t.Errorf("%s: JSON Schema errors differ (-library +quick):\n%s", name, diff)
	}
	return true
}

// TestSchemaErrorsDifferential: over every example profile of ../shared/ucp
// and the repository's testdata, and thousands of one-change variants of
// them, the fast path (the quick plan's verdict and, for an invalid
// document, its explanation) gives the same JSON Schema errors as the
// library, and Validate the same report byte for byte as a validator that
// uses the library alone.
func TestSchemaErrorsDifferential(t *testing.T) {
	v := testValidator(t)
	profiles := differentialProfiles(t)
	if examplesDir() == "" {
		t.Skip("no ../shared/ucp/examples: set SVC_SHARED_DIR or provide ../shared/ucp")
	}
	ref := referenceValidator(v)
	set := v.set.Load()
	ctx := context.Background()
	compare := func(name string, b []byte) {
		t.Helper()
		fast, err1 := v.Validate(ctx, b)
		slow, err2 := ref.Validate(ctx, b)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%s: errors %v and %v", name, err1, err2)
		}
		if diff := cmp.Diff(mustJSON(slow), mustJSON(fast)); diff != "" {
			t.Errorf("%s: report differs from the library's (-library +fast):\n%s", name, diff)
		}
	}
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	slices.Sort(names)
	invalid := 0
	for _, name := range names {
		b := profiles[name]
		compare(name, b)
		var fs findings
		doc, _, err := parseProfile(b, &fs)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !checkExplained(t, name, set.business, doc) {
			t.Errorf("%s: the quick plan declined a real profile", name)
		}
		if set.business.s.Validate(doc) != nil {
			invalid++
		}
		// The capability configs too, on every entry of every registry.
		forEachEntry(doc, func(key string, e map[string]any) {
			if c, ok := set.capConfig[key]; ok && c.q != nil {
				checkExplained(t, name+" "+key, c, any(e))
			}
		})
	}
	if invalid < 5 {
		t.Errorf("only %d profiles fail the JSON Schema: the explanations are hardly tested", invalid)
	}
	seeds := make([][]byte, 0, len(names))
	for _, n := range names {
		seeds = append(seeds, profiles[n])
	}
	rng := rand.New(rand.NewPCG(36, 2))
	n, explained := 3000, 0
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		var doc any
		if err := json.Unmarshal(seeds[rng.IntN(len(seeds))], &doc); err != nil {
			t.Fatal(err)
		}
		for k := rng.IntN(3); k >= 0; k-- {
			doc = mutate(rng, doc)
		}
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("variant %d %.200s", i, b)
		compare(name, b)
		var fs findings
		pdoc, _, perr := parseProfile(b, &fs)
		if perr != nil {
			continue
		}
		if checkExplained(t, name, set.business, pdoc) && set.business.s.Validate(pdoc) != nil {
			explained++
		}
	}
	if explained < n/4 {
		t.Errorf("only %d of %d variants were invalid and explained by the quick plan", explained, n)
	}
}

// forEachEntry calls f for each entry of the profile's capability registry.
func forEachEntry(doc any, f func(key string, e map[string]any)) {
	m, _ := doc.(map[string]any)
	u, _ := m["ucp"].(map[string]any)
	caps, _ := u["capabilities"].(map[string]any)
	for k, list := range caps {
		entries, _ := list.([]any)
		for _, e := range entries {
			if em, ok := e.(map[string]any); ok {
				f(k, em)
			}
		}
	}
}
