package leaderboard

import (
	"sort"
	"time"

	"svc/datasets"
	"svc/datasets/svc100"
	"svc/publish"
)

const unverifiedNote = "Outside submissions: self-reported and unverified until the service re-runs a sample. Kept apart from the service's own runs. " +
	"A run is listed as soon as it is accepted; one accepted after the snapshot (inDataset false) joins the dataset's leaderboard_results table with the next snapshot."

// Test-set notes (publish.Leaderboard.TestSetNote).
const (
	testSetReal    = "The fixed SVC-100 v1 list of 100 real stores selling to the US; each row of its CSV names the public page it was curated from and whether that page was checked."
	testSetStandIn = "Fixture stand-in: these 100 stores are synthetic stores of svc's fixture world on reserved .test names, " +
		"standing in for the real SVC-100 v1 list. No figure here is about a real store."
)

// build computes the board, its grid and the table rows; it reads no
// file and no clock.
func build(own map[string]*AgentRun, subs []Stored, opts AggregateOptions) (*publish.Leaderboard, []datasets.Row) {
	b := &publish.Leaderboard{
		TestSet: svc100.TestSet, TestSetSize: svc100.Size, TestSetURL: "/" + svc100.CSVPath,
		FixtureStandIn: svc100.FixtureStandIn(), TestSetNote: testSetReal, SubmissionSchemaURL: "/" + svc100.SchemaPath,
		SnapshotDate: opts.Date, GeneratedAt: opts.GeneratedAt.UTC(), StoppedBeforePayment: true,
		Methodology: Methodology, Paths: []publish.AgentPathRow{},
		Unverified: publish.UnverifiedRuns{Note: unverifiedNote, Runs: []publish.SubmissionRow{}},
		License:    datasets.License, Attribution: datasets.Attribution,
	}
	if b.FixtureStandIn {
		b.TestSetNote = testSetStandIn
	}
	var rows []datasets.Row
	for _, p := range Paths {
		r, ok := own[p.ID]
		if !ok {
			b.Paths = append(b.Paths, publish.AgentPathRow{ID: p.ID, Label: p.Label, Path: p.Path, Agent: p.Agent,
				Status: StatusNotRun, Verified: true, Evidence: EvidenceNotMeasured, MeasuredBy: strPtr(MeasuredBy),
				RunStats: publish.RunStats{}})
			continue
		}
		s := r.Submission
		row := publish.AgentPathRow{ID: p.ID, Label: p.Label, Path: p.Path, Agent: s.Agent.Name, AgentVersion: s.Agent.Version, Status: StatusMeasured,
			RunID: &r.RunID, Verified: true, Evidence: EvidenceMeasured, MeasuredBy: strPtr(r.MeasuredBy),
			Method: r.Method, RunStats: stats(s, r.Reasons),
			StartedAt: timePtr(s.Run.StartedAt), FinishedAt: timePtr(s.Run.FinishedAt)}
		if row.N == 0 {
			// It ran but attempted no store: unmeasured, never 0 %.
			row.Status, row.Evidence = StatusNotAttempted, EvidenceNotMeasured
		}
		b.Paths = append(b.Paths, row)
		rows = append(rows, resultRows(r.RunID, &p.ID, s, row.Verified, row.Evidence, false, r.Reasons, nil)...)
	}
	for _, st := range subs {
		b.Unverified.Runs = append(b.Unverified.Runs, NewSubmissionRow(st, true))
		sub := st.SubmittedAt
		rows = append(rows, resultRows(st.ID, nil, st.Submission, false, EvidenceSelfReported, false, nil, &sub)...)
	}
	rank(b)

	for _, st := range svc100.Stores() {
		g := publish.GridRow{ID: st.ID, Host: st.Host, Name: st.Name, Category: st.Category, Outcomes: map[string]*string{}}
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
func NewSubmissionRow(st Stored, inDataset bool) publish.SubmissionRow {
	s := st.Submission
	return publish.SubmissionRow{
		ID: st.ID, Status: st.Status, Verified: false, Evidence: EvidenceSelfReported,
		Agent: publish.PublicAgent{Name: s.Agent.Name, Version: s.Agent.Version, Builder: s.Agent.Builder, URL: s.Agent.URL, Model: s.Agent.Model},
		Path:  s.Agent.Path, RunStats: stats(s, nil),
		StartedAt: timePtr(s.Run.StartedAt), FinishedAt: timePtr(s.Run.FinishedAt),
		SubmittedAt: st.SubmittedAt.UTC(), InDataset: inDataset, Notes: s.Run.Notes,
	}
}

func strPtr(s string) *string { return &s }

// stats are the figures of a run: n counts the attempted results; a
// not_attempted result is counted apart (with its reason, from reasons
// by store id when the run gave one) and enters neither n, the rate nor
// the interval.
func stats(s *Submission, reasons map[string]string) publish.RunStats {
	var st publish.RunStats
	if len(s.Results) == 0 {
		return st
	}
	var o publish.OutcomeCounts
	na := &publish.NotAttempted{Reasons: []publish.ReasonCount{}}
	st.Outcomes, st.NotAttempted = &o, na
	successes := 0
	why := map[string]int{}
	for _, r := range s.Results {
		switch r.Outcome {
		case OutcomeAddedToCart:
			o.AddedToCart++
		case OutcomeCheckoutReached:
			o.CheckoutReached++
		case OutcomeNoCart:
			o.NoCart++
		case OutcomeBlocked:
			o.Blocked++
		case OutcomeError:
			o.Error++
		case OutcomeNotAttempted:
			o.NotAttempted++
		}
		if r.Outcome == OutcomeNotAttempted {
			reason := reasons[r.ID]
			if reason == "" {
				reason = publish.ReasonUnspecified
			}
			why[reason]++
			continue
		}
		st.N++
		if CartSuccess(r.Outcome) {
			successes++
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
	na.Count = o.NotAttempted
	for reason, n := range why {
		na.Reasons = append(na.Reasons, publish.ReasonCount{Reason: reason, Count: n})
	}
	sort.Slice(na.Reasons, func(i, j int) bool {
		if a, b := na.Reasons[i], na.Reasons[j]; a.Count != b.Count {
			return a.Count > b.Count
		}
		return na.Reasons[i].Reason < na.Reasons[j].Reason
	})
	if lo, hi, ok := Wilson(successes, st.N, Z95); ok {
		rate := round3(float64(successes) / float64(st.N))
		st.CartSuccesses, st.Rate = &successes, &rate
		st.Wilson95 = &publish.Interval{Low: round3(lo), High: round3(hi)}
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
		var success any = CartSuccess(r.Outcome)
		if r.Outcome == OutcomeNotAttempted {
			success = nil // unmeasured: out of any rate taken over the table
		}
		rows = append(rows, datasets.Row{
			runID, r.ID, st.Host, pathID, s.Agent.Name, nullStr(s.Agent.Version), nullStr(s.Agent.Model), s.Agent.Path,
			verified, evidence, fixture, r.Outcome, success, reason,
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
