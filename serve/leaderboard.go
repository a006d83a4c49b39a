package serve

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"

	"svc/pipeline/inbox"
	"svc/pipeline/leaderboard"
	"svc/pipeline/pages"
	"svc/publish"
	"svc/serve/readlayer"
)

// The leaderboard as served (spec 2.10, 3): the snapshot's board, with
// every outside run accepted since listed at once, as self-reported and
// unverified, apart from the service's own paths. The runs come from the
// state log (replayed at start, appended on each 201), so a restart lists
// them again; a run the snapshot already lists (by id) is never listed
// twice, and the next snapshot lists the runs it read from the same log.

// liveRuns are the outside runs this server's state log accepted.
type liveRuns struct {
	mu   sync.Mutex
	rows []publish.SubmissionRow // oldest first; each id once
	at   map[string]time.Time    // id -> when it was accepted
	gen  uint64                  // bumped on every run added
	base *baseBoard              // the snapshot's board, read once per version
	last *boardAnswers           // the answers of the last (snapshot, gen)
}

// baseBoard is the board a snapshot published (with its grid); board is
// nil when the snapshot has none, or none that can be read.
type baseBoard struct {
	version string
	board   *publish.Leaderboard
}

// boardAnswers are the leaderboard's answers for one snapshot and one set
// of live runs.
type boardAnswers struct {
	version string
	gen     uint64
	// board is set when the snapshot publishes a leaderboard to list runs
	// on; files replaces its published answers when runs were added.
	board bool
	files map[string]*file
}

func newLiveRuns() *liveRuns { return &liveRuns{at: map[string]time.Time{}} }

// add lists one accepted run; a second record of an id is ignored.
func (l *liveRuns) add(row publish.SubmissionRow) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.at[row.ID]; ok {
		return
	}
	l.at[row.ID] = row.SubmittedAt
	l.rows = append(l.rows, row)
	l.gen++
}

// replay lists the run of a leaderboard record of the state log, read
// back as the pipeline reads it (leaderboard.ReplaySubmissions): a body
// that no longer parses is not listed.
func (l *liveRuns) replay(rec inbox.Record) {
	if rec.Type != inbox.TypeLeaderboardSubmission {
		return
	}
	var sr inbox.LeaderboardSubmission
	if json.Unmarshal(rec.Data, &sr) != nil {
		return
	}
	sub, err := leaderboard.Parse(sr.Body)
	if err != nil {
		return
	}
	status := sr.Status
	if status == "" {
		status = leaderboard.StatusUnverified
	}
	l.add(leaderboard.NewSubmissionRow(leaderboard.Stored{ID: sub.ID(), Key: sub.Key(), Status: status,
		SubmittedAt: rec.Time.UTC(), Submission: sub.Public()}, false))
}

// isBoardFile reports whether name is one of the leaderboard's answers.
func isBoardFile(name string) bool {
	switch name {
	case publish.LeaderboardPath, publish.LeaderboardStoresPath, publish.LeaderboardCSVPath, publish.LeaderboardStoresCSVPath, pages.LeaderboardFile:
		return true
	}
	return false
}

// file returns the current answer at a published path: the snapshot's
// file, or for the leaderboard's answers the board with the live runs.
// nil when there is none.
func (s *Server) file(name string) *file {
	snap := s.current()
	if isBoardFile(name) {
		if f := s.boardAnswers(snap).files[name]; f != nil {
			return f
		}
	}
	return snap.files[name]
}

// baseBoard returns the board snap published, read once per version; the
// caller holds l.mu and must not change it.
func (s *Server) baseBoard(snap *snapshot) *publish.Leaderboard {
	l := s.subs.live
	if l.base != nil && l.base.version == snap.version {
		return l.base.board
	}
	l.base = &baseBoard{version: snap.version}
	published := snap.files[publish.LeaderboardStoresPath]
	if published == nil {
		return nil
	}
	var b publish.Leaderboard
	if err := json.Unmarshal(published.body, &b); err != nil || b.TestSet == "" {
		s.log.Warn("the published leaderboard cannot be read: runs accepted since the snapshot are not listed", "version", snap.version, "error", err)
		return nil
	}
	l.base.board = &b
	return &b
}

// boardAnswers returns the leaderboard's answers for snap, built again
// when the snapshot or the live runs changed since the last call (so at
// most once per accepted run, on the first read after it).
func (s *Server) boardAnswers(snap *snapshot) *boardAnswers {
	l := s.subs.live
	l.mu.Lock()
	defer l.mu.Unlock()
	if a := l.last; a != nil && a.version == snap.version && a.gen == l.gen {
		return a
	}
	a := &boardAnswers{version: snap.version, gen: l.gen}
	l.last = a
	base := s.baseBoard(snap)
	if base == nil {
		return a
	}
	a.board = true
	b := *base // AddRuns copies what it changes
	if leaderboard.AddRuns(&b, l.rows) == 0 {
		return a // the snapshot lists every run: its files as they are
	}
	files, err := leaderboard.Files(&b)
	if err == nil {
		var page bytes.Buffer
		if err = pages.RenderLeaderboard(&page, s.site(), &b, s.storePageHosts(b.Stores)); err == nil {
			files[pages.LeaderboardFile] = page.Bytes()
		}
	}
	if err != nil {
		s.log.Error("list the runs accepted since the snapshot", "version", snap.version, "error", err)
		a.board = false
		return a
	}
	a.files = map[string]*file{}
	for name, body := range files {
		a.files[name] = newFile(name, body)
	}
	return a
}

// storePageHosts says which grid hosts have a store page, as the snapshot
// decided when it published the page: a saved row that is not opted out.
func (s *Server) storePageHosts(grid []publish.GridRow) func(string) bool {
	has := map[string]bool{}
	rl, err := s.readView()
	if err != nil {
		return func(string) bool { return false }
	}
	defer rl.Release()
	for _, g := range grid {
		if !pages.ValidHost(g.Host) {
			continue
		}
		if row, err := rl.Lookup(g.Host); err == nil && row != nil && row.Text(readlayer.FSource) != "opted-out" {
			has[g.Host] = true
		}
	}
	return func(h string) bool { return has[h] }
}

// listing fills in where an accepted run is listed: at once, on the
// leaderboard of the snapshot being served, when there is one.
func (s *Server) listing(rc *LeaderboardReceipt) {
	rc.APIURL = s.link("/api/leaderboard")
	l := s.subs.live
	l.mu.Lock()
	at, ok := l.at[rc.ID]
	board := s.baseBoard(s.current()) != nil
	l.mu.Unlock()
	if !ok || !board {
		rc.Note = "Accepted and kept, but not listed yet: no leaderboard has been published. It is listed, as self-reported, when the first snapshot is."
		return
	}
	u := s.link(pages.LeaderboardURL(rc.ID))
	rc.Listed, rc.ListedAt, rc.URL = true, &at, &u
	rc.Note = "Listed publicly now, as self-reported with status unverified, apart from the service's measured paths " +
		"(GET /api/leaderboard, the CSV and the page; cached copies refresh within 5 minutes). " +
		"Its results join the dataset's leaderboard_results table with the next snapshot."
}
