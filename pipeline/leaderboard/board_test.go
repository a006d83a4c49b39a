package leaderboard

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/datasets/svc100"
	"svc/publish"
)

// scored is a run of n results whose first k reached the cart.
func scored(t *testing.T, name, path string, n, k int) *Submission {
	t.Helper()
	m := validBody(n)
	m["agent"].(map[string]any)["name"] = name
	m["agent"].(map[string]any)["path"] = path
	for i, r := range m["results"].([]any) {
		o := OutcomeNoCart
		if i < k {
			o = OutcomeAddedToCart
		}
		r.(map[string]any)["outcome"] = o
	}
	s, err := Parse(encode(t, m))
	if err != nil {
		t.Fatal(err)
	}
	return s.Public()
}

// testBoard has paths and outside runs with ties: browser-c 9/10;
// browser-a and browser-b 6/10 each; ucp 3/10; mcp, browser-d and
// browser-e not run. Outside: Cobalt 8/10; Amber and Birch 5/10 each;
// Dune 0/10.
func testBoard(t *testing.T) (*publish.Leaderboard, map[string]*Submission) {
	t.Helper()
	own := map[string]*AgentRun{}
	for _, r := range []struct {
		id string
		k  int
	}{{"browser-a", 6}, {"browser-b", 6}, {"browser-c", 9}, {PathUCP, 3}} {
		for _, p := range Paths {
			if p.ID == r.id {
				own[p.ID] = &AgentRun{RunID: "run-" + p.ID, PathID: p.ID, MeasuredBy: MeasuredBy,
					Submission: scored(t, p.Agent, p.Path, 10, r.k)}
			}
		}
	}
	subs := map[string]*Submission{
		"Amber": scored(t, "Amber", "browser", 10, 5), "Birch": scored(t, "Birch", "api", 10, 5),
		"Cobalt": scored(t, "Cobalt", "mcp", 10, 8), "Dune": scored(t, "Dune", "other", 10, 0),
	}
	var stored []Stored
	for _, name := range []string{"Amber", "Birch", "Cobalt", "Dune"} {
		s := subs[name]
		stored = append(stored, Stored{ID: s.ID(), Key: s.Key(), Status: StatusUnverified, SubmittedAt: runStart.Add(-time.Hour), Submission: s})
	}
	b, _ := build(own, stored, AggregateOptions{Date: "2026-11-21", GeneratedAt: runStart})
	return b, subs
}

func ranks(b *publish.Leaderboard) map[string]any {
	out := map[string]any{}
	for _, p := range b.Paths {
		if p.Rank == nil {
			out[p.ID] = nil
		} else {
			out[p.ID] = *p.Rank
		}
	}
	for _, r := range b.Unverified.Runs {
		out[r.Agent.Name] = *r.Rank
	}
	return out
}

// csvRanks reads leaderboard.csv's rank per board and id, by the JSON's
// names: path id, or the agent name of an outside run.
func csvRanks(t *testing.T, b *publish.Leaderboard, body []byte) (map[string]any, []map[string]string) {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	out := map[string]any{}
	for _, rec := range recs[1:] {
		row := map[string]string{}
		for i, h := range recs[0] {
			row[h] = rec[i]
		}
		rows = append(rows, row)
		name := row["id"]
		if row["board"] == "unverified" {
			name = row["agent"]
		}
		if row["rank"] == "" {
			out[name] = nil
			continue
		}
		r, err := strconv.Atoi(row["rank"])
		if err != nil {
			t.Fatalf("rank %q: %v", row["rank"], err)
		}
		out[name] = r
	}
	return out, rows
}

// TestBoardRank is issue 16.8: rank is the standard competition rank, ties
// share it, and the CSV's rank is the JSON's (it used to be row order).
func TestBoardRank(t *testing.T) {
	b, _ := testBoard(t)
	want := map[string]any{
		"browser-c": 1, "browser-a": 2, "browser-b": 2, PathUCP: 4, "browser-d": nil, "browser-e": nil, PathMCP: nil,
		"Cobalt": 1, "Amber": 2, "Birch": 2, "Dune": 4,
	}
	if diff := cmp.Diff(want, ranks(b)); diff != "" {
		t.Errorf("JSON ranks (-want +got):\n%s", diff)
	}
	var order []string
	for _, r := range b.Unverified.Runs {
		order = append(order, r.Agent.Name)
	}
	// Amber and Birch tie: between them, the lower id comes first.
	mid := []string{"Amber", "Birch"}
	if b.Unverified.Runs[1].ID > b.Unverified.Runs[2].ID || (order[1] != "Amber" && order[1] != "Birch") {
		t.Errorf("tied runs out of id order: %v", order)
	}
	if order[0] != "Cobalt" || order[3] != "Dune" || order[1] == order[2] {
		t.Errorf("unverified order %v, want Cobalt, %v in id order, Dune", order, mid)
	}
	files, err := Files(b)
	if err != nil {
		t.Fatal(err)
	}
	got, rows := csvRanks(t, b, files[publish.LeaderboardCSVPath])
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CSV ranks (-want +got):\n%s", diff)
	}
	// The CSV's rows are in the JSON's order.
	var jsonOrder, csvOrder []string
	for _, p := range b.Paths {
		jsonOrder = append(jsonOrder, p.ID)
	}
	for _, r := range b.Unverified.Runs {
		jsonOrder = append(jsonOrder, r.ID)
	}
	for i, row := range rows {
		csvOrder = append(csvOrder, row["id"])
		if row["row"] != strconv.Itoa(i+1) {
			t.Errorf("CSV row %d: row = %q", i+1, row["row"])
		}
	}
	if diff := cmp.Diff(jsonOrder, csvOrder); diff != "" {
		t.Errorf("CSV row order (-JSON +CSV):\n%s", diff)
	}
	// The published JSON carries the same ranks.
	var onDisk publish.Leaderboard
	if err := json.Unmarshal(files[publish.LeaderboardPath], &onDisk); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, ranks(&onDisk)); diff != "" {
		t.Errorf("leaderboard.json ranks (-want +got):\n%s", diff)
	}
}

// TestBoardAddRuns lists runs accepted after the snapshot: a new run is
// ranked with the others and marked not in the dataset, in the JSON and
// the CSV; a run the board lists already is not listed twice.
func TestBoardAddRuns(t *testing.T) {
	b, subs := testBoard(t)
	early := scored(t, "Elm", "ucp", 10, 9)
	at := runStart.Add(2 * time.Hour)
	rows := []publish.SubmissionRow{
		NewSubmissionRow(Stored{ID: subs["Amber"].ID(), Status: StatusUnverified, SubmittedAt: at, Submission: subs["Amber"]}, false),
		NewSubmissionRow(Stored{ID: early.ID(), Status: StatusUnverified, SubmittedAt: at, Submission: early}, false),
	}
	if n := AddRuns(b, rows); n != 1 {
		t.Fatalf("AddRuns added %d, want 1 (Amber is listed already)", n)
	}
	if n := AddRuns(b, rows); n != 0 {
		t.Fatalf("AddRuns again added %d", n)
	}
	want := map[string]any{"Elm": 1, "Cobalt": 2, "Amber": 3, "Birch": 3, "Dune": 5}
	got := ranks(b)
	for _, p := range Paths {
		delete(got, p.ID)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ranks after AddRuns (-want +got):\n%s", diff)
	}
	if b.Unverified.Count != 5 || b.Unverified.Runs[0].ID != early.ID() || b.Unverified.Runs[0].InDataset ||
		!b.Unverified.Runs[0].SubmittedAt.Equal(at) || b.Unverified.Runs[0].Status != StatusUnverified || b.Unverified.Runs[0].Verified {
		t.Errorf("the added run: count %d, %+v", b.Unverified.Count, b.Unverified.Runs[0])
	}
	files, err := Files(b)
	if err != nil {
		t.Fatal(err)
	}
	csvGot, rowsCSV := csvRanks(t, b, files[publish.LeaderboardCSVPath])
	for name, r := range want {
		if csvGot[name] != r {
			t.Errorf("CSV rank of %s = %v, want %v", name, csvGot[name], r)
		}
	}
	for _, row := range rowsCSV {
		wantIn := map[string]string{"svc": "", "unverified": "true"}[row["board"]]
		if row["agent"] == "Elm" {
			wantIn = "false"
		}
		if row["in_dataset"] != wantIn {
			t.Errorf("CSV %s %s: in_dataset %q, want %q", row["board"], row["id"], row["in_dataset"], wantIn)
		}
	}
}

// TestBoardLabels: the service's own runs are labelled measured and
// verified, a path without a run Not measured with no figures, and a
// stand-in test set says so in every file.
func TestBoardLabels(t *testing.T) {
	b, _ := testBoard(t)
	files, err := Files(b)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		FixtureStandIn bool   `json:"fixtureStandIn"`
		TestSetNote    string `json:"testSetNote"`
		Paths          []struct {
			ID, Status, Evidence string
			Verified             bool
			MeasuredBy           *string
			FixtureData          bool
		}
	}
	for _, name := range []string{publish.LeaderboardPath, publish.LeaderboardStoresPath} {
		if err := json.Unmarshal(files[name], &doc); err != nil {
			t.Fatal(err)
		}
		if doc.FixtureStandIn != svc100.FixtureStandIn() || (doc.FixtureStandIn != bytes.Contains([]byte(doc.TestSetNote), []byte("Fixture stand-in"))) {
			t.Errorf("%s: fixtureStandIn %v, note %q", name, doc.FixtureStandIn, doc.TestSetNote)
		}
		for _, p := range doc.Paths {
			run := p.ID == "browser-a" || p.ID == "browser-b" || p.ID == "browser-c" || p.ID == PathUCP
			if p.FixtureData || (run && (!p.Verified || p.Evidence != EvidenceMeasured || p.Status != StatusMeasured || p.MeasuredBy == nil)) ||
				(!run && (p.Evidence != EvidenceNotMeasured || p.Status != StatusNotRun)) {
				t.Errorf("%s %s labels: %+v", name, p.ID, p)
			}
		}
	}
	_, rows := csvRanks(t, b, files[publish.LeaderboardCSVPath])
	for _, row := range rows {
		standIn := strconv.FormatBool(svc100.FixtureStandIn())
		if row["fixture_stand_in"] != standIn {
			t.Errorf("CSV %s: fixture_stand_in %q", row["id"], row["fixture_stand_in"])
		}
		if row["id"] == "browser-c" && (row["verified"] != "true" || row["evidence"] != EvidenceMeasured || row["status"] != StatusMeasured) {
			t.Errorf("CSV browser-c row: %v", row)
		}
	}
	grid, err := csv.NewReader(bytes.NewReader(files[publish.LeaderboardStoresCSVPath])).ReadAll()
	if err != nil || len(grid) != svc100.Size+1 || grid[0][len(grid[0])-1] != "fixture_stand_in" {
		t.Fatalf("grid CSV: %v, %d rows, header %v", err, len(grid), grid[0])
	}
	if got := grid[1][len(grid[1])-1]; got != strconv.FormatBool(svc100.FixtureStandIn()) {
		t.Errorf("grid fixture_stand_in = %q", got)
	}
}
