package leaderboard

import (
	"slices"
	"sort"

	"svc/publish"
)

// AddRuns lists the outside runs of rows that the board does not list yet
// (by id), ranked with the others, and returns how many it added. The
// server lists runs accepted after the snapshot this way, at once.
func AddRuns(b *publish.Leaderboard, rows []publish.SubmissionRow) int {
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
		rank(b)
	}
	return added
}

// rank orders the outside runs (lower Wilson bound, then successes,
// higher first; then id, for a stable order) and sets the standard
// competition rank of every path and outside run: rows equal in lower
// bound and successes share a rank, and the next rank skips as many.
// Paths keep their published order.
func rank(b *publish.Leaderboard) {
	runs := b.Unverified.Runs
	sort.SliceStable(runs, func(i, j int) bool {
		if c := compareStats(runs[i].RunStats, runs[j].RunStats); c != 0 {
			return c < 0
		}
		return runs[i].ID < runs[j].ID
	})
	for i := range runs {
		r := 1
		for j := range runs {
			if compareStats(runs[j].RunStats, runs[i].RunStats) < 0 {
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
			if b.Paths[j].Rate != nil && compareStats(b.Paths[j].RunStats, b.Paths[i].RunStats) < 0 {
				r++
			}
		}
		b.Paths[i].Rank = &r
	}
}

// compareStats is negative when x ranks above y: a higher lower Wilson
// bound, then more cart successes; 0 when they tie.
func compareStats(x, y publish.RunStats) int {
	if lx, ly := low(x), low(y); lx != ly {
		if lx > ly {
			return -1
		}
		return 1
	}
	return y.Successes() - x.Successes()
}

func low(s publish.RunStats) float64 {
	if s.Wilson95 == nil {
		return -1
	}
	return s.Wilson95.Low
}
