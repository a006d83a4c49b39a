package serve

import (
	"encoding/json"
	"sync"
	"time"

	"svc/pipeline/check"
	"svc/pipeline/inbox"
	"svc/serve/readlayer"
)

// readState is what the saved-data reads keep from the state log, rebuilt
// by replay at start:
//
//   - history: the newest live check of each host (GET /api/agent-checkout
//     saves every fresh check), so a precheck or store card shows a live
//     check newer than the snapshot, even after a restart. Entries older
//     than historyTTL, or not newer than the snapshot's row of the host,
//     are dropped: the pipeline brings fresh checks into the next snapshot.
//   - reachable: when a host's homepage last answered a plain HTTPS GET, as
//     store submission saw it (a submission is accepted only then). It is
//     the plain-HTTP evidence of the precheck fallback and of
//     lastReachableCheck.
//   - precheck counts: the daily per-host table of spec 2.3, one row per
//     host and UTC day, counting every precheck served. A request only adds
//     to pending here; the sync loop writes pending to the state (a record
//     per host and day to the file log every minute, or one upsert into the
//     shared table every Config.Sync), and Close writes the rest.
type readState struct {
	mu        sync.Mutex
	history   map[string]liveEntry
	reachable map[string]time.Time

	statsMu   sync.Mutex
	served    int64                 // prechecks counted, all days (the file log's)
	firstDay  string                // the first day with a row
	today     string                // the UTC day of servedDay
	servedDay int64                 // prechecks counted on today
	pending   map[precheckKey]int64 // counted, not yet written to the state
}

// precheckKey is one row of the daily per-host table.
type precheckKey struct{ day, host string }

// maxPending is how many rows may wait for the sync loop before a request
// wakes it early.
const maxPending = 4096

// liveEntry is one host's newest live check, coded compactly.
type liveEntry struct {
	at  time.Time
	rec []byte // readlayer.EncodeLive of readlayer.FromCheck
}

// historyTTL is how long a live check stays in the history when no newer
// snapshot row replaces it.
const historyTTL = 30 * 24 * time.Hour

func newReadState() *readState {
	return &readState{history: map[string]liveEntry{}, reachable: map[string]time.Time{},
		pending: map[precheckKey]int64{}}
}

func (rs *readState) replay(rec inbox.Record, now time.Time) {
	switch rec.Type {
	case inbox.TypeCheck:
		var r check.Result
		if json.Unmarshal(rec.Data, &r) == nil && r.Host != "" && now.Sub(r.CheckedAt) < historyTTL {
			rs.addLive(&r)
		}
	case inbox.TypeStoreSubmission:
		var sr inbox.StoreSubmission
		if json.Unmarshal(rec.Data, &sr) != nil {
			return
		}
		for _, h := range sr.Hosts {
			rs.noteReachable(h.Host, rec.Time)
		}
	case inbox.TypePrecheckRow:
		var pr inbox.PrecheckRow
		if json.Unmarshal(rec.Data, &pr) == nil && pr.Host != "" && pr.Day != "" {
			rs.statsMu.Lock()
			rs.addCount(pr.Day, pr.Count())
			rs.statsMu.Unlock()
		}
	}
}

// addLive keeps r when it is the host's newest live check.
func (rs *readState) addLive(r *check.Result) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if old, ok := rs.history[r.Host]; ok && !r.CheckedAt.After(old.at) {
		return
	}
	row := readlayer.FromCheck(r, nil)
	rs.history[r.Host] = liveEntry{at: r.CheckedAt, rec: readlayer.EncodeLive(row)}
}

func (rs *readState) noteReachable(host string, at time.Time) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if at.After(rs.reachable[host]) {
		rs.reachable[host] = at
	}
}

// liveRow returns host's newest saved live check as a row (identity fields
// taken from dir, the snapshot row, when there is one), or nil.
func (s *Server) liveRow(host string, dir *readlayer.Row) *readlayer.Row {
	var newest *readlayer.Row
	var at time.Time
	if r, ok := s.cache.latest(host); ok {
		newest, at = readlayer.FromCheck(r, dir), r.CheckedAt
	}
	s.reads.mu.Lock()
	e, ok := s.reads.history[host]
	s.reads.mu.Unlock()
	if ok && (newest == nil || e.at.After(at)) {
		r, err := readlayer.DecodeLive(host, e.rec)
		if err == nil {
			if dir != nil {
				r.CopyFields(dir, readlayer.FName, readlayer.FCategory, readlayer.FSource, readlayer.FSvc100ID, readlayer.FAddedOn, readlayer.FSvcURL)
			} else {
				r.SetNull(readlayer.FSource)
			}
			r.Live = true
			newest = r
		}
	}
	return newest
}

// lastReachable returns when host's homepage last answered plain HTTPS
// (zero when never seen).
func (rs *readState) lastReachable(host string) time.Time {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.reachable[host]
}

// pruneHistory drops live checks the snapshot has caught up with, and
// those past historyTTL.
func (rs *readState) pruneHistory(read readlayer.Source, now time.Time) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for host, e := range rs.history {
		if now.Sub(e.at) >= historyTTL {
			delete(rs.history, host)
			continue
		}
		if read == nil {
			continue
		}
		if r, err := read.Lookup(host); err == nil && r != nil {
			if t := r.Time(readlayer.FCheckedAt); t != nil && !t.Before(e.at) {
				delete(rs.history, host)
			}
		}
	}
}

// addCount counts n prechecks of day; the caller holds statsMu.
func (rs *readState) addCount(day string, n int64) {
	if day > rs.today {
		rs.today, rs.servedDay = day, 0
	}
	if day == rs.today {
		rs.servedDay += n
	}
	rs.served += n
	if rs.firstDay == "" || day < rs.firstDay {
		rs.firstDay = day
	}
}
