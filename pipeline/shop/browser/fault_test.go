package browser

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestNames: a command line names a profile as Chromium's processes do,
// and a longer profile name with the same start is another profile.
func TestNames(t *testing.T) {
	const dir = "/tmp/svc-shop-profile-123"
	for _, tc := range []struct {
		cmdline string
		want    bool
	}{
		{"/usr/lib/chromium/chromium\x00--user-data-dir=/tmp/svc-shop-profile-123\x00--headless\x00", true},
		{"/usr/lib/chromium/chromium --type=zygote --user-data-dir=/tmp/svc-shop-profile-123 --no-sandbox", true},
		{"chrome_crashpad_handler\x00--database=/tmp/svc-shop-profile-123/Crash Reports\x00", true},
		{"/tmp/svc-shop-profile-123", true},
		{"chromium\x00--user-data-dir=/tmp/svc-shop-profile-1234\x00", false},
		{"chromium --user-data-dir=/tmp/svc-shop-profile-1234 --x=/tmp/svc-shop-profile-12", false},
		{"cat /tmp/svc-shop-profile-1234 /tmp/svc-shop-profile-123x", false},
		{"chromium\x00--user-data-dir=/tmp/svc-shop-profile-1234\x00--disk-cache-dir=/tmp/svc-shop-profile-123/c", true},
	} {
		if got := names([]byte(tc.cmdline), dir); got != tc.want {
			t.Errorf("names(%q) = %v, want %v", tc.cmdline, got, tc.want)
		}
	}
}

// TestUnresponsive: a page held by a script that never yields is
// unresponsive; the same page without the loop is not, nor is one that
// requests without end.
func TestUnresponsive(t *testing.T) {
	site := newHostServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/busy":
			fmt.Fprint(w, `<!doctype html><h1>Busy</h1><script>while (true) {}</script>`)
		case "/later":
			fmt.Fprint(w, `<!doctype html><h1>Busy later</h1><script>setTimeout(() => { while (true) {} }, 50)</script>`)
		case "/endless":
			fmt.Fprint(w, `<!doctype html><h1>Endless</h1><script>function more() { fetch('/x?' + Math.random()).finally(more); } more();</script>`)
		default:
			fmt.Fprint(w, `ok`)
		}
	})
	b := startBrowser(t, Options{FixtureAddr: site.Listener.Addr().String()})
	for _, tc := range []struct {
		path string
		want bool
	}{{"/plain", false}, {"/endless", false}, {"/later", true}, {"/busy", true}} {
		p, err := b.NewPage(t.Context(), PageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		err = p.Navigate(ctx, "http://shop.test"+tc.path)
		cancel()
		time.Sleep(200 * time.Millisecond)
		if got := p.Unresponsive(time.Second); got != tc.want {
			t.Errorf("%s: Unresponsive = %v, want %v (navigate: %v)", tc.path, got, tc.want, err)
		}
		p.Close()
	}
}
