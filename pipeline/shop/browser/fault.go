// Faults of the Chromium process: a process that dies or freezes is
// noticed by a watchdog, killed with everything it started, and replaced
// at the next NewPage; a page says whether it was lost with its process or
// its renderer alone, and whether it is stuck (a script that never
// yields) or still busy.

package browser

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Why a page's process was lost (Page.Lost).
var (
	// ErrCrashed: the Chromium process ended while its pages were open
	// (killed, crashed, its protocol pipe closed).
	ErrCrashed = errors.New("the browser process ended")
	// ErrUnresponsive: the process left the watchdog's question unanswered
	// for HangTimeout (frozen), and was killed.
	ErrUnresponsive = errors.New("the browser process stopped answering")
)

var errClosed = errors.New("browser closed")

// proc is one Chromium process and its profile.
type proc struct {
	profile string
	pid     int
	ctx     context.Context // the chromedp context that owns the process
	cancel  context.CancelFunc
	stop    context.CancelFunc // ends the allocator and waits for the process

	mu      sync.Mutex
	lost    error // ErrCrashed or ErrUnresponsive, once known
	closing bool  // Close ended it: not lost
	once    sync.Once
	err     error         // of removing the profile
	ended   chan struct{} // closed once the process is gone and its profile removed
}

// lostErr is why the process was lost, or nil while it runs and after a
// Close. A process whose protocol context ended by itself was lost even
// before the watchdog has seen it end.
func (p *proc) lostErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.lost != nil:
		return p.lost
	case p.closing || p.ctx.Err() == nil:
		return nil
	}
	return ErrCrashed
}

// lose records why the process is lost, unless it is being closed or its
// loss is known already.
func (p *proc) lose(why error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lost == nil && !p.closing {
		p.lost = why
	}
}

// close ends the process, kills whatever of it is left and removes its
// profile, once; later calls return the first one's error.
func (p *proc) close() error {
	p.once.Do(func() {
		p.mu.Lock()
		if p.lost == nil && p.ctx != nil && p.ctx.Err() == nil {
			p.closing = true
		}
		p.mu.Unlock()
		if p.cancel != nil {
			p.cancel()
		}
		if p.stop != nil {
			p.stop() // waits for the process to exit
		}
		killLeftovers(p.profile)
		for i := 0; i < 50; i++ { // child processes may still be writing for a moment
			if p.err = os.RemoveAll(p.profile); p.err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if p.err != nil {
			p.err = errors.Join(errors.New("remove profile"), p.err)
		}
		close(p.ended)
	})
	<-p.ended
	return p.err
}

// watch is the watchdog of one process: every quarter of HangTimeout it
// asks the browser for its version, a question the browser process
// answers at once whatever its pages do. Unanswered for HangTimeout, the
// process is taken for frozen and killed. A process that ends other than
// by Close is cleaned up here, and replaced at the next NewPage.
func (b *Browser) watch(p *proc) {
	tick := time.NewTicker(b.opts.HangTimeout / 4)
	defer tick.Stop()
	for {
		select {
		case <-p.ctx.Done():
			p.lose(ErrCrashed)
			if err := p.lostErr(); err != nil {
				b.opts.Logf("chromium: %v (pid %d); a new one starts with the next page", err, p.pid)
			}
			_ = p.close()
			return
		case <-tick.C:
			ctx, cancel := context.WithTimeout(p.ctx, b.opts.HangTimeout)
			_, err := chromedp.CallBrowser(ctx, browser.GetVersion, struct{}{})
			timedOut := ctx.Err() == context.DeadlineExceeded && p.ctx.Err() == nil
			cancel()
			if err != nil && timedOut {
				p.lose(ErrUnresponsive)
				if p.pid > 0 {
					_ = syscall.Kill(p.pid, syscall.SIGKILL)
				}
				killLeftovers(p.profile)
				p.cancel()
			}
		}
	}
}

// live returns the running process, starting a new one (with a fresh
// profile) when the last one was lost. The lost one is gone before its
// successor starts, so two are never up at once.
func (b *Browser) live() (*proc, error) {
	b.procMu.Lock()
	defer b.procMu.Unlock()
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return nil, errClosed
	}
	old := b.proc
	if old.lostErr() == nil && old.ctx.Err() == nil {
		return old, nil
	}
	t0 := time.Now()
	select {
	case <-old.ended:
	case <-time.After(10 * time.Second):
	}
	t1 := time.Now()
	p, err := b.launch()
	if err != nil {
		return nil, err
	}
	b.opts.Logf("chromium: new process %d started in place of %d (%v): %s to end the old one, %s to start", p.pid, old.pid, old.lostErr(), t1.Sub(t0).Round(time.Millisecond), time.Since(t1).Round(time.Millisecond))
	b.proc = p
	b.restarts++
	return p, nil
}

// PID is the process id of the current Chromium process (0 when it is
// not known); it changes when a lost process is replaced.
func (b *Browser) PID() int {
	b.procMu.Lock()
	defer b.procMu.Unlock()
	return b.proc.pid
}

// Restarts counts the processes started in place of lost ones.
func (b *Browser) Restarts() int {
	b.procMu.Lock()
	defer b.procMu.Unlock()
	return b.restarts
}

// Lost reports why the page's Chromium process was lost (ErrCrashed or
// ErrUnresponsive), or nil while it runs and after a Close. Whatever the
// page's run read since is not to be trusted as an outcome.
func (p *Page) Lost() error { return p.proc.lostErr() }

// Crashed reports whether the tab's renderer died (Inspector.targetCrashed:
// killed, out of memory, crashed) while the browser process lived on. The
// tab is then closed: every call on the page fails at once, and whatever
// the page's run read before is not to be trusted as an outcome.
func (p *Page) Crashed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.crashed
}

// Unresponsive reports whether the page's event loop stays held for d:
// a timer of 0 ms set in the shopper's world (the page's main world
// before that exists) has not fired by then, because a script never
// yields (while (true) {}). An evaluation alone would not tell: Chromium
// runs it in an interrupt of the running script. A page whose process is
// gone is not unresponsive: it is lost.
func (p *Page) Unresponsive(d time.Duration) bool {
	if p.ctx.Err() != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(p.ctx, d)
	defer cancel()
	p.mu.Lock()
	world := p.world
	p.mu.Unlock()
	await := true
	_, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{
		Expression: "new Promise(r => setTimeout(r, 0))", AwaitPromise: &await, ContextID: world,
	})
	return err != nil && ctx.Err() == context.DeadlineExceeded && p.ctx.Err() == nil
}

// Unsettled reports whether the page is still busy: loading a document,
// with requests in flight, or with some answered or made in the last
// quiet window (d). A page that requests without end is never settled.
func (p *Page) Unsettled(d time.Duration) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.loading || p.inflight > 0 || time.Since(p.activity) < d
}

// killLeftovers kills every process whose command line names the profile
// dir (Chromium passes --user-data-dir to its helpers, crashpad its
// database under it), until a few passes in a row find none or two
// seconds pass: a helper may fork as the main process dies. The profile is
// a fresh temporary directory, so nothing else names it.
func killLeftovers(dir string) {
	if dir == "" {
		return
	}
	deadline := time.Now().Add(2 * time.Second)
	for quiet := 0; quiet < 3 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if killNaming(dir) == 0 {
			quiet++
		} else {
			quiet = 0
		}
	}
}

// killNaming SIGKILLs the processes with an argument that names dir (see
// names), and returns how many it found.
func killNaming(dir string) int {
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	self := os.Getpid()
	n := 0
	for _, f := range paths {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if err != nil || pid == self {
			continue
		}
		cmdline, err := os.ReadFile(f)
		if err == nil && names(cmdline, dir) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			n++
		}
	}
	return n
}

// names reports whether a command line (arguments separated by NULs, or
// by spaces once Chromium has rewritten its helpers' process titles)
// names dir: as an argument, a path under it, or a flag's value
// (--user-data-dir=dir).
func names(cmdline []byte, dir string) bool {
	for rest := cmdline; ; {
		i := bytes.Index(rest, []byte(dir))
		if i < 0 {
			return false
		}
		before, after := byte(0), byte(0)
		if i > 0 {
			before = rest[i-1]
		}
		if j := i + len(dir); j < len(rest) {
			after = rest[j]
		}
		if (before == 0 || before == '=' || before == ' ') && (after == 0 || after == '/' || after == ' ') {
			return true
		}
		rest = rest[i+len(dir):]
	}
}
