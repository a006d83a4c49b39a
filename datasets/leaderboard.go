package datasets

import "strings"

// The leaderboard's two CSV tables (api/leaderboard.csv and
// api/leaderboard-stores.csv, spec 2.10): not dataset tables (All leaves
// them out), but defined here like them so one definition drives the
// writer in pipeline/leaderboard and the columns' descriptions.

// LeaderboardBoard is the shape of leaderboard.csv: one row per own path,
// then one per outside submission, in the order of the JSON, with the
// JSON's rank.
var LeaderboardBoard = &Table{
	Name:        "leaderboard",
	Description: "The leaderboard as CSV: the service's own paths, then unverified outside submissions.",
	Key:         []string{"row"},
	Columns: []Column{
		{Name: "rank", Type: Int64, Nullable: true, Description: "Standard competition rank within the board (svc or unverified) " +
			"by the lower Wilson 95% bound, then cart successes; equal rows share a rank (1, 2, 2, 4); empty for a path with no result. The JSON's rank."},
		{Name: "board", Type: String, Description: "svc (the service's own runs) or unverified (outside submissions)."},
		{Name: "id", Type: String, Description: "Path id or submission id."},
		{Name: "label", Type: String, Nullable: true, Description: "Path label."},
		{Name: "path", Type: String, Description: "Agent path."},
		{Name: "agent", Type: String, Description: "Agent name."},
		{Name: "agent_version", Type: String, Nullable: true, Description: "Agent version."},
		{Name: "agent_model", Type: String, Nullable: true, Description: "Model."},
		{Name: "run_id", Type: String, Nullable: true, Description: "Run id."},
		{Name: "status", Type: String, Description: "measured, not_attempted (a run that attempted no store: Not measured, no figures), fixture, not_run or unverified."},
		{Name: "verified", Type: Bool, Description: "The service's own measured run (false for fixture data and outside submissions)."},
		{Name: "evidence", Type: String, Description: "Evidence label: Measured, Fixture data, Not measured or Self-reported."},
		{Name: "fixture_data", Type: Bool, Description: "Fixture data: generated from the fixture world's known answers, not measured."},
		{Name: "n", Type: Int64, Description: "Stores attempted: results other than not_attempted, which are counted apart (not_attempted) and enter neither n, the rate nor the interval."},
		{Name: "cart_successes", Type: Int64, Nullable: true, Description: "added_to_cart or checkout_reached; empty when n is 0 (a path not run, or a run that attempted no store)."},
		{Name: "rate", Type: Float64, Nullable: true, Description: "cart_successes / n; empty when n is 0 (Not measured, never 0)."},
		{Name: "wilson95_low", Type: Float64, Nullable: true, Description: "Wilson 95% lower bound."},
		{Name: "wilson95_high", Type: Float64, Nullable: true, Description: "Wilson 95% upper bound."},
		{Name: "added_to_cart", Type: Int64, Nullable: true, Description: "Count; empty when the run reported no result."},
		{Name: "checkout_reached", Type: Int64, Nullable: true, Description: "Count; empty when the run reported no result."},
		{Name: "no_cart", Type: Int64, Nullable: true, Description: "Count; empty when the run reported no result."},
		{Name: "blocked", Type: Int64, Nullable: true, Description: "Count; empty when the run reported no result."},
		{Name: "error", Type: Int64, Nullable: true, Description: "Count; empty when the run reported no result."},
		{Name: "not_attempted", Type: Int64, Nullable: true, Description: "Results the run reported but did not attempt, beside n and not in it; empty when the run reported no result."},
		{Name: "started_at", Type: Timestamp, Nullable: true, Description: "Run start."},
		{Name: "finished_at", Type: Timestamp, Nullable: true, Description: "Run end."},
		{Name: "submitted_at", Type: Timestamp, Nullable: true, Description: "Submission time."},
		{Name: "in_dataset", Type: Bool, Nullable: true, Description: "For an outside run: whether its results are in this snapshot's " +
			"leaderboard_results table (false: accepted since, listed at once, in the dataset from the next snapshot); empty for paths."},
		{Name: "fixture_stand_in", Type: Bool, Description: "The test set is the fixture world's stand-in for SVC-100 v1 " +
			"(synthetic .test stores), not real stores."},
		{Name: "row", Type: Int64, Description: "Row order, the JSON's: the service's paths in published order, then the unverified runs by rank. Not a rank."},
		{Name: "not_attempted_reasons", Type: String, Nullable: true, Description: "Why the not_attempted results were not attempted: " +
			"\"<reason> <count>\" per reason, most first, separated by \"; \" (unspecified when a result gave none); empty when not_attempted is 0 or empty. The JSON's notAttempted.reasons."},
	},
}

// GridPath is one of the service's own agent paths as a column of the
// leaderboard's per-store grid.
type GridPath struct {
	ID    string // browser-a … browser-e, ucp, mcp
	Label string
}

// LeaderboardStores is the shape of leaderboard-stores.csv: the 100-row
// grid, with one outcome column per path, in the order given.
func LeaderboardStores(paths []GridPath) *Table {
	t := &Table{
		Name:        "leaderboard_stores",
		Description: "The per-store grid: each SVC-100 v1 store with the outcome of each of the service's own paths.",
		Key:         []string{"id"},
		Columns: []Column{
			{Name: "id", Type: String, Description: "SVC-100 v1 store id."},
			{Name: "host", Type: String, Description: "Store host."},
			{Name: "name", Type: String, Description: "Store name."},
			{Name: "category", Type: String, Description: "Category."},
		},
	}
	for _, p := range paths {
		t.Columns = append(t.Columns, Column{Name: GridColumn(p.ID), Type: String, Nullable: true,
			Description: p.Label + " outcome; empty when the path has no result for the store."})
	}
	t.Columns = append(t.Columns, Column{Name: "fixture_stand_in", Type: Bool,
		Description: "The store is one of the fixture world's synthetic stand-ins for SVC-100 v1 (a .test name), not a real store."})
	return t
}

// GridColumn is the grid's column name of a path id (browser-a is
// browser_a).
func GridColumn(pathID string) string { return strings.ReplaceAll(pathID, "-", "_") }
