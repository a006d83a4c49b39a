package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"svc/pipeline"
)

// aggregateOptions holds the flags of `svc aggregate`.
type aggregateOptions struct {
	*globals
	runID     string
	previous  string
	noHistory bool
	baseURL   string
	state     stateFlag
}

func newAggregateCmd(g *globals) *cobra.Command { return newAggregateCmdWith(g, nil) }

// newAggregateCmdWith builds `svc aggregate`; runF, when set, is called with the
// parsed options instead of aggregateRun, so flag tests run nothing.
func newAggregateCmdWith(g *globals, runF func(*aggregateOptions) error) *cobra.Command {
	opts := &aggregateOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "aggregate",
		Short: "Build every published table and figure of a run with DuckDB (pipeline stage 3)",
		Long: `Run the DuckDB SQL of sql/aggregate_*.sql over a run's checks.parquet and
ucp_validations.parquet and write, under DATA/work/<run-id>/out/:

  tables/store_answers.parquet  one plain answer per store: can agents reach
                                checkout (verdict), the readiness score 0-100
                                (measured signals only; null when nothing was
                                measured), buy.agent_catalog, buy.browser and
                                agents_can_buy. The first file to use.
  tables/stores, checks, ucp_validations, agent_facts, product_data,
         policies, changes      the other store tables
  tables/leaderboard_results    and files/api/leaderboard*, the SVC-100 files
  files/api/agent-checkout/adoption.json   adoption counts (spec 2.8)
  files/api/protocols.json                 protocol matrix (spec 2.9)
  weekly/<date>.json                       the weekly figure (spec 2.13)

Week-over-week changes, the adoption series, rechecks and the weekly
comparison come from the latest earlier run that was aggregated (or
--previous RUN); --no-history reads none. Nothing here reads the clock or
the network: the run's times come from run.json, so aggregating the same
run again writes the same bytes. ` + "`svc snapshot`" + ` publishes the result.

A sharded run (crawled and validated with --shard i/n) is read from every
partition under checks/ and ucp_validations/, and gives the same bytes as an
unsharded run over the same stores. Aggregate refuses a run with a shard
missing (naming it and the command to run), partitions of different shard
counts, unsharded files beside partitions, or a partition holding a host
that does not hash into its shard (a copied or renamed partition).

Needs the crawl and the validate stage: run ` + "`svc crawl --run RUN`" + ` and
` + "`svc validate --run RUN`" + ` first (with --shard i/n for each shard of a
sharded run).`,
		Example: `  svc aggregate --run 2026-11-23
  svc aggregate --run 2026-11-23 --previous 2026-11-16 --base-url https://svc.example`,
		Args:        argsUsage(cobra.NoArgs),
		Annotations: map[string]string{storageAnnotation: "yes"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := validRunID(opts.runID); err != nil {
				return err
			}
			if opts.previous != "" {
				if opts.noHistory {
					return usagef("--previous and --no-history exclude each other")
				}
				if err := validRunID(opts.previous); err != nil {
					return usagef("--previous: %v", err)
				}
			}
			if err := opts.state.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return aggregateRun(cmd.Context(), opts)
		},
	}
	registerRunFlag(cmd, &opts.runID)
	f := cmd.Flags()
	f.StringVar(&opts.previous, "previous", "", "run id to compare with (default: the latest earlier run that was aggregated)")
	f.BoolVar(&opts.noHistory, "no-history", false, "read no previous run: no changes, rechecks or weekly comparison")
	f.StringVar(&opts.baseURL, "base-url", envOr("SVC_BASE_URL", ""), "absolute base of svc_url and citation links (env SVC_BASE_URL); empty for /... paths")
	opts.state.register(cmd)
	return cmd
}

func aggregateRun(ctx context.Context, opts *aggregateOptions) error {
	err := pipeline.AggregateStage(ctx, pipeline.AggregateStageOptions{
		StageEnv:  opts.state.env(opts.stageEnv(opts.runID)),
		Previous:  opts.previous,
		NoHistory: opts.noHistory,
		BaseURL:   opts.baseURL,
	})
	if pe := (*pipeline.PreviousRunError)(nil); errors.As(err, &pe) {
		return usagef("--previous: %v", pe.Err)
	}
	return err
}
