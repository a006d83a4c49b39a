package ucp

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type manifestFile struct {
	File           string   `json:"file"`
	ExpectRule     *string  `json:"expect_rule"`
	ExpectSeverity *string  `json:"expect_severity"`
	ExpectValid    bool     `json:"expect_valid_profile"`
	Ajv            string   `json:"ajv_2026_08_25"`
	InfoOnly       []string `json:"info_only"`
}

func readManifest(t testing.TB) []manifestFile {
	t.Helper()
	var m struct {
		Files []manifestFile `json:"files"`
	}
	if err := json.Unmarshal(readExample(t, "manifest.json"), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Files) == 0 {
		t.Fatal("manifest lists no files")
	}
	return m.Files
}

// TestExamples runs every example of ../shared/ucp/examples/manifest.json:
// the expected validity, exactly the expected error- or warning-level rule,
// only the listed info items, and the JSON Schema verdict ajv gave.
func TestExamples(t *testing.T) {
	v := testValidator(t)
	for _, f := range readManifest(t) {
		t.Run(f.File, func(t *testing.T) {
			r, err := v.Validate(context.Background(), readExample(t, f.File))
			if err != nil {
				t.Fatal(err)
			}
			if r.IsValid() != f.ExpectValid {
				t.Errorf("valid = %v, want %v", r.IsValid(), f.ExpectValid)
			}
			var want, got []string
			if f.ExpectRule != nil {
				want = []string{*f.ExpectSeverity + " " + *f.ExpectRule}
			}
			for _, it := range r.Errors {
				got = append(got, "error "+it.Rule)
			}
			for _, it := range r.Warnings {
				got = append(got, "warning "+it.Rule)
			}
			got = uniq(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("error and warning rules (-want +got):\n%s\nreport: %s", diff, mustJSON(r))
			}
			var info []string
			for _, it := range r.Info {
				info = append(info, it.Rule)
			}
			wantInfo := f.InfoOnly
			if len(wantInfo) == 0 {
				wantInfo = nil
			}
			if diff := cmp.Diff(wantInfo, uniq(info)); diff != "" {
				t.Errorf("info rules (-want +got):\n%s", diff)
			}
			if !r.Schema.Checked || r.Schema.Valid == nil {
				t.Fatalf("schema check did not run: %+v", r.Schema)
			}
			if gotAjv := map[bool]string{true: "valid", false: "invalid"}[*r.Schema.Valid]; gotAjv != f.Ajv {
				t.Errorf("JSON Schema verdict = %s, ajv said %s", gotAjv, f.Ajv)
			}
		})
	}
}

func uniq(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	sort.Strings(ss)
	out := ss[:1]
	for _, s := range ss[1:] {
		if s != out[len(out)-1] {
			out = append(out, s)
		}
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// TestConcurrent validates from many goroutines with one Validator (run
// under -race in CI).
func TestConcurrent(t *testing.T) {
	v := testValidator(t)
	seeds := exampleSeeds(t)
	if len(seeds) == 0 {
		t.Skip("no examples")
	}
	want := make([]string, len(seeds))
	for i, s := range seeds {
		r, _ := v.Validate(context.Background(), s)
		want[i] = mustJSON(r)
	}
	done := make(chan error)
	for g := 0; g < 8; g++ {
		go func() {
			for i := range seeds {
				j := (i + g) % len(seeds)
				r, err := v.Validate(context.Background(), seeds[j])
				if err == nil && mustJSON(r) != want[j] {
					err = errDiffer
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

var errDiffer = errors.New("a concurrent validation gave a different report")
