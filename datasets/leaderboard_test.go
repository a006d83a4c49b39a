package datasets

import (
	"slices"
	"testing"
)

func TestLeaderboardTables(t *testing.T) {
	grid := LeaderboardStores([]GridPath{{ID: "browser-a", Label: "Browser shopper A"}, {ID: "ucp", Label: "UCP path"}})
	for _, tb := range []*Table{LeaderboardBoard, grid} {
		if err := tb.Validate(); err != nil {
			t.Error(err)
		}
		// Not dataset tables: a name of All would publish two files as one.
		for _, d := range All() {
			if d.Name == tb.Name {
				t.Errorf("%s is also a dataset table", tb.Name)
			}
		}
	}
	want := []string{"id", "host", "name", "category", "browser_a", "ucp", "fixture_stand_in"}
	if got := grid.ColumnNames(); !slices.Equal(got, want) {
		t.Errorf("grid columns = %v, want %v", got, want)
	}
	if c := grid.Columns[grid.ColumnIndex("browser_a")]; !c.Nullable || c.Type != String {
		t.Errorf("path column browser_a = %+v, want a nullable string (no result is empty)", c)
	}
}
