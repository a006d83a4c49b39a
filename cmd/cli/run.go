package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
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
	ucpFlags    ucpSchemaFlags
}

func newRunCmd(g *globals) *cobra.Command { return newRunCmdWith(g, nil) }

// newRunCmdWith builds `svc run`; runF, when set, is called with the
// parsed options instead of runAll, so flag tests run nothing.
func newRunCmdWith(g *globals, runF func(*runOptions) error) *cobra.Command {
	o := &runOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "run --stores FILE",
		Short: "Run the whole pipeline: crawl, validate, aggregate, snapshot",
		Long: `Run the four pipeline stages in order under one run id: crawl every store
of --stores, validate their UCP profiles (and run the service's own agent
paths over SVC-100), aggregate the tables and figures with DuckDB, and
publish them as one immutable snapshot under DATA/public.

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
	if withRunID {
		registerRunFlag(cmd, &o.runID)
	}
	o.ucpFlags.register(cmd)
}

func (o *runOptions) validate() error {
	if o.stores == "" {
		return usagef("--stores FILE is required")
	}
	if o.concurrency < 1 || o.concurrency > 1024 {
		return usagef("--concurrency must be 1 to 1024")
	}
	if o.runID != "" {
		return validRunID(o.runID)
	}
	return nil
}

// runAll runs the four stages of one run, each exactly as its own command
// would, stopping at the first stage that fails.
func runAll(ctx context.Context, o *runOptions) error {
	start := time.Now()
	stages := []struct {
		name string
		run  func() error
	}{
		{"crawl", func() error {
			return crawlRun(ctx, &crawlOptions{globals: o.globals, stores: o.stores, runID: o.runID, concurrency: o.concurrency, ucpFlags: o.ucpFlags})
		}},
		{"validate", func() error {
			return validateRun(ctx, &validateOptions{globals: o.globals, runID: o.runID, concurrency: o.concurrency, agentPaths: o.agentPaths, ucpFlags: o.ucpFlags})
		}},
		{"aggregate", func() error {
			return aggregateRun(ctx, &aggregateOptions{globals: o.globals, runID: o.runID, baseURL: o.baseURL})
		}},
		{"snapshot", func() error {
			return snapshotRun(ctx, &snapshotOptions{globals: o.globals, runID: o.runID, baseURL: o.baseURL})
		}},
	}
	for _, st := range stages {
		if err := st.run(); err != nil {
			return fmt.Errorf("run %s: %s: %w", o.runID, st.name, err)
		}
	}
	fmt.Fprintf(o.out, "run %s: done in %s\n", o.runID, time.Since(start).Round(time.Millisecond))
	return nil
}
