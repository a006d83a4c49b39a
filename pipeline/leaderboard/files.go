package leaderboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"svc/datasets"
	"svc/publish"
)

// The board's published files: its JSON with and without the grid, and
// its two CSV tables (datasets.LeaderboardBoard, datasets.LeaderboardStores).

// gridTable is the shape of leaderboard-stores.csv, one outcome column per
// path in published order.
var gridTable = func() *datasets.Table {
	var ps []datasets.GridPath
	for _, p := range Paths {
		ps = append(ps, datasets.GridPath{ID: p.ID, Label: p.Label})
	}
	return datasets.LeaderboardStores(ps)
}()

// Files returns the board's four answers by published path: publish.LeaderboardPath
// (without the grid), publish.LeaderboardStoresPath (with it), publish.LeaderboardCSVPath and publish.LeaderboardStoresCSVPath.
// The server calls it for a board with runs listed since the snapshot.
func Files(b *publish.Leaderboard) (map[string][]byte, error) {
	files := map[string][]byte{}
	noGrid := *b
	noGrid.Stores = nil
	var err error
	if files[publish.LeaderboardPath], err = marshal(&noGrid); err != nil {
		return nil, err
	}
	if files[publish.LeaderboardCSVPath], err = boardCSV(b); err != nil {
		return nil, err
	}
	if files[publish.LeaderboardStoresPath], err = marshal(b); err != nil {
		return nil, err
	}
	if files[publish.LeaderboardStoresCSVPath], err = gridCSV(b.Stores, b.FixtureStandIn); err != nil {
		return nil, err
	}
	return files, nil
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("aggregate leaderboard: %w", err)
	}
	return buf.Bytes(), nil
}

func statsCells(s publish.RunStats) datasets.Row {
	var rate, lo, hi any
	if s.Rate != nil {
		rate, lo, hi = *s.Rate, s.Wilson95.Low, s.Wilson95.High
	}
	row := datasets.Row{int64(s.N), nil, rate, lo, hi, nil, nil, nil, nil, nil, nil}
	if s.CartSuccesses != nil {
		row[1] = int64(*s.CartSuccesses)
	}
	if o := s.Outcomes; o != nil {
		copy(row[5:], datasets.Row{int64(o.AddedToCart), int64(o.CheckoutReached), int64(o.NoCart), int64(o.Blocked), int64(o.Error), int64(o.NotAttempted)})
	}
	return row
}

// reasonsCell is the not_attempted_reasons cell: "reason count" per
// reason, "; " between, in the JSON's order; empty when there is none.
func reasonsCell(s publish.RunStats) any {
	if s.NotAttempted == nil || len(s.NotAttempted.Reasons) == 0 {
		return nil
	}
	var parts []string
	for _, r := range s.NotAttempted.Reasons {
		parts = append(parts, fmt.Sprintf("%s %d", r.Reason, r.Count))
	}
	return strings.Join(parts, "; ")
}

func boardCSV(b *publish.Leaderboard) ([]byte, error) {
	var rows []datasets.Row
	for _, p := range b.Paths {
		row := datasets.Row{rankCell(p.Rank), "svc", p.ID, p.Label, p.Path, p.Agent, nullStr(p.AgentVersion), nil, p.RunID,
			p.Status, p.Verified, p.Evidence, p.FixtureData}
		row = append(row, statsCells(p.RunStats)...)
		rows = append(rows, append(row, p.StartedAt, p.FinishedAt, nil, nil, b.FixtureStandIn, int64(len(rows)+1), reasonsCell(p.RunStats)))
	}
	for _, s := range b.Unverified.Runs {
		row := datasets.Row{rankCell(s.Rank), "unverified", s.ID, nil, s.Path, s.Agent.Name,
			nullStr(s.Agent.Version), nullStr(s.Agent.Model), s.ID, s.Status, false, s.Evidence, false}
		row = append(row, statsCells(s.RunStats)...)
		rows = append(rows, append(row, s.StartedAt, s.FinishedAt, s.SubmittedAt, s.InDataset, b.FixtureStandIn, int64(len(rows)+1), reasonsCell(s.RunStats)))
	}
	return writeCSV(datasets.LeaderboardBoard, rows)
}

func rankCell(r *int) any {
	if r == nil {
		return nil
	}
	return int64(*r)
}

func gridCSV(grid []publish.GridRow, standIn bool) ([]byte, error) {
	var rows []datasets.Row
	for _, g := range grid {
		row := datasets.Row{g.ID, g.Host, g.Name, g.Category}
		for _, p := range Paths {
			row = append(row, g.Outcomes[p.ID])
		}
		rows = append(rows, append(row, standIn))
	}
	return writeCSV(gridTable, rows)
}

func writeCSV(t *datasets.Table, rows []datasets.Row) ([]byte, error) {
	cols, err := datasets.FromRows(t, rows)
	if err != nil {
		return nil, fmt.Errorf("aggregate leaderboard %s.csv: %w", t.Name, err)
	}
	var buf bytes.Buffer
	if err := datasets.WriteCSV(&buf, cols); err != nil {
		return nil, fmt.Errorf("aggregate leaderboard %s.csv: %w", t.Name, err)
	}
	return buf.Bytes(), nil
}
