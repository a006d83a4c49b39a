package pipeline

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

type testLine struct {
	Host string `json:"host"`
	N    int    `json:"n"`
}

// The shared runner of crawl and validate: resumed items are not done
// again, skipped and failed items are counted, no more than concurrency
// items run at once, and every result is one journal line.
func TestJournaledRunCountsAndResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := openJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	items := []string{"a.test", "b.test", "c.test", "d.test", "e.test", "f.test"}
	var running, peak, calls atomic.Int32
	c, err := journaled[string]{
		name: "test", journal: j, items: items,
		host:        func(s string) string { return s },
		done:        map[string]bool{"a.test": true},
		concurrency: 2,
		log:         slog.New(slog.DiscardHandler),
		failedMsg:   "failed",
		work: func(_ context.Context, h string) workResult {
			n := running.Add(1)
			defer running.Add(-1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			calls.Add(1)
			return workResult{record: testLine{Host: h, N: 1}, host: h, skipped: h == "b.test", failed: h == "c.test" || h == "d.test"}
		},
	}.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := journalCounts{total: 6, done: 5, resumed: 1, skipped: 1, failed: 2}
	if c != want {
		t.Errorf("counts %+v, want %+v", c, want)
	}
	if calls.Load() != 5 {
		t.Errorf("work ran %d times, want 5 (a.test is resumed)", calls.Load())
	}
	if peak.Load() > 2 {
		t.Errorf("%d items ran at once, want at most 2", peak.Load())
	}
	var got []string
	if err := readLastByHost(path, "test", func(l testLine) string { return l.Host }, func(l testLine) { got = append(got, l.Host) }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "b.test,c.test,d.test,e.test,f.test" {
		t.Errorf("journal hosts %v", got)
	}
}

// A cancelled run records nothing that finished after the cancel, so a
// resumed stage does it again.
func TestJournaledRunCancelledRecordsNothingLate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := openJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := journaled[string]{
		name: "test", journal: j, items: []string{"a.test", "b.test", "c.test"},
		host:        func(s string) string { return s },
		concurrency: 1,
		log:         slog.New(slog.DiscardHandler),
		work: func(_ context.Context, h string) workResult {
			if h == "b.test" {
				cancel()
			}
			return workResult{record: testLine{Host: h}, host: h}
		},
	}.run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.done != 1 {
		t.Errorf("done %d, want 1 (only a.test finished before the cancel)", c.done)
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), "b.test") || strings.Contains(string(b), "c.test") {
		t.Errorf("journal holds work done after the cancel:\n%s", b)
	}
}

// The last line of a host wins, and a torn line is skipped.
func TestReadLastByHostLastWinsTornSkipped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	os.WriteFile(path, []byte(`{"host":"b.test","n":1}
{"host":"a.test","n":1}
{"host":"b.test","n":2}
{"host":"c.te`), 0o644)
	var got []testLine
	if err := readLastByHost(path, "test", func(l testLine) string { return l.Host }, func(l testLine) { got = append(got, l) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != (testLine{"a.test", 1}) || got[1] != (testLine{"b.test", 2}) {
		t.Errorf("got %+v", got)
	}
}
