package detect

import (
	"strings"
	"testing"

	"svc/datasets"
)

// The published platform columns list every name the detector gives, so
// a researcher reading the manifest knows each value the column holds.
func TestPlatformColumnsNameEveryPlatform(t *testing.T) {
	for _, tbl := range []*datasets.Table{datasets.Checks, datasets.StoreAnswers} {
		found := false
		for _, c := range tbl.Columns {
			if c.Name != "platform" {
				continue
			}
			found = true
			for _, p := range Platforms {
				if !strings.Contains(c.Description, p) {
					t.Errorf("%s.platform's description does not name %q: %s", tbl.Name, p, c.Description)
				}
			}
		}
		if !found {
			t.Errorf("%s has no platform column", tbl.Name)
		}
	}
}
