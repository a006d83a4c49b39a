// Package leaderboard is the agent leaderboard over the SVC-100 v1 test set
// (spec 2.10, 2.11): cart success per agent path, stopped before payment.
//
// It has four parts, each usable alone:
//
//   - Submissions (Parse, Submission, Key, ReplaySubmissions): the format
//     svc-leaderboard-submission/v1, validated against the published JSON
//     Schema (datasets/svc100) and the test-set CSV, every problem with its
//     JSON path; the duplicate-run key; the inbox record the server
//     writes for an accepted run (Record, inbox.TypeLeaderboardSubmission). The contact of a
//     submission is private: it is kept only in the server's state and is
//     never written by this package.
//   - The pipeline's own agent-path runs (RunAgentPaths): a UCP-path and a
//     storefront-MCP-path run over the 100 stores, driving catalog → cart
//     over plain HTTP with the check engine's client and stopping before
//     payment. Written in the submission format, labelled as the service's
//     own measured runs, with a reason code per store.
//   - Browser shoppers A to E (WriteBrowserRuns, BrowserLane): the
//     pipeline's shop stage runs them in Chromium and hands their results
//     over; each shopper's run is written in the submission format,
//     labelled as the service's own measured run, with its dates and n. A
//     shopper that attempted no store has no run: not measured, never
//     zero. Runs of other agents enter only as outside submissions.
//   - The board (Aggregate): the leaderboard_results table, the JSON of GET
//     /api/leaderboard (with and without the 100-row per-store grid), its
//     CSV, and the SVC-100 v1 files, all written into the run folder's out/.
//     Paths and outside runs carry a standard competition rank; a test
//     set of .test stores is labelled the fixture stand-in. The server
//     lists runs accepted since the snapshot with Board.AddRuns and
//     Board.Files.
//
// Everything the board is built from sits in the run folder
// (DIR/work/<run>/agent_runs/) or in the state log up to the run's start,
// so aggregating a run twice gives the same bytes.
package leaderboard
