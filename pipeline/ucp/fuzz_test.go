package ucp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// checkReport validates b and checks what must hold for any input: no panic,
// a report (or ErrTooLarge), the same bytes twice, validity consistent with
// the items, and the quick evaluator agreeing with the schema library.
func checkReport(t *testing.T, v *Validator, b []byte) {
	t.Helper()
	ctx := context.Background()
	r, err := v.Validate(ctx, b)
	if len(b) > MaxProfileBytes {
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%d bytes: err = %v, want ErrTooLarge", len(b), err)
		}
		return
	}
	if err != nil {
		t.Fatalf("Validate: %v", err)
	}
	out1, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("marshal report: %v", err)
	}
	r2, _ := v.Validate(ctx, b)
	out2, _ := json.Marshal(r2)
	if !bytes.Equal(out1, out2) {
		t.Fatalf("two validations of the same input differ:\n%s\n%s", out1, out2)
	}
	if r.IsValid() && (len(r.Errors) > 0 || !r.Schema.Checked || !*r.Schema.Valid) {
		t.Fatalf("valid report with errors or without a passing schema check: %s", out1)
	}
	if r.Schema.Checked && !*r.Schema.Valid && len(r.Errors) == 0 {
		t.Fatalf("schema failed but no error item: %s", out1)
	}
	var fs findings
	doc, _, perr := parseProfile(b, &fs)
	if perr != nil {
		return
	}
	set := v.set.Load()
	checkQuick(t, set.business, doc, b)
	checkExplained(t, "input", set.business, doc)
}

// checkQuick asserts that the quick evaluator and the library agree on doc.
// quick may decline (say invalid) only on documents it does not evaluate:
// very deep ones and long arrays under uniqueItems.
func checkQuick(t *testing.T, c compiled, doc any, src []byte) {
	t.Helper()
	if c.q == nil {
		t.Fatal("no quick plan for the business schema")
	}
	quickOK := c.q.check(doc)
	libOK := c.s.Validate(doc) == nil
	if quickOK && !libOK {
		t.Fatalf("quick says valid, the library says invalid: %.300s", src)
	}
	if !quickOK && libOK && nesting(src) < 50 && !strings.Contains(string(src), strings.Repeat(",", maxQuickUnique)) {
		t.Fatalf("quick says invalid, the library says valid: %.300s", src)
	}
}

// exampleSeeds are the shared example profiles, when present.
func exampleSeeds(tb testing.TB) [][]byte {
	dir := examplesDir()
	if dir == "" {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(files)
	var out [][]byte
	for _, f := range files {
		if filepath.Base(f) == "manifest.json" {
			continue
		}
		if b, err := os.ReadFile(f); err == nil {
			out = append(out, b)
		}
	}
	return out
}

func FuzzValidate(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `[]`, `null`, `"ucp"`, `{"ucp":{}}`, `{"ucp":{"version":"2026-08-25","services":{},"payment_handlers":{}}}`,
		`{"ucp":{"version":"2026-02-30","services":{"Dev.UCP":[]},"payment_handlers":{}}}`, `{"ucp":`, `<html>`,
		`{"ucp":{"version":"2026-08-25","services":{"dev.ucp.shopping":[{"version":"2026-08-25","transport":"rest","endpoint":"http://[::1]/"}]},"payment_handlers":{}},"keys":[{"kty":"EC","crv":"P-256","d":"x"}]}`,
		`{"ucp":{"version":"2026-08-25","capabilities":{"a.b":[{"version":"2026-08-25","schema":"https://b.a/x","extends":["a.b","c.d"]}]},"services":{},"payment_handlers":{}}}`,
	} {
		f.Add([]byte(s))
	}
	for _, b := range exampleSeeds(f) {
		f.Add(b)
	}
	v := testValidator(f)
	f.Fuzz(func(t *testing.T, b []byte) { checkReport(t, v, b) })
}

// TestMutations feeds thousands of one-change variants of the examples
// through checkReport: the quick evaluator must agree with the library on
// realistic documents, not only on the fuzzer's.
func TestMutations(t *testing.T) {
	v := testValidator(t)
	seeds := exampleSeeds(t)
	if len(seeds) == 0 {
		t.Skip("no ../shared/ucp/examples")
	}
	rng := rand.New(rand.NewPCG(7, 11))
	n := 4000
	if testing.Short() {
		n = 400
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
		checkReport(t, v, b)
	}
}

// replacements are the values mutate puts in place of another.
var replacements = []any{
	nil, true, 0.0, 1.5, "", "x", "2026-08-25", "2026-02-30", "draft", "rest", "mcp", "embedded", "a2a", "grpc",
	"https://ucp.dev/2026-08-25/schemas/shopping/checkout.json", "http://shop.example.com/", "https://shop.example.com/x y",
	"dev.ucp.shopping.checkout", "Bad.Name", "EC", "OKP", "P-256", "ES384", "light", "blue",
	[]any{}, []any{"x"}, []any{"dev.ucp.shopping.checkout", "dev.ucp.shopping.checkout"}, map[string]any{},
	map[string]any{"version": "2026-08-25"}, map[string]any{"type": "card"}, map[string]any{"enum": []any{}},
}

// pick returns a fresh copy of a random replacement.
func pick(rng *rand.Rand) any {
	b, _ := json.Marshal(replacements[rng.IntN(len(replacements))])
	var v any
	_ = json.Unmarshal(b, &v)
	return v
}

// mutate changes one random place of v: replaces a value, deletes or adds
// a member, or empties an array.
func mutate(rng *rand.Rand, v any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 || rng.IntN(6) == 0 {
			switch rng.IntN(3) {
			case 0:
				x[[]string{"version", "schema", "spec", "endpoint", "transport", "config", "extends", "id", "d", "alg", "ucp", "keys", "zz.top"}[rng.IntN(13)]] = pick(rng)
			case 1:
				for k := range x {
					delete(x, k)
					break
				}
			default:
				return pick(rng)
			}
			return x
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		k := keys[rng.IntN(len(keys))]
		x[k] = mutate(rng, x[k])
		return x
	case []any:
		if len(x) == 0 || rng.IntN(6) == 0 {
			if rng.IntN(2) == 0 {
				return append(x, pick(rng))
			}
			return []any{}
		}
		i := rng.IntN(len(x))
		x[i] = mutate(rng, x[i])
		return x
	}
	return pick(rng)
}

func TestHostileInputs(t *testing.T) {
	v := testValidator(t)
	big := `{"ucp":{"version":"2026-08-25","services":{},"payment_handlers":{},"x":"` + strings.Repeat("a", 200<<10) + `"}}`
	for name, in := range map[string]string{
		"empty":        "",
		"spaces":       "   \n",
		"garbage":      "\x00\x01\xff garbage",
		"truncated":    `{"ucp": {"version": "2026-08-25", "services": {"dev.ucp.shopping": [{"version": "2026-08-25",`,
		"deep arrays":  strings.Repeat("[", 100000),
		"deep objects": strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000),
		"deep in ucp":  `{"ucp":{"version":"2026-08-25","services":{},"payment_handlers":{},"x":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}}`,
		"bom":          "\xef\xbb\xbf{}",
		"html":         "<!doctype html><p>not found</p>",
		"array":        `[{"ucp":{}}]`,
		"bad utf8":     "{\"ucp\":{\"version\":\"2026-08-25\",\"services\":{},\"payment_handlers\":{},\"x\":\"\xff\"}}",
		"two values":   `{} {}`,
		"huge number":  `{"ucp":{"version":1e999999,"services":{},"payment_handlers":{}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			r, err := v.Validate(context.Background(), []byte(in))
			if err != nil {
				t.Fatal(err)
			}
			if r.IsValid() || len(r.Errors) == 0 {
				t.Errorf("want an invalid report with errors, got: %s", r.Summary)
			}
			if _, err := json.Marshal(r); err != nil {
				t.Errorf("report does not marshal: %v", err)
			}
		})
	}
	t.Run("large but legal", func(t *testing.T) {
		r, err := v.Validate(context.Background(), []byte(big))
		if err != nil {
			t.Fatal(err)
		}
		if !r.IsValid() || rules2(r.Warnings)[0] != ruleDocSize {
			t.Errorf("want a valid report with ucp.doc.size, got: %s", r.Summary)
		}
	})
	t.Run("too large", func(t *testing.T) {
		_, err := v.Validate(context.Background(), make([]byte, MaxProfileBytes+1))
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("err = %v, want ErrTooLarge", err)
		}
	})
}
