package pipeline

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"
)

// Progress reports a long stage's advance. Calls come from one goroutine at
// a time.
type Progress interface {
	Start(total, already int)
	Add(item string, failed bool)
	Finish()
}

// NewProgress returns one line redrawn in place when w is a terminal, and
// plain log lines (every 5 % or 10 s) otherwise, so cron logs stay
// readable. On a TallyWriter it does the same on the writer's own Writer
// and counts into its Tally too.
func NewProgress(w io.Writer, label string, log *slog.Logger) Progress {
	if tw, ok := w.(TallyWriter); ok {
		return &tallied{Progress: NewProgress(tw.Writer, label, log), t: tw.Tally}
	}
	if isTerminal(w) {
		return &barProgress{w: w, label: label}
	}
	return &logProgress{log: log, label: label}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// clearLine returns the cursor to the start of a terminal's line and
// clears it (ANSI erase in line).
const clearLine = "\r\x1b[K"

// OverBar returns the writer log lines should go through when they share
// a terminal with a progress line: each write first clears the line, so a
// log line written while a stage draws its progress replaces it, and the
// progress is drawn again below on its next step. A writer that is not a
// terminal is returned as it is.
func OverBar(w io.Writer) io.Writer {
	if !isTerminal(w) {
		return w
	}
	return overBar{w}
}

type overBar struct{ w io.Writer }

func (o overBar) Write(p []byte) (int, error) {
	if _, err := io.WriteString(o.w, clearLine); err != nil {
		return 0, err
	}
	return o.w.Write(p)
}

// A Tally keeps a stage's counts for a reader on another goroutine: a
// page that says how far a stage running behind it has come. A stage
// counts into it when its ErrOut is a TallyWriter.
type Tally struct {
	mu sync.Mutex
	c  TallyCounts
}

// TallyCounts is a stage's progress: Started once it knows its Total,
// Done counting the items resumed from its journal, Finished when its
// last item is done (or it stopped).
type TallyCounts struct {
	Started, Finished   bool
	Total, Done, Failed int
}

// Counts returns the counts so far.
func (t *Tally) Counts() TallyCounts {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.c
}

// TallyWriter is a stage's ErrOut that also counts the stage's progress
// into Tally; everything written goes to Writer.
type TallyWriter struct {
	io.Writer
	Tally *Tally
}

// tallied is a Progress that also counts into a Tally.
type tallied struct {
	Progress
	t *Tally
}

func (p *tallied) Start(total, already int) {
	p.t.mu.Lock()
	p.t.c = TallyCounts{Started: true, Total: total, Done: already}
	p.t.mu.Unlock()
	p.Progress.Start(total, already)
}

func (p *tallied) Add(item string, failed bool) {
	p.t.mu.Lock()
	p.t.c.Done++
	if failed {
		p.t.c.Failed++
	}
	p.t.mu.Unlock()
	p.Progress.Add(item, failed)
}

func (p *tallied) Finish() {
	p.t.mu.Lock()
	p.t.c.Finished = true
	p.t.mu.Unlock()
	p.Progress.Finish()
}

type counts struct {
	total, done, failed int
	start               time.Time
}

func (c *counts) rate() float64 {
	s := time.Since(c.start).Seconds()
	if s <= 0 {
		return 0
	}
	return float64(c.done) / s
}

type barProgress struct {
	w     io.Writer
	label string
	counts
	already int
	last    time.Time
}

func (p *barProgress) Start(total, already int) {
	p.counts = counts{total: total, start: time.Now()}
	p.already = already
	p.draw(true)
}

func (p *barProgress) Add(_ string, failed bool) {
	p.done++
	if failed {
		p.failed++
	}
	p.draw(false)
}

func (p *barProgress) draw(force bool) {
	if !force && time.Since(p.last) < 100*time.Millisecond && p.done+p.already < p.total {
		return
	}
	p.last = time.Now()
	n := p.done + p.already
	frac := 1.0
	if p.total > 0 {
		frac = float64(n) / float64(p.total)
	}
	const width = 30
	fill := int(frac * width)
	fmt.Fprintf(p.w, clearLine+"%s [%s%s] %d/%d  %d failed  %.1f/s", p.label,
		strings.Repeat("=", fill), strings.Repeat(" ", width-fill), n, p.total, p.failed, p.rate())
}

func (p *barProgress) Finish() {
	p.draw(true)
	fmt.Fprintln(p.w)
}

type logProgress struct {
	log   *slog.Logger
	label string
	counts
	already  int
	lastLog  time.Time
	lastFrac int
}

func (p *logProgress) Start(total, already int) {
	p.counts = counts{total: total, start: time.Now()}
	p.already = already
	p.lastLog = time.Now()
	p.log.Info(p.label+" started", "total", total, "already_done", already)
}

func (p *logProgress) Add(_ string, failed bool) {
	p.done++
	if failed {
		p.failed++
	}
	n := p.done + p.already
	frac := 0
	if p.total > 0 {
		frac = n * 20 / p.total // 5 % steps
	}
	if frac > p.lastFrac || time.Since(p.lastLog) > 10*time.Second {
		p.lastFrac, p.lastLog = frac, time.Now()
		p.log.Info(p.label+" progress", "done", n, "total", p.total, "failed", p.failed, "per_second", fmt.Sprintf("%.1f", p.rate()))
	}
}

func (p *logProgress) Finish() {
	p.log.Info(p.label+" finished", "done", p.done+p.already, "total", p.total, "failed", p.failed,
		"elapsed", time.Since(p.start).Round(time.Millisecond).String())
}
