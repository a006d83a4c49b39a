// Package runs ships the fixture world's browser-shopper runs: one file per
// shopper (fixture/browser-a.json … browser-e.json) in the leaderboard
// submission format (svc-leaderboard-submission/v1) over SVC-100 v1.
//
// They are FIXTURE DATA, not browser sessions: each outcome is derived from
// the fixture world's known answers by the generator in
// pipeline/leaderboard (TestFixtureBrowserRuns, rewritten with go test
// ./pipeline/leaderboard -update), and every file says so in run.notes. The
// pipeline imports them, with run ids fixture-browser-a …, only when it
// runs over the fixture world; they are then published marked as fixture
// data. Real browser-shopper runs are dropped as files in the same format
// into DIR/runs/ (see leaderboard.ImportOptions).
package runs

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
)

//go:embed fixture/*.json
var fixtureFS embed.FS

// Fixture returns the fixture world's browser-shopper runs by file name
// (browser-a.json …).
func Fixture() (map[string][]byte, error) {
	names, err := fs.Glob(fixtureFS, "fixture/*.json")
	if err != nil {
		return nil, fmt.Errorf("fixture runs: %w", err)
	}
	out := make(map[string][]byte, len(names))
	for _, n := range names {
		b, err := fixtureFS.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("fixture runs: %w", err)
		}
		out[path.Base(n)] = b
	}
	return out, nil
}
