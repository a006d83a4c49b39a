// The run's screenshot: of its last page, or started early, as soon as a
// reading shows a checkout page.

package shop

import (
	"context"
	"time"
)

// screenshot keeps a small image of the last page: the one started
// early on this very page when there is one, else one taken now.
func (s *session) screenshot() {
	defer phase("screenshot")()
	s.shotMu.Lock()
	sh := s.early
	s.shotMu.Unlock()
	if sh != nil && sh.key == s.endKey {
		<-sh.done
		if sh.err == nil {
			s.rep.Screenshot = newScreenshot(sh.data)
			return
		}
	}
	b, err := s.shoot()
	if err == nil {
		s.rep.Screenshot = newScreenshot(b)
	}
}

func (s *session) shoot() ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 5*time.Second)
	defer cancel()
	return s.page.Screenshot(ctx)
}

// earlyShot is a screenshot of the page at key, taken while the run goes
// on: a screenshot waits for the next frame the page draws (some 18 ms,
// nearly all of it idle), so the one of a checkout page, the last page of
// most runs, is started the moment a reading shows that page, alongside
// Settle's quiet window and the checkout page's WebMCP reading.
type earlyShot struct {
	key  string
	done chan struct{} // closed once data or err is set
	data []byte
	err  error
}

// shootEarly starts the screenshot of the page at key, once per key.
func (s *session) shootEarly(key string) {
	s.shotMu.Lock()
	defer s.shotMu.Unlock()
	if s.early != nil && s.early.key == key {
		return
	}
	sh := &earlyShot{key: key, done: make(chan struct{})}
	s.early = sh
	go func() {
		defer close(sh.done)
		sh.data, sh.err = s.shoot()
	}()
}
