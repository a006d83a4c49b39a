package serve

import (
	"context"
	"time"

	"svc/pipeline/inbox"
)

// The sync loop: every Config.Sync the server writes what it counted
// without writing at once (the precheck counts; to the file log every
// fileFlushEvery), and, with state shared in
// PostgreSQL, folds in the records other replicas committed since the last
// tick: their live checks (shown on precheck and store cards), accepted
// store submissions and leaderboard runs (listed on the board). So a
// replica lists what another accepted within Config.Sync plus one query.

// defaultSync is Config.Sync's default.
const defaultSync = 2 * time.Second

// fileFlushEvery is how often the file log gets the precheck counts: each
// flush writes a record per host and day counted since the last, and every
// record is read again at each start, so the log grows with the flushes, not
// the requests. A killed server loses at most this interval's counts.
const fileFlushEvery = time.Minute

func (s *Server) startSync(every time.Duration) {
	s.syncWake = make(chan struct{}, 1)
	s.syncStop, s.syncDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.syncDone)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-s.syncStop:
				return
			case <-t.C:
			case <-s.syncWake:
			}
			s.sync(context.Background())
		}
	}()
}

// stopSync stops the loop and writes what it had left.
func (s *Server) stopSync() {
	if s.syncStop == nil {
		return
	}
	close(s.syncStop)
	<-s.syncDone
	s.syncStop = nil
	s.flushPrechecks(context.Background())
}

// wakeSync runs the loop now (when it is not running already).
func (s *Server) wakeSync() {
	select {
	case s.syncWake <- struct{}{}:
	default:
	}
}

// sync is one tick of the loop.
func (s *Server) sync(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if s.shared != nil || s.now().Sub(s.lastFlush) >= fileFlushEvery || s.pendingFull() {
		s.lastFlush = s.now()
		s.flushPrechecks(ctx)
	}
	if s.shared != nil {
		if err := s.shared.Follow(ctx, s.follow); err != nil {
			s.log.Warn("read other replicas' records", "error", err)
		}
	}
}

// follow folds one record another replica (or this one) committed into
// the listings. Every step is idempotent, so this replica's own records,
// already applied when they were accepted, change nothing. The daily
// counters are left out: with shared state they live in the database.
func (s *Server) follow(rec inbox.Record) error {
	s.cache.replay(rec, s.now())
	s.subs.replay(rec)
	if rec.Type != inbox.TypePrecheckRow {
		s.reads.replay(rec, s.now())
	}
	return nil
}

// pendingFull reports whether maxPending rows wait for a flush.
func (s *Server) pendingFull() bool {
	s.reads.statsMu.Lock()
	defer s.reads.statsMu.Unlock()
	return len(s.reads.pending) >= maxPending
}

// flushPrechecks writes the precheck counts taken since the last flush: a
// record per host and day in the file log (Note: a counter is not worth an
// fsync), or one atomic upsert of every row into the shared table. Counts
// that cannot be written are kept for the next tick.
func (s *Server) flushPrechecks(ctx context.Context) {
	rs := s.reads
	rs.statsMu.Lock()
	if len(rs.pending) == 0 {
		rs.statsMu.Unlock()
		return
	}
	batch := rs.pending
	rs.pending = map[precheckKey]int64{}
	rs.statsMu.Unlock()
	rows := make([]inbox.PrecheckRow, 0, len(batch))
	for k, n := range batch {
		rows = append(rows, inbox.PrecheckRow{Host: k.host, Day: k.day, N: n})
	}
	var err error
	if s.shared != nil {
		err = s.shared.CountPrechecks(ctx, rows)
	} else {
		now := s.now()
		for i, r := range rows {
			if err = s.state.Note(ctx, inbox.TypePrecheckRow, now, r); err != nil {
				rows = rows[i:]
				break
			}
		}
	}
	if err == nil {
		return
	}
	s.log.Error("save precheck counts", "error", err)
	rs.statsMu.Lock()
	for _, r := range rows {
		rs.pending[precheckKey{day: r.Day, host: r.Host}] += r.N
	}
	rs.statsMu.Unlock()
}
