package serve

import (
	"context"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"
)

// Connection rules every request goes through (Handler):
//
//   - A request with a chunked body is answered with "Connection: close"
//     and the connection is closed after the answer. RFC 9112 section 6.1:
//     a server MUST close the connection after a request that has both
//     Content-Length and Transfer-Encoding, since the two disagree on where
//     the next request starts (request smuggling). net/http drops the
//     Content-Length of such a request before a handler sees it, so every
//     chunked request is treated as one: a client sending a chunked body
//     reconnects for its next request, and bytes hidden after the body are
//     never read as a request.
//   - The handler's context is not the connection's. net/http cancels a
//     request's context when it reads EOF from the client, which is also
//     what a client that half-closes after sending its request (shutdown
//     SHUT_WR) looks like; such a request is complete and is answered.
//     Every handler's work is bounded by its own deadline instead
//     (handlerTimeout, and the shorter ones of each outbound request).

//   - Large bodies are heavy work: parsing and validating a 256 KB profile,
//     a 200 KB submission or an MCP batch costs milliseconds to seconds of
//     CPU where a read costs microseconds. A request whose body is over
//     heavyBody (or of unknown length) takes one of a few heavy-work slots
//     (half the CPUs, at least one), so large bodies can never take every
//     CPU from the reads; it waits up to heavyWait for one (then 503 with
//     Retry-After), and a network has at most one such request in flight
//     (a second one is a 429 with Retry-After).

// handlerTimeout bounds the work of one request, client or no client; the
// live check's 90 s is the longest.
const handlerTimeout = 2 * time.Minute

// Heavy-work bounds (see above).
const heavyBody = 32 << 10

var heavyWait = 10 * time.Second // a variable for tests

// heavyGate holds the heavy-work slots and the networks using one.
type heavyGate struct {
	slots chan struct{}
	mu    sync.Mutex
	busy  map[string]bool // caller keys with a heavy request in flight
}

func newHeavyGate() *heavyGate {
	return &heavyGate{slots: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2)), busy: map[string]bool{}}
}

// acquire takes a slot for caller, or says why not; release gives it back.
func (g *heavyGate) acquire(ctx context.Context, caller string) (release func(), err error) {
	g.mu.Lock()
	if g.busy[caller] {
		g.mu.Unlock()
		return nil, &apiError{kind: ErrLimited, retryAfter: 1,
			message: "one request with a large body at a time per network: retry when the previous one is answered"}
	}
	g.busy[caller] = true
	g.mu.Unlock()
	done := func() {
		g.mu.Lock()
		delete(g.busy, caller)
		g.mu.Unlock()
	}
	t := time.NewTimer(heavyWait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return func() { <-g.slots; done() }, nil
	case <-t.C:
	case <-ctx.Done():
	}
	done()
	return nil, &apiError{kind: ErrUnavailable, retryAfter: 5,
		message: "the server is busy with other large requests; retry in a few seconds"}
}

// guard applies the connection rules above.
func guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.TransferEncoding) > 0 {
			w.Header().Set("Connection", "close")
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), handlerTimeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// gateHeavy makes a request with a large body wait for a heavy-work slot.
func (s *Server) gateHeavy(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > heavyBody || r.ContentLength < 0 && len(r.TransferEncoding) > 0 {
			release, err := s.heavy.acquire(r.Context(), s.caller(r))
			if err != nil {
				w.Header().Set("Connection", "close") // the body is not read
				status, body, retry := classify(err)
				s.stats.observe(status, 0)
				if r.Method == http.MethodPost && r.URL.Path == "/api/ask" {
					// The MCP endpoint answers every error as JSON-RPC.
					if retry > 0 {
						w.Header().Set("Retry-After", strconv.Itoa(retry))
					}
					writeRPCError(w, status, nil, rpcServerBusy, "%s: %s", body.Error.Code, body.Error.Message)
					return
				}
				writeError(w, err)
				return
			}
			defer release()
		}
		next.ServeHTTP(w, r)
	})
}

// HTTPServer returns the http.Server `svc serve` runs: the handler, the
// timeouts that cut slow clients, a bound on headers, and net/http's own
// error log routed through the server's log, so that its lines ("TLS
// handshake error from ...", failed writes) are scrubbed of client
// addresses like every other line.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      handlerTimeout, // a live check may take a while
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}
