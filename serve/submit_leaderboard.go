package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"svc/datasets/svc100"
	"svc/pipeline/inbox"
	"svc/pipeline/leaderboard"
)

// MCPToolSubmitRun is the MCP tool that takes the same body as POST
// /api/leaderboard/submit.
const MCPToolSubmitRun = "submit_leaderboard_run"

// LeaderboardReceipt is the answer to an accepted leaderboard submission:
// 201 for a new run, 200 (Duplicate) for a copy of an earlier one, which
// carries that run's id and status. It never holds the contact. It says
// where the run is listed: at once, on the served leaderboard (spec 3).
type LeaderboardReceipt struct {
	leaderboard.Receipt
	Duplicate bool `json:"duplicate,omitempty"`
	// Listed is true when the run is on the public leaderboard now (as
	// self-reported, unverified); false only before any leaderboard is
	// published. ListedAt is when it was accepted and listed, URL its row
	// on the leaderboard page; both null when not listed.
	Listed   bool       `json:"listed"`
	ListedAt *time.Time `json:"listed_at"`
	URL      *string    `json:"url"`
	// APIURL is the leaderboard's JSON (format=csv for CSV).
	APIURL string `json:"api_url"`
	Note   string `json:"note"`
}

// HTTPStatus is the status of the answer: 201 new, 200 duplicate.
func (r *LeaderboardReceipt) HTTPStatus() int {
	if r.Duplicate {
		return http.StatusOK
	}
	return http.StatusCreated
}

// duplicateRule says, in the words of the GET description and the OpenAPI
// description, when two runs are the same (leaderboard.Submission.Key).
const duplicateRule = "A run is a duplicate of an earlier one when it has the same agent (name, version, model: " +
	"compared without case, Unicode-normalised, white space collapsed; and path) and the same outcome at the same stores " +
	"(result order ignored). Times, steps, seconds, evidence URLs, notes, builder, agent URL and contact do not count. " +
	"A duplicate answers 200 with the earlier run's id and is not stored again."

// SubmitLeaderboard is the leaderboard submission shared by POST
// /api/leaderboard/submit and the submit_leaderboard_run tool. body is the
// submission (spec 2.11): larger than 200 KB is ErrTooLarge; invalid is
// ErrInvalid with every problem at its JSON path; a duplicate of an
// earlier run returns that run's receipt with Duplicate set; a new run
// uses one of the caller's 5 a day (else ErrLimited) and is in the state
// log, fsync'd, before this returns. The contact is kept in the state log
// only: never in an answer, a log line or a published file.
func (s *Server) SubmitLeaderboard(ctx context.Context, caller string, body []byte) (*LeaderboardReceipt, error) {
	if len(body) > leaderboard.MaxBody {
		return nil, tooLargeRun()
	}
	sub, err := leaderboard.Parse(body)
	if err != nil {
		var ie *leaderboard.InvalidError
		switch {
		case errors.Is(err, leaderboard.ErrTooLarge):
			return nil, tooLargeRun()
		case errors.As(err, &ie):
			ps := make([]Problem, len(ie.Problems))
			for i, p := range ie.Problems {
				ps[i] = Problem{Path: p.Path, Message: p.Message}
			}
			return nil, &apiError{kind: ErrInvalid, problems: ps,
				message: fmt.Sprintf("invalid submission: %d problem(s), each listed in problems with its JSON path; the format is at %s",
					len(ps), s.link("/"+svc100.SchemaPath))}
		}
		return nil, fmt.Errorf("submit leaderboard run: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fail(ErrUnavailable, "the request was cancelled before the run was saved")
	}
	key := sub.Key()
	c := s.subs
	c.runMu.Lock()
	defer c.runMu.Unlock()
	duplicate := func(run storedRun) *LeaderboardReceipt {
		r := sub.Receipt()
		r.ID, r.Status = run.ID, run.Status
		rc := &LeaderboardReceipt{Receipt: r, Duplicate: true}
		s.listing(rc)
		return rc
	}
	if run, ok := c.runs[key]; ok {
		return duplicate(run), nil
	}
	if s.shared != nil { // accepted by another replica: no quota spent
		run, ok, err := s.shared.Run(context.Background(), key)
		if err != nil {
			s.log.Error("read leaderboard run", "error", err)
			return nil, stateUnavailable("the run could not be saved to the state store; it was not accepted, try again later")
		}
		if ok {
			c.runs[key] = storedRun{ID: run.ID, Status: run.Status}
			return duplicate(c.runs[key]), nil
		}
	}
	if err := s.limits.take(caller, 1, quotaLeaderboard); err != nil {
		return nil, err
	}
	rec := sub.Record()
	at := s.now().UTC()
	if s.shared != nil {
		run, fresh, err := s.shared.AcceptRun(context.Background(), at, rec)
		if err != nil {
			s.log.Error("save leaderboard submission", "error", err)
			return nil, stateUnavailable("the run could not be saved to the state store; it was not accepted, try again later")
		}
		if !fresh { // another replica accepted it meanwhile
			c.runs[key] = storedRun{ID: run.ID, Status: run.Status}
			return duplicate(c.runs[key]), nil
		}
	} else if err := s.state.Append(context.Background(), inbox.TypeLeaderboardSubmission, at, rec); err != nil {
		s.log.Error("save leaderboard submission", "error", err)
		return nil, stateUnavailable("the run could not be saved to the state store; it was not accepted, try again later")
	}
	c.runs[key] = storedRun{ID: rec.ID, Status: rec.Status}
	c.live.add(leaderboard.NewSubmissionRow(leaderboard.Stored{ID: rec.ID, Key: key, Status: rec.Status, SubmittedAt: at, Submission: sub.Public()}, false))
	rc := &LeaderboardReceipt{Receipt: sub.Receipt()}
	s.listing(rc)
	return rc, nil
}

func tooLargeRun() error {
	return fail(ErrTooLarge, "the submission is larger than %d KB; a run holds at most %d results", leaderboard.MaxBody>>10, leaderboard.MaxResults)
}

func (s *Server) leaderboardSubmit(w http.ResponseWriter, r *http.Request) error {
	body, err := leaderboard.ReadBody(r.Body)
	if errors.Is(err, leaderboard.ErrTooLarge) {
		return tooLargeRun()
	}
	if err != nil {
		return fail(ErrInvalid, "the body could not be read")
	}
	rc, err := s.SubmitLeaderboard(r.Context(), s.caller(r), body)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, rc.HTTPStatus(), rc)
}

// SubmitInfo is the answer of GET /api/leaderboard/submit: how to submit
// a run. Its keys are snake_case, like the submission format it describes.
type SubmitInfo struct {
	Method      string            `json:"method"`
	URL         string            `json:"url"`
	ContentType string            `json:"content_type"`
	Spec        string            `json:"spec"`
	TestSet     string            `json:"test_set"`
	Schema      string            `json:"schema"`
	TestSetCSV  string            `json:"test_set_csv"`
	MaxBytes    int               `json:"max_bytes"`
	MinResults  int               `json:"min_results"`
	MaxResults  int               `json:"max_results"`
	Limit       string            `json:"limit"`
	Rules       []string          `json:"rules"`
	Duplicates  string            `json:"duplicates"`
	Responses   map[string]string `json:"responses"`
	Example     json.RawMessage   `json:"example"`
	ExampleNote string            `json:"example_note"`
	MCPTool     string            `json:"mcp_tool"`
	MCPEndpoint string            `json:"mcp_endpoint"`
}

// LeaderboardSubmitInfo returns the description of the submission format.
func (s *Server) LeaderboardSubmitInfo() SubmitInfo {
	return SubmitInfo{
		Method: http.MethodPost, URL: s.link("/api/leaderboard/submit"), ContentType: "application/json",
		Spec: svc100.Spec, TestSet: svc100.TestSet,
		Schema: s.link("/" + svc100.SchemaPath), TestSetCSV: s.link("/" + svc100.CSVPath),
		MaxBytes: leaderboard.MaxBody, MinResults: leaderboard.MinResults, MaxResults: leaderboard.MaxResults,
		Limit: fmt.Sprintf("%d new runs per network per UTC day; duplicates and invalid bodies do not count", quotaLeaderboard.Max),
		Rules: []string{
			"The body must validate against the schema; every problem is reported with its JSON path.",
			fmt.Sprintf("%d to %d results, each id a store of the %s CSV, no id twice.", leaderboard.MinResults, leaderboard.MaxResults, svc100.TestSet),
			"run.stopped_before_payment must be true: only runs that stopped before payment are accepted.",
			"contact is private: it is kept for arranging verification and never published or returned.",
			"An accepted run is listed publicly as self-reported, with status unverified until the service re-runs a sample.",
		},
		Duplicates: duplicateRule,
		Responses: map[string]string{
			"201": "new run: ok, id, status (unverified), n, cart_successes; listed (true: on the public leaderboard now, as self-reported), listed_at, url (its row on the leaderboard page), api_url, note",
			"200": "duplicate of an earlier run: the same fields with that run's id, and duplicate: true",
			"400": "invalid submission: error.problems lists each problem with its JSON path",
			"413": fmt.Sprintf("body larger than %d KB", leaderboard.MaxBody>>10),
			"429": "over the daily limit for your network",
		},
		Example:     exampleRun(2),
		ExampleNote: fmt.Sprintf("Shortened to 2 results: a real run needs at least %d (and at most %d), one per store tried.", leaderboard.MinResults, leaderboard.MaxResults),
		MCPTool:     MCPToolSubmitRun, MCPEndpoint: s.link("/api/ask"),
	}
}

func (s *Server) leaderboardSubmitInfo(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", cacheFiveMinutes)
	return writeJSON(w, http.StatusOK, s.LeaderboardSubmitInfo())
}
