package check_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"svc/pipeline/check"
	"svc/pipeline/fetch"
)

// storeEngine serves h as every *.test host over plain HTTP and returns an
// engine that reaches it through the fixture flags (no UCP validator).
func storeEngine(t *testing.T, h http.Handler) *check.Engine {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	client, err := fetch.New(fetch.Options{FixtureAddr: ts.Listener.Addr().String(), Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return check.New(check.Options{Client: client})
}

func checkStore(t *testing.T, eng *check.Engine, url string) *check.Result {
	t.Helper()
	res, err := eng.Check(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCookieGateStore: a store that sets a region cookie on a redirect and
// a consent cookie on the next, redirecting home until both come back, is
// reachable within one check; the next check starts without its cookies.
func TestCookieGateStore(t *testing.T) {
	homes := 0
	eng := storeEngine(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		has := func(name string) bool { _, err := r.Cookie(name); return err == nil }
		switch {
		case r.URL.Path == "/robots.txt":
			w.Write([]byte("User-agent: *\nAllow: /\n"))
		case r.URL.Path == "/region":
			http.Redirect(w, r, "/", http.StatusFound)
		case !has("region"):
			http.SetCookie(w, &http.Cookie{Name: "region", Value: "us", Path: "/"})
			http.Redirect(w, r, "/region", http.StatusFound)
		case !has("consent"):
			http.SetCookie(w, &http.Cookie{Name: "consent", Value: "1", Path: "/"})
			http.Redirect(w, r, "/", http.StatusFound)
		case r.URL.Path == "/":
			homes++
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<html><head><title>Gated shop</title></head><body><a href="/cart">Cart</a></body></html>`))
		default:
			http.NotFound(w, r)
		}
	}))
	for i := 0; i < 2; i++ {
		res := checkStore(t, eng, "http://gated.test/")
		if r := res.Reachability; r.Reachable == nil || !*r.Reachable || r.HTTPStatus != 200 {
			t.Fatalf("check %d: reachability %+v, want reachable 200", i+1, r)
		}
	}
	if homes != 2 {
		t.Errorf("the homepage was served %d times, want once per check", homes)
	}
}
