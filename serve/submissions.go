package serve

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"

	"svc/datasets"
	"svc/pipeline/inbox"
	"svc/pipeline/leaderboard"
)

// submissions is what the server remembers of contributions: the hosts
// accepted by store submission, the duplicate keys of leaderboard runs, and
// the host set of the directory being served. The first two are rebuilt
// from the state log at start, so a restart forgets nothing that was
// answered with a 2xx.
type submissions struct {
	// storeMu serialises the end of a store submission (re-check, append,
	// remember), so two requests never both accept one host.
	storeMu  sync.Mutex
	hostsMu  sync.RWMutex
	accepted map[string]bool // hosts accepted by submission (state log)

	// runMu serialises a leaderboard submission from the duplicate check
	// to the append, so two copies of one run never both get a 201.
	runMu sync.Mutex
	runs  map[string]storedRun // leaderboard.Submission.Key -> the run
	live  *liveRuns            // the accepted runs, listed on the board (leaderboard.go)

	dirMu      sync.Mutex
	dirVersion string              // snapshot version dirHosts was read from
	dirHosts   map[string]struct{} // hosts of data/<version>/stores.parquet
}

// stateRetryAfter is the Retry-After, in seconds, of a 503 whose cause is
// a state store that cannot be written or read (a PostgreSQL restart takes
// a few seconds; the pool reconnects on the next request).
const stateRetryAfter = 5

// stateUnavailable is the 503 of a write (or the limit read before it)
// that the state store refused: nothing was acknowledged, and Retry-After
// says when to send it again.
func stateUnavailable(format string, args ...any) error {
	return &apiError{kind: ErrUnavailable, retryAfter: stateRetryAfter, message: fmt.Sprintf(format, args...)}
}

// storedRun is an accepted leaderboard run as the duplicate check needs it.
type storedRun struct {
	ID     string
	Status string
}

func newSubmissions() *submissions {
	return &submissions{accepted: map[string]bool{}, runs: map[string]storedRun{}, live: newLiveRuns()}
}

// replay folds one state-log record into the accepted hosts and runs. The
// first record of a run key is the run, as in leaderboard.ReplaySubmissions.
func (c *submissions) replay(rec inbox.Record) {
	switch rec.Type {
	case inbox.TypeStoreSubmission:
		var sr inbox.StoreSubmission
		if json.Unmarshal(rec.Data, &sr) != nil {
			return
		}
		c.hostsMu.Lock()
		for _, h := range sr.Hosts {
			c.accepted[h.Host] = true
		}
		c.hostsMu.Unlock()
	case inbox.TypeLeaderboardSubmission:
		var sr inbox.LeaderboardSubmission
		if json.Unmarshal(rec.Data, &sr) != nil || sr.Key == "" {
			return
		}
		c.runMu.Lock()
		if _, ok := c.runs[sr.Key]; !ok {
			status := sr.Status
			if status == "" {
				status = leaderboard.StatusUnverified
			}
			c.runs[sr.Key] = storedRun{ID: sr.ID, Status: status}
		}
		c.runMu.Unlock()
		c.live.replay(rec)
	}
}

// isAccepted reports whether host was accepted by an earlier submission.
func (c *submissions) isAccepted(host string) bool {
	c.hostsMu.RLock()
	defer c.hostsMu.RUnlock()
	return c.accepted[host]
}

func (c *submissions) accept(hosts []inbox.SubmittedHost) {
	c.hostsMu.Lock()
	defer c.hostsMu.Unlock()
	for _, h := range hosts {
		c.accepted[h.Host] = true
	}
}

// listed reports whether host is already in the directory: in the stores
// table of the snapshot being served, or accepted by an earlier submission
// (queued for the next pipeline run). A host and its www twin are one
// store.
func (s *Server) listed(host string) bool {
	dir := s.directoryHosts()
	for _, h := range []string{host, wwwTwin(host)} {
		if h == "" {
			continue
		}
		if _, ok := dir[h]; ok || s.subs.isAccepted(h) {
			return true
		}
	}
	if s.shared != nil { // accepted by another replica
		hosts := []string{host}
		if t := wwwTwin(host); t != "" {
			hosts = append(hosts, t)
		}
		ok, err := s.shared.Submitted(context.Background(), hosts...)
		if err != nil {
			s.log.Warn("read shared submissions", "error", err) // acceptHosts's insert still refuses a duplicate
		}
		return ok
	}
	return false
}

// wwwTwin is "www.shop.example" for "shop.example" and the reverse.
func wwwTwin(host string) string {
	if rest, ok := strings.CutPrefix(host, "www."); ok {
		if strings.Contains(rest, ".") {
			return rest
		}
		return ""
	}
	return "www." + host
}

// directoryHosts returns the host set of the served snapshot's stores
// table, reading it again when the snapshot changed since the last call.
// A table that cannot be read counts as empty (and is logged): an accepted
// host that was in fact listed costs nothing, since the crawl input lists
// each host once.
func (s *Server) directoryHosts() map[string]struct{} {
	version := s.current().version
	c := s.subs
	c.dirMu.Lock()
	defer c.dirMu.Unlock()
	if c.dirHosts != nil && c.dirVersion == version {
		return c.dirHosts
	}
	hosts := map[string]struct{}{}
	if version != "" {
		var err error
		hosts, err = readDirectoryHosts(filepath.Join(s.public, "data", version))
		if err != nil {
			s.log.Warn("directory hosts unreadable; store submissions see an empty directory", "version", version, "error", err)
			hosts = map[string]struct{}{}
		}
	}
	c.dirVersion, c.dirHosts = version, hosts
	return hosts
}

// readDirectoryHosts reads the host column of a version folder's stores
// table: stores.parquet, or stores.csv when there is no Parquet file.
func readDirectoryHosts(versionDir string) (map[string]struct{}, error) {
	file, err := datasets.OpenParquetColumns(versionDir, datasets.Stores, []string{"host"})
	if errors.Is(err, os.ErrNotExist) {
		return readDirectoryCSV(filepath.Join(versionDir, "stores.csv"))
	}
	if err != nil {
		return nil, fmt.Errorf("directory hosts %s: %w", versionDir, err)
	}
	defer file.Close()
	pf := file.File()
	type hostRow struct {
		Host string `parquet:"host"`
	}
	r := parquet.NewGenericReader[hostRow](pf, file.Schema())
	defer r.Close()
	out := make(map[string]struct{}, pf.NumRows())
	buf := make([]hostRow, 1024)
	for {
		n, err := r.Read(buf)
		for _, row := range buf[:n] {
			out[row.Host] = struct{}{}
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("directory hosts %s: %w", versionDir, err)
		}
	}
}

func readDirectoryCSV(path string) (map[string]struct{}, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]struct{}{}, nil // a snapshot without a stores table lists nothing
	}
	if err != nil {
		return nil, fmt.Errorf("directory hosts: %w", err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("directory hosts %s: %w", path, err)
	}
	col := -1
	for i, h := range header {
		if strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) == "host" {
			col = i
		}
	}
	if col < 0 {
		return nil, fmt.Errorf("directory hosts %s: no host column", path)
	}
	out := map[string]struct{}{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("directory hosts %s: %w", path, err)
		}
		if col < len(rec) {
			out[rec[col]] = struct{}{}
		}
	}
}
