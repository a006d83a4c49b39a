package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// gateServer is a store behind a region and a consent gate, as real stores
// put them: a visit without the region cookie sets it on a redirect to a
// chooser that redirects home; a visit without the consent cookie sets it
// and redirects home again. Only a client that sends the cookies back gets
// the homepage; one that does not loops until "too many redirects".
func gateServer(t *testing.T) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		has := func(name string) bool { _, err := r.Cookie(name); return err == nil }
		switch {
		case r.URL.Path == "/choose-region":
			http.Redirect(w, r, "/", http.StatusFound)
		case !has("region"):
			http.SetCookie(w, &http.Cookie{Name: "region", Value: "us", Path: "/"})
			http.Redirect(w, r, "/choose-region", http.StatusFound)
		case !has("consent"):
			http.SetCookie(w, &http.Cookie{Name: "consent", Value: "necessary", Path: "/", MaxAge: 3600})
			http.Redirect(w, r, "/", http.StatusFound)
		default:
			fmt.Fprint(w, "home with cookies: ", cookieHeader(r))
		}
	}))
	t.Cleanup(ts.Close)
	return ts
}

func cookieHeader(r *http.Request) string { return strings.Join(r.Header.Values("Cookie"), "; ") }

// TestCookieGateReachable: a session's jar carries a store's gate cookies
// through its redirects; the plain client keeps none and loops.
func TestCookieGateReachable(t *testing.T) {
	ts := gateServer(t)
	c, _ := New(Options{FixtureAddr: ts.Listener.Addr().String()})
	if _, err := c.Get(context.Background(), "http://gated.test/"); err == nil {
		t.Fatal("the client without a jar got past the gate; the test proves nothing")
	} else if re, ok := IsRefused(err); !ok || re.Code != CodeTooManyRedir {
		t.Fatalf("without a jar: %v, want too many redirects", err)
	}
	s := c.WithCookies()
	resp, err := s.Get(context.Background(), "http://gated.test/")
	if err != nil {
		t.Fatalf("with a jar: %v", err)
	}
	if resp.StatusCode != 200 || !strings.Contains(string(resp.Body), "region=us") || !strings.Contains(string(resp.Body), "consent=necessary") {
		t.Errorf("got %d %q, want the homepage with both cookies", resp.StatusCode, resp.Body)
	}
	if got := strings.Join(resp.RedirectSetCookies, " | "); !strings.Contains(got, "region=us") || !strings.Contains(got, "consent=necessary") {
		t.Errorf("RedirectSetCookies %q, want the gate's two cookies", got)
	}
	// The next request of the same session goes straight in.
	if resp, err := s.Get(context.Background(), "http://gated.test/"); err != nil || len(resp.Redirects) != 0 {
		t.Errorf("second visit: %v, redirects %v, want none", err, resp)
	}
	// Another session starts empty, and the parent client still keeps none.
	if resp, err := c.WithCookies().Get(context.Background(), "http://gated.test/"); err != nil || len(resp.Redirects) != 3 {
		t.Errorf("a new session: %v, %v: want the whole gate again (3 redirects)", err, resp)
	}
	if _, err := c.Get(context.Background(), "http://gated.test/"); err == nil {
		t.Error("the parent client kept a session's cookies")
	}
}

// TestCookieScope: cookies go back only where a browser sends them: the
// host that set them or the Domain they name (never a public suffix), on
// their Path, Secure ones never over http, and never to another site, even
// one the store redirects to.
func TestCookieScope(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/set":
			for _, ck := range []*http.Cookie{
				{Name: "host_only", Value: "1", Path: "/"},
				{Name: "whole_site", Value: "1", Path: "/", Domain: "shop.test"},
				{Name: "suffix", Value: "1", Path: "/", Domain: "test"},
				{Name: "account", Value: "1", Path: "/account"},
				{Name: "secure", Value: "1", Path: "/", Secure: true},
			} {
				http.SetCookie(w, ck)
			}
		case "/away":
			http.Redirect(w, r, "http://other.test/echo", http.StatusFound)
		default:
			fmt.Fprint(w, cookieHeader(r))
		}
	}))
	defer ts.Close()
	base, _ := New(Options{FixtureAddr: ts.Listener.Addr().String()})
	s := base.WithCookies()
	if _, err := s.Get(context.Background(), "http://shop.test/set"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ url, want string }{
		{"http://shop.test/echo", "host_only=1; whole_site=1"},
		{"http://shop.test/account/orders", "account=1; host_only=1; whole_site=1"},
		{"http://www.shop.test/echo", "whole_site=1"},
		{"http://other.test/echo", ""},
		{"http://shop.test/away", ""}, // lands on other.test/echo
	} {
		resp, err := s.Get(context.Background(), tc.url)
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		if got := sortedCookies(string(resp.Body)); got != tc.want {
			t.Errorf("%s sent %q, want %q", tc.url, got, tc.want)
		}
	}
}

// TestCookieJarBounds: a site cannot make the jar grow without bound.
func TestCookieJarBounds(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/many":
			for i := 0; i < 200; i++ {
				http.SetCookie(w, &http.Cookie{Name: fmt.Sprintf("c%03d", i), Value: "x", Path: "/"})
			}
		case "/huge":
			http.SetCookie(w, &http.Cookie{Name: "huge", Value: strings.Repeat("h", maxCookieBytes), Path: "/"})
		case "/wide":
			for i := 0; i < 30; i++ {
				http.SetCookie(w, &http.Cookie{Name: fmt.Sprintf("w%02d", i), Value: strings.Repeat("w", 3000), Path: "/"})
			}
		default:
			fmt.Fprint(w, cookieHeader(r))
		}
	}))
	defer ts.Close()
	base, _ := New(Options{FixtureAddr: ts.Listener.Addr().String()})
	count := func(s *Client, set string) (int, int) {
		t.Helper()
		if _, err := s.Get(context.Background(), "http://shop.test/"+set); err != nil {
			t.Fatal(err)
		}
		resp, err := s.Get(context.Background(), "http://shop.test/echo")
		if err != nil {
			t.Fatal(err)
		}
		b := strings.TrimSpace(string(resp.Body))
		if b == "" {
			return 0, 0
		}
		return len(strings.Split(b, "; ")), len(b)
	}
	if n, _ := count(base.WithCookies(), "many"); n != maxJarCookies {
		t.Errorf("200 cookies set: %d kept, want %d", n, maxJarCookies)
	}
	if n, _ := count(base.WithCookies(), "huge"); n != 0 {
		t.Errorf("a cookie over %d bytes was kept", maxCookieBytes)
	}
	if _, size := count(base.WithCookies(), "wide"); size > maxJarCookieBytes+maxJarCookies*4 {
		t.Errorf("%d bytes of cookies sent, want at most about %d", size, maxJarCookieBytes)
	}
}

func sortedCookies(h string) string {
	h = strings.TrimSpace(h)
	if h == "" {
		return ""
	}
	parts := strings.Split(h, "; ")
	for i := 1; i < len(parts); i++ {
		for j := i; j > 0 && parts[j] < parts[j-1]; j-- {
			parts[j], parts[j-1] = parts[j-1], parts[j]
		}
	}
	return strings.Join(parts, "; ")
}
