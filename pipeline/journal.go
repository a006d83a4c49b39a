package pipeline

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"sync"
	"time"

	"svc/pipeline/durable"
)

// The crawl and the validate stage are the same loop over different work:
// a list of stores, a journal of the ones already done, a pool of workers,
// and one journal line per store as it completes. journaled is that loop;
// each stage gives it the items and the work of one item.

// journaled is one run of a journaled stage.
type journaled[T any] struct {
	name        string          // "crawl", "validate": names the resumed log line
	journal     *jsonLines      // where each result is appended
	items       []T             // every item of the stage, resumed ones included
	host        func(T) string  // an item's host, the journal's key
	done        map[string]bool // hosts the journal already holds: skipped
	concurrency int             // items at once; default 16
	progress    Progress        // nil for none
	log         *slog.Logger    // nil for none
	failedMsg   string          // the line logged for an item that failed
	// failedDebug logs that line at Debug instead of Warn: in the shop
	// stage a store that is down is an outcome its summary counts (and
	// the journal keeps), not a fault of svc.
	failedDebug bool
	// work does one item. The result is not recorded when ctx is
	// cancelled meanwhile: the item runs again on resume.
	work func(context.Context, T) workResult
}

// workResult is the outcome of one item of a journaled stage.
type workResult struct {
	record  any    // the journal line
	host    string // for the progress and the failure log
	skipped bool   // done without a request (counted in Skipped)
	failed  bool   // counted and logged with failedMsg and errText
	errText string
}

// journalCounts counts a journaled stage's items.
type journalCounts struct {
	total, done, resumed, skipped, failed int
}

// run works through the items not in r.done, r.concurrency at a time,
// appending each result to the journal as it completes. It stops feeding
// items when ctx is cancelled. The error is the journal's first write
// error, if any; the caller joins ctx.Err().
func (r journaled[T]) run(ctx context.Context) (journalCounts, error) {
	if r.concurrency <= 0 {
		r.concurrency = 16
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	c := journalCounts{total: len(r.items)}
	var todo []T
	for _, it := range r.items {
		if r.done[r.host(it)] {
			c.resumed++
			continue
		}
		todo = append(todo, it)
	}
	if c.resumed > 0 {
		r.log.Info(r.name+" resumed", "already_done", c.resumed, "remaining", len(todo))
	}
	if r.progress != nil {
		r.progress.Start(c.total, c.resumed)
	}

	jobs := make(chan T)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var writeErr error
	for range min(r.concurrency, max(len(todo), 1)) {
		wg.Go(func() {
			for it := range jobs {
				res := r.work(ctx, it)
				if ctx.Err() != nil {
					return // not recorded: done again on resume
				}
				mu.Lock()
				if err := r.journal.append(res.record); err != nil && writeErr == nil {
					writeErr = err
				}
				c.done++
				if res.skipped {
					c.skipped++
				}
				if res.failed {
					c.failed++
					level := slog.LevelWarn
					if r.failedDebug {
						level = slog.LevelDebug
					}
					r.log.Log(ctx, level, r.failedMsg, "host", res.host, "error", res.errText)
				}
				if r.progress != nil {
					r.progress.Add(res.host, res.failed)
				}
				mu.Unlock()
			}
		})
	}
feed:
	for _, it := range todo {
		select {
		case jobs <- it:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := r.journal.flush(); err != nil && writeErr == nil {
		writeErr = err
	}
	if r.progress != nil {
		r.progress.Finish()
	}
	return c, writeErr
}

// readLastByHost calls fn for the last complete record of every host in
// the JSON-lines journal at path, in host order. Torn or unreadable lines
// (a stage killed mid-write) are skipped. what names the journal in an
// error ("journal", "validations"); a missing file is os.ErrNotExist.
func readLastByHost[T any](path, what string, host func(T) string, fn func(T)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	last := map[string]T{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r T
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || host(r) == "" {
			continue
		}
		last[host(r)] = r
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s %s: %w", what, path, err)
	}
	hosts := make([]string, 0, len(last))
	for h := range last {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	for _, h := range hosts {
		fn(last[h])
	}
	return nil
}

// openJournal opens a stage's journal for appending, creating it.
func openJournal(path string) (*jsonLines, error) {
	f, _, err := durable.OpenAppend(path, 0o644)
	if err != nil {
		return nil, err
	}
	return &jsonLines{w: bufio.NewWriter(f), f: f}, nil
}

// openJournalEach opens a journal whose every line goes to the operating
// system as it is appended: for a stage whose items take seconds each
// (the shop stage), so a killed process loses no finished item.
func openJournalEach(path string) (*jsonLines, error) {
	j, err := openJournal(path)
	if err != nil {
		return nil, err
	}
	j.each = true
	return j, nil
}

// jsonLines appends JSON lines: the crawl's and the validate stage's
// journals. Every 64 lines go to the operating system, so a killed process
// loses at most the lines of its buffer; an fsync follows at most once per
// syncEvery, so a machine that loses power loses at most about that much
// more. A resumed stage simply checks the lost tail again. flush, at the
// end, writes and syncs everything.
type jsonLines struct {
	w       *bufio.Writer
	f       *os.File
	pending int
	synced  time.Time
	each    bool // every line to the operating system at once (openJournalEach)
}

// syncEvery bounds how often a journal is fsync'd, so that the crawl's
// speed does not follow the disk's fsync latency (one fsync per 64 stores
// was 150 fsyncs in a 10,000-store crawl).
const syncEvery = time.Second

func (j *jsonLines) append(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := j.w.Write(append(b, '\n')); err != nil {
		return err
	}
	j.pending++
	if j.pending < 64 && !j.each {
		return nil
	}
	if err := j.w.Flush(); err != nil {
		return err
	}
	j.pending = 0
	if time.Since(j.synced) < syncEvery {
		return nil
	}
	j.synced = time.Now()
	return j.f.Sync()
}

func (j *jsonLines) flush() error {
	if err := j.w.Flush(); err != nil {
		return err
	}
	j.pending = 0
	return j.f.Sync()
}

// close closes the journal's file; flush first to keep its lines.
func (j *jsonLines) close() error { return j.f.Close() }
