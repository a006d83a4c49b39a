package cli

import (
	"context"

	"github.com/spf13/cobra"

	"svc/pipeline"
	"svc/pipeline/shop"
)

// runOptions holds the flags of `svc run`, which are the union of the
// stages' flags; schedule shares them.
type runOptions struct {
	*globals
	runID       string
	stores      string
	concurrency int
	baseURL     string
	agentPaths  bool
	noShop      bool
	shopPages   int
	ucpFlags    ucpSchemaFlags
	state       stateFlag
	profile     agentProfileFlag
	key         agentKeyFlag
	// shop starts the shop stage's runner in place of Chromium (tests);
	// shopDeferred is pipeline.RunOptions.ShopDeferred (svc demo). No flags.
	shop         func() (pipeline.ShopRunner, func(), error)
	shopDeferred func(*pipeline.ShopLane)
}

func newRunCmd(g *globals) *cobra.Command { return newRunCmdWith(g, nil) }

// newRunCmdWith builds `svc run`; runF, when set, is called with the
// parsed options instead of runAll, so flag tests run nothing.
func newRunCmdWith(g *globals, runF func(*runOptions) error) *cobra.Command {
	o := &runOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "run --stores FILE",
		Short: "Run the whole pipeline: crawl, validate, shop, aggregate, snapshot",
		Long: `Run the pipeline stages in order under one run id: crawl every store
of --stores, validate their UCP profiles (and run the service's own agent
paths over SVC-100), run the browser shoppers A to E over SVC-100 (the shop
stage, when Chromium is found; without it the run says so and the browser
lane stays unmeasured; --no-shop skips it), aggregate the tables and
figures with DuckDB, and publish them as one immutable snapshot under
DATA/public.

Each stage keeps its output in DATA/work/<run-id>/, so a run that stops
(killed, or a store list that fails half-way) continues where it stopped
when started again with the same --run.`,
		Example: `  svc run --stores stores.csv
  svc run --stores stores.csv --run 2026-11-23 --base-url https://svc.example`,
		Args:        argsUsage(cobra.NoArgs),
		Annotations: map[string]string{storageAnnotation: "yes"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runAll(cmd.Context(), o)
		},
	}
	o.register(cmd, true)
	return cmd
}

// register adds the run flags; withRunID adds --run (schedule names runs
// by their date instead).
func (o *runOptions) register(cmd *cobra.Command, withRunID bool) {
	f := cmd.Flags()
	f.StringVar(&o.stores, "stores", envOr("SVC_STORES", ""), "CSV of stores to check: host,name,category,source (env SVC_STORES)")
	f.IntVar(&o.concurrency, "concurrency", 16, "stores checked at once")
	f.StringVar(&o.baseURL, "base-url", envOr("SVC_BASE_URL", ""), "absolute base of published links (env SVC_BASE_URL); empty for root-relative")
	f.BoolVar(&o.agentPaths, "agent-paths", true, "run the service's own UCP and storefront-MCP paths over SVC-100")
	f.BoolVar(&o.noShop, "no-shop", false, "skip the shop stage (the browser shoppers): the browser lane stays unmeasured")
	f.IntVar(&o.shopPages, "shop-concurrency", pipeline.DefaultPages, "browser pages at once in the shop stage")
	if withRunID {
		registerRunFlag(cmd, &o.runID)
	}
	o.ucpFlags.register(cmd)
	o.state.register(cmd)
	o.profile.register(cmd)
	o.key.register(cmd)
}

func (o *runOptions) validate() error {
	if o.stores == "" {
		return usagef("--stores FILE is required")
	}
	if o.concurrency < 1 || o.concurrency > 1024 {
		return usagef("--concurrency must be 1 to 1024")
	}
	if err := o.state.validate(); err != nil {
		return err
	}
	if err := o.profile.validate(o.globals); err != nil {
		return err
	}
	if err := o.key.validate(); err != nil {
		return err
	}
	if o.shopPages < 1 || o.shopPages > 64 {
		return usagef("--shop-concurrency must be 1 to 64")
	}
	if o.runID != "" {
		return validRunID(o.runID)
	}
	return nil
}

// runAll runs the four stages of one run through pipeline.Run, each
// exactly as its own command would, stopping at the first stage that fails.
func runAll(ctx context.Context, o *runOptions) error {
	var shopStage func() (pipeline.ShopRunner, func(), error)
	if !o.noShop {
		llm := shop.LLMConfig{URL: envOr("SVC_LLM_URL", ""), Model: envOr("SVC_LLM_MODEL", ""), Key: envOr("SVC_LLM_KEY", "")}
		shopStage = func() (pipeline.ShopRunner, func(), error) { return o.shopRunner(ctx, llm, shop.DefaultRunTimeout) }
		if o.shop != nil {
			shopStage = o.shop
		}
	}
	return pipeline.Run(ctx, pipeline.RunOptions{
		StageEnv:        o.state.env(o.stageEnv(o.runID)),
		Concurrency:     o.concurrency,
		BaseURL:         o.baseURL,
		AgentProfile:    o.profile.resolve(o.baseURL),
		AgentKeyFile:    o.key.file,
		AgentPaths:      o.agentPaths,
		Shop:            shopStage,
		ShopConcurrency: o.shopPages,
		ShopDeferred:    o.shopDeferred,
		Stores:          func() ([]pipeline.Store, error) { return readStoresFile(o.stores) },
		Checker: func() (pipeline.Checker, error) { // the check engine of the crawl
			eng, err := o.newEngine(o.ucpFlags)
			if err != nil {
				return nil, err
			}
			return eng, nil
		},
		Tools: o.validateTools(o.ucpFlags),
	})
}
