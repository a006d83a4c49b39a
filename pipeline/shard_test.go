package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestShardOfGolden pins ShardOf: partitions on disk depend on it, so a
// change here is a change of the partition layout, never a refactor.
func TestShardOfGolden(t *testing.T) {
	for _, tc := range []struct {
		host string
		n    int
		want int
	}{
		{"a.test", 4, 2},
		{"b.test", 4, 1},
		{"c.test", 4, 3},
		{"www.example.com", 4, 0},
		{"store-0001.test", 2, 1},
		{"shop.example", 7, 1},
		{"café.test", 7, 0},
		{"xn--caf-dma.test", 1024, 172},
		{"a.test", 1024, 478},
		{"a.test", 1, 0},
	} {
		if got := ShardOf(tc.host, tc.n); got != tc.want {
			t.Errorf("ShardOf(%q, %d) = %d, want %d", tc.host, tc.n, got, tc.want)
		}
	}
}

// TestShardsPartitionHosts: every host lands in exactly one shard, and the
// hash spreads hosts over all of them.
func TestShardsPartitionHosts(t *testing.T) {
	var stores []Store
	for i := range 2000 {
		stores = append(stores, Store{Host: fmt.Sprintf("store-%04d.test", i)})
	}
	for _, n := range []int{1, 2, 3, 4, 16, 1024} {
		seen := map[string]int{}
		sizes := make([]int, n)
		for i := range n {
			for _, s := range (Shard{I: i, N: n}).Select(stores) {
				seen[s.Host]++
				sizes[i]++
			}
		}
		if len(seen) != len(stores) {
			t.Errorf("n=%d: %d of %d hosts in some shard", n, len(seen), len(stores))
		}
		for h, c := range seen {
			if c != 1 {
				t.Errorf("n=%d: %s is in %d shards", n, h, c)
			}
		}
		if n <= 16 {
			for i, sz := range sizes {
				if want := len(stores) / n; sz < want/2 || sz > want*2 {
					t.Errorf("n=%d: shard %d holds %d hosts, want about %d", n, i, sz, want)
				}
			}
		}
	}
	if got := (Shard{}).Select(stores); len(got) != len(stores) {
		t.Errorf("the unsharded selection holds %d of %d stores", len(got), len(stores))
	}
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Shard
		wantErr string
	}{
		{in: "0/1", want: Shard{0, 1}},
		{in: "3/4", want: Shard{3, 4}},
		{in: "1023/1024", want: Shard{1023, 1024}},
		{in: " 2/4 ", want: Shard{2, 4}},
		{in: "4/4", wantErr: "index must be 0 to 3"},
		{in: "-1/4", wantErr: "index must be 0 to 3"},
		{in: "0/0", wantErr: "count must be 1 to 1024"},
		{in: "0/1025", wantErr: "count must be 1 to 1024"},
		{in: "", wantErr: "want i/n"},
		{in: "1", wantErr: "want i/n"},
		{in: "a/4", wantErr: "want i/n"},
		{in: "1/2/3", wantErr: "want i/n"},
		{in: "+1/4", wantErr: "want i/n"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseShard(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseShard(%q) = %v, %v; want an error containing %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseShard(%q) (-want +got):\n%s", tc.in, diff)
			}
			if again, err := ParseShard(got.String()); err != nil || again != got {
				t.Errorf("ParseShard(%q.String()) = %v, %v", got, again, err)
			}
			if s, ok := parseShardDir(got.Dir()); !ok || s != got {
				t.Errorf("parseShardDir(%q) = %v, %v", got.Dir(), s, ok)
			}
		})
	}
	if d := (Shard{2, 4}).Dir(); d != "shard=2-of-4" {
		t.Errorf("Dir = %q, want shard=2-of-4", d)
	}
	for _, bad := range []string{"shard=02-of-4", "shard=4-of-4", "shard=1-of-", "shard=x"} {
		if s, ok := parseShardDir(bad); ok {
			t.Errorf("parseShardDir(%q) = %v, want not a partition", bad, s)
		}
	}
}

// TestOpenRunConcurrent opens one new run from many processes' worth of
// goroutines at once, each with its own clock: all agree on the first
// writer's run.json, and no temporary file is left.
func TestOpenRunConcurrent(t *testing.T) {
	data := t.TempDir()
	const n = 16
	got := make([]RunInfo, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			got[i], errs[i] = OpenRun(data, "r", testStarted.Add(time.Duration(i)*time.Hour))
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if got[i] != got[0] {
			t.Errorf("OpenRun %d got %+v, OpenRun 0 got %+v", i, got[i], got[0])
		}
	}
	onDisk, err := ReadRun(data, "r")
	if err != nil || onDisk != got[0] {
		t.Errorf("run.json holds %+v (%v), the openers got %+v", onDisk, err, got[0])
	}
	ents, _ := os.ReadDir(RunDir(data, "r"))
	if len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("run folder holds %v, want run.json only", names)
	}
	// An existing run keeps its times whatever the clock says.
	again, err := OpenRun(data, "r", testStarted.Add(100*time.Hour))
	if err != nil || again != got[0] {
		t.Errorf("reopening gave %+v (%v), want %+v", again, err, got[0])
	}
	// A corrupt run.json is an error, never silently replaced.
	bad := RunDir(data, "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, RunInfoFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenRun(data, "bad", testStarted); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("OpenRun over a corrupt run.json: %v, want an error saying so", err)
	}
}
