package serve

import (
	"context"
	"log/slog"
	"net/http"
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

// handlerTimeout bounds the work of one request, client or no client; the
// live check's 90 s is the longest.
const handlerTimeout = 2 * time.Minute

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
