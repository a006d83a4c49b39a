package shop

import (
	"sync"
	"time"
)

// phaseClock sums, while the shoppers benchmark has it on, the time the
// browser shoppers spend in each phase of a run (opening a page, settling
// after an action, the guard's look, fixed waits, the accessibility tree,
// reading the page): the benchmark prints it beside the page-load floor so
// that speed work knows where the time above the floor goes. Off (the
// default), a phase costs a lock and a nil check.
var phaseClock struct {
	mu sync.Mutex
	d  map[string]time.Duration
}

// timePhases switches the phase clock on with a fresh sum (on) or off, and
// returns the sum so far.
func timePhases(on bool) map[string]time.Duration {
	phaseClock.mu.Lock()
	defer phaseClock.mu.Unlock()
	d := phaseClock.d
	phaseClock.d = nil
	if on {
		phaseClock.d = map[string]time.Duration{}
	}
	return d
}

// phase starts timing the phase name; the function it returns ends it.
func phase(name string) func() {
	phaseClock.mu.Lock()
	on := phaseClock.d != nil
	phaseClock.mu.Unlock()
	if !on {
		return func() {}
	}
	t0 := time.Now()
	return func() {
		d := time.Since(t0)
		phaseClock.mu.Lock()
		defer phaseClock.mu.Unlock()
		if phaseClock.d != nil {
			phaseClock.d[name] += d
		}
	}
}
