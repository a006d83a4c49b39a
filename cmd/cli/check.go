package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/net/idna"
)

// The check client of spec 4.4. cmd/svc-check/svc-check.mjs is the same
// client for JavaScript pipelines: the two must print the same table, JSON
// and summary for the same API answers, byte for byte. Change both together;
// TestCheckParity holds them to it.

// checkNames are the checks of `svc check`, in output order.
var checkNames = []string{"ucp", "webmcp", "catalog", "checkout", "mcp", "robots", "product-data", "policies"}

// Check statuses. Unmeasured (a null or missing field, or no answer from the
// API) counts as failed when the check is required.
const (
	statusPass       = "pass"
	statusFail       = "fail"
	statusUnmeasured = "unmeasured"
)

// Exit codes of `svc check` (spec 4.4); 64 (ExitUsage) for bad flags or
// arguments, as every svc command.
const (
	checkExitFailed      = 1 // a required check failed or is unmeasured
	checkExitNetwork     = 2 // the API could not be reached, timed out, answered 5xx or not JSON
	checkExitRateLimited = 3 // the API answered 429
)

const (
	checkDefaultAPI     = "http://127.0.0.1:8080"
	checkDefaultTimeout = 120 // seconds; a fresh live check may take up to 90 s on the server
	checkMaxBody        = 4 << 20
	checkUserAgent      = "svc-check/1"
	checkVersion        = "svc-check/1"
)

// checkOptions holds the flags and arguments of `svc check`.
type checkOptions struct {
	*globals
	hosts   []string
	require string // --require: names, "all" or "none"
	json    bool   // --json
	summary string // --summary FILE: append a Markdown summary
	api     string // --api URL, env SVC_API
	timeout string // --timeout SECONDS per request

	// Filled by validate from the flags and arguments.
	required   []string
	apiBase    string
	timeoutSec float64
	targets    []checkTarget

	httpClient *http.Client // nil: a plain client
}

func newCheckCmd(g *globals) *cobra.Command {
	opts := &checkOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "check HOST...",
		Short: "Check stores through the API and exit non-zero when a required check fails (for CI)",
		Long: `Check one or more stores through the svc API and report eight checks per
host as pass, fail or unmeasured. Made for CI: the exit code says whether
every required check passed. cmd/svc-check/svc-check.mjs is the same client as
a single Node 18+ file with the same flags, output and exit codes.

HOST is a host name (shop.example) or any URL of the store; only its scheme
(https when none) and host are used. Each host costs two API requests:

  GET /api/ucp/validate?url=https://HOST/     the UCP profile, always live
  GET /api/agent-checkout?url=https://HOST/   the latest saved check: served
                                              from the API's 24-hour per-host
                                              cache, or a fresh check when the
                                              cache has none (and then saved)

The checks and the API fields they read:

  ucp           validation report: pass when valid is true; fail when the
                profile is invalid or missing (404/410, or not JSON);
                unmeasured when it could not be fetched (timeout, 5xx, a
                wall) or the schema check could not run
  webmcp        webmcp: WebMCP tool registration in the store's server HTML
                (not tools registered at runtime in a browser)
  catalog       catalogAnswered and productFound: pass when a catalog
                answered with a product; fail when none answered or it was
                empty; unmeasured when throttled
  checkout      cartLink: the cart returned a checkout link (a boolean; no
                checkout URL is ever returned or kept)
  mcp           storefrontMcp.detected: a storefront MCP endpoint answered
  robots        robots.agents: fail when robots.txt disallows any
                user-initiated AI agent (purpose "user", e.g. ChatGPT-User,
                Claude-User, Perplexity-User) at "/"; unmeasured when
                robots.txt was not checked
  product-data  productData: pass when complete (name, price, currency,
                availability, GTIN or SKU, image); fail when none was found
                or some is missing
  policies      policies: pass when returns, shipping, privacy and terms
                pages were all found; fail when one is missing

A null or missing field is unmeasured, never false (a blocked, unreachable or
parked store leaves most fields null). A check the API could not answer (an
error, a rate limit) is unmeasured too.

--require names the checks that decide the exit code, comma separated
(default ucp,webmcp); "all" requires the eight, "none" only reports. Checks
not required are shown but never change the exit code.

Output: a table per host on standard output; with --json one JSON document
instead:

  {"version": "svc-check/1", "api": URL, "require": [NAME...],
   "hosts": [{"host": HOST, "passed": BOOL,
              "checks": {NAME: {"status": "pass|fail|unmeasured",
                                "required": BOOL, "detail": TEXT}, ...},
              "savedCheck": {"checkedAt", "cached", "resultUrl"} or null,
              "errors": [{"endpoint", "status", "code", "message"}]}],
   "passed": BOOL, "exitCode": N}

--summary FILE appends a Markdown summary to FILE (for a CI job summary:
--summary "$GITHUB_STEP_SUMMARY").

Exit codes, from the required checks only:
  0   every required check passed
  1   a required check failed or is unmeasured (the API refused the host
      counts here too)
  2   network error: the API could not be reached, timed out, answered 5xx
      or not the API's JSON, for a required check
  3   rate limited: the API answered 429 for a required check
  64  usage: an unknown check name, a bad flag, host or --api URL, an
      unwritable --summary file; nothing was checked
When several apply the highest of 3, 2, 1 wins.`,
		Example: `  svc check shop.example
  svc check --require all --json shop.example other.example
  svc check --api https://svc.example --summary "$GITHUB_STEP_SUMMARY" shop.example
  node cmd/svc-check/svc-check.mjs --require ucp,webmcp,checkout shop.example`,
		Args: argsUsage(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.hosts = args
			if err := opts.validate(); err != nil {
				return err
			}
			return checkRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.require, "require", "ucp,webmcp", "checks that decide the exit code: comma-separated names of "+strings.Join(checkNames, ",")+", or all, or none")
	f.BoolVar(&opts.json, "json", false, "print one JSON document instead of the table")
	f.StringVar(&opts.summary, "summary", "", "append a Markdown summary to this file (e.g. $GITHUB_STEP_SUMMARY)")
	f.StringVar(&opts.api, "api", envOr("SVC_API", checkDefaultAPI), "base URL of the svc API (env SVC_API)")
	f.StringVar(&opts.timeout, "timeout", strconv.Itoa(checkDefaultTimeout), "seconds to wait for each API answer (at most 3600)")
	return cmd
}

// checkTarget is one host argument, reduced to what the API is asked about.
type checkTarget struct {
	host string // lower-case host[:port], the label of the output
	url  string // scheme://host[:port]/, the url the API is given
}

// validate checks the flags and arguments and fills the parsed fields.
// Every problem is a usage error, found before any request.
func (o *checkOptions) validate() error {
	var err error
	if o.required, err = parseRequire(o.require); err != nil {
		return err
	}
	if o.apiBase, err = parseAPI(o.api); err != nil {
		return err
	}
	if o.timeoutSec, err = parseTimeout(o.timeout); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, h := range o.hosts {
		t, err := parseCheckHost(h)
		if err != nil {
			return err
		}
		if !seen[t.host] {
			seen[t.host] = true
			o.targets = append(o.targets, t)
		}
	}
	return nil
}

// checkRun asks the API about every target and reports. The summary file
// is opened first, so an unwritable one is a usage error before any request.
func checkRun(ctx context.Context, opts *checkOptions) error {
	api, required := opts.apiBase, opts.required
	var summary *os.File
	if opts.summary != "" {
		var err error
		summary, err = os.OpenFile(opts.summary, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return usagef("--summary: %v", err)
		}
		defer summary.Close()
	}

	c := &checkClient{api: api, timeout: opts.timeoutSec, timeoutText: opts.timeout, http: opts.httpClient, errOut: opts.errOut}
	if c.http == nil {
		c.http = &http.Client{}
	}
	rep := checkReport{Version: checkVersion, API: api, Require: required, Hosts: []checkHost{}}
	for _, t := range opts.targets {
		rep.Hosts = append(rep.Hosts, c.checkHost(ctx, t, required))
	}
	rep.finish()

	var out bytes.Buffer
	if opts.json {
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		rep.writeTable(&out)
	}
	if _, err := opts.out.Write(out.Bytes()); err != nil {
		return err
	}
	if summary != nil {
		var md bytes.Buffer
		rep.writeMarkdown(&md)
		if _, err := summary.Write(md.Bytes()); err != nil {
			return exitWith(ExitUsage, fmt.Errorf("--summary: %w", err))
		}
	}
	switch rep.ExitCode {
	case 0:
		return nil
	case checkExitRateLimited:
		return exitWith(rep.ExitCode, fmt.Errorf("the API at %s rate limited a required check; try again later", api))
	case checkExitNetwork:
		return exitWith(rep.ExitCode, fmt.Errorf("the API at %s could not answer a required check", api))
	}
	return exitWith(rep.ExitCode, nil)
}

// parseRequire turns --require into check names in output order.
func parseRequire(s string) ([]string, error) {
	want := map[string]bool{}
	parts := strings.Split(strings.ToLower(s), ",")
	for _, p := range parts {
		p = strings.TrimSpace(p)
		switch {
		case p == "all" || p == "none":
			if len(parts) > 1 {
				return nil, usagef("--require %q: %s stands alone", s, p)
			}
			if p == "all" {
				return append([]string{}, checkNames...), nil
			}
			return []string{}, nil
		case p == "":
			return nil, usagef("--require %q: empty check name; give names of %s, or all, or none", s, strings.Join(checkNames, ", "))
		}
		known := false
		for _, n := range checkNames {
			known = known || n == p
		}
		if !known {
			return nil, usagef("--require: unknown check %q; the checks are %s (or all, or none)", p, strings.Join(checkNames, ", "))
		}
		want[p] = true
	}
	out := []string{}
	for _, n := range checkNames {
		if want[n] {
			out = append(out, n)
		}
	}
	return out, nil
}

// secondsPattern is the number syntax --timeout takes in both clients.
var secondsPattern = regexp.MustCompile(`^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$`)

// parseTimeout reads --timeout: seconds above 0, at most an hour.
func parseTimeout(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if !secondsPattern.MatchString(s) || err != nil || !(f > 0) || f > 3600 {
		return 0, usagef("--timeout %q: want a number of seconds above 0 and at most 3600", s)
	}
	return f, nil
}

// parseAPI checks --api and returns it without trailing slashes.
func parseAPI(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || strings.ContainsAny(s, " \t\r\n") || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", usagef("--api %q: want the API's http or https base URL, e.g. %s", s, checkDefaultAPI)
	}
	return strings.TrimRight(s, "/"), nil
}

// parseCheckHost reduces a host or URL argument to its scheme and host.
func parseCheckHost(arg string) (checkTarget, error) {
	raw := strings.TrimSpace(arg)
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	bad := func(why string) (checkTarget, error) {
		return checkTarget{}, usagef("host %q: %s; give a host name such as shop.example, or a store URL", arg, why)
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
	return checkTarget{host: host, url: u.Scheme + "://" + host + "/"}, nil
}

// checkReport is the --json document. Field order is the contract the Node
// client follows.
type checkReport struct {
	Version  string      `json:"version"`
	API      string      `json:"api"`
	Require  []string    `json:"require"`
	Hosts    []checkHost `json:"hosts"`
	Passed   bool        `json:"passed"`
	ExitCode int         `json:"exitCode"`
}

// checkHost is one host's result.
type checkHost struct {
	Host       string        `json:"host"`
	Passed     bool          `json:"passed"`
	Checks     checkOutcomes `json:"checks"`
	SavedCheck *savedCheck   `json:"savedCheck"` // null when /api/agent-checkout did not answer
	Errors     []apiFailure  `json:"errors"`
}

// savedCheck says which saved check the checks other than ucp came from.
type savedCheck struct {
	CheckedAt *string `json:"checkedAt"`
	Cached    *bool   `json:"cached"`
	ResultURL *string `json:"resultUrl"`
}

// checkOutcome is one check of one host.
type checkOutcome struct {
	name     string
	Status   string `json:"status"`
	Required bool   `json:"required"`
	Detail   string `json:"detail"`
	exit     int    // the exit code this outcome calls for when required
}

// checkOutcomes encode as one object keyed by check name, in output order.
type checkOutcomes []checkOutcome

func (cs checkOutcomes) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, c := range cs {
		if i > 0 {
			b.WriteByte(',')
		}
		// No HTML escaping, as JSON.stringify: the Encoder's own setting
		// does not reach into a Marshaler's output.
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(c.name); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(c); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// apiFailure is one API request that gave no usable answer.
type apiFailure struct {
	Endpoint string `json:"endpoint"`
	Status   int    `json:"status"` // HTTP status; 0 when none came
	Code     string `json:"code"`
	Message  string `json:"message"`
	exit     int    // checkExitRateLimited, checkExitNetwork, or checkExitFailed (the API refused the host)
}

// finish sets the pass flags and the exit code: the highest a required
// check calls for.
func (r *checkReport) finish() {
	r.Passed = true
	for i := range r.Hosts {
		h := &r.Hosts[i]
		h.Passed = true
		for _, c := range h.Checks {
			if c.Required && c.Status != statusPass {
				h.Passed = false
				r.ExitCode = max(r.ExitCode, c.exit)
			}
		}
		r.Passed = r.Passed && h.Passed
	}
}

// checkClient asks the API.
type checkClient struct {
	api         string
	timeout     float64
	timeoutText string // as given, for messages
	http        *http.Client
	errOut      io.Writer
	down        *apiFailure // set once the API could not be reached: later requests are skipped
}

func (c *checkClient) checkHost(ctx context.Context, t checkTarget, required []string) checkHost {
	h := checkHost{Host: t.host, Errors: []apiFailure{}}
	report, ucpErr := c.get(ctx, "/api/ucp/validate", t)
	answer, ansErr := c.get(ctx, "/api/agent-checkout", t)
	for _, e := range []*apiFailure{ucpErr, ansErr} {
		if e != nil {
			h.Errors = append(h.Errors, *e)
		}
	}
	if ansErr == nil {
		h.SavedCheck = &savedCheck{CheckedAt: jStr(answer, "checkedAt"), Cached: jBool(answer, "cached"), ResultURL: jStr(answer, "resultUrl")}
	}
	req := map[string]bool{}
	for _, n := range required {
		req[n] = true
	}
	for _, n := range checkNames {
		var o checkOutcome
		switch {
		case n == "ucp" && ucpErr != nil:
			o = failedRequest(ucpErr)
		case n == "ucp":
			o = evalUCP(report)
		case ansErr != nil:
			o = failedRequest(ansErr)
		default:
			o = evalSaved(n, answer)
		}
		o.name, o.Required = n, req[n]
		if o.exit == 0 && o.Status != statusPass {
			o.exit = checkExitFailed
		}
		h.Checks = append(h.Checks, o)
	}
	return h
}

// get asks one endpoint about a target and returns its JSON object, or why
// there is none.
func (c *checkClient) get(ctx context.Context, endpoint string, t checkTarget) (map[string]any, *apiFailure) {
	if c.down != nil {
		f := *c.down
		f.Endpoint = endpoint
		return nil, &f
	}
	obj, f, cause := c.fetch(ctx, endpoint, t)
	if f != nil {
		f.Endpoint = endpoint
		f.Message = checkClean(f.Message)
		f.Code = checkClean(f.Code)
		msg := fmt.Sprintf("svc check: %s: GET %s: %s", t.host, endpoint, f.Message)
		if cause != nil {
			msg += " (" + cause.Error() + ")"
		}
		fmt.Fprintln(c.errOut, msg)
		if f.Status == 0 && f.exit == checkExitNetwork && f.Code != "bad_answer" {
			c.down = f
		}
	}
	return obj, f
}

func (c *checkClient) fetch(ctx context.Context, endpoint string, t checkTarget) (map[string]any, *apiFailure, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(c.timeout*float64(time.Second)))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.api+endpoint+"?url="+url.QueryEscape(t.url), nil)
	if err != nil {
		return nil, &apiFailure{Code: "unreachable", Message: "could not connect to the API", exit: checkExitNetwork}, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", checkUserAgent)
	timedOut := func() *apiFailure {
		return &apiFailure{Code: "timeout", Message: "the API did not answer within " + c.timeoutText + " s", exit: checkExitNetwork}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, timedOut(), err
		}
		return nil, &apiFailure{Code: "unreachable", Message: "could not connect to the API", exit: checkExitNetwork}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, checkMaxBody+1))
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, timedOut(), err
		}
		return nil, &apiFailure{Status: resp.StatusCode, Code: "unreachable", Message: "the API's answer broke off", exit: checkExitNetwork}, err
	}
	st := resp.StatusCode
	if st >= 200 && st < 300 {
		if len(body) > checkMaxBody {
			return nil, &apiFailure{Status: st, Code: "bad_answer", Message: "the API's answer is larger than 4 MiB", exit: checkExitNetwork}, nil
		}
		var v any
		if json.Unmarshal(body, &v) != nil {
			return nil, &apiFailure{Status: st, Code: "bad_answer", Message: "the API's answer is not JSON", exit: checkExitNetwork}, nil
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, &apiFailure{Status: st, Code: "bad_answer", Message: "the API's answer is not a JSON object", exit: checkExitNetwork}, nil
		}
		return obj, nil, nil
	}
	f := &apiFailure{Status: st, Code: "http_" + strconv.Itoa(st), Message: "the API answered HTTP " + strconv.Itoa(st), exit: checkExitNetwork}
	var v any
	if len(body) <= checkMaxBody && json.Unmarshal(body, &v) == nil {
		e := jObj(jObj(v, "error"))
		if s := jStr(e, "code"); s != nil && *s != "" {
			f.Code = *s
		}
		if s := jStr(e, "message"); s != nil && *s != "" {
			f.Message = *s
		}
	}
	switch st {
	case http.StatusTooManyRequests:
		f.exit = checkExitRateLimited
	case http.StatusBadRequest:
		f.exit = checkExitFailed
	}
	return nil, f, nil
}

// failedRequest is the outcome of a check whose API request failed.
func failedRequest(f *apiFailure) checkOutcome {
	var d string
	switch f.exit {
	case checkExitRateLimited:
		d = "not checked: rate limited by the API: " + f.Message
	case checkExitFailed:
		d = "not checked: the API refused the host: " + f.Message
	default:
		d = "not checked: " + f.Message
	}
	return checkOutcome{Status: statusUnmeasured, Detail: d, exit: f.exit}
}

func outPass(d string) checkOutcome       { return checkOutcome{Status: statusPass, Detail: d} }
func outFail(d string) checkOutcome       { return checkOutcome{Status: statusFail, Detail: d} }
func outUnmeasured(d string) checkOutcome { return checkOutcome{Status: statusUnmeasured, Detail: d} }

// evalUCP reads the live validation report (spec 2.4).
func evalUCP(r map[string]any) checkOutcome {
	valid := jBool(r, "valid")
	if valid == nil {
		return outUnmeasured("the validation report has no verdict")
	}
	src := jObj(r, "source")
	status, hasStatus := jInt(src, "status")
	where := "/.well-known/ucp"
	if s := jStr(src, "profileUrl"); s != nil && *s != "" {
		where = checkClean(*s)
	}
	if *valid {
		d := "valid UCP profile"
		if v := jStr(r, "declaredVersion"); v != nil {
			d += " (version " + checkClean(*v) + ")"
		}
		if n, _ := jInt(jObj(r, "counts"), "warnings"); n > 0 {
			d += ", " + checkPlural(n, "warning")
		}
		return outPass(d)
	}
	if fe := jStr(src, "fetchError"); fe != nil && *fe != "" {
		return outUnmeasured("the profile could not be fetched (" + checkClean(*fe) + ")")
	}
	switch {
	case hasStatus && (status == 404 || status == 410):
		return outFail(fmt.Sprintf("no UCP profile at %s (HTTP %d)", where, status))
	case hasStatus && (status < 200 || status >= 300):
		return outUnmeasured(fmt.Sprintf("the profile could not be read (HTTP %d)", status))
	}
	if p, ok := r["profile"]; !ok || p == nil {
		return outFail("no UCP profile at " + where + " (the answer is not JSON)")
	}
	n, _ := jInt(jObj(r, "counts"), "errors")
	if e := jStr(jObj(r, "schema"), "error"); n == 0 && e != nil && *e != "" {
		return outUnmeasured("the validator could not load the UCP JSON Schema")
	}
	d := "invalid UCP profile: " + checkPlural(n, "error")
	var rules []string
	for _, it := range jArr(r, "errors") {
		if s := jStr(jObj(it), "rule"); s != nil && *s != "" && !checkContains(rules, checkClean(*s)) {
			rules = append(rules, checkClean(*s))
		}
	}
	if len(rules) > 3 {
		rules = append(rules[:3], "…")
	}
	if len(rules) > 0 {
		d += " (" + strings.Join(rules, ", ") + ")"
	}
	return outFail(d)
}

// evalSaved reads one check from the live check's answer (spec 2.1).
func evalSaved(name string, a map[string]any) checkOutcome {
	switch name {
	case "webmcp":
		switch b := jBool(a, "webmcp"); {
		case b == nil:
			return outUnmeasured(gateReason(a, "not measured"))
		case *b:
			tools := jStrings(jObj(a, "webmcpDetail"), "tools")
			if len(tools) > 0 {
				return outPass("WebMCP tools in the server HTML: " + strings.Join(tools, ", "))
			}
			return outPass("WebMCP in the server HTML")
		default:
			return outFail("no WebMCP in the server HTML")
		}
	case "catalog":
		cat := jObj(a, "catalog")
		answered := "catalog answered"
		if s := jStr(cat, "source"); s != nil && *s != "" {
			answered += " (" + checkClean(*s) + ")"
		}
		ca, pf := jBool(a, "catalogAnswered"), jBool(a, "productFound")
		switch {
		case ca == nil:
			return outUnmeasured(gateReason(a, "not measured"))
		case !*ca:
			return outFail("no catalog answered")
		case pf == nil:
			if t := jBool(cat, "throttled"); t != nil && *t {
				return outUnmeasured(answered + " but throttled; no product seen")
			}
			return outUnmeasured(answered + "; product not measured")
		case *pf:
			return outPass(answered + ", product found")
		default:
			return outFail(answered + " with no product")
		}
	case "checkout":
		switch b := jBool(a, "cartLink"); {
		case b == nil:
			return outUnmeasured(gateReason(a, "no product could be added to a cart"))
		case *b:
			return outPass("the cart returned a checkout link (a boolean; the URL is never kept)")
		default:
			return outFail("no checkout link from the cart")
		}
	case "mcp":
		sm := jObj(a, "storefrontMcp")
		switch b := jBool(sm, "detected"); {
		case b == nil:
			return outUnmeasured(gateReason(a, "not measured"))
		case *b:
			d := "storefront MCP endpoint answered"
			if n := len(jArr(sm, "tools")); n > 0 {
				d += " (" + checkPlural(n, "tool") + ")"
			}
			return outPass(d)
		default:
			return outFail("no storefront MCP endpoint")
		}
	case "robots":
		rb := jObj(a, "robots")
		agents := jObj(rb, "agents")
		st := jStr(rb, "status")
		if st == nil || *st == "not_checked" || len(agents) == 0 {
			return outUnmeasured(gateReason(a, "robots.txt not checked"))
		}
		var users, disallowed []string
		for _, k := range checkKeys(agents) {
			v := jObj(agents[k])
			if p := jStr(v, "purpose"); p == nil || *p != "user" {
				continue
			}
			users = append(users, checkClean(k))
			if vd := jStr(v, "verdict"); vd != nil && *vd == "disallowed" {
				disallowed = append(disallowed, checkClean(k))
			}
		}
		switch {
		case len(users) == 0:
			return outUnmeasured("no user-initiated AI agent in the robots reading")
		case len(disallowed) > 0:
			return outFail("robots.txt disallows " + strings.Join(disallowed, ", "))
		case *st == "not_found":
			return outPass("no robots.txt: no restrictions")
		}
		return outPass("user-initiated AI agents allowed: " + strings.Join(users, ", "))
	case "product-data":
		pd := jObj(a, "productData")
		if pd == nil {
			return outUnmeasured(gateReason(a, "not measured"))
		}
		src := jStr(pd, "source")
		if src == nil {
			return outFail("no product data found")
		}
		if c := jBool(pd, "complete"); c != nil && *c {
			return outPass("complete product data (" + checkClean(*src) + ")")
		}
		var missing []string
		for _, f := range []string{"name", "price", "currency", "availability"} {
			if jStr(pd, f) == nil {
				missing = append(missing, f)
			}
		}
		if jStr(pd, "gtin") == nil && jStr(pd, "sku") == nil {
			missing = append(missing, "gtin or sku")
		}
		if jStr(pd, "image") == nil {
			missing = append(missing, "image")
		}
		if len(missing) == 0 {
			return outFail("incomplete product data (" + checkClean(*src) + ")")
		}
		return outFail("incomplete product data (" + checkClean(*src) + "): no " + strings.Join(missing, ", "))
	case "policies":
		p := jObj(a, "policies")
		var missing, unknown []string
		for _, k := range []string{"returns", "shipping", "privacy", "terms"} {
			switch b := jBool(p, k); {
			case b == nil:
				unknown = append(unknown, k)
			case !*b:
				missing = append(missing, k)
			}
		}
		switch {
		case len(missing) > 0:
			return outFail("no policy page found for " + strings.Join(missing, ", "))
		case len(unknown) > 0:
			return outUnmeasured(gateReason(a, "not measured"))
		}
		return outPass("returns, shipping, privacy and terms pages found")
	}
	panic("svc check: no rule for check " + name)
}

// gateReason says why a store's fields are null, when the answer shows it.
func gateReason(a map[string]any, fallback string) string {
	bs, re := jObj(a, "blockStatus"), jObj(a, "reachability")
	if b := jBool(bs, "blocked"); b != nil && *b {
		if r := jStr(bs, "reason"); r != nil && *r != "" {
			return "the store blocked the check (" + checkClean(*r) + ")"
		}
		return "the store blocked the check"
	}
	if b := jBool(re, "reachable"); b != nil && !*b {
		if e := jStr(re, "error"); e != nil && *e != "" {
			return "the store could not be reached (" + checkClean(*e) + ")"
		}
		if n, ok := jInt(re, "httpStatus"); ok && n != 0 {
			return fmt.Sprintf("the store could not be reached (HTTP %d)", n)
		}
		return "the store could not be reached"
	}
	if b := jBool(re, "parked"); b != nil && *b {
		return "the host is a parked domain"
	}
	if b := jBool(re, "redirectsToOtherBrand"); b != nil && *b {
		return "the host redirects to another brand"
	}
	return fallback
}

// Accessors over decoded JSON: a missing key or a value of another type is
// nil, as in the Node client.

func jObj(v any, key ...string) map[string]any {
	for _, k := range key {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	m, _ := v.(map[string]any)
	return m
}

func jBool(m map[string]any, key string) *bool {
	if b, ok := m[key].(bool); ok {
		return &b
	}
	return nil
}

func jStr(m map[string]any, key string) *string {
	if s, ok := m[key].(string); ok {
		return &s
	}
	return nil
}

// jInt returns an integer-valued number.
func jInt(m map[string]any, key string) (int, bool) {
	f, ok := m[key].(float64)
	if !ok || f != float64(int64(f)) {
		return 0, false
	}
	return int(f), true
}

func jArr(m map[string]any, key string) []any {
	a, _ := m[key].([]any)
	return a
}

// jStrings returns the strings of an array, cleaned, skipping other values.
func jStrings(m map[string]any, key string) []string {
	var out []string
	for _, v := range jArr(m, key) {
		if s, ok := v.(string); ok {
			out = append(out, checkClean(s))
		}
	}
	return out
}

func checkKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func checkContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func checkPlural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// checkControlChars are replaced in text from the API, so the table stays one
// line per check and both clients encode the same JSON.
var checkControlChars = regexp.MustCompile("[\x00-\x1f\x7f\u2028\u2029]")

func checkClean(s string) string { return checkControlChars.ReplaceAllString(s, " ") }

// writeTable writes the human output: a table per host, then a total.
func (r *checkReport) writeTable(w io.Writer) {
	passed := 0
	for _, h := range r.Hosts {
		if h.Passed {
			passed++
		}
		var failing []string
		for _, c := range h.Checks {
			if c.Required && c.Status != statusPass {
				failing = append(failing, c.name+" "+c.Status)
			}
		}
		if h.Passed {
			fmt.Fprintf(w, "%s: passed\n", h.Host)
		} else {
			fmt.Fprintf(w, "%s: FAILED (%s)\n", h.Host, strings.Join(failing, ", "))
		}
		fmt.Fprintf(w, "  %-14s%-12s%-10s%s\n", "check", "result", "required", "detail")
		for _, c := range h.Checks {
			req := "no"
			if c.Required {
				req = "yes"
			}
			fmt.Fprintf(w, "  %-14s%-12s%-10s%s\n", c.name, c.Status, req, c.Detail)
		}
		if sc := h.SavedCheck; sc != nil {
			at := "time unknown"
			if sc.CheckedAt != nil {
				at = checkClean(*sc.CheckedAt)
			}
			note := ""
			if sc.Cached != nil && *sc.Cached {
				note = " (from the 24-hour cache)"
			} else if sc.Cached != nil {
				note = " (a fresh check)"
			}
			fmt.Fprintf(w, "  saved check: %s%s\n", at, note)
		}
		for _, e := range h.Errors {
			fmt.Fprintf(w, "  error: %s: %s\n", e.Endpoint, failureText(e))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%d of %d hosts passed (required: %s); exit %d\n", passed, len(r.Hosts), requireText(r.Require), r.ExitCode)
}

func failureText(e apiFailure) string {
	if e.Status == 0 {
		return e.Code + ": " + e.Message
	}
	return fmt.Sprintf("HTTP %d %s: %s", e.Status, e.Code, e.Message)
}

func requireText(req []string) string {
	if len(req) == 0 {
		return "none"
	}
	return strings.Join(req, ", ")
}

var mdEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "|", `\|`)

var mdIcon = map[string]string{statusPass: "✅", statusFail: "❌", statusUnmeasured: "❔"}

// writeMarkdown writes the --summary text: a table of hosts by checks, the
// reasons of what did not pass, and a blank line so appends stay apart.
func (r *checkReport) writeMarkdown(w io.Writer) {
	passed := 0
	for _, h := range r.Hosts {
		if h.Passed {
			passed++
		}
	}
	fmt.Fprintf(w, "### svc check: %d of %d hosts passed\n\n", passed, len(r.Hosts))
	fmt.Fprintf(w, "| host | result | %s |\n", strings.Join(checkNames, " | "))
	fmt.Fprintf(w, "|---|---|%s\n", strings.Repeat("---|", len(checkNames)))
	for _, h := range r.Hosts {
		result := "❌ failed"
		if h.Passed {
			result = "✅ passed"
		}
		cells := []string{mdEscaper.Replace(h.Host), result}
		for _, c := range h.Checks {
			cell := mdIcon[c.Status] + " " + c.Status
			if c.Required {
				cell = "**" + cell + "**"
			}
			cells = append(cells, cell)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Fprintf(w, "\nRequired checks (bold): %s. An unmeasured required check counts as failed. API: %s. Exit code %d.\n",
		requireText(r.Require), mdEscaper.Replace(r.API), r.ExitCode)
	var lines []string
	for _, h := range r.Hosts {
		for _, c := range h.Checks {
			if c.Status == statusPass {
				continue
			}
			req := ""
			if c.Required {
				req = " (required)"
			}
			lines = append(lines, fmt.Sprintf("- %s %s%s: %s: %s", mdEscaper.Replace(h.Host), c.name, req, c.Status, mdEscaper.Replace(c.Detail)))
		}
		for _, e := range h.Errors {
			lines = append(lines, fmt.Sprintf("- %s error: %s: %s", mdEscaper.Replace(h.Host), e.Endpoint, mdEscaper.Replace(failureText(e))))
		}
	}
	if len(lines) > 0 {
		fmt.Fprintf(w, "\n<details><summary>What did not pass</summary>\n\n%s\n\n</details>\n", strings.Join(lines, "\n"))
	}
	fmt.Fprintln(w)
}
