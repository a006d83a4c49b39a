package publish

import "time"

// The leaderboard document (GET /api/leaderboard, spec 2.10): the
// aggregate stage builds it (pipeline/leaderboard), the server lists the
// runs accepted since the snapshot in it, the pages render it. Its paths
// are LeaderboardPath and LeaderboardStoresPath (documents.go); its CSV
// tables are datasets.LeaderboardBoard and datasets.LeaderboardStores.

// Leaderboard is the leaderboard document (GET /api/leaderboard). Stores is
// set only in the stores=1 variant.
type Leaderboard struct {
	TestSet     string `json:"testSet"`
	TestSetSize int    `json:"testSetSize"`
	TestSetURL  string `json:"testSetUrl"`
	// FixtureStandIn is true when the test set is the fixture world's
	// stand-in for SVC-100 v1 (svc100.FixtureStandIn): synthetic stores,
	// not real ones. TestSetNote says which in words.
	FixtureStandIn       bool           `json:"fixtureStandIn"`
	TestSetNote          string         `json:"testSetNote"`
	SubmissionSchemaURL  string         `json:"submissionSchemaUrl"`
	SnapshotDate         string         `json:"snapshotDate"`
	GeneratedAt          time.Time      `json:"generatedAt"`
	StoppedBeforePayment bool           `json:"stoppedBeforePayment"`
	Methodology          string         `json:"methodology"`
	Paths                []AgentPathRow `json:"paths"`
	Unverified           UnverifiedRuns `json:"unverified"`
	License              string         `json:"license"`
	Attribution          string         `json:"attribution"`
	Stores               []GridRow      `json:"stores,omitempty"`
}

// RunStats are the figures of one run. n counts the stores the run
// attempted: a not_attempted result is unmeasured, so it is counted in
// NotAttempted, beside n, and never in n, the rate or the interval. A
// path that was not run, or a run that attempted no store, has n 0 and
// every figure null: nothing unmeasured is published as a measured zero.
type RunStats struct {
	N             int       `json:"n"`
	CartSuccesses *int      `json:"cartSuccesses"` // null when n is 0
	Rate          *float64  `json:"rate"`          // cartSuccesses / n; null when n is 0
	Wilson95      *Interval `json:"wilson95"`      // null when n is 0
	// Outcomes counts every result by outcome, not_attempted included;
	// null when the run reported no result (a path not run).
	Outcomes *OutcomeCounts `json:"outcomes"`
	// NotAttempted is what the run reported but did not attempt, with
	// why; null when the run reported no result.
	NotAttempted *NotAttempted `json:"notAttempted"`
	FirstAt      *time.Time    `json:"firstAttemptAt"`
	LastAt       *time.Time    `json:"lastAttemptAt"`
}

// NotAttempted counts the not_attempted results of a run, kept out of n,
// the rate and the interval, and says why.
type NotAttempted struct {
	Count int `json:"count"`
	// Reasons count the results per reason, most first, then by reason;
	// ReasonUnspecified for a result that gave none (an outside
	// submission gives none). Empty when Count is 0.
	Reasons []ReasonCount `json:"reasons"`
}

// ReasonCount is how many not_attempted results gave one reason.
type ReasonCount struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// ReasonUnspecified is the reason of a not_attempted result that gave none.
const ReasonUnspecified = "unspecified"

// Successes is the count of cart successes, 0 for a run with no result.
func (s RunStats) Successes() int {
	if s.CartSuccesses == nil {
		return 0
	}
	return *s.CartSuccesses
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

// AgentPathRow is one of the service's own agent paths.
type AgentPathRow struct {
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
	// leaderboard.Methodology); null when it has no result.
	Rank *int `json:"rank"`
	RunStats
	StartedAt  *time.Time `json:"startedAt"`
	FinishedAt *time.Time `json:"finishedAt"`
}

// UnverifiedRuns holds the outside submissions, apart from the service's runs.
type UnverifiedRuns struct {
	Note  string          `json:"note"`
	Count int             `json:"count"`
	Runs  []SubmissionRow `json:"runs"`
}

// SubmissionRow is one outside submission (never its contact).
type SubmissionRow struct {
	ID string `json:"id"`
	// Rank is the run's standard competition rank among the unverified
	// runs (see leaderboard.Methodology).
	Rank     *int        `json:"rank"`
	Status   string      `json:"status"`
	Verified bool        `json:"verified"`
	Evidence string      `json:"evidence"`
	Agent    PublicAgent `json:"agent"`
	Path     string      `json:"path"`
	RunStats
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
