package inbox

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var ctx = context.Background()

type item struct {
	N int `json:"n"`
}

func replayAll(t *testing.T, dir string) []int {
	t.Helper()
	var got []int
	err := DirReader(dir).Replay(ctx, func(r Record) error {
		var it item
		if err := json.Unmarshal(r.Data, &it); err != nil {
			t.Fatalf("bad record %s", r.Data)
		}
		got = append(got, it.N)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestAppendReplay(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for i := 1; i <= 5; i++ {
		if err := l.Append(ctx, "item", now, item{i}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	if diff := cmp.Diff([]int{1, 2, 3, 4, 5}, replayAll(t, dir)); diff != "" {
		t.Errorf("replay (-want +got):\n%s", diff)
	}
}

// TestTornTailRepaired simulates a crash mid-write: the torn record is
// dropped on replay and cut before the next append.
func TestTornTailRepaired(t *testing.T) {
	dir := t.TempDir()
	l, _ := Open(dir)
	now := time.Now()
	l.Append(ctx, "item", now, item{1})
	l.Close()
	seg := filepath.Join(dir, "log", "00000001.jsonl")
	f, _ := os.OpenFile(seg, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"item","time":"2026-11-21T00:00:00Z","data":{"n":`)
	f.Close()
	if diff := cmp.Diff([]int{1}, replayAll(t, dir)); diff != "" {
		t.Errorf("replay with torn tail (-want +got):\n%s", diff)
	}
	l, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	l.Append(ctx, "item", now, item{2})
	l.Close()
	if diff := cmp.Diff([]int{1, 2}, replayAll(t, dir)); diff != "" {
		t.Errorf("replay after repair (-want +got):\n%s", diff)
	}
}

func TestSegmentRotation(t *testing.T) {
	dir := t.TempDir()
	l, _ := Open(dir)
	l.maxSize = 200
	for i := 1; i <= 10; i++ {
		if err := l.Append(ctx, "item", time.Now(), item{i}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	segs, _ := filepath.Glob(filepath.Join(dir, "log", "*.jsonl"))
	if len(segs) < 2 {
		t.Errorf("got %d segments, want rotation", len(segs))
	}
	if diff := cmp.Diff([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, replayAll(t, dir)); diff != "" {
		t.Errorf("replay across segments (-want +got):\n%s", diff)
	}
}

func TestKeyStableAndSecret(t *testing.T) {
	dir := t.TempDir()
	l, _ := Open(dir)
	k1 := l.Key("203.0.113.9")
	l.Close()
	l2, _ := Open(dir)
	defer l2.Close()
	if k2 := l2.Key("203.0.113.9"); k1 != k2 {
		t.Errorf("key changed across restarts: %s vs %s", k1, k2)
	}
	if l2.Key("203.0.113.10") == k1 {
		t.Error("different addresses share a key")
	}
	other, _ := Open(t.TempDir())
	defer other.Close()
	if other.Key("203.0.113.9") == k1 {
		t.Error("key does not depend on the secret")
	}
	fi, err := os.Stat(filepath.Join(dir, "secret"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("secret file: %v mode %v, want 0600", err, fi.Mode())
	}
}

// TestSlowFsyncHoldsUpNoOtherRecord (issue 17, load): an Append waits for
// its fsync, but other writers (Note, the limit counters of every read) do
// not wait for it; the record is on disk when Append returns.
func TestSlowFsyncHoldsUpNoOtherRecord(t *testing.T) {
	hold, entered := make(chan struct{}), make(chan struct{}, 1)
	defer func(f func(*os.File) error) { syncFile = f }(syncFile)
	syncFile = func(f *os.File) error {
		select {
		case entered <- struct{}{}:
			<-hold // the first fsync takes as long as the test says
		default:
		}
		return f.Sync()
	}
	dir := t.TempDir()
	l, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	appended := make(chan error, 1)
	go func() { appended <- l.Append(ctx, "t", time.Now(), item{1}) }()
	<-entered
	noted := make(chan error, 1)
	go func() { noted <- l.Note(ctx, "t", time.Now(), item{2}) }()
	select {
	case err := <-noted:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		close(hold)
		t.Fatal("Note waited for another record's fsync")
	}
	select {
	case <-appended:
		t.Fatal("Append returned before its fsync")
	default:
	}
	close(hold)
	if err := <-appended; err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 2}, replayAll(t, dir)); diff != "" {
		t.Errorf("replay (-want +got):\n%s", diff)
	}
}

// TestRecordsOfType reads one type up to a time, from the open inbox and
// from its folder alike: what the pipeline reads of a live server.
func TestRecordsOfType(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for i := 1; i <= 4; i++ {
		typ := TypeStoreSubmission
		if i == 2 {
			typ = TypeCount
		}
		if err := l.Append(ctx, typ, t0.Add(time.Duration(i)*time.Hour), item{i}); err != nil {
			t.Fatal(err)
		}
	}
	for name, r := range map[string]Reader{"file": l, "dir": DirReader(dir)} {
		var got []int
		err := r.Records(ctx, TypeStoreSubmission, t0.Add(3*time.Hour), func(rec Record) error {
			var it item
			if err := json.Unmarshal(rec.Data, &it); err != nil {
				return err
			}
			got = append(got, it.N)
			return nil
		})
		if err != nil {
			t.Fatal(name, err)
		}
		if diff := cmp.Diff([]int{1, 3}, got); diff != "" {
			t.Errorf("%s: records (-want +got):\n%s", name, diff)
		}
	}
	// A missing folder is an empty inbox, not an error.
	if err := DirReader(filepath.Join(dir, "none")).Replay(ctx, func(Record) error { t.Error("a record"); return nil }); err != nil {
		t.Error(err)
	}
}

// TestReplayCancelled: a cancelled context stops a replay with an error
// that wraps context.Canceled.
func TestReplayCancelled(t *testing.T) {
	dir := t.TempDir()
	l, _ := Open(dir)
	l.Append(ctx, "item", time.Now(), item{1})
	l.Append(ctx, "item", time.Now(), item{2})
	l.Close()
	cctx, cancel := context.WithCancel(ctx)
	n := 0
	err := DirReader(dir).Replay(cctx, func(Record) error { n++; cancel(); return nil })
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("replay after cancel: %d records, %v", n, err)
	}
}
