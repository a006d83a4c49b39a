package cli

import (
	"context"
	"os"
	"time"

	"github.com/spf13/cobra"

	"svc/pipeline"
)

// crawlOptions holds the flags of `svc crawl`.
type crawlOptions struct {
	*globals
	stores      string
	runID       string
	concurrency int
	shard       shardFlag
	ucpFlags    ucpSchemaFlags
	state       stateFlag
	refetch     bool
}

func newCrawlCmd(g *globals) *cobra.Command { return newCrawlCmdWith(g, nil) }

// newCrawlCmdWith builds `svc crawl`; runF, when set, is called with the
// parsed options instead of crawlRun, so flag tests run nothing.
func newCrawlCmdWith(g *globals, runF func(*crawlOptions) error) *cobra.Command {
	opts := &crawlOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "crawl --stores FILE",
		Short: "Check every store of the directory (pipeline stage 1)",
		Long: `Check every store listed in a CSV file (header host,name,category,source)
with the same check engine as the live check, and write the run's checks
table to DATA/work/<run-id>/.

Stores are checked in parallel (--concurrency), one request at a time per
store. Each result is appended to a journal as it completes, so a crawl that
is interrupted or killed resumes where it stopped when run again with the same
--run id. A store that fails is recorded and counted, never fatal.

With --shard i/n the crawl checks only the stores whose host hashes into
shard i (of n) and writes its own partition,
DATA/work/<run-id>/checks/shard=<i>-of-<n>/; run every shard of 0 to n-1,
at once or one after another, on one machine or many sharing --data, then
validate each shard and aggregate once. --concurrency is per shard.

Re-crawls are conditional: each store's documents are kept in
DATA/state/crawl-docs with their validators (ETag, Last-Modified), sent as
If-None-Match / If-Modified-Since next time, and a 304 reuses the findings
of the copy kept (the journal's result lists each reused document with the
date it was downloaded). A document older than 30 days is downloaded again.
--refetch downloads everything in full.`,
		Example: `  svc crawl --stores datasets/stores.csv
  svc crawl --stores stores.csv --run 2026-11-23 --concurrency 32
  svc crawl --stores stores.csv --run 2026-11-23 --shard 2/4`,
		Args:        argsUsage(cobra.NoArgs),
		Annotations: map[string]string{storageAnnotation: "yes"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.stores == "" {
				return usagef("--stores FILE is required")
			}
			if opts.concurrency < 1 || opts.concurrency > 1024 {
				return usagef("--concurrency must be 1 to 1024")
			}
			if err := validRunID(opts.runID); err != nil {
				return err
			}
			if err := opts.shard.parse(); err != nil {
				return err
			}
			if err := opts.state.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return crawlRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.stores, "stores", envOr("SVC_STORES", ""), "CSV of stores to check: host,name,category,source (env SVC_STORES)")
	f.IntVar(&opts.concurrency, "concurrency", 16, "stores checked at once")
	f.BoolVar(&opts.refetch, "refetch", false, "download every document in full instead of asking conditionally for the ones kept from the last crawl")
	registerRunFlag(cmd, &opts.runID)
	opts.shard.register(cmd)
	opts.ucpFlags.register(cmd)
	opts.state.register(cmd)
	return cmd
}

func crawlRun(ctx context.Context, opts *crawlOptions) error {
	stores, err := readStoresFile(opts.stores)
	if err != nil {
		return err
	}
	eng, err := opts.newEngine(opts.ucpFlags)
	if err != nil {
		return err
	}
	return pipeline.CrawlStage(ctx, pipeline.CrawlStageOptions{
		StageEnv:    opts.state.env(opts.stageEnv(opts.runID)),
		Stores:      stores,
		Concurrency: opts.concurrency,
		Shard:       opts.shard.shard,
		Checker:     eng,
		Refetch:     opts.refetch,
	})
}

// readStoresFile reads the --stores CSV; a file that is missing or
// malformed is a usage error.
func readStoresFile(path string) ([]pipeline.Store, error) {
	in, err := os.Open(path)
	if err != nil {
		return nil, usagef("--stores: %v", err)
	}
	stores, err := pipeline.ReadStores(in)
	in.Close()
	if err != nil {
		return nil, usagef("--stores %s: %v", path, err)
	}
	return stores, nil
}

// validRunID keeps run ids to safe folder names; a bad one is a usage
// error.
func validRunID(id string) error {
	if err := pipeline.ValidRunID(id); err != nil {
		return usagef("%v", err)
	}
	return nil
}

func todayUTC() string { return time.Now().UTC().Format("2006-01-02") }
