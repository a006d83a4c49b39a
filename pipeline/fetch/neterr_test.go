package fetch

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// dnsFailResolver fails every lookup the way a resolver does: the error
// names the resolver's own address.
type dnsFailResolver struct{}

func (dnsFailResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	return nil, &net.DNSError{Err: "no such host", Name: host, Server: "10.96.0.10:53", IsNotFound: true}
}

// TestNetErrorSaysClassNotAddress (issue 17.3): a request that got no
// answer fails with an error that names the class of failure, never the
// resolver, a port or an address; the detail is there for the log.
func TestNetErrorSaysClassNotAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused

	dns, _ := New(Options{Resolver: dnsFailResolver{}, Timeout: 2 * time.Second})
	fixture, _ := New(Options{FixtureAddr: closed, Timeout: 2 * time.Second})
	for _, tc := range []struct {
		name   string
		c      *Client
		url    string
		class  string
		detail string // in Detail, not in Error
	}{
		{"DNS", dns, "https://gone-store.com/", ClassDNS, "10.96.0.10:53"},
		{"refused", fixture, "https://shop.test/", ClassRefused, closed},
	} {
		_, err := tc.c.Get(context.Background(), tc.url)
		var ne *NetError
		if !errors.As(err, &ne) || ne.Class != tc.class {
			t.Errorf("%s: %v, want a NetError of class %q", tc.name, err, tc.class)
			continue
		}
		if !strings.Contains(err.Error(), tc.class) || strings.Contains(err.Error(), tc.detail) {
			t.Errorf("%s: error %q, want the class and not %q", tc.name, err, tc.detail)
		}
		if !strings.Contains(Detail(err), tc.detail) {
			t.Errorf("%s: Detail %q lacks %q", tc.name, Detail(err), tc.detail)
		}
	}
}
