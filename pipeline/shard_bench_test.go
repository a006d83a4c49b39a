package pipeline

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"svc/pipeline/check"
)

// BenchmarkShardedCrawl crawls one fixture world as 1, 2 and 4 shards
// running at once, each shard with its own client, UCP validator and
// engine as a separate process would have, and prints the throughput
// (stores/s, from the first shard's start to the last one's end) and its
// ratio to 1 shard.
//
// Every shard runs at the concurrency of an unsharded crawl (32 stores at
// once), so n shards check 32n stores at once between them: that is what
// sharding adds, as each shard is its own process or pod. Here the shards
// share this machine's CPUs and one fixture server, so the ratio shows
// what splitting costs and how well the hash balances the partitions,
// not the scale-out of shards on separate machines.
//
// SVC_BENCH_STORES sets the world size (default 10,000). Slow stores answer
// after 1.5 s and the client gives up after 1 s.
func BenchmarkShardedCrawl(b *testing.B) {
	const concurrency = 32 // per shard, as BenchmarkCrawlVsRawFetch's unsharded crawl
	bw := newBenchWorld(b, concurrency, nil)
	stores := bw.stores

	for b.Loop() {
		var base float64
		var lines []string
		for _, shards := range []int{1, 2, 4} {
			dir := b.TempDir()
			type result struct {
				stats CrawlStats
				err   error
			}
			res := make([]result, shards)
			// Each shard's process builds its tools before it starts.
			engines := make([]*check.Engine, shards)
			for i := range shards {
				engines[i] = bw.engine(b)
			}
			start := time.Now()
			var wg sync.WaitGroup
			for i := range shards {
				wg.Go(func() {
					res[i].stats, res[i].err = Crawl(context.Background(), CrawlOptions{
						Stores: stores, Dir: dir, Concurrency: concurrency, Shard: Shard{I: i, N: shards}, Checker: engines[i]})
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			total, failed := 0, 0
			var sizes []string
			for _, r := range res {
				if r.err != nil {
					b.Fatal(r.err)
				}
				total += r.stats.Total
				failed += r.stats.Failed
				sizes = append(sizes, strconv.Itoa(r.stats.Total))
			}
			if total != len(stores) {
				b.Fatalf("%d shards crawled %d stores, want %d", shards, total, len(stores))
			}
			rate := float64(total) / elapsed.Seconds()
			if shards == 1 {
				base = rate
			}
			lines = append(lines, fmt.Sprintf("  %d shard(s) of %s stores: %s, %.0f stores/s, %.2fx 1 shard, failed %d",
				shards, strings.Join(sizes, "+"), elapsed.Round(time.Millisecond), rate, rate/base, failed))
			b.ReportMetric(rate, fmt.Sprintf("stores/s-%dshards", shards))
			if shards > 1 {
				b.ReportMetric(rate/base, fmt.Sprintf("ratio-%dshards", shards))
			}
		}
		fmt.Printf("sharded crawl of %d fixture stores, %d stores at once per shard, shards in one process on %d CPUs sharing one fixture server:\n%s\n",
			len(stores), concurrency, runtime.GOMAXPROCS(0), strings.Join(lines, "\n"))
	}
}
