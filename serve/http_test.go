package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/pipeline/inbox"
)

func TestAdaptErrorBody(t *testing.T) {
	s := &Server{log: discard}
	for _, tc := range []struct {
		err    error
		status int
		code   string
		msg    string
	}{
		{fail(ErrInvalid, "url is required: pass ?url=https://shop.example/"), 400, "invalid_request", "url is required: pass ?url=https://shop.example/"},
		{fail(ErrNotFound, "no edition on 2026-01-01"), 404, "not_found", "no edition on 2026-01-01"},
		{fail(ErrTooLarge, "profile larger than 256 KB"), 413, "too_large", "profile larger than 256 KB"},
		{fail(ErrLimited, "daily limit"), 429, "rate_limited", "daily limit"},
		{fail(ErrUnavailable, "try later"), 503, "unavailable", "try later"},
		{errors.New("disk on fire at /secret/path"), 500, "internal", "internal error; the problem was logged"},
	} {
		h := s.adapt("test", func(w http.ResponseWriter, r *http.Request) error { return tc.err })
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/x", nil))
		if rec.Code != tc.status {
			t.Errorf("%v: status %d, want %d", tc.err, rec.Code, tc.status)
		}
		var body ErrorBody
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("%v: body %q is not the error body: %v", tc.err, rec.Body, err)
		}
		if diff := cmp.Diff(ErrorBody{ErrorDetail{Code: tc.code, Message: tc.msg}}, body); diff != "" {
			t.Errorf("error body (-want +got):\n%s", diff)
		}
	}
}

func TestAdaptRecoversPanic(t *testing.T) {
	s := &Server{log: discard}
	h := s.adapt("panic", func(w http.ResponseWriter, r *http.Request) error { panic("boom") })
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/x", nil))
	if rec.Code != 500 {
		t.Errorf("status %d, want 500", rec.Code)
	}
}

func TestCORSPreflight(t *testing.T) {
	h := cors(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) }))
	req := httptest.NewRequest("OPTIONS", "/api/ask", nil)
	req.Header.Set("Origin", "https://agent.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 204 || rec.Header().Get("Access-Control-Allow-Origin") != "*" ||
		rec.Header().Get("Access-Control-Allow-Methods") == "" {
		t.Errorf("preflight: %d %v", rec.Code, rec.Header())
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/protocols", nil))
	if rec.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Error("GET lacks Access-Control-Allow-Origin: *")
	}
}

func TestLimiterDailyAndRestart(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	log, err := inbox.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	l := newLimiter(log, clock)
	q := quota{"test", 3, false}
	for i := 0; i < 3; i++ {
		if err := l.take("net-a", 1, q); err != nil {
			t.Fatalf("use %d: %v", i+1, err)
		}
	}
	if err := l.take("net-a", 1, q); !errors.Is(err, ErrLimited) {
		t.Fatalf("4th use: %v, want limited", err)
	}
	if err := l.take("net-b", 1, q); err != nil {
		t.Fatalf("other network: %v", err)
	}
	log.Close()

	// A restart replays the counters.
	log2, _ := inbox.Open(dir)
	defer log2.Close()
	l2 := newLimiter(log2, clock)
	inbox.DirReader(dir).Replay(context.Background(), func(r inbox.Record) error { l2.replay(r); return nil })
	if err := l2.take("net-a", 1, q); !errors.Is(err, ErrLimited) {
		t.Errorf("after restart: %v, want limited", err)
	}
	if got := l2.remaining("net-b", q); got != 2 {
		t.Errorf("net-b remaining after restart = %d, want 2", got)
	}
	// The next UTC day starts afresh.
	now = now.Add(24 * time.Hour)
	if err := l2.take("net-a", 1, q); err != nil {
		t.Errorf("next day: %v", err)
	}
}

func TestLimiterAllOrNothing(t *testing.T) {
	l := newLimiter(nil, time.Now)
	site := quota{"site", 1, true}
	per := quota{"per", 5, false}
	if err := l.take("a", 1, per, site); err != nil {
		t.Fatal(err)
	}
	if err := l.take("b", 1, per, site); !errors.Is(err, ErrLimited) {
		t.Fatalf("site quota: %v, want limited", err)
	}
	if got := l.remaining("b", per); got != 5 {
		t.Errorf("a refused take used the per-network quota: remaining %d, want 5", got)
	}
}
