package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"svc/fixtures"
	"svc/fixtures/truth"
	"svc/pipeline"
	"svc/pipeline/check"
)

// fixturesScoreOptions holds the flags of `svc fixtures score`.
type fixturesScoreOptions struct {
	*globals
	world fixturesWorldFlags
	runID string
	// noUCPSchemas scores against the answers of a run that had no UCP
	// schemas (fixtures.World.WithoutUCPSchemas).
	noUCPSchemas bool
}

func newFixturesScoreCmd(g *globals, runF func(*fixturesScoreOptions) error) *cobra.Command {
	o := &fixturesScoreOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "score --run ID",
		Short: "Compare a crawl of the fixture world with its known answers, trait by trait",
		Long: `Read a crawl's journal (DATA/work/<run>/checks.jsonl) of the fixture world and
compare every store's crawl result with the answers the world knows to be
true. Prints, per trait, how many stores show it and how many got every
field right, and names the fields that were missed. Exit 1 when any store
missed.

Use the same --seed and --stores as the fixtures serve that was crawled, and
--no-ucp-schemas when the crawl had no UCP schemas (no --ucp-schema-dir and
ucp.dev out of reach): its profiles are then expected to be unvalidated
(valid: null) where the schema would decide, and strictly valid or invalid
otherwise.`,
		Example: `  svc fixtures score --run demo`,
		Args:    argsUsage(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.world.validate(); err != nil {
				return err
			}
			if err := validRunID(o.runID); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return fixturesScoreRun(cmd.Context(), o)
		},
	}
	o.world.register(cmd)
	cmd.Flags().StringVar(&o.runID, "run", envOr("SVC_RUN", ""), "run id of the crawl to score (env SVC_RUN)")
	cmd.Flags().BoolVar(&o.noUCPSchemas, "no-ucp-schemas", false, "the crawl had no UCP schemas: expect unvalidated profiles where only the schema could decide")
	return cmd
}

func fixturesScoreRun(_ context.Context, o *fixturesScoreOptions) error {
	world := fixtures.Generate(o.world.seed, o.world.stores)
	if o.noUCPSchemas {
		world.WithoutUCPSchemas()
	}
	results := map[string]*check.Result{} // the crawl results, by host
	path := filepath.Join(pipeline.RunDir(o.data, o.runID), pipeline.JournalName)
	if err := pipeline.ReadJournal(path, func(r pipeline.CrawlRecord) { results[r.Store.Host] = r.Result }); err != nil {
		return fmt.Errorf("score run %s: %w (run `svc crawl --run %s` over the fixture world first)", o.runID, err, o.runID)
	}
	scores := truth.Score(world, results)
	w := o.out
	fmt.Fprintf(w, "%-42s %6s %8s  %s\n", "trait", "stores", "correct", "fields missed")
	allStores, allCorrect := 0, 0
	for _, ts := range scores {
		var missed []string
		for f, n := range ts.Fields {
			missed = append(missed, fmt.Sprintf("%s×%d", f, n))
		}
		sort.Strings(missed)
		fmt.Fprintf(w, "%-42s %6d %8d  %s\n", ts.Trait, ts.Stores, ts.Correct, strings.Join(missed, " "))
	}
	for _, st := range world.Stores {
		allStores++
		if r := results[st.Host]; r != nil && len(truth.Mismatches(st.Expect, truth.FromResult(r))) == 0 {
			allCorrect++
		}
	}
	fmt.Fprintf(w, "\n%d of %d stores got every field right.\n", allCorrect, allStores)
	if allCorrect != allStores {
		return exitWith(ExitFailed, nil)
	}
	return nil
}
