package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"svc/cmd/internal/ciclient"
)

// `svc check`, the command-line checker of spec 4.4: this file parses the
// flags and calls the ciclient package, which asks the API, applies the rules
// and renders the answers.

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
	targets    []ciclient.Target

	httpClient *http.Client // nil: a plain client
}

func newCheckCmd(g *globals) *cobra.Command { return newCheckCmdWith(g, nil) }

// newCheckCmdWith builds `svc check`; runF, when set, is called with the
// parsed options instead of checkRun, so flag tests run nothing.
func newCheckCmdWith(g *globals, runF func(*checkOptions) error) *cobra.Command {
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
			if runF != nil {
				return runF(opts)
			}
			return checkRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.require, "require", "ucp,webmcp", "checks that decide the exit code: comma-separated names of "+strings.Join(ciclient.Names, ",")+", or all, or none")
	f.BoolVar(&opts.json, "json", false, "print one JSON document instead of the table")
	f.StringVar(&opts.summary, "summary", "", "append a Markdown summary to this file (e.g. $GITHUB_STEP_SUMMARY)")
	f.StringVar(&opts.api, "api", envOr("SVC_API", ciclient.DefaultAPI), "base URL of the svc API (env SVC_API)")
	f.StringVar(&opts.timeout, "timeout", strconv.Itoa(ciclient.DefaultTimeout), "seconds to wait for each API answer (at most 3600)")
	return cmd
}

// validate checks the flags and arguments and fills the parsed fields.
// Every problem is a usage error, found before any request.
func (o *checkOptions) validate() error {
	var err error
	if o.required, err = ciclient.ParseRequire(o.require); err != nil {
		return &usageError{err}
	}
	if o.apiBase, err = ciclient.ParseAPI(o.api); err != nil {
		return &usageError{err}
	}
	if o.timeoutSec, err = ciclient.ParseTimeout(o.timeout); err != nil {
		return &usageError{err}
	}
	seen := map[string]bool{}
	for _, h := range o.hosts {
		t, err := ciclient.ParseHost(h)
		if err != nil {
			return &usageError{err}
		}
		if !seen[t.Host] {
			seen[t.Host] = true
			o.targets = append(o.targets, t)
		}
	}
	return nil
}

// checkRun asks the API about every target and reports. The summary file
// is opened first, so an unwritable one is a usage error before any request.
func checkRun(ctx context.Context, opts *checkOptions) error {
	var summary *os.File
	if opts.summary != "" {
		var err error
		summary, err = os.OpenFile(opts.summary, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return usagef("--summary: %v", err)
		}
		defer summary.Close()
	}

	rep := ciclient.Run(ctx, ciclient.Config{
		API:         opts.apiBase,
		Require:     opts.required,
		Timeout:     opts.timeoutSec,
		TimeoutText: opts.timeout,
		HTTP:        opts.httpClient,
		Log:         opts.errOut,
	}, opts.targets)

	var out bytes.Buffer
	if opts.json {
		if err := rep.WriteJSON(&out); err != nil {
			return err
		}
	} else {
		rep.WriteTable(&out)
	}
	if _, err := opts.out.Write(out.Bytes()); err != nil {
		return err
	}
	if summary != nil {
		var md bytes.Buffer
		rep.WriteMarkdown(&md)
		if _, err := summary.Write(md.Bytes()); err != nil {
			return exitWith(ExitUsage, fmt.Errorf("--summary: %w", err))
		}
	}
	switch rep.ExitCode {
	case 0:
		return nil
	case ciclient.ExitRateLimited:
		return exitWith(rep.ExitCode, fmt.Errorf("the API at %s rate limited a required check; try again later", opts.apiBase))
	case ciclient.ExitNetwork:
		return exitWith(rep.ExitCode, fmt.Errorf("the API at %s could not answer a required check", opts.apiBase))
	}
	return exitWith(rep.ExitCode, nil)
}
