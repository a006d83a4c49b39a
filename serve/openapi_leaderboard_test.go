package serve

import (
	"encoding/json"
	"strings"
	"testing"

	"svc/datasets"
)

// The leaderboard CSV example in openapi.json is a doc of the table that
// writes the file (datasets.LeaderboardBoard): its header must be the
// table's columns, in order, and its row as wide.
func TestOpenAPILeaderboardCSVMatchesTable(t *testing.T) {
	var d struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]struct {
					Example json.RawMessage `json:"example"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openapiJSON, &d); err != nil {
		t.Fatal(err)
	}
	raw := d.Paths["/api/leaderboard"]["get"].Responses["200"].Content["text/csv"].Example
	var example string
	if err := json.Unmarshal(raw, &example); err != nil {
		t.Fatalf("GET /api/leaderboard has no text/csv example: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(example, "\r\n"), "\r\n")
	want := strings.Join(datasets.LeaderboardBoard.ColumnNames(), ",")
	if lines[0] != want {
		t.Errorf("CSV example header\n got %s\nwant %s", lines[0], want)
	}
	for i, l := range lines[1:] {
		if n, w := strings.Count(l, ",")+1, len(datasets.LeaderboardBoard.Columns); n != w {
			t.Errorf("CSV example row %d has %d cells, want %d", i+1, n, w)
		}
	}
}
