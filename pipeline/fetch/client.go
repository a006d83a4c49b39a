// Package fetch is the one HTTP client through which svc talks to the outside
// world. It refuses, before and at dial time, every destination that is not a
// public unicast address, so that no URL from a user, a store list or a
// redirect can make the service reach into a private network.
//
// The only way past the refusal is the fixture mode (Options.FixtureAddr):
// every host ending in ".test" is then dialled at that one address, and the
// fixture CA is trusted, while Host header, SNI and path stay the store's.
package fetch

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"
)

// Defaults of the safe client, matching the limits of the public interface.
const (
	DefaultTimeout      = 6 * time.Second
	DefaultMaxRedirects = 3
	DefaultMaxBody      = 2 << 20 // 2 MiB
	DefaultUserAgent    = "svc-checker/1.0 (+agent-commerce readiness; stops before payment)"
)

// Resolver looks up the addresses of a host; *net.Resolver satisfies it.
// Tests inject their own to make public-looking names resolve anywhere.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Options configure a Client. The zero value is a production client.
type Options struct {
	Timeout      time.Duration // per request, including the body; default 6 s
	MaxRedirects int           // default 3; negative means none are followed
	MaxBody      int64         // bytes read from a body; default 2 MiB
	UserAgent    string
	Resolver     Resolver // default net.DefaultResolver

	// FixtureAddr, when set, makes every host ending in ".test" dial this
	// HOST:PORT (which may be loopback). Nothing else is allowed through.
	FixtureAddr string
	// FixtureCA is a PEM bundle added to the trusted roots.
	FixtureCA []byte

	// Meter, when set, counts the client's requests and the bytes it
	// reads (benchmarks compare crawls with it).
	Meter *Meter
}

// Client is safe for concurrent use.
type Client struct {
	opts Options
	hc   *http.Client
	docs *Docs // nil: no conditional requests (WithDocs)
}

// New builds a client. It fails only on bad fixture options.
func New(opts Options) (*Client, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxRedirects == 0 {
		opts.MaxRedirects = DefaultMaxRedirects
	}
	if opts.MaxRedirects < 0 {
		opts.MaxRedirects = 0
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.UserAgent == "" {
		opts.UserAgent = DefaultUserAgent
	}
	if opts.Resolver == nil {
		opts.Resolver = net.DefaultResolver
	}
	if opts.FixtureAddr != "" {
		if _, _, err := net.SplitHostPort(opts.FixtureAddr); err != nil {
			return nil, fmt.Errorf("fixture address %q: want HOST:PORT: %w", opts.FixtureAddr, err)
		}
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(opts.FixtureCA) > 0 {
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(opts.FixtureCA) {
			return nil, errors.New("fixture CA: no PEM certificate found")
		}
		tlsConf.RootCAs = pool
	}
	c := &Client{opts: opts}
	dialer := &net.Dialer{Timeout: opts.Timeout, ControlContext: c.control}
	tr := &http.Transport{
		Proxy: nil, // never an environment proxy: it would bypass the address check
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return c.dial(ctx, dialer, network, addr)
		},
		TLSClientConfig:       tlsConf,
		TLSHandshakeTimeout:   opts.Timeout,
		ResponseHeaderTimeout: opts.Timeout,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	c.hc = &http.Client{Transport: tr, CheckRedirect: c.checkRedirect}
	return c, nil
}

// LoadFixtureCA reads the PEM file named by --fixture-ca; an empty path gives nil.
func LoadFixtureCA(path string) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fixture CA: %w", err)
	}
	return b, nil
}

// FixtureMode reports whether the client routes .test hosts to a fixture server.
func (c *Client) FixtureMode() bool { return c.opts.FixtureAddr != "" }

// isFixtureHost reports whether host (no port) is routed to the fixture server.
func (c *Client) isFixtureHost(host string) bool {
	if c.opts.FixtureAddr == "" {
		return false
	}
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	return strings.HasSuffix(h, ".test") && len(h) > len(".test")
}

type fixtureCtxKey struct{}

// dial resolves addr and dials only checked addresses, so that what is
// checked is what is connected to (no second lookup, no DNS rebinding).
func (c *Client) dial(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if c.isFixtureHost(host) {
		return c.opts.Meter.conn(d.DialContext(context.WithValue(ctx, fixtureCtxKey{}, true), network, c.opts.FixtureAddr))
	}
	var ips []netip.Addr
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		ips = []netip.Addr{a}
	} else {
		ips, err = c.opts.Resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", host, err)
		}
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("resolve %s: %w", host, errNoAddresses)
	}
	for _, ip := range ips {
		if r := BlockedReason(ip); r != "" {
			return nil, refuse(host, CodeBlockedAddress, fmt.Sprintf("%s resolves to %s %s", host, article(r), r))
		}
	}
	var lastErr error
	for _, ip := range ips {
		conn, err := d.DialContext(ctx, network, netip.AddrPortFrom(ip.Unmap(), portNum(port)).String())
		if err == nil {
			return c.opts.Meter.conn(conn, nil)
		}
		lastErr = err
	}
	return nil, lastErr
}

// control runs on the raw socket just before connect: the last line of
// defence, checking the address actually dialled. Only the fixture dial,
// marked on its context by dial, may reach a non-public address.
func (c *Client) control(ctx context.Context, network, address string, _ syscall.RawConn) error {
	if fixture, _ := ctx.Value(fixtureCtxKey{}).(bool); fixture {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return refuse(address, CodeBlockedAddress, "the address could not be checked")
	}
	if r := BlockedReason(ap.Addr()); r != "" {
		return refuse(address, CodeBlockedAddress, "the destination is "+article(r)+" "+r)
	}
	return nil
}

func portNum(p string) uint16 {
	var n uint16
	for _, r := range p {
		n = n*10 + uint16(r-'0')
	}
	return n
}

func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > c.opts.MaxRedirects {
		return refuse(req.URL.Redacted(), CodeTooManyRedir, fmt.Sprintf("more than %d redirects", c.opts.MaxRedirects))
	}
	if err := checkURL(req.URL); err != nil {
		return err
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	return nil
}

// Response is a fully read, size-capped response.
type Response struct {
	URL        *url.URL // final URL, after redirects
	StatusCode int
	Header     http.Header
	Body       []byte
	Redirects  []string // the URLs redirected from, in order (redacted)
	// RedirectSetCookies are the Set-Cookie values of the redirect
	// responses, in order: a platform that sets its cookie on the first
	// redirect (a country path, a consent gate) does not set it again on
	// the page a jar brings the cookie back to.
	RedirectSetCookies []string
	Elapsed            time.Duration
	// Revalidated is true when the store answered 304 Not Modified to a
	// conditional request and Status, Header and Body are the kept copy
	// downloaded at FetchedAt (WithDocs); FetchedAt is zero otherwise.
	Revalidated bool
	FetchedAt   time.Time
}

// Request describes one outbound request.
type Request struct {
	Method string // default GET
	URL    string
	Header http.Header
	Body   []byte
	// NoRedirect returns the first response as is instead of following it.
	NoRedirect bool
	// StatusOnlyIfAbsent is the caller's promise that of a 404 or 410
	// answer it reads the status alone, never the body or header. With
	// kept documents (WithDocs), a 404 or 410 kept from the last run is
	// then confirmed with a HEAD request instead of a GET: the same status
	// reuses it (with an empty body), anything else is fetched in full.
	StatusOnlyIfAbsent bool
}

// Get fetches rawURL with GET.
func (c *Client) Get(ctx context.Context, rawURL string) (*Response, error) {
	return c.Do(ctx, Request{URL: rawURL})
}

// Do sends one request with the client's limits and returns the response with
// its body read (at most MaxBody bytes, else ErrTooLarge). A refused URL gives
// a *RefusedError; a timeout wraps ErrTimeout.
func (c *Client) Do(ctx context.Context, r Request) (*Response, error) {
	u, err := ParseURL(r.URL)
	if err != nil {
		return nil, err
	}
	if c.docs != nil && conditional(r) {
		return c.doDocs(ctx, u, r)
	}
	return c.do(ctx, u, r)
}

// do sends one request to the checked URL u.
func (c *Client) do(ctx context.Context, u *url.URL, r Request) (*Response, error) {
	c.opts.Meter.addRequest()
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, refuse(u.Redacted(), CodeInvalidURL, err.Error())
	}
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	var redirects []string
	hc := c.hc
	if r.NoRedirect {
		cp := *c.hc
		cp.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		hc = &cp
	}
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return nil, c.wrapErr(u, err, ctx)
	}
	defer resp.Body.Close()
	var redirectCookies []string
	for p := resp.Request; p != nil && p.Response != nil; p = p.Response.Request {
		redirects = append([]string{p.Response.Request.URL.Redacted()}, redirects...)
		redirectCookies = append(append([]string(nil), p.Response.Header.Values("Set-Cookie")...), redirectCookies...)
	}
	if declaredOver(method, resp, c.opts.MaxBody) {
		// The server says up front the body is over the cap: it would be
		// read only to be thrown away, so it is not read at all.
		return nil, fmt.Errorf("get %s: %w (%d bytes)", u.Redacted(), ErrTooLarge, c.opts.MaxBody)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxBody+1))
	if err != nil {
		return nil, c.wrapErr(u, err, ctx)
	}
	c.opts.Meter.addBody(len(b))
	if int64(len(b)) > c.opts.MaxBody {
		return nil, fmt.Errorf("get %s: %w (%d bytes)", u.Redacted(), ErrTooLarge, c.opts.MaxBody)
	}
	return &Response{
		URL:        resp.Request.URL,
		StatusCode: resp.StatusCode,
		Header:     resp.Header,
		Body:       b,
		Redirects:  redirects,
		Elapsed:    time.Since(start),

		RedirectSetCookies: redirectCookies,
	}, nil
}

// declaredOver reports whether resp's Content-Length already puts its body
// over max. A HEAD answer and a 204 or 304 carry no body whatever their
// Content-Length says, and an absent length (-1, chunked) says nothing:
// those bodies are read, up to the cap, as any other.
func declaredOver(method string, resp *http.Response, max int64) bool {
	if method == http.MethodHead || resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusNotModified {
		return false
	}
	return resp.ContentLength > max
}

func (c *Client) wrapErr(u *url.URL, err error, ctx context.Context) error {
	if r, ok := IsRefused(err); ok {
		return r
	}
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("get %s: %w after %s", u.Redacted(), ErrTimeout, c.opts.Timeout)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("get %s: %w after %s", u.Redacted(), ErrTimeout, c.opts.Timeout)
	}
	return &NetError{URL: u.Redacted(), Class: netClass(err), Err: err}
}
