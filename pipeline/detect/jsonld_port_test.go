package detect

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readPorted[T any](t *testing.T, path string) []T {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Source string
		Cases  []T
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if doc.Source == "" || len(doc.Cases) == 0 {
		t.Fatalf("%s: no source or no cases", path)
	}
	return doc.Cases
}

// TestExtructJSONLDSuite runs the pages of scrapinghub/extruct's JSON-LD
// tests (tests/test_jsonld.py; ported in testdata/jsonld/extruct.json with
// their source): comments beside and around the JSON, control characters,
// JavaScript comments, null and false blocks, an empty script. Where
// extruct extracts items, every block must parse with the same top-level
// types; where it extracts none, there is no block.
func TestExtructJSONLDSuite(t *testing.T) {
	cases := readPorted[struct {
		Page, HTML string
		Items      int
		Blocks     int
		Types      []string
	}](t, "testdata/jsonld/extruct.json")
	agree := 0
	for _, c := range cases {
		got := ExtractJSONLD(htmlPage(t, "https://example.com/", "<html><head>"+c.HTML+"</head><body></body></html>"))
		types := got.Types
		if types == nil {
			types = []string{}
		}
		if got.Invalid != 0 || got.Blocks != c.Blocks || !cmp.Equal(c.Types, types) {
			t.Errorf("%s: got %d blocks (%d invalid), types %v; extruct reads %d items in %d blocks, types %v",
				c.Page, got.Blocks, got.Invalid, types, c.Items, c.Blocks, c.Types)
			continue
		}
		agree++
	}
	t.Logf("extruct JSON-LD suite: %d of %d pages agree", agree, len(cases))
}

// TestSchemaOrgProductExamples runs schema.org's own JSON-LD examples
// (testdata/jsonld/schemaorg-examples.json, with its source): every example
// with a node typed Product or a Product subtype must give products, each
// named as one of those nodes; the examples without one that mention
// offers or prices must give none. None may count as invalid.
func TestSchemaOrgProductExamples(t *testing.T) {
	cases := readPorted[struct {
		Example  string
		Valid    bool
		Products []*string
		HTML     string
	}](t, "testdata/jsonld/schemaorg-examples.json")
	agree, withProducts := 0, 0
	for _, c := range cases {
		got := ExtractJSONLD(htmlPage(t, "https://example.com/", "<html><head>"+c.HTML+"</head><body></body></html>"))
		var names []string
		for _, n := range c.Products {
			if n == nil {
				names = append(names, "")
			} else {
				names = append(names, *n)
			}
		}
		ok := got.Invalid == 0 && got.Blocks > 0 && (len(got.Products) > 0) == (len(names) > 0)
		for _, p := range got.Products {
			ok = ok && slices.Contains(names, p.Name)
		}
		if len(names) > 0 {
			withProducts++
		}
		if !ok {
			var gotNames []string
			for _, p := range got.Products {
				gotNames = append(gotNames, p.Type+":"+p.Name)
			}
			t.Errorf("%s: %d blocks, %d invalid, products %q; schema.org names %q", c.Example, got.Blocks, got.Invalid, gotNames, names)
			continue
		}
		agree++
	}
	t.Logf("schema.org examples: %d of %d agree (%d with products)", agree, len(cases), withProducts)
}
