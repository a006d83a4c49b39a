package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"svc/pipeline"
	"svc/pipeline/fetch"
	"svc/pipeline/shop"
	"svc/pipeline/shop/browser"
)

// shopOptions holds the flags of `svc shop`.
type shopOptions struct {
	*globals
	url        string
	shopper    string
	json       bool
	screenshot string
	timeout    time.Duration
	llm        shop.LLMConfig
	ucpFlags   ucpSchemaFlags
	profile    agentProfileFlag // the UCP path's UCP-Agent profile
	key        agentKeyFlag     // the UCP path's signing key
	state      stateFlag        // where that key is kept
	// The stage form (no URL).
	runID       string
	stores      string
	concurrency int
	shard       shardFlag
}

func newShopCmd(g *globals) *cobra.Command { return newShopCmdWith(g, nil) }

// newShopCmdWith builds `svc shop`; runF, when set, is called with the parsed
// options instead of shopRun, so flag tests run nothing.
func newShopCmdWith(g *globals, runF func(*shopOptions) error) *cobra.Command {
	opts := &shopOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "shop [URL --shopper A|B|C|D|E|ucp|mcp]",
		Short: "Run agent paths on one store now, or the browser shoppers over SVC-100 (pipeline stage)",
		Long: `With a URL: run one of the service's agent paths on one store and print what happened:
the outcome (added_to_cart, checkout_reached, no_cart, blocked, error,
not_attempted), the reason, the number of steps, the seconds taken, the step
log and the hash of a small screenshot of the last page.

Paths:
  A    semantic browser shopper: Product JSON-LD and links, add-to-cart by
       text, aria-label or cart form, first available variant, overlays
       dismissed by their accept or close button, open shadow roots
  B    accessibility tree only: elements with an accessible role and name
  C    WebMCP only: modelContext tools and toolname forms (no tool: no_cart)
  D    a model chooses each action (SVC_LLM_URL, SVC_LLM_MODEL, SVC_LLM_KEY;
       none configured: not_attempted)
  E    A on a 390x844 phone with a mobile user agent and touch
  ucp  the UCP path over plain HTTP, its binding requests signed with
       svc's key (--agent-key, else the state's: --state)
  mcp  the storefront MCP path over plain HTTP

A to E run Debian's Chromium (never downloaded) with a fresh profile; every
request goes through the same safe client as every check. No path ever
places an order, pays, types, logs in or solves a captcha, and no checkout
address is ever printed or kept: a run stops at the first checkout page.

Exit codes: 0 the run happened (whatever its outcome); 2 the store could not
be reached; 64 the URL is invalid or unsafe.

Without a URL: the shop stage of a run (after validate, before aggregate).
Shoppers A to E each run on every store of SVC-100 v1 and, with --stores,
of that CSV too, --concurrency browser pages at once (default 2, for 2
cores). Each run is appended to a journal as it completes
(DATA/work/<run-id>/shop/shop.jsonl, screenshots beside it under
shop/screens/), so a stage that is killed resumes without running a
finished (store, shopper) pair again. --shard i/n runs the stores whose
host hashes into shard i, as crawl does. D runs only with a model
configured (SVC_LLM_*); without one its rows are not_attempted and its
path stays unmeasured. --shopper limits the stage to one browser shopper.
The aggregate stage turns the journal into the leaderboard's browser paths
A to E, store_answers.buy_browser and the published evidence (step logs and
screenshots under data/shop/). Without Chromium the stage fails with
"chromium not found: the browser lane is unmeasured".`,
		Example: `  svc shop https://shop.example/ --shopper A
  svc shop --json --shopper B --fixture-addr 127.0.0.1:8443 --fixture-ca var/fixtures/ca.pem https://svcshop-form.test/
  svc shop --run 2026-11-23                      # the stage: A to E over SVC-100 v1
  svc shop --run 2026-11-23 --stores stores.csv --concurrency 4 --shard 1/4`,
		Args:        argsUsage(cobra.MaximumNArgs(1)),
		Annotations: map[string]string{storageAnnotation: "yes"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				if err := opts.validateStage(cmd); err != nil {
					return err
				}
				if runF != nil {
					return runF(opts)
				}
				return shopStageRun(cmd.Context(), opts)
			}
			opts.url = args[0]
			if err := opts.validate(cmd); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return shopRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.shopper, "shopper", "", "the path: A, B, C, D, E, ucp or mcp (required)")
	f.BoolVar(&opts.json, "json", false, "print the run as one JSON object")
	f.StringVar(&opts.screenshot, "screenshot", "", "write the screenshot of the last page (JPEG) to this file")
	f.DurationVar(&opts.timeout, "timeout", shop.DefaultRunTimeout, "bound on the whole run (each run, in the stage)")
	f.StringVar(&opts.stores, "stores", "", "stage: a CSV of stores (host,name,category,source) shopped beside SVC-100 v1")
	f.IntVar(&opts.concurrency, "concurrency", pipeline.DefaultPages, "stage: browser pages at once")
	registerRunFlag(cmd, &opts.runID)
	opts.shard.register(cmd)
	opts.ucpFlags.register(cmd)
	opts.profile.register(cmd)
	opts.key.register(cmd)
	opts.state.register(cmd)
	opts.llm = shop.LLMConfig{URL: envOr("SVC_LLM_URL", ""), Model: envOr("SVC_LLM_MODEL", ""), Key: envOr("SVC_LLM_KEY", "")}
	return cmd
}

// stageOnly are the flags of the stage form alone.
var stageOnly = []string{"stores", "concurrency", "run", "shard"}

func (o *shopOptions) validate(cmd *cobra.Command) error {
	for _, name := range stageOnly {
		if cmd.Flags().Changed(name) {
			return usagef("--%s is a flag of the stage form (svc shop without a URL)", name)
		}
	}
	if o.shopper == "" {
		return usagef("--shopper is required: A, B, C, D, E, ucp or mcp")
	}
	if _, ok := shop.ParseShopper(o.shopper); !ok {
		return usagef("--shopper %q: want A, B, C, D, E, ucp or mcp", o.shopper)
	}
	if o.timeout <= 0 || o.timeout > 10*time.Minute {
		return usagef("--timeout must be between 0 and 10m")
	}
	if _, err := shop.CheckURL(o.url); err != nil {
		return &usageError{err}
	}
	if o.fixtureCA != "" && o.fixtureAddr == "" {
		return usagef("--fixture-ca needs --fixture-addr")
	}
	if err := o.state.validate(); err != nil {
		return err
	}
	if err := o.key.validate(); err != nil {
		return err
	}
	return o.profile.validate(o.globals)
}

// validateStage checks the flags of the stage form.
func (o *shopOptions) validateStage(cmd *cobra.Command) error {
	for _, name := range []string{"json", "screenshot", "agent-profile", "agent-key", "state"} {
		if cmd.Flags().Changed(name) {
			return usagef("--%s is a flag of the one-store form (svc shop URL --shopper X)", name)
		}
	}
	if o.shopper != "" {
		sh, ok := shop.ParseShopper(o.shopper)
		if !ok || !sh.Browser() {
			return usagef("--shopper %q: the stage runs the browser shoppers A, B, C, D or E (ucp and mcp run in validate)", o.shopper)
		}
	}
	if o.concurrency < 1 || o.concurrency > 64 {
		return usagef("--concurrency must be 1 to 64")
	}
	if o.timeout <= 0 || o.timeout > 10*time.Minute {
		return usagef("--timeout must be between 0 and 10m")
	}
	if o.fixtureCA != "" && o.fixtureAddr == "" {
		return usagef("--fixture-ca needs --fixture-addr")
	}
	if err := validRunID(o.runID); err != nil {
		return err
	}
	return o.shard.parse()
}

// shopRunner starts Chromium for the shop stage (pipeline.StartShopRunner)
// with the fixture flags; browser.ErrNoBrowser when no Chromium is found.
func (g *globals) shopRunner(ctx context.Context, llm shop.LLMConfig, timeout time.Duration) (pipeline.ShopRunner, func(), error) {
	ca, err := fetch.LoadFixtureCA(g.fixtureCA)
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	return pipeline.StartShopRunner(ctx, pipeline.ShopBrowserOptions{FixtureAddr: g.fixtureAddr, FixtureCA: ca, LLM: llm, RunTimeout: timeout})
}

// shopStageRun is the stage form of svc shop.
func shopStageRun(ctx context.Context, opts *shopOptions) error {
	var stores []pipeline.Store
	if opts.stores != "" {
		var err error
		if stores, err = readStoresFile(opts.stores); err != nil {
			return err
		}
	}
	run, stop, err := opts.shopRunner(ctx, opts.llm, opts.timeout)
	if errors.Is(err, browser.ErrNoBrowser) {
		return fmt.Errorf("%s (%w)", pipeline.NoChromium, err)
	}
	if err != nil {
		return err
	}
	defer stop()
	so := pipeline.ShopStageOptions{StageEnv: opts.stageEnv(opts.runID), Stores: stores, Concurrency: opts.concurrency,
		Shard: opts.shard.shard, Run: run}
	if opts.shopper != "" {
		sh, _ := shop.ParseShopper(opts.shopper)
		so.Shoppers = []shop.Shopper{sh}
	}
	return pipeline.ShopStage(ctx, so)
}

func shopRun(ctx context.Context, opts *shopOptions) error {
	sh, _ := shop.ParseShopper(opts.shopper)
	so := shop.Options{RunTimeout: opts.timeout, LLM: opts.llm}
	switch {
	case sh == shop.UCP || sh == shop.MCP:
		client, err := opts.newClient()
		if err != nil {
			return err
		}
		so.Client = client
		if sh == shop.UCP {
			v, err := opts.ucpFlags.validator(opts.globals, client)
			if err != nil {
				return err
			}
			so.UCP = v
			// As svc validate does: the flag, else the profile under
			// SVC_BASE_URL; with neither the path says it sent a placeholder.
			so.AgentProfile = opts.profile.resolve(envOr("SVC_BASE_URL", ""))
			// It signs as the validate stage does: --agent-key, else the
			// key kept in the state, created there on first use.
			if so.AgentKey, err = opts.key.load(ctx, opts.globals, opts.state.value); err != nil {
				return err
			}
		}
	case sh == shop.Model && !opts.llm.Configured():
		// not_attempted without starting a browser
	default:
		ca, err := fetch.LoadFixtureCA(opts.fixtureCA)
		if err != nil {
			return usagef("%v", err)
		}
		b, err := browser.Start(ctx, browser.Options{FixtureAddr: opts.fixtureAddr, FixtureCA: ca})
		switch {
		case errors.Is(err, browser.ErrNoBrowser):
			fmt.Fprintln(opts.errOut, "svc: "+err.Error()+": the browser path is not attempted")
		case err != nil:
			return err
		default:
			defer b.Close()
			so.Browser = b
		}
	}
	rep, err := shop.Run(ctx, so, sh, opts.url)
	if errors.Is(err, shop.ErrInvalidURL) {
		return &usageError{err}
	}
	if rep == nil {
		return err
	}
	if opts.screenshot != "" && rep.Screenshot != nil {
		if werr := os.WriteFile(opts.screenshot, rep.Screenshot.Data, 0o644); werr != nil {
			return fmt.Errorf("write screenshot: %w", werr)
		}
	}
	if opts.json {
		enc := json.NewEncoder(opts.out)
		enc.SetIndent("", "  ")
		if jerr := enc.Encode(rep); jerr != nil {
			return jerr
		}
	} else {
		rep.WriteText(opts.out)
	}
	switch {
	case errors.Is(err, shop.ErrUnreachable):
		if opts.json {
			return exitWith(ExitUnreachable, nil)
		}
		return exitWith(ExitUnreachable, fmt.Errorf("%s could not be reached (%s)", rep.Store, rep.Reason))
	case err != nil:
		return err
	}
	return nil
}
