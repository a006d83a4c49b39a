package cli

import (
	"context"

	"github.com/spf13/cobra"

	"svc/pipeline"
	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
)

// validateOptions holds the flags of `svc validate`.
type validateOptions struct {
	*globals
	runID       string
	concurrency int
	agentPaths  bool
	shard       shardFlag
	ucpFlags    ucpSchemaFlags
	profile     agentProfileFlag
	state       stateFlag
	key         agentKeyFlag
}

func newValidateCmd(g *globals) *cobra.Command { return newValidateCmdWith(g, nil) }

// newValidateCmdWith builds `svc validate`; runF, when set, is called with the
// parsed options instead of validateRun, so flag tests run nothing.
func newValidateCmdWith(g *globals, runF func(*validateOptions) error) *cobra.Command {
	opts := &validateOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Validate the UCP profile of every crawled store (pipeline stage 2)",
		Long: `Fetch https://<host>/.well-known/ucp for every store of a crawled run and
validate it against the UCP 2026-08-25 JSON Schema and the spec rules, with
the same validator and options as the store check (same --ucp-schema-dir), so
over the same answer the verdict is the same. The full report of each store
(errors, warnings and info with JSON paths, hosting checks, the profile
itself) goes to DATA/work/<run-id>/ucp_validations.parquet, one row per host.
Validation is not certification: a valid profile does not prove that its
endpoints work.

Stores whose homepage gave no HTTP answer in the crawl, or whose store check
failed, are not fetched again: they keep the crawl's verdict (unreachable)
with no report. Profiles are validated in parallel (--concurrency); each
result is journalled as it completes, so an interrupted run resumes where it
stopped when run again with the same --run. A store that fails is recorded
and counted, never fatal. Network errors are published as a class (timeout,
tls, connection_failed), never as raw text or an address.

Unless --agent-paths=false, the stage also runs the service's own plain-HTTP
agent paths (UCP and storefront MCP, catalog to cart, stopped before payment)
over the SVC-100 v1 test set, for the leaderboard. The browser shoppers are
the shop stage's (svc shop --run RUN). The UCP path names svc's own platform
profile in UCP-Agent: --agent-profile, else $SVC_BASE_URL/.well-known/ucp
(where ` + "`svc serve`" + ` publishes it); with neither it sends a placeholder
that serves no profile, and says so. Every request to a UCP binding is
signed (RFC 9421, ES256) with svc's key: --agent-key, else the key kept in
the state (--state; DATA/state/agent-key.pem or the postgres:// database),
created there on first use; ` + "`svc serve`" + ` publishes the same key when it
shares that state or file.

With --shard i/n the stage validates the stores of crawl partition i and
writes its own partition, DATA/work/<run-id>/ucp_validations/shard=<i>-of-<n>/.
The agent paths cover the fixed SVC-100 set, not the partition: shard 0
runs them, the other shards skip them.

Needs the crawl: run ` + "`svc crawl --run RUN`" + ` first.`,
		Example: `  svc validate --run 2026-11-23
  svc validate --run 2026-11-23 --ucp-schema-dir ../ucp/schema --concurrency 32
  svc validate --run 2026-11-23 --shard 2/4`,
		Args:        argsUsage(cobra.NoArgs),
		Annotations: map[string]string{storageAnnotation: "yes"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.concurrency < 1 || opts.concurrency > 1024 {
				return usagef("--concurrency must be 1 to 1024")
			}
			if err := validRunID(opts.runID); err != nil {
				return err
			}
			if err := opts.shard.parse(); err != nil {
				return err
			}
			if err := opts.profile.validate(opts.globals); err != nil {
				return err
			}
			if err := opts.state.validate(); err != nil {
				return err
			}
			if err := opts.key.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return validateRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	registerRunFlag(cmd, &opts.runID)
	f.IntVar(&opts.concurrency, "concurrency", 16, "profiles validated at once")
	f.BoolVar(&opts.agentPaths, "agent-paths", true, "also run the service's own plain-HTTP agent paths over SVC-100 v1 (shard 0 only)")
	opts.shard.register(cmd)
	opts.ucpFlags.register(cmd)
	opts.profile.register(cmd)
	opts.state.register(cmd)
	opts.key.register(cmd)
	return cmd
}

func validateRun(ctx context.Context, opts *validateOptions) error {
	return pipeline.ValidateStage(ctx, pipeline.ValidateStageOptions{
		StageEnv:    opts.state.env(opts.stageEnv(opts.runID)),
		Concurrency: opts.concurrency,
		Shard:       opts.shard.shard,
		AgentPaths:  opts.agentPaths,
		// The stage has no --base-url: the profile is the flag's, else
		// the one under SVC_BASE_URL, the base the later stages publish at.
		AgentProfile: opts.profile.resolve(envOr("SVC_BASE_URL", "")),
		AgentKeyFile: opts.key.file,
		Tools:        opts.validateTools(opts.ucpFlags),
	})
}

// validateTools builds the validate stage's client and UCP validator from
// the global and UCP flags, when the stage asks for them.
func (g *globals) validateTools(uf ucpSchemaFlags) func() (*fetch.Client, *ucp.Validator, error) {
	return func() (*fetch.Client, *ucp.Validator, error) {
		client, err := g.newClient()
		if err != nil {
			return nil, nil, err
		}
		v, err := uf.validator(g, client)
		return client, v, err
	}
}
