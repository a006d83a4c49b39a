package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/go-co-op/gocron/v2"
	"github.com/spf13/cobra"
)

// scheduleOptions holds the flags of `svc schedule`.
type scheduleOptions struct {
	run    runOptions
	cron   string
	runNow bool
}

func newScheduleCmd(g *globals) *cobra.Command { return newScheduleCmdWith(g, nil) }

// newScheduleCmdWith builds `svc schedule`; runF, when set, is called with the
// parsed options instead of scheduleRun, so flag tests run nothing.
func newScheduleCmdWith(g *globals, runF func(*scheduleOptions) error) *cobra.Command {
	o := &scheduleOptions{run: runOptions{globals: g}}
	cmd := &cobra.Command{
		Use:   "schedule --cron EXPR",
		Short: "Run the whole pipeline on a cron schedule",
		Long: `Run ` + "`svc run`" + ` (crawl, validate, aggregate, snapshot) on a cron
expression, in UTC, until stopped. Each run's id is its UTC date, so a run
interrupted by a restart resumes where it stopped. Never two runs at once: a
tick that comes while a run is still going is skipped. Each run is logged.

SIGTERM or Ctrl-C stops cleanly: the running crawl stops (its journal keeps
what was done), no new run starts, and the command exits 0.

The expression has five fields (minute hour day-of-month month day-of-week).`,
		Example: `  svc schedule --cron "0 3 * * 1" --stores stores.csv     # Mondays 03:00 UTC
  svc schedule --cron "@weekly" --stores stores.csv --run-now`,
		Args:        argsUsage(cobra.NoArgs),
		Annotations: map[string]string{storageAnnotation: "yes"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.cron == "" {
				return usagef("--cron EXPR is required")
			}
			if err := o.run.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return scheduleRun(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.cron, "cron", envOr("SVC_CRON", ""), "when to run, a cron expression in UTC (env SVC_CRON)")
	cmd.Flags().BoolVar(&o.runNow, "run-now", false, "also run once right away")
	o.run.register(cmd, false)
	return cmd
}

func scheduleRun(ctx context.Context, o *scheduleOptions) error {
	log := o.run.logger()
	s, err := gocron.NewScheduler(gocron.WithLocation(time.UTC))
	if err != nil {
		return err
	}
	task := func() {
		ro := o.run
		ro.runID = time.Now().UTC().Format("2006-01-02")
		start := time.Now()
		log.Info("scheduled run started", "run", ro.runID)
		if err := runAll(ctx, &ro); err != nil {
			log.Error("scheduled run failed", "run", ro.runID, "error", err, "elapsed", time.Since(start).Round(time.Second).String())
			return
		}
		log.Info("scheduled run finished", "run", ro.runID, "elapsed", time.Since(start).Round(time.Second).String())
	}
	opts := []gocron.JobOption{gocron.WithSingletonMode(gocron.LimitModeReschedule), gocron.WithName("svc run")}
	if o.runNow {
		opts = append(opts, gocron.WithStartAt(gocron.WithStartImmediately()))
	}
	j, err := s.NewJob(gocron.CronJob(o.cron, false), gocron.NewTask(task), opts...)
	if err != nil {
		return usagef("--cron %q: %v", o.cron, err)
	}
	s.Start()
	if next, err := j.NextRun(); err == nil {
		log.Info("schedule started", "cron", o.cron, "next_run", next.UTC().Format(time.RFC3339))
		fmt.Fprintf(o.run.out, "scheduled %q (UTC); next run %s; Ctrl-C or SIGTERM stops\n", o.cron, next.UTC().Format(time.RFC3339))
	}
	<-ctx.Done()
	log.Info("schedule stopping: waiting for a running run to stop")
	if err := s.Shutdown(); err != nil {
		return fmt.Errorf("schedule shutdown: %w", err)
	}
	log.Info("schedule stopped")
	return nil
}
