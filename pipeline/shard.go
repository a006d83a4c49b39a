package pipeline

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// MaxShards bounds a run's shard count.
const MaxShards = 1024

// ShardOf returns the shard (0 to n-1) that checks host in a run split into
// n shards: the first 8 bytes of sha256(host), read big-endian, mod n.
//
// The mapping is stable forever: partitions written by one version are read
// and checked by every later one (aggregate refuses a partition holding a
// host that does not hash into it), and a resumed shard must pick the same
// hosts it started with. Never change it; a different split is a new
// function and a new partition layout.
func ShardOf(host string, n int) int {
	if n <= 1 {
		return 0
	}
	sum := sha256.Sum256([]byte(host))
	return int(binary.BigEndian.Uint64(sum[:8]) % uint64(n))
}

// Shard names one partition of a sharded run: shard I of N (0 <= I < N).
// The zero Shard is an unsharded run, whose stage files sit in the run
// folder itself; Shard{0, 1} is a sharded run of one partition.
type Shard struct {
	I, N int
}

// ParseShard parses "i/n" as given to --shard (a Kubernetes Indexed Job's
// completion index is i as is).
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || strings.HasPrefix(is, "+") || strings.HasPrefix(ns, "+") {
		return Shard{}, fmt.Errorf("shard %q: want i/n, for example 0/4", s)
	}
	sh := Shard{I: i, N: n}
	if err := sh.Validate(); err != nil {
		return Shard{}, err
	}
	return sh, nil
}

// Validate reports whether s is a partition: 1 <= N <= MaxShards and
// 0 <= I < N.
func (s Shard) Validate() error {
	if s.N < 1 || s.N > MaxShards {
		return fmt.Errorf("shard %d/%d: the shard count must be 1 to %d", s.I, s.N, MaxShards)
	}
	if s.I < 0 || s.I >= s.N {
		return fmt.Errorf("shard %d/%d: the index must be 0 to %d", s.I, s.N, s.N-1)
	}
	return nil
}

// Sharded reports whether s is a partition rather than the zero Shard.
func (s Shard) Sharded() bool { return s.N > 0 }

// String returns "i/n", the form --shard takes, or "" for an unsharded run.
func (s Shard) String() string {
	if !s.Sharded() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// Dir returns the partition's folder name, "shard=<i>-of-<n>" (a Hive-style
// key DuckDB and other readers recognise), or "" for an unsharded run.
func (s Shard) Dir() string {
	if !s.Sharded() {
		return ""
	}
	return fmt.Sprintf("shard=%d-of-%d", s.I, s.N)
}

// Contains reports whether host is checked by s; every host is in the
// zero Shard.
func (s Shard) Contains(host string) bool {
	return !s.Sharded() || ShardOf(host, s.N) == s.I
}

// Select returns the stores whose host is in s, in their order.
func (s Shard) Select(stores []Store) []Store {
	if !s.Sharded() {
		return stores
	}
	var out []Store
	for _, st := range stores {
		if s.Contains(st.Host) {
			out = append(out, st)
		}
	}
	return out
}

// flag returns " --shard i/n" for the commands an error message suggests,
// or "" for an unsharded run.
func (s Shard) flag() string {
	if !s.Sharded() {
		return ""
	}
	return " --shard " + s.String()
}

// parseShardDir parses a partition folder name written by Shard.Dir.
func parseShardDir(name string) (Shard, bool) {
	rest, ok := strings.CutPrefix(name, "shard=")
	if !ok {
		return Shard{}, false
	}
	is, ns, ok := strings.Cut(rest, "-of-")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	s := Shard{I: i, N: n}
	if !ok || err1 != nil || err2 != nil || s.Validate() != nil || s.Dir() != name {
		return Shard{}, false
	}
	return s, true
}

// Stage folders of a sharded run: each holds one shard=<i>-of-<n> folder
// per partition.
const (
	ChecksPartitions = "checks"
	UCPPartitions    = "ucp_validations"
)

// ChecksDir is the folder of the crawl's journal and checks.parquet for
// shard s of the run in runDir: the run folder itself when unsharded.
func ChecksDir(runDir string, s Shard) string {
	if !s.Sharded() {
		return runDir
	}
	return filepath.Join(runDir, ChecksPartitions, s.Dir())
}

// UCPDir is the folder of the validate stage's journal and
// ucp_validations.parquet for shard s of the run in runDir: the run folder
// itself when unsharded.
func UCPDir(runDir string, s Shard) string {
	if !s.Sharded() {
		return runDir
	}
	return filepath.Join(runDir, UCPPartitions, s.Dir())
}

// partitions lists the partition folders under runDir/stage, sorted by
// shard count then index. A missing stage folder is no partitions; a
// shard=... name that does not parse is an error.
func partitions(runDir, stage string) ([]Shard, error) {
	ents, err := os.ReadDir(filepath.Join(runDir, stage))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Shard
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "shard=") {
			continue
		}
		s, ok := parseShardDir(e.Name())
		if !ok {
			return nil, fmt.Errorf("%s: not a partition folder (want shard=<i>-of-<n>)", filepath.Join(runDir, stage, e.Name()))
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Shard) int {
		if a.N != b.N {
			return a.N - b.N
		}
		return a.I - b.I
	})
	return out, nil
}

// checkRunLayout refuses to run a stage for shard s over a run folder laid
// out otherwise: sharded stages over an unsharded crawl, an unsharded stage
// over partitions, or a shard count other than the one already there.
// Aggregate checks the same (and more) before it reads anything; this
// check only makes the mistake show up at its first command.
func checkRunLayout(runDir string, s Shard) error {
	id := filepath.Base(runDir)
	unsharded := false
	if _, err := os.Stat(filepath.Join(runDir, JournalName)); err == nil {
		unsharded = true
	}
	var counts []int
	for _, stage := range []string{ChecksPartitions, UCPPartitions} {
		parts, err := partitions(runDir, stage)
		if err != nil {
			return fmt.Errorf("run %s: %w", id, err)
		}
		for _, p := range parts {
			if !slices.Contains(counts, p.N) {
				counts = append(counts, p.N)
			}
		}
	}
	switch {
	case !s.Sharded() && len(counts) > 0:
		return fmt.Errorf("run %s is sharded into %d partitions (%s/): run each shard with --shard i/%d, or use a new --run id", id, counts[0], ChecksPartitions, counts[0])
	case s.Sharded() && unsharded:
		return fmt.Errorf("run %s was crawled unsharded (%s): drop --shard, or use a new --run id", id, JournalName)
	case s.Sharded() && len(counts) > 0 && (len(counts) > 1 || counts[0] != s.N):
		return fmt.Errorf("run %s is already sharded into %d partitions, so --shard %s does not fit: use --shard i/%d (i from 0 to %d), or a new --run id", id, counts[0], s, counts[0], counts[0]-1)
	}
	return nil
}
