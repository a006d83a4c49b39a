package check_test

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"

	"svc/datasets"
	"svc/pipeline"
	"svc/pipeline/check"
	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
)

// noSuchHost is a resolver for which no name exists: every lookup fails
// as DNS does for a domain that is gone.
type noSuchHost struct{}

func (noSuchHost) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestUnreachableStore checks a store that cannot be reached at all (a
// name that does not resolve, an address that refuses the connection).
// Unreachable is the finding; nothing else was measured: no robots.txt
// was read, so no agent is "disallowed" (issue 16, item 7), and no UCP
// profile was read, so it is not "invalid" either.
func TestUnreachableStore(t *testing.T) {
	for _, tc := range []struct {
		name, url string
		opts      fetch.Options
	}{
		{"dns failure", "https://gone.example/", fetch.Options{Resolver: noSuchHost{}, Timeout: time.Second}},
		{"connection refused", "https://refused.test/", fetch.Options{FixtureAddr: closedAddr(t), Timeout: time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, err := fetch.New(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			v, err := ucp.New(context.Background(), ucp.Config{Client: client, CacheDir: t.TempDir(), Offline: true})
			if err != nil {
				t.Fatal(err)
			}
			eng := check.New(check.Options{Client: client, UCP: v})
			res, err := eng.Check(context.Background(), tc.url)
			if err != nil {
				t.Fatal(err)
			}
			if r := res.Reachability; r.Reachable == nil || *r.Reachable || r.Error != "connection_failed" {
				t.Errorf("reachability = %+v, want reachable false, connection_failed", r)
			}
			if res.Robots.Status != check.RobotsUnreachable || len(res.Robots.Agents) != 0 {
				t.Errorf("robots = %+v, want status unreachable and no verdicts", res.Robots)
			}
			if p := res.UCPProfile; p.Status != ucp.VerdictUnreachable || p.Valid != nil {
				t.Errorf("ucp profile = %+v, want unreachable with valid null", p)
			}
			if res.Fix.Code != "fix_unreachable" {
				t.Errorf("fix = %s, want fix_unreachable", res.Fix.Code)
			}
			for name, b := range map[string]*bool{"blocked": res.BlockStatus.Blocked, "catalogAnswered": res.CatalogAnswered,
				"cartLink": res.CartLink, "webmcp": res.WebMCP} {
				if b != nil {
					t.Errorf("%s = %v, want null", name, *b)
				}
			}

			// The published checks row: every robots verdict and ucp_valid null.
			row := pipeline.CheckRow(pipeline.CrawlRecord{Store: pipeline.Store{Host: res.Host, Source: "seed"}, Result: res})
			col := func(name string) any {
				i := datasets.Checks.ColumnIndex(name)
				if i < 0 {
					t.Fatalf("checks has no column %s", name)
				}
				return row[i]
			}
			if got := col("robots_status"); got != check.RobotsUnreachable {
				t.Errorf("robots_status = %v", got)
			}
			for _, a := range datasets.RobotsAgents {
				c := "robots_" + datasetsName(a)
				if got := col(c); got != nil {
					t.Errorf("%s = %v, want null", c, got)
				}
			}
			if got := col("ucp_valid"); got != nil && got.(*bool) != nil {
				t.Errorf("ucp_valid = %v, want null", *got.(*bool))
			}
		})
	}
}

// datasetsName is an agent's robots column suffix.
func datasetsName(agent string) string {
	b := []byte(agent)
	for i, c := range b {
		switch {
		case c == '-':
			b[i] = '_'
		case c >= 'A' && c <= 'Z':
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
