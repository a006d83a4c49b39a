package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"svc/pipeline/durable"
	"svc/pipeline/fetch"
	"svc/pipeline/leaderboard"
	"svc/pipeline/shop/browser"
	"svc/pipeline/ucp"
)

// A run's work folder, DIR/work/<run-id>/, is how the stages hand over to
// each other; each stage reads what the one before wrote and can run alone:
//
//	run.json                 RunInfo: id, snapshot date, start time (an input
//	                         from then on, so re-runs give the same bytes)
//	checks.jsonl             crawl journal (resumable)
//	checks.parquet           crawl output: one row per store
//	ucp_validations.jsonl    validate journal (resumable)
//	ucp_validations.parquet  validate output: one row per store
//	out/tables/<name>.parquet  aggregate output: every published table
//	out/files/<path>         aggregate output: every other published file,
//	                         at its path under public/ (api/adoption.json,
//	                         data/svc-100/v1/svc-100.csv, ...)
//	out/weekly/<date>.json   aggregate output: this run's weekly edition
//
// A sharded run (crawl and validate with --shard i/n) has no crawl or
// validate files at the top; each shard writes its own partition instead,
// and aggregate reads them all (see Shard):
//
//	checks/shard=<i>-of-<n>/checks.jsonl                    crawl journal of shard i
//	checks/shard=<i>-of-<n>/checks.parquet                  its output
//	ucp_validations/shard=<i>-of-<n>/ucp_validations.jsonl  validate journal of shard i
//	ucp_validations/shard=<i>-of-<n>/ucp_validations.parquet its output
//
// snapshot publishes out/ as one version of the artifact tree.
const (
	RunInfoFile = "run.json"
	UCPFile     = "ucp_validations.parquet"
	OutDir      = "out"
	OutTables   = "out/tables"
	OutFiles    = "out/files"
	OutWeekly   = "out/weekly"
)

// RunInfo identifies a run. Its times are inputs of every later stage:
// nothing downstream reads the wall clock, so re-running a stage over the
// same work folder writes the same bytes.
type RunInfo struct {
	ID string `json:"id"`
	// Date is the snapshot date (UTC), the version published and the post
	// date of the weekly edition.
	Date string `json:"date"`
	// Started is when the run began (UTC, microseconds): generatedAt of the
	// precomputed figures.
	Started time.Time `json:"started"`
}

// RunDir is DIR/work/<id>.
func RunDir(dataDir, id string) string { return filepath.Join(dataDir, "work", id) }

// OpenRun reads the run's run.json, creating it on first use with now as
// the start time and now's UTC date as the snapshot date.
//
// Several processes may open a new run at once (the shards of a sharded
// run start together): run.json is created exclusively, written whole to a
// temporary file and hard-linked into place, so the first one wins and
// every other reads the winner's file, and all agree on one Started and
// Date.
func OpenRun(dataDir, id string, now time.Time) (RunInfo, error) {
	dir := RunDir(dataDir, id)
	path := filepath.Join(dir, RunInfoFile)
	ri, err := readRunFile(path, id)
	if !errors.Is(err, os.ErrNotExist) {
		return ri, err
	}
	now = now.UTC().Truncate(time.Microsecond)
	ri = RunInfo{ID: id, Date: now.Format("2006-01-02"), Started: now}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return RunInfo{}, fmt.Errorf("run %s: %w", id, err)
	}
	b, _ := json.MarshalIndent(ri, "", "  ")
	err = durable.CreateExclusive(path, append(b, '\n'), 0o644)
	if errors.Is(err, fs.ErrExist) {
		return readRunFile(path, id) // another process created it first
	}
	if err != nil {
		return RunInfo{}, fmt.Errorf("run %s: %w", id, err)
	}
	return ri, nil
}

// readRunFile reads a run.json; a missing file is os.ErrNotExist as is.
func readRunFile(path, id string) (RunInfo, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return RunInfo{}, err
	}
	if err != nil {
		return RunInfo{}, fmt.Errorf("run %s: %w", id, err)
	}
	var ri RunInfo
	if err := json.Unmarshal(b, &ri); err != nil {
		return RunInfo{}, fmt.Errorf("run %s: %s is corrupt: %w", id, RunInfoFile, err)
	}
	return ri, nil
}

// ReadRun reads an existing run's run.json; a run that was never crawled is
// an error that says so.
func ReadRun(dataDir, id string) (RunInfo, error) {
	ri, err := readRunFile(filepath.Join(RunDir(dataDir, id), RunInfoFile), id)
	if errors.Is(err, os.ErrNotExist) {
		return RunInfo{}, fmt.Errorf("run %s does not exist under %s: run `svc crawl --run %s` first", id, filepath.Join(dataDir, "work"), id)
	}
	return ri, err
}

// RunOptions configure Run: the union of the four stages' options.
type RunOptions struct {
	StageEnv
	Concurrency int    // stores checked, and profiles validated, at once
	BaseURL     string // absolute base of published links; "" for root-relative
	AgentPaths  bool   // validate also measures the agent paths
	// AgentProfile is the UCP platform profile URL the UCP path advertises;
	// "" takes leaderboard.AgentProfileURL(BaseURL), the profile `svc
	// serve` publishes there (and the placeholder when BaseURL is "").
	AgentProfile string
	// AgentKeyFile names svc's signing key; "" takes the state store's
	// (ValidateStageOptions.AgentKeyFile).
	AgentKeyFile string
	// Stores reads the crawl's store list; Checker builds the crawl's
	// check engine; Tools the validate stage's client and validator. Each
	// is called when its stage starts, as the stage's own command would.
	Stores  func() ([]Store, error)
	Checker func() (Checker, error)
	Tools   func() (*fetch.Client, *ucp.Validator, error)
	// Shop starts the shop stage's browser and returns the runner of its
	// runs and the browser's stop; nil skips the stage (--no-shop). An
	// error wrapping browser.ErrNoBrowser skips it too, saying on ErrOut
	// that the browser lane is unmeasured.
	Shop            func() (ShopRunner, func(), error)
	ShopConcurrency int // browser pages at once; default DefaultPages
	// ShopDeferred, when set, makes Run publish before the shop stage, for
	// a server that should answer at once (svc demo): the agent paths are
	// measured beside the crawl instead of after validate (they read no
	// crawl result), then validate, aggregate and snapshot publish the run
	// without the browser lane. Run then hands ShopDeferred the lane that
	// does the rest (the shop stage, then aggregate and snapshot again,
	// which publish the next version) and returns; the caller runs it.
	ShopDeferred func(*ShopLane)
}

// NoChromium is what a run says on ErrOut when the shop stage cannot run.
const NoChromium = "chromium not found: the browser lane is unmeasured"

// Run runs the stages of one run in order (crawl, validate, shop,
// aggregate, snapshot), each exactly as its own command would, stopping at
// the first stage that fails, and prints how long it took. `svc run`,
// `svc schedule` (each tick) and `svc demo` all run through it. With
// ShopDeferred it publishes before the shop stage and leaves that stage
// to the lane it hands over (shoplane.go).
func Run(ctx context.Context, o RunOptions) error {
	start := time.Now()
	crawl := func() error {
		stores, err := o.Stores()
		if err != nil {
			return err
		}
		chk, err := o.Checker()
		if err != nil {
			return err
		}
		return CrawlStage(ctx, CrawlStageOptions{StageEnv: o.StageEnv, Stores: stores, Concurrency: o.Concurrency, Checker: chk})
	}
	validate := func(agentPaths bool) func() error {
		return func() error {
			return ValidateStage(ctx, ValidateStageOptions{StageEnv: o.StageEnv, Concurrency: o.Concurrency, AgentPaths: agentPaths,
				AgentProfile: o.agentProfile(), AgentKeyFile: o.AgentKeyFile, Tools: o.Tools})
		}
	}
	if o.ShopDeferred != nil {
		if err := runPublishFirst(ctx, o, crawl, validate(false)); err != nil {
			return err
		}
		fmt.Fprintf(o.Out, "run %s: published without the shop stage in %s; the browser lane follows\n", o.RunID,
			time.Since(start).Round(time.Millisecond))
		o.ShopDeferred(&ShopLane{o: o})
		return nil
	}
	stages := append([]runStage{
		{"crawl", crawl},
		{"validate", validate(o.AgentPaths)},
		{"shop", func() error { return runShopStage(ctx, o) }},
	}, o.publishStages(ctx)...)
	if err := runStages(o.RunID, stages); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "run %s: done in %s\n", o.RunID, time.Since(start).Round(time.Millisecond))
	return nil
}

// runStage is one stage of Run.
type runStage struct {
	name string
	run  func() error
}

// runStages runs the stages in order, stopping at the first that fails.
func runStages(runID string, stages []runStage) error {
	for _, st := range stages {
		if err := st.run(); err != nil {
			return fmt.Errorf("run %s: %s: %w", runID, st.name, err)
		}
	}
	return nil
}

// publishStages are the last two stages of a run: aggregate and snapshot.
func (o RunOptions) publishStages(ctx context.Context) []runStage {
	return []runStage{
		{"aggregate", func() error {
			return AggregateStage(ctx, AggregateStageOptions{StageEnv: o.StageEnv, BaseURL: o.BaseURL})
		}},
		{"snapshot", func() error {
			return SnapshotStage(ctx, SnapshotStageOptions{StageEnv: o.StageEnv, BaseURL: o.BaseURL})
		}},
	}
}

// agentProfile is the UCP platform profile the UCP path advertises.
func (o RunOptions) agentProfile() string {
	if o.AgentProfile != "" {
		return o.AgentProfile
	}
	return leaderboard.AgentProfileURL(o.BaseURL)
}

// runShopStage is Run's shop stage: skipped with a line on Out when
// o.Shop is nil, and with NoChromium on ErrOut when no Chromium is found;
// either way the browser lane of the run is left unmeasured.
func runShopStage(ctx context.Context, o RunOptions) error {
	if o.Shop == nil {
		fmt.Fprintf(o.Out, "shop %s: skipped (--no-shop): the browser lane is not measured by this run\n", o.RunID)
		return nil
	}
	run, stop, err := o.Shop()
	if errors.Is(err, browser.ErrNoBrowser) {
		fmt.Fprintf(o.ErrOut, "svc: %s (%v)\n", NoChromium, err)
		return nil
	}
	if err != nil {
		return err
	}
	defer stop()
	return ShopStage(ctx, ShopStageOptions{StageEnv: o.StageEnv, Concurrency: o.ShopConcurrency, Run: run})
}

// ValidRunID keeps run ids to safe folder names: 1 to 64 letters, digits,
// '-', '_' and '.', not starting with '.'.
func ValidRunID(id string) error {
	if id == "" || len(id) > 64 {
		return errors.New("--run must be 1 to 64 characters")
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') || id[0] == '.' {
			return fmt.Errorf("--run %q: use letters, digits, '-', '_' and '.' only", id)
		}
	}
	return nil
}
