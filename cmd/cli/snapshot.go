package cli

import (
	"context"

	"github.com/spf13/cobra"

	"svc/pipeline"
)

// snapshotOptions holds the flags of `svc snapshot`.
type snapshotOptions struct {
	*globals
	runID   string
	baseURL string
}

func newSnapshotCmd(g *globals) *cobra.Command { return newSnapshotCmdWith(g, nil) }

// newSnapshotCmdWith builds `svc snapshot`; runF, when set, is called with the
// parsed options instead of snapshotRun, so flag tests run nothing.
func newSnapshotCmdWith(g *globals, runF func(*snapshotOptions) error) *cobra.Command {
	o := &snapshotOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "Publish a run as one immutable version of the datasets (pipeline stage 4)",
		Long: `Publish the aggregate output of a run (DATA/work/<run>/out) to DATA/public:
every table as CSV and Parquet in data/<version>/ with a manifest (row
counts, sha256 of every file, method version, licence, changelog) and a
Frictionless datapackage.json, the precomputed JSON under api/, and the
run's weekly edition.

The version folder is written under a temporary name, verified, and renamed
into place; data/latest moves only after that, and only when the publish
gate passes: nothing published before may change or disappear, and versions
only move forward. A published version never changes; publishing the same
run again changes nothing. The version is the run's date, or date.N when a
different snapshot already holds that date. A weekly edition is frozen once
published: a later run of the same day keeps the edition of that date as it
is, publishes everything else, and says so (a note printed and written into
the manifest).`,
		Example: `  svc snapshot --run 2026-11-23
  svc snapshot --run 2026-11-23 --base-url https://svc.example`,
		Args:        argsUsage(cobra.NoArgs),
		Annotations: map[string]string{storageAnnotation: "yes"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := validRunID(o.runID); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return snapshotRun(cmd.Context(), o)
		},
	}
	registerRunFlag(cmd, &o.runID)
	cmd.Flags().StringVar(&o.baseURL, "base-url", envOr("SVC_BASE_URL", ""), "absolute base of the download URLs in the manifest (env SVC_BASE_URL); empty for /data/... paths")
	return cmd
}

func snapshotRun(ctx context.Context, o *snapshotOptions) error {
	return pipeline.SnapshotStage(ctx, pipeline.SnapshotStageOptions{StageEnv: o.stageEnv(o.runID), BaseURL: o.baseURL})
}

// registerRunFlag adds --run, shared by the stages.
func registerRunFlag(cmd *cobra.Command, runID *string) {
	cmd.Flags().StringVar(runID, "run", envOr("SVC_RUN", todayUTC()), "run id: the folder under DATA/work/ (env SVC_RUN; default today, UTC)")
}
