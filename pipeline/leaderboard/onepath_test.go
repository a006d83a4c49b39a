package leaderboard

import (
	"testing"

	"svc/datasets/svc100"
)

// TestRunPathMatchesTheBoardRuns runs every SVC-100 store through RunPath,
// the one-store entry of svc shop, and through RunAgentPaths, the board's
// own run: the same path must give the same outcome and reason.
func TestRunPathMatchesTheBoardRuns(t *testing.T) {
	wd := startWorld(t)
	dir := t.TempDir()
	opts := RunOptions{RunDir: dir, RunID: "r1", Client: wd.client, UCP: wd.ucp, Concurrency: 4}
	if err := RunAgentPaths(t.Context(), opts); err != nil {
		t.Fatal(err)
	}
	runs, err := ReadAgentRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{PathMCP}
	if wd.ucp != nil {
		paths = append(paths, PathUCP)
	}
	for _, path := range paths {
		board := runs[path]
		if board == nil {
			t.Fatalf("no %s run written", path)
		}
		outcomes := map[string]string{}
		for _, r := range board.Submission.Results {
			outcomes[r.ID] = r.Outcome
		}
		seen := map[string]bool{}
		for _, st := range svc100.Stores() {
			o, r, err := RunPath(t.Context(), opts, path, "https://"+st.Host)
			if err != nil {
				t.Fatalf("%s %s: %v", path, st.Host, err)
			}
			if o != outcomes[st.ID] || r != board.Reasons[st.ID] {
				t.Errorf("%s %s: RunPath gives %s/%s, the board run %s/%s", path, st.Host, o, r, outcomes[st.ID], board.Reasons[st.ID])
			}
			seen[o] = true
		}
		if len(seen) < 3 {
			t.Errorf("%s: only outcomes %v over SVC-100: the comparison shows too little", path, seen)
		}
	}
	if _, _, err := RunPath(t.Context(), opts, "browser", "https://x.test"); err == nil {
		t.Error("an unknown path is not an error")
	}
}
