package cli

import (
	"github.com/spf13/cobra"

	"svc/pipeline"
)

// shardFlag is --shard i/n, shared by crawl and validate: the partition of
// a sharded run this process works on. Absent, the run is unsharded and
// keeps its files at the top of the run folder; 0/1 is a sharded run of one
// partition.
type shardFlag struct {
	value string
	shard pipeline.Shard // the parsed value; zero when unsharded
}

func (f *shardFlag) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.value, "shard", envOr("SVC_SHARD", ""),
		"work on shard i of n (0 <= i < n <= 1024; hosts split by a stable hash) and write that partition of the run (env SVC_SHARD); a Kubernetes Indexed Job passes $(JOB_COMPLETION_INDEX)/n")
}

// parse fills f.shard from the flag; a bad value is a usage error.
func (f *shardFlag) parse() error {
	if f.value == "" {
		f.shard = pipeline.Shard{}
		return nil
	}
	s, err := pipeline.ParseShard(f.value)
	if err != nil {
		return usagef("--shard: %v", err)
	}
	f.shard = s
	return nil
}
