package pipeline

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"svc/pipeline/inbox"
	"time"

	"svc/pipeline/fetch"
	"svc/pipeline/httpsig"
	"svc/pipeline/leaderboard"
	"svc/pipeline/ucp"
	"svc/publish"
)

// The stage functions: each is one pipeline stage as its command runs it,
// follow-up steps included (the run's files brought down and sent back up,
// the stage's table written, the summary printed). The commands parse
// flags, build the stage's tools and call one of these; Run calls all four.
//
// Words: the check engine (package check) checks one store; the crawl's
// results are its journal (checks.jsonl, one record per store); the checks
// table is the checks.parquet written from that journal and published as
// the checks dataset. `svc check` is a client of the API, not this stage.

// RunFiles is where a run's files are kept between stages. The stages work
// on local files under the data folder; with a bucket, RunFiles brings a
// stage's inputs down into it first and sends its outputs up after. Paths
// are relative to the run folder, each a file or a folder; none means the
// whole run. LocalFiles is the implementation for a plain folder.
type RunFiles interface {
	// Pull brings the run's files down; what is missing is left to the
	// stage to report.
	Pull(ctx context.Context, runID string, paths ...string) error
	// Push sends the run's files up; a path the stage did not write is an
	// error.
	Push(ctx context.Context, runID string, paths ...string) error
	// OpenRun opens (creating) the run as OpenRun does, agreeing on one
	// run.json with every other process that starts the same run.
	OpenRun(ctx context.Context, runID string, now time.Time) (RunInfo, error)
	// PullHistory brings down the run an aggregate of cur compares with:
	// previous, or the latest earlier aggregated run; none with noHistory.
	PullHistory(ctx context.Context, cur RunInfo, previous string, noHistory bool) error
	// PublishStore is the Store a snapshot publishes to.
	PublishStore(ctx context.Context) (publish.Store, error)
}

// LocalFiles is RunFiles for a local data folder: the files are already
// where the stages work, so there is nothing to pull or push.
type LocalFiles struct{ DataDir string }

func (LocalFiles) Pull(context.Context, string, ...string) error { return nil }
func (LocalFiles) Push(context.Context, string, ...string) error { return nil }
func (l LocalFiles) OpenRun(_ context.Context, runID string, now time.Time) (RunInfo, error) {
	return OpenRun(l.DataDir, runID, now)
}
func (LocalFiles) PullHistory(context.Context, RunInfo, string, bool) error { return nil }
func (l LocalFiles) PublishStore(context.Context) (publish.Store, error) {
	return publish.NewDirStore(filepath.Join(l.DataDir, "public"))
}

// StageEnv is what every stage function shares: the data folder and run,
// where the files are kept, and where the summary, the progress and the log
// go.
type StageEnv struct {
	DataDir string // the local data folder (a bucket's cache)
	RunID   string
	// State is the inbox the crawl and the leaderboard aggregate read
	// accepted submissions from: a folder, or the postgres://… database
	// serve replicas share; empty for DataDir/state.
	State  string
	Files  RunFiles  // nil: LocalFiles{DataDir}
	Out    io.Writer // the stage's summary lines
	ErrOut io.Writer // the progress (a bar on a terminal)
	Log    *slog.Logger
}

func (e StageEnv) files() RunFiles {
	if e.Files == nil {
		return LocalFiles{DataDir: e.DataDir}
	}
	return e.Files
}

// state returns where the accepted submissions are read from.
func (e StageEnv) state() string {
	if e.State == "" {
		return filepath.Join(e.DataDir, "state")
	}
	return e.State
}

func (e StageEnv) log() *slog.Logger {
	if e.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return e.Log
}

// CrawlStageOptions configure CrawlStage.
type CrawlStageOptions struct {
	StageEnv
	Stores      []Store // the --stores CSV; submitted stores join them
	Concurrency int
	Shard       Shard
	Checker     Checker // the check engine run on each store
	// Refetch downloads every document in full. By default the crawl
	// keeps each store's documents in DATA/state/crawl-docs (DocCache)
	// and asks for them conditionally on the next run, reusing what a
	// store answers 304 for (issue 36.1).
	Refetch bool
}

// CrawlStage is `svc crawl`: it opens the run, adds the stores submitted up
// to its start, brings this partition's journal of crawl results down (to
// resume), crawls, writes the checks table from it, sends the partition back up and prints the
// summary line.
func CrawlStage(ctx context.Context, o CrawlStageOptions) error {
	files, log := o.files(), o.log()
	ri, err := files.OpenRun(ctx, o.RunID, time.Now())
	if err != nil {
		return err
	}
	// Stores accepted by POST /api/stores/submit up to the run's start join
	// the CSV's (which wins for a host in both), so a resumed crawl sees the
	// same list, and so does every shard: they share run.json's start.
	in, closeIn, err := inbox.OpenReader(ctx, o.state())
	if err != nil {
		return fmt.Errorf("crawl %s: %w", o.RunID, err)
	}
	stores, submitted, err := MergeSubmitted(ctx, o.Stores, in, ri.Started)
	closeIn()
	if err != nil {
		return err
	}
	if submitted > 0 {
		log.Info("submitted stores queued", "stores", submitted)
	}
	dir := RunDir(o.DataDir, o.RunID)
	part := ChecksDir(dir, o.Shard)
	// With a bucket, this partition's journal comes down first, so a crawl
	// re-run on another machine resumes where the uploaded one stopped.
	synced := partPaths(dir, part, JournalName, ChecksFile)
	if err := files.Pull(ctx, o.RunID, synced...); err != nil {
		return err
	}
	stats, err := Crawl(ctx, CrawlOptions{
		Stores:      stores,
		Dir:         dir,
		Concurrency: o.Concurrency,
		Shard:       o.Shard,
		Checker:     o.Checker,
		Docs:        o.docCache(),
		Progress:    NewProgress(o.ErrOut, "crawl", log),
		Log:         log,
	})
	if err != nil {
		return fmt.Errorf("crawl %s%s: %w", o.RunID, o.Shard.label(), err)
	}
	n, err := WriteChecks(part)
	if err != nil {
		return err
	}
	if err := files.Push(ctx, o.RunID, synced...); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "crawl %s%s: %d stores, %d checked now, %d resumed, %d failed, %d rows in %s (%s)\n",
		o.RunID, o.Shard.label(), stats.Total, stats.Done, stats.Resumed, stats.Failed, n, filepath.Join(part, ChecksFile),
		stats.Elapsed.Round(time.Millisecond))
	return nil
}

// docCache is where the crawl keeps its documents between runs: the data
// folder's own state (a machine's local copy, also under a bucket or with
// --state postgres://, since the documents are a cache, not a record);
// nil with Refetch.
func (o CrawlStageOptions) docCache() *DocCache {
	if o.Refetch {
		return nil
	}
	return &DocCache{Dir: DocCacheDir(o.DataDir)}
}

// ValidateStageOptions configure ValidateStage.
type ValidateStageOptions struct {
	StageEnv
	Concurrency int
	Shard       Shard
	// AgentPaths also runs the service's own plain-HTTP agent paths over
	// SVC-100 (shard 0 only).
	AgentPaths bool
	// AgentProfile is the URL of svc's UCP platform profile the UCP path
	// advertises (AgentPathOptions); "" sends the placeholder and notes it
	// on ErrOut.
	AgentProfile string
	// AgentKeyFile names svc's signing key (--agent-key); "" takes the key
	// kept in the state store (State), created there on first use. The UCP
	// path signs its requests with it (leaderboard.LoadAgentKey).
	AgentKeyFile string
	// Tools builds the client and the UCP validator, once the run is known
	// to exist.
	Tools func() (*fetch.Client, *ucp.Validator, error)
}

// ValidateStage is `svc validate`: it brings the run and this shard's crawl
// and validate partitions down, validates, writes the table, sends the
// partition back up and prints the summary; then, on shard 0 and unless
// AgentPaths is off, measures the agent paths.
func ValidateStage(ctx context.Context, o ValidateStageOptions) error {
	files := o.files()
	dir := RunDir(o.DataDir, o.RunID)
	// With a bucket: the run, this shard's crawl partition (its journal of
	// crawl results is the input) and this stage's own partition (to resume) come down
	// first; the stage's partition goes back up after.
	crawled := partPaths(dir, ChecksDir(dir, o.Shard), JournalName)
	synced := partPaths(dir, UCPDir(dir, o.Shard), ValidateJournal, UCPFile)
	if err := files.Pull(ctx, o.RunID, append(append([]string{RunInfoFile}, crawled...), synced...)...); err != nil {
		return err
	}
	if _, err := ReadRun(o.DataDir, o.RunID); err != nil {
		return err
	}
	client, v, err := o.Tools()
	if err != nil {
		return err
	}
	log := o.log()
	stats, err := Validate(ctx, ValidateOptions{
		Dir:         dir,
		Concurrency: o.Concurrency,
		Shard:       o.Shard,
		Validator:   v,
		Progress:    NewProgress(o.ErrOut, "validate", log),
		Log:         log,
	})
	if err != nil {
		return fmt.Errorf("validate %s%s: %w", o.RunID, o.Shard.label(), err)
	}
	n, err := WriteShardUCPValidations(dir, o.Shard)
	if err != nil {
		return err
	}
	if err := files.Push(ctx, o.RunID, synced...); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "validate %s%s: %d stores, %d validated now, %d resumed, %d kept the crawl's verdict, %d failed, %d rows in %s (%s)\n",
		o.RunID, o.Shard.label(), stats.Total, stats.Done-stats.Skipped, stats.Resumed, stats.Skipped, stats.Failed, n,
		filepath.Join(UCPDir(dir, o.Shard), UCPFile), stats.Elapsed.Round(time.Millisecond))
	// The agent paths cover SVC-100, not the directory: one shard runs them.
	if !o.AgentPaths || o.Shard.I != 0 {
		return nil
	}
	if v != nil && o.AgentProfile == "" && o.ErrOut != nil {
		fmt.Fprintf(o.ErrOut, "note: validate %s: the UCP path has no agent profile URL (give --base-url or --agent-profile, env SVC_AGENT_PROFILE): "+
			"its requests name the placeholder %s, which serves no profile, so a store that fetches it refuses them\n", o.RunID, leaderboard.DefaultAgentProfile)
	}
	key, signed, err := agentPathKey(ctx, v != nil, o.AgentKeyFile, o.state(), o.RunID)
	if err != nil {
		return err
	}
	if err := MeasureAgentPaths(ctx, dir, AgentPathOptions{Client: client, UCP: v, AgentProfile: o.AgentProfile, AgentKey: key}); err != nil {
		return fmt.Errorf("validate %s: agent paths: %w", o.RunID, err)
	}
	if err := files.Push(ctx, o.RunID, leaderboard.AgentRunsDir); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "validate %s: agent paths measured over SVC-100 v1%s\n", o.RunID, signed)
	return nil
}

// AggregateStageOptions configure AggregateStage.
type AggregateStageOptions struct {
	StageEnv
	Previous  string // run id to compare with; "" for the latest earlier one
	NoHistory bool
	BaseURL   string
}

// PreviousRunError is AggregateStage's answer when the run named by
// Previous does not exist: a mistake in the command line, not in the run.
type PreviousRunError struct{ Err error }

func (e *PreviousRunError) Error() string { return e.Err.Error() }
func (e *PreviousRunError) Unwrap() error { return e.Err }

// AggregateStage is `svc aggregate`: it brings the whole run and the run it
// compares with down, builds every table and figure and the leaderboard,
// sends out/ back up and prints the summary.
func AggregateStage(ctx context.Context, o AggregateStageOptions) error {
	files := o.files()
	dir := RunDir(o.DataDir, o.RunID)
	// With a bucket: the whole run folder (every partition) and the run
	// compared with come down first; out/ goes back up after.
	if err := files.Pull(ctx, o.RunID); err != nil {
		return err
	}
	ri, err := ReadRun(o.DataDir, o.RunID)
	if err != nil {
		return err
	}
	if err := files.PullHistory(ctx, ri, o.Previous, o.NoHistory); err != nil {
		return fmt.Errorf("aggregate %s: previous run: %w", o.RunID, err)
	}
	// The shop stage's journals (every shard's) become the leaderboard's
	// browser runs and the published evidence; no journal leaves the
	// browser paths unmeasured.
	if err := WriteShopRuns(dir, ri.ID); err != nil {
		return fmt.Errorf("aggregate %s: %w", o.RunID, err)
	}
	if _, err := WriteShopEvidence(dir, ri.ID); err != nil {
		return fmt.Errorf("aggregate %s: %w", o.RunID, err)
	}
	ao := AggregateOptions{
		Dir:            dir,
		NoHistory:      o.NoHistory,
		BaseURL:        o.BaseURL,
		BrowserLane:    BrowserLaneFromBools(BrowserLaneByHost),
		SVC100IDs:      SVC100IDsByHost,
		UCPPath:        UCPPathByHost,
		CheckoutWebMCP: CheckoutWebMCPByHost,
		Log:            o.Log,
	}
	if o.Previous != "" {
		if _, err := ReadRun(o.DataDir, o.Previous); err != nil {
			return &PreviousRunError{Err: err}
		}
		ao.Previous = RunDir(o.DataDir, o.Previous)
	}
	res, err := Aggregate(ctx, ao)
	if err != nil {
		return err
	}
	if _, err := AggregateLeaderboard(ctx, dir, o.state()); err != nil {
		return fmt.Errorf("aggregate %s: leaderboard: %w", o.RunID, err)
	}
	if err := files.Push(ctx, o.RunID, OutDir); err != nil {
		return err
	}
	prev := "none"
	if res.Previous != "" {
		prev = res.Previous
	}
	fmt.Fprintf(o.Out, "aggregate %s: compared with run %s; output in %s\n", o.RunID, prev, filepath.Join(dir, OutDir))
	for _, t := range res.Tables {
		fmt.Fprintf(o.Out, "  %-22s %8d rows\n", t.Name, t.Rows)
	}
	for _, f := range res.Files {
		if filepath.Ext(f) == ".json" {
			fmt.Fprintf(o.Out, "  %s\n", f)
		}
	}
	return nil
}

// SnapshotStageOptions configure SnapshotStage.
type SnapshotStageOptions struct {
	StageEnv
	BaseURL string
}

// SnapshotStage is `svc snapshot`: it brings the run's output down,
// publishes it (with a bucket, straight into the bucket's public/ tree) and
// prints the summary.
func SnapshotStage(ctx context.Context, o SnapshotStageOptions) error {
	files := o.files()
	if err := files.Pull(ctx, o.RunID, RunInfoFile, OutDir); err != nil {
		return err
	}
	st, err := files.PublishStore(ctx)
	if err != nil {
		return err
	}
	res, err := Snapshot(ctx, SnapshotOptions{DataDir: o.DataDir, RunID: o.RunID, BaseURL: o.BaseURL, Store: st})
	if err != nil {
		return err
	}
	m := res.Manifest
	state := "published"
	if !res.Created {
		state = "already published (unchanged)"
	}
	fmt.Fprintf(o.Out, "snapshot %s: version %s %s; %d tables; latest moved: %v\n", o.RunID, m.Version, state, len(m.Tables), res.LatestMoved)
	for _, n := range res.Notes {
		fmt.Fprintf(o.Out, "snapshot %s: note: %s\n", o.RunID, n)
	}
	for _, t := range m.Tables {
		fmt.Fprintf(o.Out, "  %-22s %8d rows\n", t.Name, t.Rows)
	}
	return nil
}

// partPaths names a stage's output inside the run folder, relative to it:
// the partition folder of a sharded run, else the stage's own files at
// the run folder's top.
func partPaths(runDir, partDir string, files ...string) []string {
	rel, err := filepath.Rel(runDir, partDir)
	if err != nil || rel == "." {
		return files
	}
	return []string{filepath.ToSlash(rel)}
}

// label is " (shard i/n)" for the summary lines, or "".
func (s Shard) label() string {
	if !s.Sharded() {
		return ""
	}
	return " (shard " + s.String() + ")"
}

// agentPathKey is svc's signing key for the UCP path, read (or made) only
// when the path runs (ucp: a run without a UCP validator signs nothing),
// and the words the summary line says of it.
func agentPathKey(ctx context.Context, ucp bool, keyFile, state, runID string) (*httpsig.Key, string, error) {
	if !ucp {
		return nil, "", nil
	}
	key, err := leaderboard.LoadAgentKey(ctx, keyFile, state)
	if err != nil {
		return nil, "", fmt.Errorf("validate %s: agent paths: %w", runID, err)
	}
	return key, " (UCP requests signed with key " + key.KeyID() + ")", nil
}
