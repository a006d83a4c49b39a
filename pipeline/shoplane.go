package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"svc/pipeline/leaderboard"
)

// runPublishFirst is the first part of a run with ShopDeferred: the crawl
// with the agent paths measured beside it (they are latency-bound, about
// as long as the slowest stores' timeouts, and read no crawl result),
// then validate without them, then the publish stages once both are done.
func runPublishFirst(ctx context.Context, o RunOptions, crawl, validate func() error) error {
	if !o.AgentPaths {
		return runStages(o.RunID, append([]runStage{{"crawl", crawl}, {"validate", validate}}, o.publishStages(ctx)...))
	}
	// The agent paths read run.json: it is opened first, as the crawl
	// would, so both agree on one run.
	if _, err := o.files().OpenRun(ctx, o.RunID, time.Now()); err != nil {
		return fmt.Errorf("run %s: crawl: %w", o.RunID, err)
	}
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	var line bytes.Buffer // printed once both are done, not under a progress line
	agentErr := make(chan error, 1)
	go func() { agentErr <- measureAgentPaths(actx, o, &line) }()
	err := runStages(o.RunID, []runStage{{"crawl", crawl}, {"validate", validate}})
	if err != nil {
		cancel()
	} else {
		fmt.Fprintf(o.Out, "validate %s: waiting for the agent paths over SVC-100 v1, begun with the crawl\n", o.RunID)
	}
	aerr := <-agentErr
	if err != nil {
		return err
	}
	if aerr != nil {
		return fmt.Errorf("run %s: validate: %w", o.RunID, aerr)
	}
	if _, err := o.Out.Write(line.Bytes()); err != nil {
		return err
	}
	return runStages(o.RunID, o.publishStages(ctx))
}

// measureAgentPaths is the validate stage's agent paths (ValidateStage
// with AgentPaths, shard 0) on their own: the same client, validator,
// profile and signing key, the same files pushed and the same line on out,
// with the run's Concurrency.
func measureAgentPaths(ctx context.Context, o RunOptions, out io.Writer) error {
	client, v, err := o.Tools()
	if err != nil {
		return err
	}
	key, signed, err := agentPathKey(ctx, v != nil, o.AgentKeyFile, o.state(), o.RunID)
	if err != nil {
		return err
	}
	dir := RunDir(o.DataDir, o.RunID)
	// As many stores at once as the crawl checks (one request at a time
	// within a store, as always): a store that hangs until the timeouts
	// then starts at once rather than after the stores before it, and it
	// is what the first publish waits for.
	if err := MeasureAgentPaths(ctx, dir, AgentPathOptions{Client: client, UCP: v, AgentProfile: o.agentProfile(), AgentKey: key,
		Concurrency: o.Concurrency}); err != nil {
		return fmt.Errorf("validate %s: agent paths: %w", o.RunID, err)
	}
	if err := o.files().Push(ctx, o.RunID, leaderboard.AgentRunsDir); err != nil {
		return err
	}
	fmt.Fprintf(out, "validate %s: agent paths measured over SVC-100 v1%s\n", o.RunID, signed)
	return nil
}

// A ShopLane is the rest of a run that published before its shop stage
// (RunOptions.ShopDeferred): the shop stage, then aggregate and snapshot
// again, which publish the next version, the one with the browser lane.
// Progress says how far the shop stage has come, while it runs, from
// another goroutine.
type ShopLane struct {
	o     RunOptions
	tally Tally
}

// Run runs the lane, stopping at the first stage that fails, and prints
// how long it took.
func (l *ShopLane) Run(ctx context.Context) error {
	start := time.Now()
	shopping := l.o
	if shopping.ErrOut == nil {
		shopping.ErrOut = io.Discard
	}
	// Only the shop stage counts into the tally.
	shopping.ErrOut = TallyWriter{Writer: shopping.ErrOut, Tally: &l.tally}
	stages := append([]runStage{{"shop", func() error { return runShopStage(ctx, shopping) }}}, l.o.publishStages(ctx)...)
	if err := runStages(l.o.RunID, stages); err != nil {
		return err
	}
	fmt.Fprintf(l.o.Out, "run %s: browser lane published in %s\n", l.o.RunID, time.Since(start).Round(time.Millisecond))
	return nil
}

// Progress is the shop stage's progress so far: not Started while the
// browser starts (and never when the stage is skipped or finds no
// Chromium), then its runs done of Total, resumed ones included.
func (l *ShopLane) Progress() TallyCounts { return l.tally.Counts() }
