package pages

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStoreRailsAndBlockers(t *testing.T) {
	in := testInput(t)
	b := &builder{in: in}
	tabs := b.storeTables()
	cases := []struct {
		host     string
		rails    map[string]string
		blockers []string
	}{
		{"buyhere.test", map[string]string{"catalog": "product_found", "checkout_link": "returned", "ucp": "valid", "webmcp": "not_measured", "checkout_webmcp": "not_measured", "acp": "not_measured"}, nil},
		{"walled.test", map[string]string{"catalog": "not_measured", "checkout_link": "not_measured", "ucp": "unreachable"}, []string{"edge_block"}},
		{"quiet.test", map[string]string{"catalog": "no_catalog", "checkout_link": "not_returned", "ucp": "missing"}, []string{"robots_disallows_agents", "no_catalog"}},
		{"nocat.test", map[string]string{"catalog": "not_measured", "ucp": "not_measured"}, nil},
	}
	for _, c := range cases {
		s, err := tabs.store(c.host)
		if err != nil {
			t.Fatal(err)
		}
		rails := s.Rails()
		if names := RailNames(); len(rails) != len(names) {
			t.Fatalf("%d rails, want %d", len(rails), len(names))
		}
		for _, r := range rails {
			if want, ok := c.rails[r.Name]; ok && r.Status != want {
				t.Errorf("%s: rail %s is %s, want %s", c.host, r.Name, r.Status, want)
			}
			if !strings.HasSuffix(r.NotProves, notProved) {
				t.Errorf("%s: rail %s does not say %q", c.host, r.Name, notProved)
			}
		}
		var codes []string
		for _, bl := range s.Blockers() {
			codes = append(codes, bl.Code)
		}
		if diff := cmp.Diff(c.blockers, codes); diff != "" {
			t.Errorf("%s: blockers (-want +got):\n%s", c.host, diff)
		}
	}
}

// TestStorePageSaysUnmeasured: what was not measured reads "Not
// measured", never no.
func TestStorePageSaysUnmeasured(t *testing.T) {
	got := string(storePages(t, testInput(t))["stores/nocat.test/"])
	for _, want := range []string{"Not measured", "Validation is not certification", "Brand claims never change scores", "stops before payment"} {
		if !strings.Contains(got, want) {
			t.Errorf("the page of an unmeasured store does not say %q", want)
		}
	}
	if strings.Contains(got, "No: no buy lane") {
		t.Error("an unmeasured store is answered no")
	}
}
