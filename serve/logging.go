package serve

import (
	"context"
	"fmt"
	"log/slog"
	"math/bits"
	"math/rand/v2"
	"net/netip"
	"regexp"
	"strings"
	"sync/atomic"
	"time"
)

// Logging under load (issue 17.9). A request never waits for a log write:
// every record goes through a bounded queue that one goroutine drains into
// the configured handler; when the queue is full the record is dropped and
// counted. One line per request is optional (Config.AccessLog, a sampled
// share, off by default); what is always logged is one line of aggregate
// counts per interval (Config.StatsEvery): requests by status class and
// latency percentiles. Every record is scrubbed of IP addresses (with or
// without a port) on its way out, so no log line can hold a client
// address, whatever error text a handler or net/http passes on.

// logQueueLen bounds the records waiting to be written.
const logQueueLen = 4096

// logQueue is the queue behind every asyncHandler of a server.
type logQueue struct {
	ch      chan queuedRecord
	dropped atomic.Int64
	stop    chan struct{}
	done    chan struct{}
}

type queuedRecord struct {
	h     slog.Handler
	r     slog.Record
	flush chan struct{} // set on a flush marker instead of a record
}

func newLogQueue() *logQueue {
	q := &logQueue{ch: make(chan queuedRecord, logQueueLen), stop: make(chan struct{}), done: make(chan struct{})}
	go q.run()
	return q
}

func (q *logQueue) run() {
	defer close(q.done)
	for {
		select {
		case rec := <-q.ch:
			q.write(rec)
		case <-q.stop:
			for {
				select {
				case rec := <-q.ch:
					q.write(rec)
				default:
					return
				}
			}
		}
	}
}

func (q *logQueue) write(rec queuedRecord) {
	if rec.flush != nil {
		close(rec.flush)
		return
	}
	rec.h.Handle(context.Background(), rec.r)
}

// flush waits (at most a few seconds) until every record queued before it
// is written.
func (q *logQueue) flush() {
	m := queuedRecord{flush: make(chan struct{})}
	select {
	case q.ch <- m:
	case <-q.done:
		return
	case <-time.After(5 * time.Second):
		return
	}
	select {
	case <-m.flush:
	case <-q.done:
	case <-time.After(5 * time.Second):
	}
}

// close writes what is queued and stops the writer.
func (q *logQueue) close() {
	select {
	case <-q.stop:
	default:
		close(q.stop)
	}
	<-q.done
}

// asyncHandler hands records to the queue and returns at once.
type asyncHandler struct {
	inner slog.Handler
	q     *logQueue
}

func (h asyncHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

func (h asyncHandler) Handle(_ context.Context, r slog.Record) error {
	select {
	case h.q.ch <- queuedRecord{h: h.inner, r: r.Clone()}:
	default:
		h.q.dropped.Add(1)
	}
	return nil
}

func (h asyncHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return asyncHandler{inner: h.inner.WithAttrs(as), q: h.q}
}

func (h asyncHandler) WithGroup(name string) slog.Handler {
	return asyncHandler{inner: h.inner.WithGroup(name), q: h.q}
}

// scrubHandler removes IP addresses from a record's message and values.
type scrubHandler struct{ inner slog.Handler }

func (h scrubHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

func (h scrubHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, scrubAddrs(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(scrubAttr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h scrubHandler) WithAttrs(as []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(as))
	for i, a := range as {
		clean[i] = scrubAttr(a)
	}
	return scrubHandler{h.inner.WithAttrs(clean)}
}

func (h scrubHandler) WithGroup(name string) slog.Handler {
	return scrubHandler{h.inner.WithGroup(name)}
}

func scrubAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, scrubAddrs(v.String()))
	case slog.KindGroup:
		g := v.Group()
		clean := make([]any, len(g))
		for i, x := range g {
			clean[i] = scrubAttr(x)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, scrubAddrs(x.Error()))
		default:
			return slog.String(a.Key, scrubAddrs(fmt.Sprint(x)))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// addrCandidate matches what could be an IPv4 or IPv6 address, bracketed
// or not, with an optional port; scrubAddrs keeps only real addresses.
var addrCandidate = regexp.MustCompile(`\[[0-9A-Fa-f:.]+(?:%[0-9A-Za-z._~-]+)?\](?::\d+)?|[0-9A-Fa-f:.]*[:.][0-9A-Fa-f:.]+(?:%[0-9A-Za-z._~-]+)?`)

// scrubAddrs replaces every IP address in s (IPv4, IPv6, bracketed, with
// or without a zone or port) by "[addr]".
func scrubAddrs(s string) string {
	if !strings.ContainsAny(s, ".:") {
		return s
	}
	return addrCandidate.ReplaceAllStringFunc(s, func(m string) string {
		// Punctuation after an address ("from 1.2.3.4:5: EOF") is kept.
		trimmed := strings.TrimRight(m, ":.")
		tail := m[len(trimmed):]
		m = trimmed
		host := m
		if strings.HasPrefix(m, "[") {
			host = m[1:strings.IndexByte(m, ']')]
		} else if ap, err := netip.ParseAddrPort(m); err == nil {
			host = ap.Addr().String()
		} else if i := strings.LastIndexByte(m, ':'); i > 0 && strings.Count(m, ":") == 1 {
			host = m[:i] // IPv4:port whose port did not parse
		}
		if _, err := netip.ParseAddr(host); err != nil {
			return m + tail
		}
		return "[addr]" + tail
	})
}

// reqStats counts requests and their latencies between two stats lines,
// without locks.
type reqStats struct {
	byClass [6]atomic.Int64 // index status/100; 0 holds anything else
	hist    [latencyBuckets]atomic.Int64
	maxUS   atomic.Int64
}

// latencyBuckets are quarter powers of two of microseconds: bucket i holds
// latencies below 2^((i+1)/4) µs, up to about 35 minutes.
const latencyBuckets = 128

func latencyBucket(us int64) int {
	if us < 1 {
		return 0
	}
	n := bits.Len64(uint64(us)) - 1 // 2^n <= us < 2^(n+1)
	frac := 0
	if n >= 2 {
		frac = int(uint64(us)>>(n-2)) & 3 // the two bits after the leading one
	} else if n == 1 {
		frac = int(us&1) << 1
	}
	return min(4*n+frac, latencyBuckets-1)
}

// bucketUpperMS is the upper edge of a bucket, in milliseconds.
func bucketUpperMS(i int) float64 {
	n, frac := i/4, i%4
	return float64(uint64(1)<<n) * (1 + float64(frac+1)/4) / 1000
}

func (st *reqStats) observe(status int, d time.Duration) {
	c := status / 100
	if c < 1 || c > 5 {
		c = 0
	}
	st.byClass[c].Add(1)
	us := d.Microseconds()
	st.hist[latencyBucket(us)].Add(1)
	for {
		m := st.maxUS.Load()
		if us <= m || st.maxUS.CompareAndSwap(m, us) {
			break
		}
	}
}

// take returns the counts since the last take and starts again from zero.
func (st *reqStats) take() (byClass [6]int64, hist [latencyBuckets]int64, maxUS int64) {
	for i := range st.byClass {
		byClass[i] = st.byClass[i].Swap(0)
	}
	for i := range st.hist {
		hist[i] = st.hist[i].Swap(0)
	}
	return byClass, hist, st.maxUS.Swap(0)
}

func percentileMS(hist [latencyBuckets]int64, total int64, p float64) float64 {
	if total == 0 {
		return 0
	}
	want := int64(float64(total)*p + 0.5)
	var seen int64
	for i, n := range hist {
		seen += n
		if seen >= want && n > 0 {
			return bucketUpperMS(i)
		}
	}
	return bucketUpperMS(latencyBuckets - 1)
}

// logStats writes one line of the counts since the last one.
func (s *Server) logStats(every time.Duration) {
	byClass, hist, maxUS := s.stats.take()
	var total int64
	for _, n := range byClass {
		total += n
	}
	dropped := s.logs.dropped.Swap(0)
	if total == 0 && dropped == 0 {
		return
	}
	s.log.Info("requests", "interval_s", every.Seconds(), "total", total,
		"2xx", byClass[2], "3xx", byClass[3], "4xx", byClass[4], "5xx", byClass[5], "other", byClass[0]+byClass[1],
		"p50_ms", percentileMS(hist, total, 0.50), "p99_ms", percentileMS(hist, total, 0.99),
		"max_ms", float64(maxUS)/1000, "log_lines_dropped", dropped)
}

// statsLoop logs the aggregate counts every interval until stop closes.
func (s *Server) statsLoop(every time.Duration, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			s.logStats(every)
			return
		case <-t.C:
			s.logStats(every)
		}
	}
}

// sampled reports whether this request gets an access-log line.
func (s *Server) sampled() bool {
	p := s.cfg.AccessLog
	return p >= 1 || p > 0 && rand.Float64() < p
}

// flushLogs waits until every record logged so far is written.
func (s *Server) flushLogs() { s.logs.flush() }

// newServerLog wraps the configured logger: scrubbed, then queued.
func newServerLog(base *slog.Logger) (*slog.Logger, *logQueue) {
	q := newLogQueue()
	return slog.New(asyncHandler{inner: scrubHandler{base.Handler()}, q: q}), q
}
