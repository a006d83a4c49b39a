package leaderboard

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"svc/serve/state"
)

// SubmissionRecordType is the state-log record type of an accepted outside
// submission. The server (POST /api/leaderboard/submit) appends one with
// state.Log.Append(SubmissionRecordType, receivedAt, sub.Record()) before
// it answers 201; the pipeline reads them back with ReplaySubmissions. The
// record's time is the submission time.
const SubmissionRecordType = "leaderboard_submission"

// SubmissionRecord is the data of a SubmissionRecordType record. Body is
// the submission as accepted, private contact included: the state log is
// never published as is, and the pipeline drops the contact on reading.
type SubmissionRecord struct {
	ID     string          `json:"id"`
	Key    string          `json:"key"`
	Status string          `json:"status"`
	Body   json.RawMessage `json:"body"`
}

// Record returns the state-log record of an accepted submission.
func (s *Submission) Record() SubmissionRecord {
	body := s.raw
	if body == nil {
		body, _ = json.Marshal(s)
	}
	return SubmissionRecord{ID: s.ID(), Key: s.Key(), Status: StatusUnverified, Body: body}
}

// Stored is an outside submission read back from the state log, without
// its contact.
type Stored struct {
	ID          string
	Key         string
	Status      string
	SubmittedAt time.Time
	Submission  *Submission // Public(): Contact is always ""
}

// ReplaySubmissions reads the accepted submissions of the state log under
// stateDir (DIR/state) whose record time is not after until (zero: no
// bound), oldest first. Each body is validated again with Parse; a record
// that no longer parses, or that repeats an earlier key, is skipped and
// counted in skipped. A missing log is no submissions.
func ReplaySubmissions(stateDir string, until time.Time) (subs []Stored, skipped int, err error) {
	seen := map[string]bool{}
	err = state.Replay(stateDir, func(rec state.Record) error {
		if rec.Type != SubmissionRecordType {
			return nil
		}
		if !until.IsZero() && rec.Time.After(until) {
			return nil
		}
		var sr SubmissionRecord
		if json.Unmarshal(rec.Data, &sr) != nil {
			skipped++
			return nil
		}
		sub, perr := Parse(sr.Body)
		if perr != nil {
			if errors.Is(perr, ErrInvalid) || errors.Is(perr, ErrTooLarge) {
				skipped++
				return nil
			}
			return perr
		}
		key := sub.Key()
		if seen[key] {
			skipped++
			return nil
		}
		seen[key] = true
		status := sr.Status
		if status == "" {
			status = StatusUnverified
		}
		subs = append(subs, Stored{ID: sub.ID(), Key: key, Status: status, SubmittedAt: rec.Time.UTC(), Submission: sub.Public()})
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("replay leaderboard submissions %s: %w", stateDir, err)
	}
	return subs, skipped, nil
}
