package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"svc/pipeline/check"
	"svc/pipeline/fetch"
	"svc/pipeline/inbox"
)

// CheckTTL is how long a live check is served from the per-host cache.
const CheckTTL = 24 * time.Hour

// checkCache holds the newest live check of each host; it is rebuilt from
// the state log at start, so a restart loses no entry.
type checkCache struct {
	mu sync.RWMutex
	m  map[string]*check.Result
}

func newCheckCache() *checkCache { return &checkCache{m: map[string]*check.Result{}} }

func (c *checkCache) replay(rec inbox.Record, now time.Time) {
	if rec.Type != inbox.TypeCheck {
		return
	}
	var r check.Result
	if json.Unmarshal(rec.Data, &r) != nil || r.Host == "" || now.Sub(r.CheckedAt) >= CheckTTL {
		return
	}
	c.put(&r)
}

func (c *checkCache) put(r *check.Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[r.Host]; !ok || !old.CheckedAt.After(r.CheckedAt) {
		c.m[r.Host] = r
	}
}

// get returns the host's check when it is younger than CheckTTL.
func (c *checkCache) get(host string, now time.Time) (*check.Result, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.m[host]
	if !ok || now.Sub(r.CheckedAt) >= CheckTTL {
		return nil, false
	}
	return r, true
}

// latest returns the host's newest live check whatever its age.
func (c *checkCache) latest(host string) (*check.Result, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.m[host]
	return r, ok
}

// CheckAnswer is the live check's answer (spec 2.1): the engine's result
// plus whether it came from the 24-hour cache and where it is saved.
type CheckAnswer struct {
	*check.Result
	Cached    bool   `json:"cached"`
	ResultURL string `json:"resultUrl"`
}

// liveCheckTimeout bounds one whole live check (each request has 6 s).
const liveCheckTimeout = 90 * time.Second

// CanAgentCheckout is the live check shared by GET /api/agent-checkout and
// the can_agent_checkout tool: limits, the per-host cache, one check per
// host at a time, and a durable record of every fresh check.
func (s *Server) CanAgentCheckout(ctx context.Context, caller string, p CheckParams) (*CheckAnswer, error) {
	if strings.TrimSpace(p.URL) == "" {
		return nil, fail(ErrInvalid, "url is required: pass the store's public homepage or a product URL, e.g. ?url=https://shop.example/")
	}
	u, host, err := liveCheckURL(p.URL, s.cfg.Engine.FixtureMode()) // storehost.go: what a live check may save
	if err != nil {
		return nil, err
	}
	if err := s.limits.take(caller, 1, quotaCheckoutReads, quotaSiteReads); err != nil {
		return nil, err
	}
	if r, ok := s.cachedCheck(ctx, host); ok {
		return &CheckAnswer{Result: r, Cached: true, ResultURL: s.storeLink(host)}, nil
	}
	if s.cfg.Engine == nil {
		return nil, fail(ErrUnavailable, "live checks are unavailable on this server; saved results remain readable")
	}
	release, ok, err := s.claim(ctx, host)
	if err != nil {
		s.log.Error("claim live check", "error", err)
		return nil, fail(ErrUnavailable, "the check could not start; try again later")
	}
	if !ok {
		return nil, &apiError{kind: ErrBusy, retryAfter: 10,
			message: "a check of " + host + " is already running; retry in a few seconds for its cached result"}
	}
	defer release()
	// The cache may have been filled while we waited for the claim.
	if r, ok := s.cachedCheck(ctx, host); ok {
		return &CheckAnswer{Result: r, Cached: true, ResultURL: s.storeLink(host)}, nil
	}
	if err := s.limits.take(caller, 1, quotaFreshChecks, quotaSiteFresh); err != nil {
		return nil, err
	}
	// The check outlives a client that hangs up: its result is cached and
	// saved for the next caller.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), liveCheckTimeout)
	defer cancel()
	res, err := s.cfg.Engine.Check(cctx, u.String())
	if err != nil {
		if errors.Is(err, fetch.ErrRefused) {
			return nil, unsafeURL(err)
		}
		return nil, fail(ErrUnavailable, "the check could not run; try again later")
	}
	if err := s.saveCheck(context.WithoutCancel(ctx), res); err != nil {
		s.log.Error("save live check", "error", err)
		return nil, fail(ErrUnavailable, "the check ran but could not be saved; try again later")
	}
	s.cache.put(res)
	return &CheckAnswer{Result: res, ResultURL: s.storeLink(host)}, nil
}

// cachedCheck returns the host's live check younger than CheckTTL: from
// this process's cache, or, with shared state, from the one another
// replica saved.
func (s *Server) cachedCheck(ctx context.Context, host string) (*check.Result, bool) {
	if r, ok := s.cache.get(host, s.now()); ok {
		return r, true
	}
	if s.shared == nil {
		return nil, false
	}
	raw, ok, err := s.shared.LatestCheck(context.WithoutCancel(ctx), host)
	if err != nil {
		s.log.Warn("read shared live check", "error", err)
		return nil, false
	}
	var r check.Result
	if !ok || json.Unmarshal(raw, &r) != nil || r.Host != host {
		return nil, false
	}
	s.cache.put(&r)
	return s.cache.get(host, s.now())
}

// saveCheck makes a fresh check durable before it is answered.
func (s *Server) saveCheck(ctx context.Context, res *check.Result) error {
	if s.shared != nil {
		return s.shared.SaveCheck(ctx, res.Host, res.CheckedAt, res)
	}
	return s.state.Append(ctx, inbox.TypeCheck, res.CheckedAt, res)
}

// claim makes this request the one running host's live check: in this
// process, and with shared state across replicas (a lock per host). ok is
// false when another holds it; release ends the claim.
func (s *Server) claim(ctx context.Context, host string) (release func(), ok bool, err error) {
	s.inflightMu.Lock()
	if s.inflight[host] {
		s.inflightMu.Unlock()
		return nil, false, nil
	}
	s.inflight[host] = true
	s.inflightMu.Unlock()
	local := func() {
		s.inflightMu.Lock()
		defer s.inflightMu.Unlock()
		delete(s.inflight, host)
	}
	if s.shared == nil {
		return local, true, nil
	}
	unlock, ok, err := s.shared.LockHost(context.WithoutCancel(ctx), host)
	if err != nil || !ok {
		local()
		return nil, false, err
	}
	return func() { unlock(); local() }, true, nil
}

// unsafeURL turns a refusal of the safe client into a 400 that says why.
func unsafeURL(err error) error {
	if r, ok := fetch.IsRefused(err); ok {
		return fail(ErrInvalid, "invalid or unsafe store URL: %s", r.Reason)
	}
	return fail(ErrInvalid, "invalid or unsafe store URL")
}

// storeLink is the page of a store's saved result.
func (s *Server) storeLink(host string) string {
	return s.link("/stores/" + url.PathEscape(host) + "/")
}

func (s *Server) agentCheckout(w http.ResponseWriter, r *http.Request) error {
	return serveRead(s, w, r, decodeCheck, s.CanAgentCheckout, "no-store")
}
