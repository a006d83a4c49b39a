package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"svc/datasets/svc100"
	"svc/pipeline/fetch"
	"svc/pipeline/httpsig"
	"svc/pipeline/inbox"
	"svc/pipeline/leaderboard"
	"svc/pipeline/ucp"
	"svc/publish"
)

// The leaderboard's part of a pipeline run (spec 2.10), in three steps:
//
//  1. MeasureAgentPaths, which needs the network (the validate stage or
//     `svc run` calls it, before aggregate): the service's own UCP-path and
//     storefront-MCP-path runs over SVC-100 v1, into
//     DIR/work/<run>/agent_runs/.
//  2. The shop stage (ShopStage): the browser shoppers A to E over SVC-100
//     v1 in Chromium, journalled under DIR/work/<run>/shop/; WriteShopRuns
//     turns the journal into agent_runs/browser-<x>.json.
//  3. AggregateLeaderboard (the aggregate stage): reads agent_runs/ and the
//     outside submissions of DIR/state, writes out/tables/
//     leaderboard_results.parquet, out/files/api/leaderboard*.{json,csv}
//     and out/files/data/svc-100/v1/ (published frozen).
//
// BrowserLaneByHost gives the store_answers aggregate its buy_browser lane
// from the shop stage's journal, and SVC100IDsByHost the svc100_id of
// the stores table: set AggregateOptions.BrowserLane to
// BrowserLaneFromBools(BrowserLaneByHost) and AggregateOptions.SVC100IDs to
// SVC100IDsByHost (or the package variables of those names).

// AgentPathOptions configure MeasureAgentPaths.
type AgentPathOptions struct {
	Client *fetch.Client  // required; with the fixture flags over the fixture world
	UCP    *ucp.Validator // nil skips the UCP path (shown as not run)
	// AgentProfile is the service's UCP platform profile URL, sent in
	// UCP-Agent to every UCP binding (leaderboard.RunOptions); "" sends the
	// placeholder leaderboard.DefaultAgentProfile and says so.
	AgentProfile string
	// AgentKey signs the UCP path's requests (leaderboard.RunOptions); nil
	// sends them unsigned.
	AgentKey    *httpsig.Key
	Now         func() time.Time // clock of the runs' timestamps; default time.Now
	Concurrency int              // stores at once; default 8
	Force       bool             // measure again when agent_runs/ already holds the runs
}

// MeasureAgentPaths runs the service's own plain-HTTP agent paths over
// SVC-100 v1 into runDir/agent_runs/ (see leaderboard.RunAgentPaths for
// the outcome mapping). Existing own runs are kept unless Force is set, so
// a resumed run does not measure twice. The browser paths are the shop
// stage's.
func MeasureAgentPaths(ctx context.Context, runDir string, opts AgentPathOptions) error {
	ri, err := readRunInfo(runDir)
	if err != nil {
		return err
	}
	if err := leaderboard.RunAgentPaths(ctx, leaderboard.RunOptions{
		RunDir: runDir, RunID: ri.ID, Client: opts.Client, UCP: opts.UCP, AgentProfile: opts.AgentProfile, AgentKey: opts.AgentKey,
		Now: opts.Now, Concurrency: opts.Concurrency, Force: opts.Force,
	}); err != nil {
		return fmt.Errorf("run %s: %w", ri.ID, err)
	}
	return nil
}

// AggregateLeaderboard writes the leaderboard outputs of the run in runDir
// (DIR/work/<run>) from its agent_runs/ folder and the outside submissions
// in the state log under stateDir (DIR/state, or the postgres:// database
// of serve replicas; "" for none) received up to
// the run's start: out/tables/leaderboard_results.parquet,
// out/files/api/leaderboard.json, leaderboard-stores.json (with the
// 100-row grid), leaderboard.csv, leaderboard-stores.csv, and
// out/files/data/svc-100/v1/svc-100.csv and submission.schema.json. It
// reads no clock and no network: the same inputs give the same bytes.
func AggregateLeaderboard(ctx context.Context, runDir, stateDir string) (*publish.Leaderboard, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ri, err := readRunInfo(runDir)
	if err != nil {
		return nil, err
	}
	var in inbox.Reader
	if stateDir != "" { // a folder, or the postgres:// database of serve replicas
		r, closeIn, err := inbox.OpenReader(ctx, stateDir)
		if err != nil {
			return nil, err
		}
		defer closeIn()
		in = r
	}
	b, err := leaderboard.Aggregate(ctx, runDir, leaderboard.AggregateOptions{
		TablesDir: filepath.Join(runDir, OutTables), FilesDir: filepath.Join(runDir, OutFiles),
		Inbox: in, Date: ri.Date, GeneratedAt: ri.Started,
	})
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", ri.ID, err)
	}
	return b, nil
}

// SVC100IDsByHost returns the SVC-100 v1 id of each test-set host (for
// stores.svc100_id). The test set is fixed, so runDir is not read; the
// signature fits AggregateOptions.SVC100IDs.
func SVC100IDsByHost(string) (map[string]string, error) {
	out := map[string]string{}
	for _, st := range svc100.Stores() {
		out[st.Host] = st.ID
	}
	return out, nil
}

func readRunInfo(runDir string) (RunInfo, error) {
	b, err := os.ReadFile(filepath.Join(runDir, RunInfoFile))
	if err != nil {
		return RunInfo{}, fmt.Errorf("read run %s: %w", runDir, err)
	}
	var ri RunInfo
	if err := json.Unmarshal(b, &ri); err != nil {
		return RunInfo{}, fmt.Errorf("read run %s: %s is corrupt: %w", runDir, RunInfoFile, err)
	}
	return ri, nil
}

// UCPPathByHost returns, per SVC-100 host, how the service's own UCP agent
// path ended in the run in runDir (agent_runs/ucp.json): its outcome and
// reason. Hosts the path did not cover are absent; a run without the UCP
// path gives an empty map. It is the default of AggregateOptions.UCPPath
// (the weekly figure's UCP checkout link).
func UCPPathByHost(runDir string) (map[string]UCPPathResult, error) {
	runs, err := leaderboard.ReadAgentRuns(runDir)
	if err != nil {
		return nil, fmt.Errorf("ucp path %s: %w", runDir, err)
	}
	out := map[string]UCPPathResult{}
	r, ok := runs[leaderboard.PathUCP]
	if !ok || r.Submission == nil {
		return out, nil
	}
	for _, res := range r.Submission.Results {
		st, ok := svc100.ByID(res.ID)
		if !ok {
			continue
		}
		out[st.Host] = UCPPathResult{Outcome: res.Outcome, Reason: r.Reasons[res.ID]}
	}
	return out, nil
}
