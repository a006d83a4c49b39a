package leaderboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"svc/pipeline/inbox"
)

// Record returns the inbox record (inbox.TypeLeaderboardSubmission) of an
// accepted submission. The server appends it before it answers 201; the
// pipeline reads it back with ReplaySubmissions.
func (s *Submission) Record() inbox.LeaderboardSubmission {
	body := s.raw
	if body == nil {
		body, _ = json.Marshal(s)
	}
	return inbox.LeaderboardSubmission{ID: s.ID(), Key: s.Key(), Status: StatusUnverified, Body: body}
}

// Stored is an outside submission read back from the inbox, without
// its contact.
type Stored struct {
	ID          string
	Key         string
	Status      string
	SubmittedAt time.Time
	Submission  *Submission // Public(): Contact is always ""
}

// ReplaySubmissions reads the accepted submissions of the inbox whose
// record time is not after until (zero: no bound), oldest first. Each body
// is validated again with Parse; a record that no longer parses, or that
// repeats an earlier key, is skipped and counted in skipped. An empty inbox is no submissions.
func ReplaySubmissions(ctx context.Context, in inbox.Reader, until time.Time) (subs []Stored, skipped int, err error) {
	seen := map[string]bool{}
	err = in.Records(ctx, inbox.TypeLeaderboardSubmission, until, func(rec inbox.Record) error {
		var sr inbox.LeaderboardSubmission
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
		return nil, 0, fmt.Errorf("replay leaderboard submissions: %w", err)
	}
	return subs, skipped, nil
}
