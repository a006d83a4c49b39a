package inbox

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"
)

// FollowGap is how long Follow waits for a record whose id was skipped: a
// transaction that took a lower id than one already seen may still commit
// (ids are handed out at insert, rows become visible at commit). A hole
// still empty after FollowGap is a rolled-back insert and is given up.
const FollowGap = 30 * time.Second

// maxGaps bounds the holes Follow waits for; past it, the oldest are given
// up first.
const maxGaps = 1024

// followPage is how many records one query of Follow reads.
const followPage = 5000

// follower is where Follow has got to: the highest id passed on, and the
// lower ids not seen yet (holes), with when each was first missed.
type follower struct {
	mu     sync.Mutex // one Follow at a time
	cursor int64
	gaps   map[int64]time.Time
}

// Follow passes on the records above the cursor and those filling a hole,
// a page at a time: ids only grow, so one index range scan (and a lookup
// per hole) reads what is new, whatever the table's size. An error from fn
// stops it; the rest of that page is not passed again.
func (p *Postgres) Follow(ctx context.Context, fn func(Record) error) error {
	f := &p.follow
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gaps == nil {
		f.gaps = map[int64]time.Time{}
	}
	now := time.Now()
	for {
		holes := make([]int64, 0, len(f.gaps))
		for id, since := range f.gaps {
			if now.Sub(since) >= FollowGap {
				delete(f.gaps, id)
				continue
			}
			holes = append(holes, id)
		}
		rows, err := p.pool.Query(ctx, `SELECT id, type, at, data::text FROM records
			WHERE id > $1 OR id = ANY($2::bigint[]) ORDER BY id LIMIT $3`, f.cursor, holes, followPage)
		if err != nil {
			return fmt.Errorf("follow state: %w", err)
		}
		var n int
		var recs []Record
		for rows.Next() {
			var id int64
			var rec Record
			var data string
			if err := rows.Scan(&id, &rec.Type, &rec.Time, &data); err != nil {
				rows.Close()
				return fmt.Errorf("follow state: %w", err)
			}
			n++
			if id <= f.cursor {
				delete(f.gaps, id) // a hole filled
			} else {
				if f.cursor > 0 {
					for h := max(f.cursor+1, id-maxGaps); h < id; h++ {
						f.gaps[h] = now
					}
				}
				f.cursor = id
			}
			rec.Time, rec.Data = rec.Time.UTC(), json.RawMessage(data)
			recs = append(recs, rec)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("follow state: %w", err)
		}
		f.trimGaps()
		for _, rec := range recs {
			if err := fn(rec); err != nil {
				return err
			}
		}
		if n < followPage {
			return nil
		}
	}
}

// trimGaps gives up the oldest holes past maxGaps (the lowest ids).
func (f *follower) trimGaps() {
	if len(f.gaps) <= maxGaps {
		return
	}
	ids := make([]int64, 0, len(f.gaps))
	for id := range f.gaps {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids[:len(ids)-maxGaps] {
		delete(f.gaps, id)
	}
}
