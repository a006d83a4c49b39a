package serve

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// handlerFunc is how every endpoint is written: it returns an error instead
// of writing one, and the adapter turns that into the status and error body.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// adapt turns a handlerFunc into an http.Handler that writes errors,
// counts status and latency for the stats line, logs a sampled share of
// requests (method, route, status, latency; never the client address or
// user agent), and recovers from panics as 500s.
func (s *Server) adapt(route string, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("panic", "route", route, "panic", p)
				if rec.status == 0 {
					writeError(rec, fail(errInternal, "internal error"))
				}
			}
			status, d := rec.status, time.Since(start)
			if status == 0 {
				status = http.StatusOK // nothing written: net/http sends 200
			}
			s.stats.observe(status, d)
			if s.sampled() {
				s.log.Info("request", "method", r.Method, "route", route, "status", status,
					"ms", float64(d.Microseconds())/1000)
			}
		}()
		if err := h(rec, r); err != nil {
			if rec.status != 0 {
				// Headers already went out: nothing more can be said.
				s.log.Warn("error after write", "route", route, "error", err)
				return
			}
			status, _, _ := classify(err)
			if status >= 500 {
				s.log.Error("request failed", "route", route, "error", err)
			}
			writeError(rec, err)
		}
	})
}

var errInternal = &apiError{message: "internal error"}

func writeError(w http.ResponseWriter, err error) {
	status, body, retry := classify(err)
	if retry > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retry))
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, body)
}

// writeJSON encodes v to a buffer first, so an encoding failure never sends
// half a body, then sets the headers and writes.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

// statusRecorder remembers the status written.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// cors opens every endpoint to every origin (spec 5.2) and answers
// preflight requests. No credentials are involved: the API has no cookies.
func cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "ETag, Retry-After, X-Svc-Data-As-Of, Mcp-Session-Id")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Content-Type, Accept, If-None-Match, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID")
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// discard is a logger for tests and quiet runs.
var discard = slog.New(slog.DiscardHandler)
