// Package ciclient is the client behind `svc check` (spec 4.4): it asks the svc
// API about stores, reads the answers into typed values, applies the eight
// checks' rules and renders the table, the --json document and the Markdown
// summary a CI job shows. The command in cmd/cli only parses flags and calls
// Run.
//
// cmd/svc-check/svc-check.mjs is the same client for JavaScript pipelines:
// the two must print the same table, JSON and summary for the same API
// answers, byte for byte. Change both together; cmd/cli's TestCheckParity
// holds them to it.
package ciclient

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// Names are the checks, in output order.
var Names = []string{"ucp", "webmcp", "catalog", "checkout", "mcp", "robots", "product-data", "policies"}

// Check statuses. Unmeasured (a null or missing field, or no answer from the
// API) counts as failed when the check is required.
const (
	StatusPass       = "pass"
	StatusFail       = "fail"
	StatusUnmeasured = "unmeasured"
)

// Exit codes of `svc check` (spec 4.4). Bad flags or arguments are the
// command's usage code, never decided here.
const (
	ExitFailed      = 1 // a required check failed or is unmeasured
	ExitNetwork     = 2 // the API could not be reached, timed out, answered 5xx or not JSON
	ExitRateLimited = 3 // the API answered 429
)

const (
	// DefaultAPI is the API asked when no --api or SVC_API is given.
	DefaultAPI = "http://127.0.0.1:8080"
	// DefaultTimeout is in seconds: a fresh live check may take up to 90 s
	// on the server.
	DefaultTimeout = 120
	// UserAgent names the client in every request.
	UserAgent = "svc-check/1"
	// Version is the version of the --json document.
	Version = "svc-check/1"

	maxBody = 4 << 20
)

// Target is one host argument, reduced to what the API is asked about.
type Target struct {
	Host string // lower-case host[:port], the label of the output
	URL  string // scheme://host[:port]/, the url the API is given
}

// ParseRequire turns --require (names, "all" or "none") into check names in
// output order.
func ParseRequire(s string) ([]string, error) {
	want := map[string]bool{}
	parts := strings.Split(strings.ToLower(s), ",")
	for _, p := range parts {
		p = strings.TrimSpace(p)
		switch {
		case p == "all" || p == "none":
			if len(parts) > 1 {
				return nil, fmt.Errorf("--require %q: %s stands alone", s, p)
			}
			if p == "all" {
				return append([]string{}, Names...), nil
			}
			return []string{}, nil
		case p == "":
			return nil, fmt.Errorf("--require %q: empty check name; give names of %s, or all, or none", s, strings.Join(Names, ", "))
		}
		known := false
		for _, n := range Names {
			known = known || n == p
		}
		if !known {
			return nil, fmt.Errorf("--require: unknown check %q; the checks are %s (or all, or none)", p, strings.Join(Names, ", "))
		}
		want[p] = true
	}
	out := []string{}
	for _, n := range Names {
		if want[n] {
			out = append(out, n)
		}
	}
	return out, nil
}

// secondsPattern is the number syntax --timeout takes in both clients.
var secondsPattern = regexp.MustCompile(`^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$`)

// ParseTimeout reads --timeout: seconds above 0, at most an hour.
func ParseTimeout(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if !secondsPattern.MatchString(s) || err != nil || !(f > 0) || f > 3600 {
		return 0, fmt.Errorf("--timeout %q: want a number of seconds above 0 and at most 3600", s)
	}
	return f, nil
}

// ParseAPI checks --api and returns it without trailing slashes.
func ParseAPI(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || strings.ContainsAny(s, " \t\r\n") || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("--api %q: want the API's http or https base URL, e.g. %s", s, DefaultAPI)
	}
	return strings.TrimRight(s, "/"), nil
}

// ParseHost reduces a host or URL argument to its scheme and host.
func ParseHost(arg string) (Target, error) {
	raw := strings.TrimSpace(arg)
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	bad := func(why string) (Target, error) {
		return Target{}, fmt.Errorf("host %q: %s; give a host name such as shop.example, or a store URL", arg, why)
	}
	switch {
	case err != nil || strings.ContainsAny(arg, " \t\r\n"):
		return bad("not a host name or URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return bad("only http and https")
	case u.User != nil:
		return bad("a user name or password is not allowed")
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return bad("no host name")
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // an IPv6 literal
	} else if host, err = idna.Lookup.ToASCII(host); err != nil {
		// Spelled as the WHATWG URL parser of the Node client spells it.
		return bad("not a host name or URL")
	}
	if p := u.Port(); p != "" && !(u.Scheme == "https" && p == "443") && !(u.Scheme == "http" && p == "80") {
		host += ":" + p
	}
	return Target{Host: host, URL: u.Scheme + "://" + host + "/"}, nil
}
