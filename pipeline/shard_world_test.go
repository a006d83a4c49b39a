package pipeline

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"svc/fixtures"
	"svc/pipeline/check"
	"svc/pipeline/fetch"
	"svc/pipeline/ucp"
)

// shardWorld runs the crawl and validate stages over the fixture world the
// way separate processes would: every call builds its own client,
// validator and engine. Clocks are fixed, so two runs over the same stores
// give the same bytes.
type shardWorld struct {
	srv       *fixtures.Server
	schemaDir string
	stores    []Store
}

// shardNow is the check and validation time of every store.
var shardNow = func() time.Time { return testStarted.Add(time.Minute) }

func newShardWorld(t *testing.T) *shardWorld {
	t.Helper()
	world := fixtures.Generate(1, fixtures.DefaultStores)
	// A timeout well above what a loaded machine needs for a fast store,
	// and slow stores well above it: both runs must see the same answers.
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{Slow: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	w := &shardWorld{srv: srv, schemaDir: fixtures.UCPSchemaDir()}
	for _, s := range world.Stores {
		w.stores = append(w.stores, Store{Host: s.Host, Name: s.Name, Category: s.Category, Source: s.Source})
	}
	return w
}

// tools builds one process's client and validator.
func (w *shardWorld) tools(ctx context.Context, cacheDir string) (*fetch.Client, *ucp.Validator, error) {
	client, err := fetch.New(fetch.Options{FixtureAddr: w.srv.Addr(), FixtureCA: w.srv.CAPEM(), Timeout: 2 * time.Second})
	if err != nil {
		return nil, nil, err
	}
	v, err := ucp.New(ctx, ucp.Config{SchemaDir: w.schemaDir, Client: client, CacheDir: cacheDir, Offline: true})
	return client, v, err
}

// crawl runs `svc crawl --shard s` (s zero: unsharded) over runDir; when
// stopAfter > 0 the process is interrupted after that many checks began.
func (w *shardWorld) crawl(ctx context.Context, runDir string, s Shard, stopAfter int64) (CrawlStats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client, v, err := w.tools(ctx, filepath.Join(runDir, "..", "..", "cache-crawl-"+s.Dir()))
	if err != nil {
		return CrawlStats{}, err
	}
	var checker Checker = check.New(check.Options{Client: client, UCP: v, Now: shardNow})
	if stopAfter > 0 {
		checker = &stopChecker{Checker: checker, after: stopAfter, cancel: cancel}
	}
	st, err := Crawl(ctx, CrawlOptions{Stores: w.stores, Dir: runDir, Concurrency: 16, Shard: s, Checker: checker})
	if err != nil {
		return st, err
	}
	_, err = WriteChecks(ChecksDir(runDir, s))
	return st, err
}

// validate runs `svc validate --shard s --agent-paths=false` over runDir,
// interrupted like crawl when stopAfter > 0.
func (w *shardWorld) validate(ctx context.Context, runDir string, s Shard, stopAfter int64) (ValidateStats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	_, v, err := w.tools(ctx, filepath.Join(runDir, "..", "..", "cache-validate-"+s.Dir()))
	if err != nil {
		return ValidateStats{}, err
	}
	var pv ProfileValidator = v
	if stopAfter > 0 {
		pv = &stopValidator{ProfileValidator: v, after: stopAfter, cancel: cancel}
	}
	st, err := Validate(ctx, ValidateOptions{Dir: runDir, Concurrency: 16, Shard: s, Validator: pv, Now: shardNow})
	if err != nil {
		return st, err
	}
	_, err = WriteShardUCPValidations(runDir, s)
	return st, err
}

// publish aggregates and snapshots the run r of data as `svc aggregate`
// and `svc snapshot` do.
func publishRun(t *testing.T, data string) {
	t.Helper()
	ctx := context.Background()
	dir := RunDir(data, "r")
	if _, err := Aggregate(ctx, AggregateOptions{Dir: dir, NoHistory: true,
		BrowserLane: BrowserLaneFromBools(BrowserLaneByHost), SVC100IDs: SVC100IDsByHost}); err != nil {
		t.Fatal(err)
	}
	if _, err := AggregateLeaderboard(ctx, dir, filepath.Join(data, "state")); err != nil {
		t.Fatal(err)
	}
	if _, err := Snapshot(ctx, SnapshotOptions{DataDir: data, RunID: "r"}); err != nil {
		t.Fatal(err)
	}
}

// stopChecker cancels its crawl once `after` checks have finished: the
// process is interrupted mid-way, with stores recorded and checks in
// flight.
type stopChecker struct {
	Checker
	n      atomic.Int64
	after  int64
	cancel func()
}

func (c *stopChecker) Check(ctx context.Context, rawURL string) (*check.Result, error) {
	res, err := c.Checker.Check(ctx, rawURL)
	if c.n.Add(1) >= c.after {
		c.cancel()
	}
	return res, err
}

type stopValidator struct {
	ProfileValidator
	n      atomic.Int64
	after  int64
	cancel func()
}

func (v *stopValidator) ValidateURL(ctx context.Context, rawURL string, opts ucp.URLOptions) (*ucp.Report, error) {
	rep, err := v.ProfileValidator.ValidateURL(ctx, rawURL, opts)
	if v.n.Add(1) >= v.after {
		v.cancel()
	}
	return rep, err
}

// tearJournal simulates kill -9 of a stage that had written part of its
// journal: it keeps the first part of the file, cut in the middle of a
// line, and removes the stage's table.
func tearJournal(journal, table string) error {
	b, err := os.ReadFile(journal)
	if err != nil {
		return err
	}
	cut := len(b) * 3 / 5
	for cut > 0 && b[cut-1] == '\n' {
		cut-- // make sure the tail is torn
	}
	if err := os.WriteFile(journal, b[:cut], 0o644); err != nil {
		return err
	}
	return os.Remove(table)
}

// TestShardedRunMatchesUnsharded crawls and validates the fixture world
// once unsharded and once as 4 shards running at once (each with its own
// client and engine, as separate processes), one shard interrupted
// mid-way and one killed with a torn journal, both run again. The
// published trees are byte-identical. Then aggregate refuses broken
// layouts of the sharded run: a missing shard, mixed shard counts, a
// duplicated partition and unsharded files beside partitions.
func TestShardedRunMatchesUnsharded(t *testing.T) {
	w := newShardWorld(t)
	ctx := context.Background()

	dataA := t.TempDir()
	if _, err := OpenRun(dataA, "r", testStarted); err != nil {
		t.Fatal(err)
	}
	dirA := RunDir(dataA, "r")
	if _, err := w.crawl(ctx, dirA, Shard{}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := w.validate(ctx, dirA, Shard{}, 0); err != nil {
		t.Fatal(err)
	}

	dataB := t.TempDir()
	dirB := RunDir(dataB, "r")
	const n = 4
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		s := Shard{I: i, N: n}
		wg.Go(func() {
			// Each shard process opens the run itself.
			if _, err := OpenRun(dataB, "r", testStarted); err != nil {
				errs[i] = err
				return
			}
			errs[i] = w.runShard(ctx, dirB, s)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}

	// Nothing of the unsharded layout in the sharded run, and the reverse.
	for _, f := range []string{JournalName, ChecksFile, ValidateJournal, UCPFile} {
		if _, err := os.Stat(filepath.Join(dirB, f)); err == nil {
			t.Errorf("sharded run has an unsharded %s", f)
		}
	}
	for _, d := range []string{ChecksPartitions, UCPPartitions} {
		if _, err := os.Stat(filepath.Join(dirA, d)); err == nil {
			t.Errorf("unsharded run has a %s/ folder", d)
		}
	}

	publishRun(t, dataA)
	publishRun(t, dataB)
	for _, sub := range []string{"public", filepath.Join("work", "r", OutDir)} {
		ta, tb := treeBytes(t, filepath.Join(dataA, sub)), treeBytes(t, filepath.Join(dataB, sub))
		if len(ta) < 15 {
			t.Fatalf("only %d files under %s", len(ta), sub)
		}
		for p, v := range ta {
			if got, ok := tb[p]; !ok {
				t.Errorf("%s: %s only in the unsharded run", sub, p)
			} else if got != v {
				t.Errorf("%s: %s differs between the unsharded and the sharded run", sub, p)
			}
		}
		for p := range tb {
			if _, ok := ta[p]; !ok {
				t.Errorf("%s: %s only in the sharded run", sub, p)
			}
		}
	}

	t.Run("refusals", func(t *testing.T) {
		// Each case is a copy of the sharded run's partitions under a new
		// run id, broken one way.
		for _, tc := range []struct {
			name    string
			corrupt func(dir string)
			want    []string
		}{
			{"missing shard", func(dir string) {
				os.Remove(filepath.Join(UCPDir(dir, Shard{2, 4}), UCPFile))
				os.RemoveAll(ChecksDir(dir, Shard{3, 4}))
			}, []string{
				"shard 2/4 of run m has no " + filepath.Join(UCPPartitions, "shard=2-of-4", UCPFile) + ": run `svc validate --run m --shard 2/4` first",
				"shard 3/4 of run m has no " + filepath.Join(ChecksPartitions, "shard=3-of-4", ChecksFile) + ": run `svc crawl --run m --shard 3/4` first",
			}},
			{"mixed shard counts", func(dir string) {
				copyTree(t, ChecksDir(dirB, Shard{0, 4}), ChecksDir(dir, Shard{0, 2}))
			}, []string{"mixes partitions of 2 shards (" + filepath.Join(ChecksPartitions, "shard=0-of-2") + ") and 4 shards"}},
			{"duplicated partition", func(dir string) {
				copyFile(t, filepath.Join(ChecksDir(dir, Shard{0, 4}), ChecksFile), filepath.Join(ChecksDir(dir, Shard{1, 4}), ChecksFile))
			}, []string{filepath.Join(ChecksPartitions, "shard=1-of-4", ChecksFile) + " holds host ", "which belongs in shard 0/4, not 1/4",
				"run `svc crawl --run m --shard 1/4` again"}},
			{"misplaced validations", func(dir string) {
				copyFile(t, filepath.Join(UCPDir(dir, Shard{3, 4}), UCPFile), filepath.Join(UCPDir(dir, Shard{2, 4}), UCPFile))
			}, []string{filepath.Join(UCPPartitions, "shard=2-of-4", UCPFile) + " holds host ", "which belongs in shard 3/4, not 2/4",
				"run `svc validate --run m --shard 2/4` again"}},
			{"unsharded beside partitions", func(dir string) {
				copyFile(t, filepath.Join(dirA, ChecksFile), filepath.Join(dir, ChecksFile))
			}, []string{"holds both an unsharded checks.parquet and shard partitions"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				data := t.TempDir()
				if _, err := OpenRun(data, "m", testStarted); err != nil {
					t.Fatal(err)
				}
				dir := RunDir(data, "m")
				for _, d := range []string{ChecksPartitions, UCPPartitions} {
					copyTree(t, filepath.Join(dirB, d), filepath.Join(dir, d))
				}
				tc.corrupt(dir)
				_, err := Aggregate(ctx, AggregateOptions{Dir: dir, NoHistory: true})
				if err == nil {
					t.Fatal("aggregate accepted the run")
				}
				t.Logf("refused: %v", err)
				for _, want := range tc.want {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("aggregate error:\n%v\nwant it to contain %q", err, want)
					}
				}
				if _, err := os.Stat(filepath.Join(dir, OutDir)); err == nil {
					t.Error("aggregate wrote output for a run it refused")
				}
			})
		}
	})

	t.Run("stages refuse a mixed layout", func(t *testing.T) {
		if _, err := w.crawl(ctx, dirA, Shard{0, 2}, 0); err == nil || !strings.Contains(err.Error(), "crawled unsharded") {
			t.Errorf("sharded crawl over an unsharded run: %v", err)
		}
		if _, err := w.crawl(ctx, dirB, Shard{}, 0); err == nil || !strings.Contains(err.Error(), "is sharded into 4 partitions") {
			t.Errorf("unsharded crawl over a sharded run: %v", err)
		}
		if _, err := w.validate(ctx, dirB, Shard{1, 2}, 0); err == nil || !strings.Contains(err.Error(), "already sharded into 4 partitions") {
			t.Errorf("validate with another shard count: %v", err)
		}
	})
}

// runShard runs crawl and validate for one shard of the 4-shard run, as
// its process would, with the failures the test covers: shard 1 is
// interrupted in both stages and run again; shard 2 is killed after its
// journals were written (torn last lines, no tables) and run again.
func (w *shardWorld) runShard(ctx context.Context, dir string, s Shard) error {
	switch s.I {
	case 1:
		st, err := w.crawl(ctx, dir, s, 20)
		if !errors.Is(err, context.Canceled) {
			return errors.Join(errors.New("interrupted crawl did not stop"), err)
		}
		if st.Done == 0 || st.Done >= st.Total {
			return errors.New("interrupted crawl recorded no store, or every store")
		}
		if st, err = w.crawl(ctx, dir, s, 0); err != nil {
			return err
		}
		if st.Resumed == 0 {
			return errors.New("crawl after an interruption did not resume")
		}
		vst, err := w.validate(ctx, dir, s, 10)
		if !errors.Is(err, context.Canceled) {
			return errors.Join(errors.New("interrupted validate did not stop"), err)
		}
		if vst.Done == 0 || vst.Done >= vst.Total {
			return errors.New("interrupted validate recorded no store, or every store")
		}
		if vst, err = w.validate(ctx, dir, s, 0); err == nil && vst.Resumed == 0 {
			err = errors.New("validate after an interruption did not resume")
		}
		return err
	case 2:
		if _, err := w.crawl(ctx, dir, s, 0); err != nil {
			return err
		}
		if _, err := w.validate(ctx, dir, s, 0); err != nil {
			return err
		}
		if err := errors.Join(
			tearJournal(filepath.Join(ChecksDir(dir, s), JournalName), filepath.Join(ChecksDir(dir, s), ChecksFile)),
			tearJournal(filepath.Join(UCPDir(dir, s), ValidateJournal), filepath.Join(UCPDir(dir, s), UCPFile)),
		); err != nil {
			return err
		}
		st, err := w.crawl(ctx, dir, s, 0)
		if err != nil {
			return err
		}
		if st.Resumed == 0 || st.Done == 0 {
			return errors.New("crawl after a kill did not resume")
		}
		_, err = w.validate(ctx, dir, s, 0)
		return err
	}
	if _, err := w.crawl(ctx, dir, s, 0); err != nil {
		return err
	}
	_, err := w.validate(ctx, dir, s, 0)
	return err
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		copyFile(t, p, filepath.Join(dst, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
