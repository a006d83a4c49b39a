package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"svc/pipeline/check"
	"svc/pipeline/fetch"
)

// probeOptions holds the flags of `svc probe`.
type probeOptions struct {
	*globals
	url      string
	json     bool
	ucpFlags ucpSchemaFlags
}

func newProbeCmd(g *globals) *cobra.Command { return newProbeCmdWith(g, nil) }

// newProbeCmdWith builds `svc probe`; runF, when set, is called with the
// parsed options instead of probeRun, so flag tests run nothing.
func newProbeCmdWith(g *globals, runF func(*probeOptions) error) *cobra.Command {
	opts := &probeOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "probe URL",
		Short: "Check one store now and print the result",
		Long: `Run the store check once against a public homepage or product URL and print
the result: catalog answered, product found, cart link (a boolean: the
checkout URL is never shown or kept), UCP profile, WebMCP, Checkout WebMCP,
storefront MCP, robots rules per AI agent, product data, policies, platform,
block status and the one recommended fix. null means unmeasured.

This is the same check engine as the live check of the API and the crawl.

Exit codes: 0 the check ran; 2 the store could not be reached; 64 the URL is
invalid or unsafe (the message says why).`,
		Example: `  svc probe https://shop.example/
  svc probe --json --fixture-addr 127.0.0.1:8443 --fixture-ca var/fixtures/ca.pem https://alder-apparel.test/`,
		Args: argsUsage(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.url = args[0]
			if _, err := fetch.ParseURL(opts.url); err != nil {
				return &usageError{err}
			}
			if runF != nil {
				return runF(opts)
			}
			return probeRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the result as one JSON object")
	opts.ucpFlags.register(cmd)
	return cmd
}

func probeRun(ctx context.Context, opts *probeOptions) error {
	eng, err := opts.newEngine(opts.ucpFlags)
	if err != nil {
		return err
	}
	res, err := eng.Check(ctx, opts.url)
	if err != nil {
		if errors.Is(err, fetch.ErrRefused) {
			return &usageError{err}
		}
		return exitWith(ExitUnreachable, err)
	}
	if opts.json {
		enc := json.NewEncoder(opts.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		printResult(opts.out, res)
	}
	if res.Reachability.Reachable == nil || !*res.Reachability.Reachable {
		if opts.json {
			return exitWith(ExitUnreachable, nil)
		}
		return exitWith(ExitUnreachable, fmt.Errorf("%s could not be reached: %s", res.Host, res.Reachability.Error))
	}
	return nil
}

// newEngine builds the check engine over the safe client and the UCP
// validator.
func (g *globals) newEngine(uf ucpSchemaFlags) (*check.Engine, error) {
	client, err := g.newClient()
	if err != nil {
		return nil, err
	}
	v, err := uf.validator(g, client)
	if err != nil {
		return nil, err
	}
	return check.New(check.Options{Client: client, UCP: v}), nil
}

// tri renders a nullable boolean: null is unmeasured, never "no".
func tri(b *bool) string {
	switch {
	case b == nil:
		return "unmeasured"
	case *b:
		return "yes"
	default:
		return "no"
	}
}

func str(s *string) string {
	if s == nil {
		return "unmeasured"
	}
	return *s
}

// printResult writes the human table of one check engine result.
func printResult(w io.Writer, r *check.Result) {
	row := func(k, v string) { fmt.Fprintf(w, "%-20s %s\n", k, v) }
	row("store", r.Host)
	row("checked at", r.CheckedAt.Format("2006-01-02 15:04:05 UTC"))
	row("reachable", tri(r.Reachability.Reachable)+httpNote(r.Reachability.HTTPStatus, r.Reachability.Error))
	row("blocked", tri(r.BlockStatus.Blocked)+note(r.BlockStatus.Reason))
	row("platform", str(r.Platform))
	row("catalog answered", tri(r.CatalogAnswered)+note(r.Catalog.Source))
	row("product found", tri(r.ProductFound))
	row("cart link", tri(r.CartLink)+" (a boolean; the checkout URL is never kept)")
	row("storefront MCP", tri(r.StorefrontMCP.Detected)+note(strings.Join(r.StorefrontMCP.Tools, ", ")))
	ucp := r.UCPProfile.Status
	if r.UCPProfile.DeclaredVersion != nil {
		ucp += " (" + *r.UCPProfile.DeclaredVersion + ")"
	}
	if rules := append(append([]string{}, r.UCPProfile.ErrorRules...), r.UCPProfile.WarningRules...); len(rules) > 0 {
		ucp += ": " + strings.Join(rules, ", ")
	}
	row("UCP profile", ucp)
	row("WebMCP", tri(r.WebMCP)+note(strings.Join(r.WebMCPDetail.Tools, ", ")))
	row("Checkout WebMCP", r.CheckoutWebMCP.Status+" (detected: "+tri(r.CheckoutWebMCP.Detected)+")")
	switch {
	case r.ProductData == nil:
		row("product data", "unmeasured")
	case r.ProductData.Source == nil:
		row("product data", "none found")
	default:
		row("product data", fmt.Sprintf("%s, complete: %v", *r.ProductData.Source, r.ProductData.Complete))
	}
	row("policies", fmt.Sprintf("returns %s, shipping %s, privacy %s, terms %s",
		tri(r.Policies.Returns), tri(r.Policies.Shipping), tri(r.Policies.Privacy), tri(r.Policies.Terms)))
	row("robots.txt", r.Robots.Status)
	agents := make([]string, 0, len(r.Robots.Agents))
	for a := range r.Robots.Agents {
		agents = append(agents, a)
	}
	sort.Strings(agents)
	for _, a := range agents {
		v := r.Robots.Agents[a]
		row("  "+a, v.Verdict+" ("+v.Purpose+")")
	}
	row("fix", r.Fix.Code)
	fmt.Fprintf(w, "%-20s %s\n", "", r.Fix.Text)
}

func note(s string) string {
	if s == "" {
		return ""
	}
	return " — " + s
}

func httpNote(status int, errClass string) string {
	switch {
	case errClass != "":
		return " — " + errClass
	case status != 0:
		return fmt.Sprintf(" — HTTP %d", status)
	}
	return ""
}
