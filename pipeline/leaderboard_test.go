package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"svc/datasets/svc100"
	"svc/pipeline/leaderboard"
	"svc/publish"
)

// TestAggregateLeaderboardRunFolder checks the run-folder wiring: the
// outputs land where snapshot reads them, dated by run.json.
func TestAggregateLeaderboardRunFolder(t *testing.T) {
	dataDir := t.TempDir()
	start := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	ri, err := OpenRun(dataDir, "lb", start)
	if err != nil {
		t.Fatal(err)
	}
	runDir := RunDir(dataDir, ri.ID)
	writeShopJournal(t, runDir, scriptedShopRecords(svc100.Stores(), func(string, string) string { return leaderboard.OutcomeAddedToCart }))
	if err := WriteShopRuns(runDir, ri.ID); err != nil {
		t.Fatal(err)
	}
	b, err := AggregateLeaderboard(context.Background(), runDir, filepath.Join(dataDir, "state"))
	if err != nil {
		t.Fatal(err)
	}
	if b.SnapshotDate != "2026-11-21" || !b.GeneratedAt.Equal(start) {
		t.Errorf("board dated %s %v", b.SnapshotDate, b.GeneratedAt)
	}
	for _, p := range []string{
		filepath.Join(OutTables, "leaderboard_results.parquet"),
		filepath.Join(OutFiles, publish.LeaderboardPath), filepath.Join(OutFiles, publish.LeaderboardStoresPath),
		filepath.Join(OutFiles, publish.LeaderboardCSVPath), filepath.Join(OutFiles, publish.LeaderboardStoresCSVPath),
		filepath.Join(OutFiles, svc100.CSVPath), filepath.Join(OutFiles, svc100.SchemaPath),
	} {
		if _, err := os.Stat(filepath.Join(runDir, filepath.FromSlash(p))); err != nil {
			t.Errorf("missing %s: %v", p, err)
		}
	}
	lane, err := BrowserLaneByHost(runDir)
	if err != nil || len(lane) == 0 {
		t.Errorf("buy_browser: %d hosts, %v", len(lane), err)
	}
	ids, _ := SVC100IDsByHost(runDir)
	if first := svc100.Stores()[0]; len(ids) != svc100.Size || ids[first.Host] != first.ID {
		t.Errorf("SVC100IDsByHost: %d ids", len(ids))
	}
	lanePtr, err := BrowserLaneFromBools(BrowserLaneByHost)(runDir)
	if err != nil || len(lanePtr) != len(lane) {
		t.Errorf("BrowserLaneFromBools(BrowserLaneByHost): %d hosts, %v", len(lanePtr), err)
	}
	if _, err := AggregateLeaderboard(context.Background(), filepath.Join(dataDir, "work", "nope"), ""); err == nil {
		t.Error("a run folder without run.json was aggregated")
	}
}
