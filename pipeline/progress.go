package pipeline

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"
)

// Progress reports a long stage's advance. Calls come from one goroutine at
// a time.
type Progress interface {
	Start(total, already int)
	Add(item string, failed bool)
	Finish()
}

// NewProgress returns a redrawn bar when w is a terminal, and plain log
// lines (every 5 % or 10 s) otherwise, so cron logs stay readable.
func NewProgress(w io.Writer, label string, log *slog.Logger) Progress {
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			return &barProgress{w: w, label: label}
		}
	}
	return &logProgress{log: log, label: label}
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
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d  %d failed  %.1f/s ", p.label,
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
