package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/pipeline/inbox"
	"svc/pipeline/inbox/pgtest"
)

// recordFiles is a RunFiles over a local folder that records every sync
// call, to show which files a stage function brings down and sends up.
type recordFiles struct {
	LocalFiles
	calls []string
}

func (r *recordFiles) Pull(_ context.Context, runID string, paths ...string) error {
	r.calls = append(r.calls, fmt.Sprintf("pull %s %v", runID, paths))
	return nil
}

func (r *recordFiles) Push(_ context.Context, runID string, paths ...string) error {
	r.calls = append(r.calls, fmt.Sprintf("push %s %v", runID, paths))
	return nil
}

func (r *recordFiles) OpenRun(ctx context.Context, runID string, now time.Time) (RunInfo, error) {
	r.calls = append(r.calls, "open "+runID)
	return r.LocalFiles.OpenRun(ctx, runID, now)
}

// CrawlStage does the whole stage a command used to finish itself: it opens
// the run through RunFiles, syncs the shard's partition around the crawl,
// writes the checks table and prints the summary line.
func TestCrawlStageSyncsWritesAndSummarises(t *testing.T) {
	data := t.TempDir()
	files := &recordFiles{LocalFiles: LocalFiles{DataDir: data}}
	var out bytes.Buffer
	err := CrawlStage(context.Background(), CrawlStageOptions{
		StageEnv:    StageEnv{DataDir: data, RunID: "r1", Files: files, Out: &out, ErrOut: &bytes.Buffer{}},
		Stores:      stores(6),
		Concurrency: 2,
		Shard:       Shard{I: 1, N: 2},
		Checker:     &fakeChecker{},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"open r1", "pull r1 [checks/shard=1-of-2]", "push r1 [checks/shard=1-of-2]"}
	if strings.Join(files.calls, "; ") != strings.Join(want, "; ") {
		t.Errorf("sync calls %q, want %q", files.calls, want)
	}
	part := ChecksDir(RunDir(data, "r1"), Shard{I: 1, N: 2})
	if _, err := os.Stat(filepath.Join(part, ChecksFile)); err != nil {
		t.Errorf("checks table not written: %v", err)
	}
	n := len(Shard{I: 1, N: 2}.Select(stores(6)))
	prefix := fmt.Sprintf("crawl r1 (shard 1/2): %d stores, %d checked now, 0 resumed, 0 failed, %d rows in %s (",
		n, n, n, filepath.Join(part, ChecksFile))
	if !strings.HasPrefix(out.String(), prefix) || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("summary %q, want one line starting %q", out.String(), prefix)
	}
}

// The snapshot stage needs the aggregate's output: without it, it fails
// after bringing the run's output down, and publishes nothing.
func TestSnapshotStagePullsFirst(t *testing.T) {
	data := t.TempDir()
	files := &recordFiles{LocalFiles: LocalFiles{DataDir: data}}
	var out bytes.Buffer
	err := SnapshotStage(context.Background(), SnapshotStageOptions{
		StageEnv: StageEnv{DataDir: data, RunID: "r1", Files: files, Out: &out},
	})
	if err == nil {
		t.Fatal("snapshot of a run that does not exist succeeded")
	}
	if len(files.calls) != 1 || files.calls[0] != "pull r1 [run.json out]" {
		t.Errorf("sync calls %q, want one pull of run.json and out", files.calls)
	}
	if out.Len() != 0 {
		t.Errorf("printed %q for a failed snapshot", out.String())
	}
}

// Run stops at the first stage that fails, naming the run and the stage,
// and builds no tool of a later stage.
func TestRunStopsAtFirstFailingStage(t *testing.T) {
	data := t.TempDir()
	var out bytes.Buffer
	later := false
	err := Run(context.Background(), RunOptions{
		StageEnv: StageEnv{DataDir: data, RunID: "r1", Out: &out, ErrOut: &bytes.Buffer{}},
		Stores:   func() ([]Store, error) { return nil, fmt.Errorf("no such file") },
		Checker:  func() (Checker, error) { later = true; return &fakeChecker{}, nil },
		Tools:    nil,
	})
	if err == nil || err.Error() != "run r1: crawl: no such file" {
		t.Errorf("err %v, want run r1: crawl: no such file", err)
	}
	if later || out.Len() != 0 {
		t.Errorf("a later step ran (%v) or something was printed (%q)", later, out.String())
	}
}

// A crawl with State naming the PostgreSQL database serve replicas share
// checks the stores a replica accepted there, and none accepted after the
// run started; the folder DATA/state is not read.
func TestCrawlStageReadsSubmissionsFromPostgres(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	db, err := inbox.OpenPostgres(ctx, url) // as svc serve --state opens it
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.AcceptHosts(ctx, time.Now().Add(-time.Hour), []inbox.SubmittedHost{{Host: "submitted.example", Category: "pets"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AcceptHosts(ctx, time.Now().Add(time.Hour), []inbox.SubmittedHost{{Host: "later.example"}}); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	chk := &fakeChecker{}
	var out bytes.Buffer
	err = CrawlStage(ctx, CrawlStageOptions{
		StageEnv:    StageEnv{DataDir: data, RunID: "r1", State: url, Out: &out, ErrOut: &bytes.Buffer{}},
		Stores:      stores(2),
		Concurrency: 2,
		Checker:     chk,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"shop-000.test": 1, "shop-001.test": 1, "submitted.example": 1}
	if diff := cmp.Diff(want, chk.calls); diff != "" {
		t.Errorf("stores checked (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(data, "state")); !os.IsNotExist(err) {
		t.Errorf("DATA/state touched with State set: %v", err)
	}
}
