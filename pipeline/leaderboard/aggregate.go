package leaderboard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"svc/datasets"
	"svc/datasets/svc100"
	"svc/pipeline/durable"
	"svc/pipeline/inbox"
	"svc/publish"
)

// FrozenFiles are the files of Aggregate that a snapshot publishes with
// publish.File.Frozen set.
var FrozenFiles = []string{svc100.CSVPath, svc100.SchemaPath}

// Methodology is published with the leaderboard.
const Methodology = "Cart success over the fixed SVC-100 v1 test set, stopped before payment. " +
	"n counts every result a run reported, not_attempted included: a store a run skipped is a store where it did not reach the cart. " +
	"A cart success is added_to_cart or checkout_reached; it is not an order. " +
	"The interval is the Wilson score interval at 95% (z = 1.96); rates and bounds are rounded to 3 decimals. " +
	"paths are the service's own measured runs: browser shoppers A to E (runs imported as files in the submission format) and the " +
	"pipeline's own UCP-path and storefront-MCP-path runs over plain HTTP, which stop at the cart: a cart that came back with a " +
	"checkout link counts as checkout_reached (the link is never opened or kept), a cart without one as added_to_cart. " +
	"The UCP path (method " + MethodVersion + ") drives UCP only over a profile's MCP binding and calls no UCP cart operation: " +
	"it claims no cart it did not reach, and a store whose bindings it does not drive is not_attempted. " +
	"Per-store reasons are in the leaderboard_results table. " +
	"A path whose run is fixture data (status fixture, evidence Fixture data, fixtureData true) was generated from the fixture world's " +
	"known answers and measured by no one: it is not verified. " +
	"rank is the standard competition rank (1, 2, 2, 4) within paths and, apart, within unverified: by the lower Wilson bound, " +
	"then cart successes, higher first; runs equal in both share a rank; a path with no result has none. " +
	"unverified holds outside submissions: self-reported, not checked by the service, kept apart and never mixed into paths."

// AggregateOptions configure Aggregate.
type AggregateOptions struct {
	// TablesDir and FilesDir are the run folder's out/tables and out/files.
	TablesDir, FilesDir string
	// Inbox holds the outside submissions; nil reads none.
	Inbox inbox.Reader
	// Date is the snapshot date (YYYY-MM-DD) and GeneratedAt the run's
	// start: both are published, and submissions received after
	// GeneratedAt wait for the next run, so a re-run writes the same bytes.
	Date        string
	GeneratedAt time.Time
}

// Board is the leaderboard document (GET /api/leaderboard). Stores is set
// only in the stores=1 variant.
type Board struct {
	TestSet     string `json:"testSet"`
	TestSetSize int    `json:"testSetSize"`
	TestSetURL  string `json:"testSetUrl"`
	// FixtureStandIn is true when the test set is the fixture world's
	// stand-in for SVC-100 v1 (svc100.FixtureStandIn): synthetic stores,
	// not real ones. TestSetNote says which in words.
	FixtureStandIn       bool       `json:"fixtureStandIn"`
	TestSetNote          string     `json:"testSetNote"`
	SubmissionSchemaURL  string     `json:"submissionSchemaUrl"`
	SnapshotDate         string     `json:"snapshotDate"`
	GeneratedAt          time.Time  `json:"generatedAt"`
	StoppedBeforePayment bool       `json:"stoppedBeforePayment"`
	Methodology          string     `json:"methodology"`
	Paths                []PathRow  `json:"paths"`
	Unverified           Unverified `json:"unverified"`
	License              string     `json:"license"`
	Attribution          string     `json:"attribution"`
	Stores               []GridRow  `json:"stores,omitempty"`
}

// Stats are the figures of one run.
type Stats struct {
	N             int           `json:"n"`
	CartSuccesses int           `json:"cartSuccesses"`
	Rate          *float64      `json:"rate"`     // null when n is 0
	Wilson95      *Interval     `json:"wilson95"` // null when n is 0
	Outcomes      OutcomeCounts `json:"outcomes"`
	FirstAt       *time.Time    `json:"firstAttemptAt"`
	LastAt        *time.Time    `json:"lastAttemptAt"`
}

// Interval is a confidence interval.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// OutcomeCounts counts the results of a run per outcome.
type OutcomeCounts struct {
	AddedToCart     int `json:"added_to_cart"`
	CheckoutReached int `json:"checkout_reached"`
	NoCart          int `json:"no_cart"`
	Blocked         int `json:"blocked"`
	Error           int `json:"error"`
	NotAttempted    int `json:"not_attempted"`
}

// PathRow is one of the service's own agent paths.
type PathRow struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Path  string `json:"path"`
	Agent string `json:"agent"`
	// AgentVersion is the runs' agent.version: the method version of the
	// pipeline's own runs, "fixture" for fixture data.
	AgentVersion string `json:"agentVersion,omitempty"`
	// Status is measured; fixture for the fixture world's shipped runs
	// (not measured, not verified); not_run when no run of the path was
	// found (n 0, figures null).
	Status   string  `json:"status"`
	RunID    *string `json:"runId"`
	Verified bool    `json:"verified"`
	Evidence string  `json:"evidence"`
	// MeasuredBy is who measured the run (svc); null for fixture data,
	// which no one measured.
	MeasuredBy  *string `json:"measuredBy"`
	FixtureData bool    `json:"fixtureData"`
	Method      string  `json:"method,omitempty"`
	// Rank is the path's standard competition rank among the paths (see
	// Methodology); null when it has no result.
	Rank *int `json:"rank"`
	Stats
	StartedAt  *time.Time `json:"startedAt"`
	FinishedAt *time.Time `json:"finishedAt"`
}

// Unverified holds the outside submissions, apart from the service's runs.
type Unverified struct {
	Note  string          `json:"note"`
	Count int             `json:"count"`
	Runs  []SubmissionRow `json:"runs"`
}

// SubmissionRow is one outside submission (never its contact).
type SubmissionRow struct {
	ID string `json:"id"`
	// Rank is the run's standard competition rank among the unverified
	// runs (see Methodology).
	Rank     *int        `json:"rank"`
	Status   string      `json:"status"`
	Verified bool        `json:"verified"`
	Evidence string      `json:"evidence"`
	Agent    PublicAgent `json:"agent"`
	Path     string      `json:"path"`
	Stats
	StartedAt   *time.Time `json:"startedAt"`
	FinishedAt  *time.Time `json:"finishedAt"`
	SubmittedAt time.Time  `json:"submittedAt"`
	// InDataset is false for a run accepted after the snapshot: it is
	// listed as soon as it is accepted, and its results join the dataset's
	// leaderboard_results table with the next snapshot.
	InDataset bool   `json:"inDataset"`
	Notes     string `json:"notes,omitempty"`
}

// PublicAgent is the public part of a submission's agent.
type PublicAgent struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Builder string `json:"builder,omitempty"`
	URL     string `json:"url,omitempty"`
	Model   string `json:"model,omitempty"`
}

// GridRow is one SVC-100 store with each own path's outcome there (null
// when the path has no result for the store).
type GridRow struct {
	ID       string             `json:"id"`
	Host     string             `json:"host"`
	Name     string             `json:"name"`
	Category string             `json:"category"`
	Outcomes map[string]*string `json:"outcomes"`
}

const unverifiedNote = "Outside submissions: self-reported and unverified until the service re-runs a sample. Kept apart from the service's own runs. " +
	"A run is listed as soon as it is accepted; one accepted after the snapshot (inDataset false) joins the dataset's leaderboard_results table with the next snapshot."

// Test-set notes (Board.TestSetNote).
const (
	testSetReal    = "The fixed SVC-100 v1 list of 100 real stores."
	testSetStandIn = "Fixture stand-in: these 100 stores are synthetic stores of svc's fixture world on reserved .test names, " +
		"standing in for the real SVC-100 v1 list. No figure here is about a real store."
)

// Aggregate builds the leaderboard of the run in runDir from its
// agent_runs folder and the outside submissions of the state log, and
// writes TablesDir/leaderboard_results.parquet, FilesDir/api/leaderboard
// (.json, -stores.json, .csv, -stores.csv) and the SVC-100 v1 files under
// FilesDir/data/svc-100/v1/. The contact of a submission is never read
// into any of them. It returns the board (with the grid).
func Aggregate(ctx context.Context, runDir string, opts AggregateOptions) (*Board, error) {
	if opts.TablesDir == "" || opts.FilesDir == "" {
		return nil, errors.New("aggregate leaderboard: TablesDir and FilesDir are required")
	}
	own, err := ReadAgentRuns(runDir)
	if err != nil {
		return nil, fmt.Errorf("aggregate leaderboard: %w", err)
	}
	var subs []Stored
	if opts.Inbox != nil {
		subs, _, err = ReplaySubmissions(ctx, opts.Inbox, opts.GeneratedAt)
		if err != nil {
			return nil, fmt.Errorf("aggregate leaderboard: %w", err)
		}
	}
	board, rows := build(own, subs, opts)

	cols, err := datasets.FromRows(datasets.LeaderboardResults, rows)
	if err != nil {
		return nil, fmt.Errorf("aggregate leaderboard: %w", err)
	}
	var pq bytes.Buffer
	if err := datasets.WriteParquet(&pq, cols); err != nil {
		return nil, fmt.Errorf("aggregate leaderboard: %w", err)
	}
	files, err := board.Files()
	if err != nil {
		return nil, err
	}
	files[svc100.CSVPath], files[svc100.SchemaPath] = svc100.CSV(), svc100.Schema()
	if err := writeFile(filepath.Join(opts.TablesDir, datasets.LeaderboardResults.Name+".parquet"), pq.Bytes()); err != nil {
		return nil, err
	}
	for _, name := range sortedKeys(files) {
		if err := writeFile(filepath.Join(opts.FilesDir, filepath.FromSlash(name)), files[name]); err != nil {
			return nil, err
		}
	}
	return board, nil
}

func writeFile(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("aggregate leaderboard: %w", err)
	}
	if err := durable.WriteFileAtomic(p, b, 0o644); err != nil {
		return fmt.Errorf("aggregate leaderboard: %w", err)
	}
	return nil
}

// Files returns the board's four answers by published path: publish.LeaderboardPath
// (without the grid), publish.LeaderboardStoresPath (with it), publish.LeaderboardCSVPath and publish.LeaderboardStoresCSVPath.
// The server calls it for a board with runs listed since the snapshot.
func (b *Board) Files() (map[string][]byte, error) {
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

// build computes the board, its grid and the table rows; it reads no
// file and no clock.
func build(own map[string]*AgentRun, subs []Stored, opts AggregateOptions) (*Board, []datasets.Row) {
	b := &Board{
		TestSet: svc100.TestSet, TestSetSize: svc100.Size, TestSetURL: "/" + svc100.CSVPath,
		FixtureStandIn: svc100.FixtureStandIn(), TestSetNote: testSetReal, SubmissionSchemaURL: "/" + svc100.SchemaPath,
		SnapshotDate: opts.Date, GeneratedAt: opts.GeneratedAt.UTC(), StoppedBeforePayment: true,
		Methodology: Methodology, Paths: []PathRow{},
		Unverified: Unverified{Note: unverifiedNote, Runs: []SubmissionRow{}},
		License:    datasets.License, Attribution: datasets.Attribution,
	}
	if b.FixtureStandIn {
		b.TestSetNote = testSetStandIn
	}
	var rows []datasets.Row
	for _, p := range Paths {
		r, ok := own[p.ID]
		if !ok {
			b.Paths = append(b.Paths, PathRow{ID: p.ID, Label: p.Label, Path: p.Path, Agent: p.Agent,
				Status: StatusNotRun, Verified: true, Evidence: EvidenceNotMeasured, MeasuredBy: strPtr(MeasuredBy),
				Stats: Stats{Outcomes: OutcomeCounts{}}})
			continue
		}
		s := r.Submission
		row := PathRow{ID: p.ID, Label: p.Label, Path: p.Path, Agent: s.Agent.Name, AgentVersion: s.Agent.Version, Status: StatusMeasured,
			RunID: &r.RunID, Verified: true, Evidence: EvidenceMeasured, MeasuredBy: strPtr(r.MeasuredBy),
			FixtureData: r.FixtureData, Method: r.Method, Stats: stats(s),
			StartedAt: timePtr(s.Run.StartedAt), FinishedAt: timePtr(s.Run.FinishedAt)}
		if r.FixtureData {
			// Generated from the fixture world's known answers: measured
			// by no one, so neither verified nor Measured.
			row.Status, row.Verified, row.Evidence, row.MeasuredBy = StatusFixture, false, EvidenceFixture, nil
		}
		b.Paths = append(b.Paths, row)
		rows = append(rows, resultRows(r.RunID, &p.ID, s, row.Verified, row.Evidence, r.FixtureData, r.Reasons, nil)...)
	}
	for _, st := range subs {
		b.Unverified.Runs = append(b.Unverified.Runs, NewSubmissionRow(st, true))
		sub := st.SubmittedAt
		rows = append(rows, resultRows(st.ID, nil, st.Submission, false, EvidenceSelfReported, false, nil, &sub)...)
	}
	b.rank()

	for _, st := range svc100.Stores() {
		g := GridRow{ID: st.ID, Host: st.Host, Name: st.Name, Category: st.Category, Outcomes: map[string]*string{}}
		for _, p := range Paths {
			g.Outcomes[p.ID] = nil
			if r, ok := own[p.ID]; ok {
				for _, res := range r.Submission.Results {
					if res.ID == st.ID {
						o := res.Outcome
						g.Outcomes[p.ID] = &o
					}
				}
			}
		}
		b.Stores = append(b.Stores, g)
	}
	return b, rows
}

// NewSubmissionRow is the board's row of an outside submission;
// inDataset says whether its results are in the snapshot's
// leaderboard_results table.
func NewSubmissionRow(st Stored, inDataset bool) SubmissionRow {
	s := st.Submission
	return SubmissionRow{
		ID: st.ID, Status: st.Status, Verified: false, Evidence: EvidenceSelfReported,
		Agent: PublicAgent{Name: s.Agent.Name, Version: s.Agent.Version, Builder: s.Agent.Builder, URL: s.Agent.URL, Model: s.Agent.Model},
		Path:  s.Agent.Path, Stats: stats(s),
		StartedAt: timePtr(s.Run.StartedAt), FinishedAt: timePtr(s.Run.FinishedAt),
		SubmittedAt: st.SubmittedAt.UTC(), InDataset: inDataset, Notes: s.Run.Notes,
	}
}

// AddRuns lists the outside runs of rows that the board does not list yet
// (by id), ranked with the others, and returns how many it added. The
// server lists runs accepted after the snapshot this way, at once.
func (b *Board) AddRuns(rows []SubmissionRow) int {
	listed := make(map[string]bool, len(b.Unverified.Runs))
	for _, r := range b.Unverified.Runs {
		listed[r.ID] = true
	}
	runs := slices.Clone(b.Unverified.Runs)
	added := 0
	for _, r := range rows {
		if listed[r.ID] {
			continue
		}
		listed[r.ID] = true
		runs = append(runs, r)
		added++
	}
	if added > 0 {
		b.Unverified.Runs = runs
		b.Paths = slices.Clone(b.Paths) // rank sets their ranks: a copied board leaves the original alone
		b.rank()
	}
	return added
}

// rank orders the outside runs (lower Wilson bound, then successes,
// higher first; then id, for a stable order) and sets the standard
// competition rank of every path and outside run: rows equal in lower
// bound and successes share a rank, and the next rank skips as many.
// Paths keep their published order.
func (b *Board) rank() {
	runs := b.Unverified.Runs
	sort.SliceStable(runs, func(i, j int) bool {
		if c := compareStats(runs[i].Stats, runs[j].Stats); c != 0 {
			return c < 0
		}
		return runs[i].ID < runs[j].ID
	})
	for i := range runs {
		r := 1
		for j := range runs {
			if compareStats(runs[j].Stats, runs[i].Stats) < 0 {
				r++
			}
		}
		runs[i].Rank = &r
	}
	b.Unverified.Count = len(runs)
	for i := range b.Paths {
		b.Paths[i].Rank = nil
		if b.Paths[i].Rate == nil {
			continue
		}
		r := 1
		for j := range b.Paths {
			if b.Paths[j].Rate != nil && compareStats(b.Paths[j].Stats, b.Paths[i].Stats) < 0 {
				r++
			}
		}
		b.Paths[i].Rank = &r
	}
}

// compareStats is negative when x ranks above y: a higher lower Wilson
// bound, then more cart successes; 0 when they tie.
func compareStats(x, y Stats) int {
	if lx, ly := low(x), low(y); lx != ly {
		if lx > ly {
			return -1
		}
		return 1
	}
	return y.CartSuccesses - x.CartSuccesses
}

func strPtr(s string) *string { return &s }

func low(s Stats) float64 {
	if s.Wilson95 == nil {
		return -1
	}
	return s.Wilson95.Low
}

func stats(s *Submission) Stats {
	st := Stats{N: len(s.Results)}
	for _, r := range s.Results {
		switch r.Outcome {
		case OutcomeAddedToCart:
			st.Outcomes.AddedToCart++
		case OutcomeCheckoutReached:
			st.Outcomes.CheckoutReached++
		case OutcomeNoCart:
			st.Outcomes.NoCart++
		case OutcomeBlocked:
			st.Outcomes.Blocked++
		case OutcomeError:
			st.Outcomes.Error++
		case OutcomeNotAttempted:
			st.Outcomes.NotAttempted++
		}
		if CartSuccess(r.Outcome) {
			st.CartSuccesses++
		}
		if t, ok := ParseTime(r.At); ok {
			if st.FirstAt == nil || t.Before(*st.FirstAt) {
				st.FirstAt = &t
			}
			if st.LastAt == nil || t.After(*st.LastAt) {
				t := t
				st.LastAt = &t
			}
		}
	}
	if lo, hi, ok := Wilson(st.CartSuccesses, st.N, Z95); ok {
		rate := round3(float64(st.CartSuccesses) / float64(st.N))
		st.Rate = &rate
		st.Wilson95 = &Interval{Low: round3(lo), High: round3(hi)}
	}
	return st
}

func timePtr(s string) *time.Time {
	t, ok := ParseTime(s)
	if !ok {
		return nil
	}
	t = t.Truncate(time.Microsecond)
	return &t
}

// resultRows turns one run into leaderboard_results rows.
func resultRows(runID string, pathID *string, s *Submission, verified bool, evidence string, fixture bool, reasons map[string]string, submitted *time.Time) []datasets.Row {
	var rows []datasets.Row
	for _, r := range s.Results {
		st, ok := svc100.ByID(r.ID)
		if !ok {
			continue // Parse refuses such ids
		}
		var reason any
		if v := reasons[r.ID]; v != "" {
			reason = v
		}
		rows = append(rows, datasets.Row{
			runID, r.ID, st.Host, pathID, s.Agent.Name, nullStr(s.Agent.Version), nullStr(s.Agent.Model), s.Agent.Path,
			verified, evidence, fixture, r.Outcome, CartSuccess(r.Outcome), reason,
			timePtr(r.At), r.Steps, r.Seconds, nullStr(r.EvidenceURL),
			timePtr(s.Run.StartedAt), timePtr(s.Run.FinishedAt), submitted,
		})
	}
	return rows
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// boardTable is the shape of leaderboard.csv: one row per own path, then
// one per outside submission, in the order of the JSON, with the JSON's
// rank.
var boardTable = &datasets.Table{
	Name:        "leaderboard",
	Description: "The leaderboard as CSV: the service's own paths, then unverified outside submissions.",
	Key:         []string{"row"},
	Columns: []datasets.Column{
		{Name: "rank", Type: datasets.Int64, Nullable: true, Description: "Standard competition rank within the board (svc or unverified) " +
			"by the lower Wilson 95% bound, then cart successes; equal rows share a rank (1, 2, 2, 4); empty for a path with no result. The JSON's rank."},
		{Name: "board", Type: datasets.String, Description: "svc (the service's own runs) or unverified (outside submissions)."},
		{Name: "id", Type: datasets.String, Description: "Path id or submission id."},
		{Name: "label", Type: datasets.String, Nullable: true, Description: "Path label."},
		{Name: "path", Type: datasets.String, Description: "Agent path."},
		{Name: "agent", Type: datasets.String, Description: "Agent name."},
		{Name: "agent_version", Type: datasets.String, Nullable: true, Description: "Agent version."},
		{Name: "agent_model", Type: datasets.String, Nullable: true, Description: "Model."},
		{Name: "run_id", Type: datasets.String, Nullable: true, Description: "Run id."},
		{Name: "status", Type: datasets.String, Description: "measured, fixture, not_run or unverified."},
		{Name: "verified", Type: datasets.Bool, Description: "The service's own measured run (false for fixture data and outside submissions)."},
		{Name: "evidence", Type: datasets.String, Description: "Evidence label: Measured, Fixture data, Not measured or Self-reported."},
		{Name: "fixture_data", Type: datasets.Bool, Description: "Fixture data: generated from the fixture world's known answers, not measured."},
		{Name: "n", Type: datasets.Int64, Description: "Results."},
		{Name: "cart_successes", Type: datasets.Int64, Description: "added_to_cart or checkout_reached."},
		{Name: "rate", Type: datasets.Float64, Nullable: true, Description: "cart_successes / n."},
		{Name: "wilson95_low", Type: datasets.Float64, Nullable: true, Description: "Wilson 95% lower bound."},
		{Name: "wilson95_high", Type: datasets.Float64, Nullable: true, Description: "Wilson 95% upper bound."},
		{Name: "added_to_cart", Type: datasets.Int64, Description: "Count."},
		{Name: "checkout_reached", Type: datasets.Int64, Description: "Count."},
		{Name: "no_cart", Type: datasets.Int64, Description: "Count."},
		{Name: "blocked", Type: datasets.Int64, Description: "Count."},
		{Name: "error", Type: datasets.Int64, Description: "Count."},
		{Name: "not_attempted", Type: datasets.Int64, Description: "Count."},
		{Name: "started_at", Type: datasets.Timestamp, Nullable: true, Description: "Run start."},
		{Name: "finished_at", Type: datasets.Timestamp, Nullable: true, Description: "Run end."},
		{Name: "submitted_at", Type: datasets.Timestamp, Nullable: true, Description: "Submission time."},
		{Name: "in_dataset", Type: datasets.Bool, Nullable: true, Description: "For an outside run: whether its results are in this snapshot's " +
			"leaderboard_results table (false: accepted since, listed at once, in the dataset from the next snapshot); empty for paths."},
		{Name: "fixture_stand_in", Type: datasets.Bool, Description: "The test set is the fixture world's stand-in for SVC-100 v1 " +
			"(synthetic .test stores), not real stores."},
		{Name: "row", Type: datasets.Int64, Description: "Row order, the JSON's: the service's paths in published order, then the unverified runs by rank. Not a rank."},
	},
}

func statsCells(s Stats) datasets.Row {
	var rate, lo, hi any
	if s.Rate != nil {
		rate, lo, hi = *s.Rate, s.Wilson95.Low, s.Wilson95.High
	}
	o := s.Outcomes
	return datasets.Row{int64(s.N), int64(s.CartSuccesses), rate, lo, hi,
		int64(o.AddedToCart), int64(o.CheckoutReached), int64(o.NoCart), int64(o.Blocked), int64(o.Error), int64(o.NotAttempted)}
}

func boardCSV(b *Board) ([]byte, error) {
	var rows []datasets.Row
	for _, p := range b.Paths {
		row := datasets.Row{rankCell(p.Rank), "svc", p.ID, p.Label, p.Path, p.Agent, nullStr(p.AgentVersion), nil, p.RunID,
			p.Status, p.Verified, p.Evidence, p.FixtureData}
		row = append(row, statsCells(p.Stats)...)
		rows = append(rows, append(row, p.StartedAt, p.FinishedAt, nil, nil, b.FixtureStandIn, int64(len(rows)+1)))
	}
	for _, s := range b.Unverified.Runs {
		row := datasets.Row{rankCell(s.Rank), "unverified", s.ID, nil, s.Path, s.Agent.Name,
			nullStr(s.Agent.Version), nullStr(s.Agent.Model), s.ID, s.Status, false, s.Evidence, false}
		row = append(row, statsCells(s.Stats)...)
		rows = append(rows, append(row, s.StartedAt, s.FinishedAt, s.SubmittedAt, s.InDataset, b.FixtureStandIn, int64(len(rows)+1)))
	}
	return writeCSV(boardTable, rows)
}

func rankCell(r *int) any {
	if r == nil {
		return nil
	}
	return int64(*r)
}

// gridTable is the shape of leaderboard-stores.csv: the 100-row grid.
var gridTable = func() *datasets.Table {
	t := &datasets.Table{
		Name:        "leaderboard_stores",
		Description: "The per-store grid: each SVC-100 v1 store with the outcome of each of the service's own paths.",
		Key:         []string{"id"},
		Columns: []datasets.Column{
			{Name: "id", Type: datasets.String, Description: "SVC-100 v1 store id."},
			{Name: "host", Type: datasets.String, Description: "Store host."},
			{Name: "name", Type: datasets.String, Description: "Store name."},
			{Name: "category", Type: datasets.String, Description: "Category."},
		},
	}
	for _, p := range Paths {
		t.Columns = append(t.Columns, datasets.Column{Name: csvName(p.ID), Type: datasets.String, Nullable: true,
			Description: p.Label + " outcome; empty when the path has no result for the store."})
	}
	t.Columns = append(t.Columns, datasets.Column{Name: "fixture_stand_in", Type: datasets.Bool,
		Description: "The store is one of the fixture world's synthetic stand-ins for SVC-100 v1 (a .test name), not a real store."})
	return t
}()

func csvName(id string) string { return string(bytes.ReplaceAll([]byte(id), []byte("-"), []byte("_"))) }

func gridCSV(grid []GridRow, standIn bool) ([]byte, error) {
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
