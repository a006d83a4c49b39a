package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"svc/fixtures"
	"svc/pipeline/fetch"
)

// noDNS resolves nothing: under fuzzing only the fixture world (*.test,
// on loopback) can answer, every other name fails at once.
type noDNS struct{}

func (noDNS) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return nil, errors.New("no DNS in tests")
}

// fuzzServer is a server whose handler the fuzz targets call directly;
// each call comes from another network, so the daily limits do not hide
// the paths behind them. With withWorld the fixture world runs on loopback
// for store submissions to check; without it, no submitted host resolves.
func fuzzServer(f *testing.F, withWorld bool) (http.Handler, func() string) {
	f.Helper()
	opts := fetch.Options{Timeout: 200 * time.Millisecond, Resolver: noDNS{}}
	if withWorld {
		world := fixtures.Generate(1, 40)
		srv, err := fixtures.NewServer(world, fixtures.ServerOptions{Slow: 300 * time.Millisecond})
		if err != nil {
			f.Fatal(err)
		}
		f.Cleanup(func() { srv.Close() })
		opts.FixtureAddr, opts.FixtureCA = srv.Addr(), srv.CAPEM()
	}
	client, err := fetch.New(opts)
	if err != nil {
		f.Fatal(err)
	}
	s, err := New(Config{DataDir: f.TempDir(), Client: client})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	var n atomic.Uint32
	next := func() string {
		i := n.Add(1)
		return fmt.Sprintf("10.%d.%d.%d:4000", byte(i>>16), byte(i>>8), byte(i))
	}
	return s.Handler(), next
}

func fuzzPost(h http.Handler, addr, path string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.RemoteAddr = addr
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// FuzzStoreSubmission sends any body to POST /api/stores/submit: the answer
// is a result (200, one outcome per distinct host, counts that add up) or
// a 4xx with the error body; never a panic or a 5xx.
func FuzzStoreSubmission(f *testing.F) {
	for _, seed := range []string{
		`{"url":"https://evenoxco.test/products/x"}`,
		`{"hosts":["simplehedge.test","SIMPLEHEDGE.TEST.","www.simplehedge.test","10.0.0.1","a b"],"category":"Pets"}`,
		`{"url":"evenoxco.test","hosts":["nosuch.test","shop.example"],"category":"cars"}`,
		`{"hosts":[]}`, `{}`, `null`, `[]`, `"x"`, `{"hosts":"a"}`, `{"hosts":[1,2]}`, `{"url":"a.example"} x`,
		`{"hosts":["` + strings.Repeat("a.", 200) + `example"]}`, `{"url":"http://[::1]/"}`, `{"url":"xn--80ak6aa92e.com"}`,
	} {
		f.Add([]byte(seed))
	}
	h, next := fuzzServer(f, true)
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := fuzzPost(h, next(), "/api/stores/submit", body)
		switch rec.Code {
		case http.StatusOK:
			var res StoreSubmitResult
			if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil {
				t.Fatalf("200 with a body that is not a result: %v", err)
			}
			if len(res.Results) == 0 || len(res.Results) > MaxSubmitHosts ||
				res.Accepted+res.AlreadyListed+res.Rejected+res.Limited != len(res.Results) {
				t.Fatalf("result %+v", res)
			}
			seen := map[string]bool{}
			for _, r := range res.Results {
				if r.Outcome != OutcomeRejected && seen[r.Host] {
					t.Fatalf("host %q twice", r.Host)
				}
				seen[r.Host] = true
			}
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusTooManyRequests:
			var eb ErrorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil || eb.Error.Code == "" || eb.Error.Message == "" {
				t.Fatalf("%d without the error body: %q", rec.Code, rec.Body)
			}
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	})
}

// FuzzLeaderboardSubmission sends any body to POST /api/leaderboard/submit:
// 201 or 200 with a receipt, or 400/413/429 with the error body; never a
// panic or a 5xx, and never the contact in the answer.
func FuzzLeaderboardSubmission(f *testing.F) {
	f.Add([]byte(exampleRun(10)))
	f.Add([]byte(exampleRun(2)))
	f.Add([]byte(exampleRun(100)))
	f.Add([]byte(`{"spec":"svc-leaderboard-submission/v1","test_set":"SVC-100 v1","agent":{"name":"a","path":"ucp"},` +
		`"run":{"stopped_before_payment":true},"results":[{"id":"svc100-v1-001","outcome":"blocked"}],"contact":"c"}`))
	f.Add([]byte(`{"results":[{"id":"svc100-v1-000"},{"id":"svc100-v1-000"}],"run":{"started_at":"2026-13-01T00:00:00Z"}}`))
	f.Add([]byte(`not json`))
	f.Add([]byte(`{"agent":{"name":"\u0000\ud800"}}`))
	h, next := fuzzServer(f, false)
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := fuzzPost(h, next(), "/api/leaderboard/submit", body)
		switch rec.Code {
		case http.StatusCreated, http.StatusOK:
			var r LeaderboardReceipt
			if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil || !r.OK || !strings.HasPrefix(r.ID, "sub-") ||
				r.Status != "unverified" || r.N < 10 || r.N > 100 || r.CartSuccesses > r.N || r.Duplicate != (rec.Code == 200) {
				t.Fatalf("%d with receipt %s", rec.Code, rec.Body)
			}
			var m map[string]json.RawMessage
			json.Unmarshal(rec.Body.Bytes(), &m)
			if _, ok := m["contact"]; ok {
				t.Fatal("the receipt holds the contact")
			}
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusTooManyRequests:
			var eb ErrorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil || eb.Error.Code == "" || eb.Error.Message == "" {
				t.Fatalf("%d without the error body: %q", rec.Code, rec.Body)
			}
			if rec.Code == http.StatusBadRequest && len(eb.Error.Problems) == 0 {
				t.Fatalf("400 without problems: %s", rec.Body)
			}
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	})
}
