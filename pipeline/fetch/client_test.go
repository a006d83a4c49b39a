package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeResolver maps names to addresses; unknown names fail like NXDOMAIN.
type fakeResolver map[string][]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	addrs, ok := f[strings.TrimSuffix(strings.ToLower(host), ".")]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []netip.Addr
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

// countingListener is a loopback server that counts every accepted
// connection: refusal tests assert it saw none.
func countingListener(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	ts := httptest.NewUnstartedServer(h)
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			n.Add(1)
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	return ts, &n
}

func TestHostileURLsRefused(t *testing.T) {
	ts, conns := countingListener(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "you should not see this")
	}))
	port := ts.Listener.Addr().(*net.TCPAddr).Port
	p := func(host string) string { return fmt.Sprintf("http://%s:%d/", host, port) }

	// Names that resolve to non-public addresses through the injected resolver.
	res := fakeResolver{
		"evil.example":          {"127.0.0.1"},
		"rebind.example":        {"93.184.215.14", "10.0.0.1"}, // one bad address is enough
		"metadata.example":      {"169.254.169.254"},
		"v6private.example":     {"fd12:3456::1"},
		"mapped.example":        {"::ffff:127.0.0.1"},
		"cgnat.example":         {"100.64.1.1"},
		"localhost":             {"127.0.0.1"},
		"nat64.example":         {"64:ff9b::7f00:1"},
		"sixtofour.example":     {"2002:7f00:1::1"},
		"doc.example":           {"192.0.2.10"},
		"multicast.example":     {"224.0.0.251"},
		"unspecified.example":   {"0.0.0.0"},
		"linklocal6.example":    {"fe80::1"},
		"alibaba-meta.example":  {"100.100.100.200"},
		"aws-meta-v6.example":   {"fd00:ec2::254"},
		"benchmark.example":     {"198.18.0.1"},
		"reserved.example":      {"240.0.0.1"},
		"broadcast.example":     {"255.255.255.255"},
		"private172.example":    {"172.16.5.4"},
		"private192.example":    {"192.168.1.1"},
		"v6loop.example":        {"::1"},
		"redirect-start.public": {"93.184.215.14"},
	}

	cases := []struct {
		name, url string
		code      string // expected RefusedError code; "" = any refusal
	}{
		{"loopback literal", p("127.0.0.1"), CodeBlockedAddress},
		{"loopback other", p("127.1.2.3"), CodeBlockedAddress},
		{"loopback short form", p("127.1"), CodeBlockedAddress},
		{"decimal IPv4", p("2130706433"), CodeBlockedAddress},
		{"octal IPv4", p("0177.0.0.1"), CodeBlockedAddress},
		{"hex IPv4", p("0x7f.0.0.1"), CodeBlockedAddress},
		{"hex whole IPv4", p("0x7f000001"), CodeBlockedAddress},
		{"mixed octal hex", p("0x7f.00.0x0.01"), CodeBlockedAddress},
		{"zero address", p("0.0.0.0"), CodeBlockedAddress},
		{"zero short", p("0"), CodeBlockedAddress},
		{"IPv6 unspecified", "http://[::]:" + fmt.Sprint(port) + "/", CodeBlockedAddress},
		{"IPv6 loopback", "http://[::1]:" + fmt.Sprint(port) + "/", CodeBlockedAddress},
		{"IPv4-mapped loopback", "http://[::ffff:127.0.0.1]:" + fmt.Sprint(port) + "/", CodeBlockedAddress},
		{"IPv4-mapped hex", "http://[::ffff:7f00:1]:" + fmt.Sprint(port) + "/", CodeBlockedAddress},
		{"IPv4-compatible", "http://[::127.0.0.1]:" + fmt.Sprint(port) + "/", CodeBlockedAddress},
		{"IPv6 link-local zone", "http://[fe80::1%25eth0]/", ""},
		{"IPv6 ULA", "http://[fd00::1]/", CodeBlockedAddress},
		{"NAT64 loopback literal", "http://[64:ff9b::127.0.0.1]/", CodeBlockedAddress},
		{"private 10", p("10.1.2.3"), CodeBlockedAddress},
		{"private 172", p("172.31.255.255"), CodeBlockedAddress},
		{"private 192", p("192.168.0.1"), CodeBlockedAddress},
		{"link-local metadata", "http://169.254.169.254/latest/meta-data/", CodeBlockedAddress},
		{"CGNAT", p("100.127.0.1"), CodeBlockedAddress},
		{"documentation", p("198.51.100.7"), CodeBlockedAddress},
		{"documentation v6", "http://[2001:db8::1]/", CodeBlockedAddress},
		{"multicast", p("239.255.255.250"), CodeBlockedAddress},
		{"broadcast", p("255.255.255.255"), CodeBlockedAddress},
		{"localhost name", p("localhost"), CodeBlockedAddress},
		{"localhost trailing dot", p("localhost."), CodeBlockedAddress},
		{"localhost upper", p("LOCALHOST"), CodeBlockedAddress},
		{"sub.localhost", p("app.localhost"), CodeBlockedAddress},
		{"name resolving to loopback", p("evil.example"), CodeBlockedAddress},
		{"name with one private address", p("rebind.example"), CodeBlockedAddress},
		{"name resolving to metadata", p("metadata.example"), CodeBlockedAddress},
		{"name resolving to ULA", p("v6private.example"), CodeBlockedAddress},
		{"name resolving to mapped loopback", p("mapped.example"), CodeBlockedAddress},
		{"name resolving to CGNAT", p("cgnat.example"), CodeBlockedAddress},
		{"name resolving to NAT64 loopback", p("nat64.example"), CodeBlockedAddress},
		{"name resolving to 6to4 loopback", p("sixtofour.example"), CodeBlockedAddress},
		{"name resolving to documentation", p("doc.example"), CodeBlockedAddress},
		{"name resolving to multicast", p("multicast.example"), CodeBlockedAddress},
		{"name resolving to 0.0.0.0", p("unspecified.example"), CodeBlockedAddress},
		{"name resolving to fe80::1", p("linklocal6.example"), CodeBlockedAddress},
		{"Alibaba metadata", p("alibaba-meta.example"), CodeBlockedAddress},
		{"AWS IPv6 metadata", p("aws-meta-v6.example"), CodeBlockedAddress},
		{"benchmarking", p("benchmark.example"), CodeBlockedAddress},
		{"reserved class E", p("reserved.example"), CodeBlockedAddress},
		{"name to broadcast", p("broadcast.example"), CodeBlockedAddress},
		{"name to 172.16", p("private172.example"), CodeBlockedAddress},
		{"name to 192.168", p("private192.example"), CodeBlockedAddress},
		{"name to ::1", p("v6loop.example"), CodeBlockedAddress},
		{"file scheme", "file:///etc/passwd", CodeScheme},
		{"gopher scheme", "gopher://127.0.0.1:70/", CodeScheme},
		{"ftp scheme", "ftp://example.com/", CodeScheme},
		{"javascript scheme", "javascript:alert(1)", ""},
		{"data scheme", "data:text/html,hi", ""},
		{"user-info", "http://user:pass@example.com/", CodeUserInfo},
		{"user-info hiding host", "http://ucp.dev@127.0.0.1/", CodeUserInfo},
		{"empty", "", CodeInvalidURL},
		{"no host", "http:///path", CodeInvalidURL},
		{"bad port", "http://example.com:99999/", CodeInvalidURL},
		{"invalid numeric host", p("1.2.3.4.5"), CodeInvalidURL},
		{"octet overflow", p("256.1.1.1"), CodeInvalidURL},
		{"space in host", "http://exa mple.com/", ""},
		{"too long", "https://example.com/" + strings.Repeat("a", 3000), CodeInvalidURL},
	}
	if len(cases) < 40 {
		t.Fatalf("only %d hostile URLs; the foundation issue asks for at least 40", len(cases))
	}
	c, err := New(Options{Resolver: res, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Get(context.Background(), tc.url)
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("Get(%q) = %v, want a refusal", tc.url, err)
			}
			re, _ := IsRefused(err)
			if tc.code != "" && re.Code != tc.code {
				t.Errorf("Get(%q) code = %q, want %q (%v)", tc.url, re.Code, tc.code, err)
			}
			if re.Reason == "" {
				t.Errorf("Get(%q): refusal without a reason", tc.url)
			}
		})
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("the loopback listener saw %d connections, want 0", n)
	}
}

// TestRedirectToLoopbackRefused follows a chain that starts on a "public"
// server and ends on loopback: the last hop must be refused at dial time.
func TestRedirectToLoopbackRefused(t *testing.T) {
	target, conns := countingListener(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "secret")
	}))
	// The "public" store is the fixture server (the only loopback the client
	// may reach); it redirects twice and then points at the loopback target.
	store := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			http.Redirect(w, r, "/hop", http.StatusFound)
		case "/hop":
			http.Redirect(w, r, "http://redirect-start.public/next", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer store.Close()
	res := fakeResolver{"redirect-start.public": {"127.0.0.1"}}
	c, err := New(Options{Resolver: res, FixtureAddr: store.Listener.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	// Redirect to a name that resolves to loopback.
	_, err = c.Get(context.Background(), "http://shop.test/")
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("redirect to a loopback name: got %v, want a refusal", err)
	}
	// Redirect straight to the loopback target's literal address.
	store2 := httptest.NewServer(http.RedirectHandler(target.URL+"/x", http.StatusMovedPermanently))
	defer store2.Close()
	c2, _ := New(Options{Resolver: res, FixtureAddr: store2.Listener.Addr().String()})
	_, err = c2.Get(context.Background(), "http://shop.test/")
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("redirect to a loopback literal: got %v, want a refusal", err)
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("the loopback target saw %d connections, want 0", n)
	}
}

func TestRedirectLimit(t *testing.T) {
	var hops atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := hops.Add(1)
		http.Redirect(w, r, fmt.Sprintf("/r%d", n), http.StatusFound)
	}))
	defer ts.Close()
	c, _ := New(Options{FixtureAddr: ts.Listener.Addr().String()})
	_, err := c.Get(context.Background(), "http://loop.test/")
	re, ok := IsRefused(err)
	if !ok || re.Code != CodeTooManyRedir {
		t.Fatalf("got %v, want a too_many_redirects refusal", err)
	}
	if got := hops.Load(); got != 4 { // the first request plus 3 redirects
		t.Errorf("server saw %d requests, want 4", got)
	}
}

func TestThreeRedirectsFollowed(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			http.Redirect(w, r, "/a", http.StatusFound)
		case "/a":
			http.Redirect(w, r, "/b", http.StatusFound)
		case "/b":
			http.Redirect(w, r, "/c", http.StatusFound)
		default:
			fmt.Fprint(w, "landed ", r.Header.Get("User-Agent"))
		}
	}))
	defer ts.Close()
	c, _ := New(Options{FixtureAddr: ts.Listener.Addr().String()})
	resp, err := c.Get(context.Background(), "http://shop.test/")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resp.URL.Path, "/c"; got != want {
		t.Errorf("final path %q, want %q", got, want)
	}
	if got, want := strings.Join(resp.Redirects, " "), "http://shop.test/ http://shop.test/a http://shop.test/b"; got != want {
		t.Errorf("redirects %q, want %q", got, want)
	}
	if !strings.Contains(string(resp.Body), DefaultUserAgent) {
		t.Errorf("body %q lacks the identifying User-Agent", resp.Body)
	}
}

func TestBodyCapAndTimeout(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			w.Write(make([]byte, 4096))
		case "/slow":
			select {
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
			}
		}
	}))
	defer ts.Close()
	c, _ := New(Options{FixtureAddr: ts.Listener.Addr().String(), MaxBody: 1024, Timeout: 200 * time.Millisecond})
	if _, err := c.Get(context.Background(), "http://shop.test/big"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("big body: got %v, want ErrTooLarge", err)
	}
	start := time.Now()
	if _, err := c.Get(context.Background(), "http://shop.test/slow"); !errors.Is(err, ErrTimeout) {
		t.Errorf("slow body: got %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("timeout took %s", d)
	}
}

// TestDeclaredOversizeIsNotRead checks that a body whose Content-Length is
// over the cap is refused as ErrTooLarge without being read (the meter counts
// no body byte and the server's write fails once the client hangs up), while
// a HEAD answer announcing the same length is no error, and a body with no
// Content-Length over the cap is still cut at the cap.
func TestDeclaredOversizeIsNotRead(t *testing.T) {
	const max = 64 << 10
	wrote := make(chan int64, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/declared":
			w.Header().Set("Content-Length", strconv.Itoa(64*max))
			if r.Method == http.MethodHead {
				return
			}
			var n int64
			chunk := make([]byte, 4096)
			for n < 64*max {
				m, err := w.Write(chunk)
				n += int64(m)
				if err != nil {
					break
				}
			}
			wrote <- n
		case "/chunked":
			for range 2 * max / 4096 {
				w.Write(make([]byte, 4096))
				w.(http.Flusher).Flush()
			}
		}
	}))
	defer ts.Close()
	meter := &Meter{}
	c, _ := New(Options{FixtureAddr: ts.Listener.Addr().String(), MaxBody: max, Meter: meter})
	if _, err := c.Get(context.Background(), "http://shop.test/declared"); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("declared oversize: got %v, want ErrTooLarge", err)
	}
	if got := meter.BodyBytes(); got != 0 {
		t.Errorf("declared oversize: %d body bytes read, want 0", got)
	}
	if n := <-wrote; n >= 64*max {
		t.Errorf("the server wrote all %d bytes: the client read them", n)
	}
	resp, err := c.Do(context.Background(), Request{URL: "http://shop.test/declared", Method: http.MethodHead})
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("HEAD of a large page: %v, %v; want 200 and no error", resp, err)
	}
	before := meter.BodyBytes()
	if _, err := c.Get(context.Background(), "http://shop.test/chunked"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("chunked oversize: got %v, want ErrTooLarge", err)
	}
	if got := meter.BodyBytes() - before; got != max+1 {
		t.Errorf("chunked oversize: %d body bytes read, want the cap and one (%d)", got, max+1)
	}
}

// TestFixtureModeOnlyTestHosts checks that the fixture address is reachable
// for *.test names only, and that the same URL is refused without the flags.
func TestFixtureModeOnlyTestHosts(t *testing.T) {
	ts, conns := countingListener(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "host=", r.Host)
	}))
	addr := ts.Listener.Addr().String()
	fc, _ := New(Options{FixtureAddr: addr, Resolver: fakeResolver{}})
	resp, err := fc.Get(context.Background(), "http://alder-apparel.test/")
	if err != nil {
		t.Fatalf("fixture host: %v", err)
	}
	if got := string(resp.Body); got != "host=alder-apparel.test" {
		t.Errorf("body %q: the Host header must stay the store's", got)
	}
	before := conns.Load()
	for _, u := range []string{"http://" + addr + "/", "http://localhost/", "http://test/", "http://x.test.example/"} {
		if _, err := fc.Get(context.Background(), u); err == nil {
			t.Errorf("fixture mode let %s through", u)
		}
	}
	plain, _ := New(Options{Resolver: fakeResolver{"alder-apparel.test": {"127.0.0.1"}}})
	if _, err := plain.Get(context.Background(), "http://alder-apparel.test/"); !errors.Is(err, ErrRefused) {
		t.Errorf("without fixture flags: got %v, want a refusal", err)
	}
	if n := conns.Load() - before; n != 0 {
		t.Errorf("non-fixture requests reached the listener %d times", n)
	}
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"shop.example", "https://shop.example"},
		{"https://Shop.Example/products/x?y=1", "https://Shop.Example/products/x?y=1"},
		{"http://93.184.215.14/", "http://93.184.215.14/"},
		{"  https://bücher.example/  ", "https://xn--bcher-kva.example/"},
	} {
		u, err := ParseURL(tc.in)
		if err != nil {
			t.Errorf("ParseURL(%q): %v", tc.in, err)
			continue
		}
		if u.String() != tc.want && u.Redacted() != tc.want {
			t.Errorf("ParseURL(%q) = %q, want %q", tc.in, u, tc.want)
		}
	}
}

func TestBlockedReasonPublic(t *testing.T) {
	for _, a := range []string{"93.184.215.14", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8", "1.1.1.1"} {
		if r := BlockedReason(netip.MustParseAddr(a)); r != "" {
			t.Errorf("BlockedReason(%s) = %q, want public", a, r)
		}
	}
}

func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1/", "https://shop.test/x", "0x7f.1", "http://[::ffff:1.2.3.4]/", "a.b.c.d", "http://1.2.3.4.5/",
		"http://127。0。0。1/", "１２７.０.０.１", "http:/127.0.0.1/", "mailto:a@b.c", "shop.example:8443"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseURL(s)
		if err != nil {
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("ParseURL(%q) returned a non-refusal error %v", s, err)
			}
			return
		}
		// Whatever is accepted must not be an IP literal of a blocked range,
		// neither as kept nor as a browser or resolver would read it.
		if a, ok, _ := hostIP(u.Hostname()); ok && BlockedReason(a) != "" {
			t.Fatalf("ParseURL(%q) accepted blocked address %s", s, a)
		}
		if h, err := CanonicalHost(u.Hostname()); err != nil || h != strings.Trim(strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")), "[]") && !strings.Contains(h, ":") {
			t.Fatalf("ParseURL(%q) kept host %q, which normalises to %q (%v)", s, u.Hostname(), h, err)
		}
	})
}
