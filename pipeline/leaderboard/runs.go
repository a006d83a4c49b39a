package leaderboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"svc/pipeline/durable"
)

// AgentRunsDir is the folder of the run folder (DIR/work/<run>/) that holds
// the leaderboard's own runs, one file per path: browser-a.json …
// browser-e.json (imported browser-shopper runs), ucp.json and mcp.json
// (the pipeline's own agent-path runs). Aggregate and BrowserLaneByHost
// read only this folder, so re-aggregating a run gives the same bytes.
const AgentRunsDir = "agent_runs"

// MeasuredBy names who measured the service's own runs.
const MeasuredBy = "svc"

// Evidence labels of the leaderboard.
const (
	EvidenceMeasured     = "Measured"
	EvidenceSelfReported = "Self-reported"
	EvidenceNotMeasured  = "Not measured"
)

// Statuses of the service's own paths on the board.
const (
	StatusMeasured = "measured" // a run the service measured
	StatusNotRun   = "not_run"  // no run of the path was found
	// StatusNotAttempted is a run that attempted no store (every result
	// not_attempted): n 0, figures null, evidence Not measured.
	StatusNotAttempted = "not_attempted"
)

// PathInfo is one agent path of the service's own board.
type PathInfo struct {
	ID    string // browser-a … browser-e, ucp, mcp
	Label string
	Path  string // agent.path of the runs: browser, ucp or mcp
	Agent string // agent.name of the runs
}

// Paths are the service's own agent paths, in published order: browser
// shoppers A to E, the UCP path, the storefront MCP path (spec 2.10).
var Paths = func() []PathInfo {
	var ps []PathInfo
	for _, l := range "ABCDE" {
		ps = append(ps, PathInfo{
			ID: "browser-" + string(l+'a'-'A'), Label: "Browser shopper " + string(l),
			Path: "browser", Agent: "svc browser shopper " + string(l),
		})
	}
	return append(ps,
		PathInfo{ID: PathUCP, Label: "UCP path", Path: "ucp", Agent: "svc UCP path"},
		PathInfo{ID: PathMCP, Label: "Storefront MCP path", Path: "mcp", Agent: "svc storefront MCP path"},
	)
}()

// Path ids of the pipeline's own agent-path runs.
const (
	PathUCP = "ucp"
	PathMCP = "mcp"
)

// AgentRun is one of the service's own runs as kept in the run folder: a
// submission in the published format, labelled with who measured it.
type AgentRun struct {
	RunID      string `json:"run_id"`
	PathID     string `json:"path_id"`
	MeasuredBy string `json:"measured_by"`
	Method     string `json:"method"`
	// Reasons says, per store id, why the pipeline's own run ended where
	// it did (codes in the package doc).
	Reasons    map[string]string `json:"reasons,omitempty"`
	Submission *Submission       `json:"submission"`
}

func agentRunFile(runDir, pathID string) string {
	return filepath.Join(runDir, AgentRunsDir, pathID+".json")
}

func writeAgentRun(runDir string, r *AgentRun) error {
	if err := os.MkdirAll(filepath.Join(runDir, AgentRunsDir), 0o755); err != nil {
		return fmt.Errorf("write agent run %s: %w", r.PathID, err)
	}
	pub := *r
	pub.Submission = r.Submission.Public()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&pub); err != nil {
		return fmt.Errorf("write agent run %s: %w", r.PathID, err)
	}
	if err := durable.WriteFileAtomic(agentRunFile(runDir, r.PathID), buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write agent run %s: %w", r.PathID, err)
	}
	return nil
}

// ReadAgentRuns returns the runs kept in runDir/agent_runs by path id. A
// path without a file has no entry. Each submission is validated again.
func ReadAgentRuns(runDir string) (map[string]*AgentRun, error) {
	out := map[string]*AgentRun{}
	for _, p := range Paths {
		b, err := os.ReadFile(agentRunFile(runDir, p.ID))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read agent run %s: %w", p.ID, err)
		}
		var env struct {
			AgentRun
			Submission json.RawMessage `json:"submission"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			return nil, fmt.Errorf("read agent run %s: %w", p.ID, err)
		}
		sub, err := Parse(env.Submission)
		if err != nil {
			return nil, fmt.Errorf("read agent run %s: %w", p.ID, err)
		}
		r := env.AgentRun
		r.Submission = sub.Public()
		if r.PathID != p.ID || r.Submission.Agent.Path != p.Path {
			return nil, fmt.Errorf("read agent run %s: the file is for path %q (%s)", p.ID, r.PathID, r.Submission.Agent.Path)
		}
		out[p.ID] = &r
	}
	return out, nil
}
