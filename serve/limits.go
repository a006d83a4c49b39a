package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"svc/pipeline/inbox"
)

// A quota is one limit of spec section 8: at most Max uses per caller (or
// site-wide, when Site is set) per UTC day.
type quota struct {
	Name string
	Max  int
	Site bool
}

// The daily quotas. Where the spec leaves a number open, the number chosen
// here is written in the OpenAPI description too.
var (
	quotaCheckoutReads = quota{"checkout_reads", 50, false} // agent-checkout + stores, shared
	quotaSiteReads     = quota{"checkout_reads_site", 5000, true}
	quotaFreshChecks   = quota{"fresh_checks", 10, false}
	quotaSiteFresh     = quota{"fresh_checks_site", 500, true}
	quotaUCPFetch      = quota{"ucp_url_validations", 300, false}
	quotaLeaderboard   = quota{"leaderboard_submissions", 5, false}
	quotaStoreSubmits  = quota{"store_submissions", 20, false} // requests
	quotaStoreHosts    = quota{"store_submission_hosts", 200, false}
	quotaSiteSubHosts  = quota{"store_submission_hosts_site", 5000, true}
	quotaAsk           = quota{"ask_reads", 120, false}
	quotaSavedReads    = quota{"saved_reads", 1000, false} // agent facts, product data, vendor readiness (store cards are free, spec 8)
	quotaReports       = quota{"checkout_reports", 100, false}
)

// limiter keeps the daily counters (replayed from the state log, so a
// restart loses none) and the per-minute token buckets (per instance, as the
// spec allows).
type limiter struct {
	log inbox.Inbox
	now func() time.Time
	// shared, when set (PostgreSQL), holds the daily counters instead of
	// counts, so replicas share them: each take is atomic in the database.
	shared inbox.Shared

	mu     sync.Mutex
	counts map[string]int // key|quota|day -> uses

	minuteMu sync.Mutex
	minute   map[string]*rate.Limiter // key|name -> bucket
}

func newLimiter(log inbox.Inbox, now func() time.Time) *limiter {
	return &limiter{log: log, now: now, counts: map[string]int{}, minute: map[string]*rate.Limiter{}}
}

// replay folds one state-log record into the counters.
func (l *limiter) replay(rec inbox.Record) {
	if rec.Type != inbox.TypeCount {
		return
	}
	var c inbox.Count
	if json.Unmarshal(rec.Data, &c) == nil && c.Day == l.day() {
		l.counts[c.Key+"|"+c.Quota+"|"+c.Day] += c.N
	}
}

func (l *limiter) day() string { return l.now().UTC().Format("2006-01-02") }

// take uses n of each quota for caller, all or nothing: when any quota would
// go over, none is used and the error names the limit that was hit.
func (l *limiter) take(caller string, n int, qs ...quota) error {
	day := l.day()
	if l.shared != nil {
		hit, err := l.shared.Take(context.Background(), day, n, l.uses(caller, qs))
		if err != nil {
			return stateUnavailable("the daily limits could not be read from the state store; nothing was done, try again later")
		}
		if hit >= 0 {
			return l.limited(qs[hit])
		}
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, q := range qs {
		key := l.keyFor(caller, q)
		if l.counts[key+"|"+q.Name+"|"+day]+n > q.Max {
			return l.limited(q)
		}
	}
	for _, q := range qs {
		key := l.keyFor(caller, q)
		l.counts[key+"|"+q.Name+"|"+day] += n
		if l.log != nil {
			// Written without fsync: it survives a killed process.
			_ = l.log.Note(context.Background(), inbox.TypeCount, l.now(), inbox.Count{Key: key, Quota: q.Name, Day: day, N: n})
		}
	}
	return nil
}

// limited is the error of a spent daily quota.
func (l *limiter) limited(q quota) error {
	scope := "for your network"
	if q.Site {
		scope = "site-wide"
	}
	return &apiError{kind: ErrLimited, retryAfter: secondsToMidnight(l.now()),
		message: fmt.Sprintf("daily limit reached: %d %s per UTC day %s; it resets at 00:00 UTC", q.Max, q.Name, scope)}
}

// uses names the quotas of qs as the shared store counts them.
func (l *limiter) uses(caller string, qs []quota) []inbox.Use {
	out := make([]inbox.Use, len(qs))
	for i, q := range qs {
		out[i] = inbox.Use{Key: l.keyFor(caller, q), Quota: q.Name, Max: q.Max}
	}
	return out
}

// takeUpTo is takeSome for callers that cannot fail: a store that cannot
// be read grants nothing.
func (l *limiter) takeUpTo(caller string, n int, qs ...quota) int {
	n, _ = l.takeSome(caller, n, qs...)
	return n
}

// takeSome uses as many of n as every quota of qs still allows today (all
// quotas by the same amount) and returns that number, 0 when any is spent.
// For requests that do part of their work when over a limit, as store
// submissions do per host.
func (l *limiter) takeSome(caller string, n int, qs ...quota) (int, error) {
	day := l.day()
	if l.shared != nil {
		got, err := l.shared.TakeUpTo(context.Background(), day, n, l.uses(caller, qs))
		if err != nil {
			return 0, stateUnavailable("the daily limits could not be read from the state store; nothing was done, try again later")
		}
		return got, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, q := range qs {
		n = min(n, max(q.Max-l.counts[l.keyFor(caller, q)+"|"+q.Name+"|"+day], 0))
	}
	if n <= 0 {
		return 0, nil
	}
	for _, q := range qs {
		key := l.keyFor(caller, q)
		l.counts[key+"|"+q.Name+"|"+day] += n
		if l.log != nil {
			_ = l.log.Note(context.Background(), inbox.TypeCount, l.now(), inbox.Count{Key: key, Quota: q.Name, Day: day, N: n})
		}
	}
	return n, nil
}

// remaining says how many uses of q the caller has left today.
func (l *limiter) remaining(caller string, q quota) int {
	if l.shared != nil {
		used, err := l.shared.Used(context.Background(), l.day(), l.uses(caller, []quota{q})[0])
		if err != nil {
			return 0
		}
		return max(q.Max-used, 0)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return max(q.Max-l.counts[l.keyFor(caller, q)+"|"+q.Name+"|"+l.day()], 0)
}

func (l *limiter) keyFor(caller string, q quota) string {
	if q.Site {
		return "site"
	}
	return caller
}

// perMinute applies a token bucket of perMin requests a minute to caller.
func (l *limiter) perMinute(caller, name string, perMin int) error {
	l.minuteMu.Lock()
	b, ok := l.minute[caller+"|"+name]
	if !ok {
		if len(l.minute) > 100_000 { // bound memory: forget everyone, start again
			l.minute = map[string]*rate.Limiter{}
		}
		b = rate.NewLimiter(rate.Limit(float64(perMin)/60), perMin)
		l.minute[caller+"|"+name] = b
	}
	l.minuteMu.Unlock()
	if !b.AllowN(l.now(), 1) {
		return &apiError{kind: ErrLimited, retryAfter: 60,
			message: fmt.Sprintf("at most %d %s requests a minute for your network; wait a minute", perMin, name)}
	}
	return nil
}

func secondsToMidnight(t time.Time) int {
	t = t.UTC()
	next := time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, time.UTC)
	return int(next.Sub(t).Seconds()) + 1
}
