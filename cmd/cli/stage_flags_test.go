package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
)

// TestStageFlags parses the pipeline commands' command lines through their
// runF hooks: the options must hold the flags and environment defaults,
// nothing may run (no run folder, no output), and a bad value is a usage
// error before the hook.
func TestStageFlags(t *testing.T) {
	for _, k := range []string{"SVC_STORES", "SVC_BASE_URL", "SVC_SHARD", "SVC_UCP_SCHEMA_DIR", "SVC_UCP_OFFLINE", "SVC_CRON", "SVC_STATE"} {
		t.Setenv(k, "")
	}
	t.Setenv("SVC_RUN", "env-run")
	data := t.TempDir()
	var got string
	build := map[string]func(g *globals) *cobra.Command{
		"crawl": func(g *globals) *cobra.Command {
			return newCrawlCmdWith(g, func(o *crawlOptions) error {
				got = fmt.Sprintf("%s %s %d %q %q %q", o.stores, o.runID, o.concurrency, o.shard.shard, o.ucpFlags.dir, o.state.value)
				return nil
			})
		},
		"validate": func(g *globals) *cobra.Command {
			return newValidateCmdWith(g, func(o *validateOptions) error {
				got = fmt.Sprintf("%s %d %v %q %v", o.runID, o.concurrency, o.agentPaths, o.shard.shard, o.ucpFlags.offline)
				return nil
			})
		},
		"aggregate": func(g *globals) *cobra.Command {
			return newAggregateCmdWith(g, func(o *aggregateOptions) error {
				got = fmt.Sprintf("%s %q %v %q %q", o.runID, o.previous, o.noHistory, o.baseURL, o.state.value)
				return nil
			})
		},
		"snapshot": func(g *globals) *cobra.Command {
			return newSnapshotCmdWith(g, func(o *snapshotOptions) error {
				got = fmt.Sprintf("%s %q", o.runID, o.baseURL)
				return nil
			})
		},
		"run": func(g *globals) *cobra.Command {
			return newRunCmdWith(g, func(o *runOptions) error {
				got = fmt.Sprintf("%s %s %d %q %v %q %v %d", o.runID, o.stores, o.concurrency, o.baseURL, o.agentPaths, o.state.value, o.noShop, o.shopPages)
				return nil
			})
		},
		"schedule": func(g *globals) *cobra.Command {
			return newScheduleCmdWith(g, func(o *scheduleOptions) error {
				got = fmt.Sprintf("%q %v %q %s %d %q", o.cron, o.runNow, o.run.runID, o.run.stores, o.run.concurrency, o.run.state.value)
				return nil
			})
		},
		"demo": func(g *globals) *cobra.Command {
			return newDemoCmdWith(g, func(o *demoOptions) error {
				got = fmt.Sprintf("%s %s %s %v %d %d %v", o.runID, o.addr, o.fixtureAt, o.exitAfter, o.world.seed, o.world.stores, o.noShop)
				return nil
			})
		},
	}
	checkFlagCases(t, data, &got, build, []flagCase{
		{"crawl", []string{"--stores", "s.csv"}, `s.csv env-run 16 "" "" ""`},
		{"crawl", []string{"--stores", "s.csv", "--run", "r1", "--concurrency", "32", "--shard", "2/4", "--ucp-schema-dir", "schemas"}, `s.csv r1 32 "2/4" "schemas" ""`},
		{"crawl", []string{"--stores", "s.csv", "--state", "postgres://svc@db/svc"}, `s.csv env-run 16 "" "" "postgres://svc@db/svc"`},
		{"crawl", []string{"--stores", "s.csv", "--state", "/srv/svc/state"}, `s.csv env-run 16 "" "" "/srv/svc/state"`},
		{"validate", nil, `env-run 16 true "" false`},
		{"validate", []string{"--run", "r1", "--agent-paths=false", "--shard", "0/1", "--ucp-offline"}, `r1 16 false "0/1" true`},
		{"aggregate", nil, `env-run "" false "" ""`},
		{"aggregate", []string{"--run", "r2", "--previous", "r1", "--base-url", "https://svc.example"}, `r2 "r1" false "https://svc.example" ""`},
		{"aggregate", []string{"--no-history"}, `env-run "" true "" ""`},
		{"aggregate", []string{"--state", "postgresql://svc@db/svc"}, `env-run "" false "" "postgresql://svc@db/svc"`},
		{"snapshot", []string{"--run", "r2", "--base-url", "https://svc.example"}, `r2 "https://svc.example"`},
		{"run", []string{"--stores", "s.csv", "--concurrency", "8", "--agent-paths=false"}, `env-run s.csv 8 "" false "" false 2`},
		{"run", []string{"--stores", "s.csv", "--state", "postgres://svc@db/svc"}, `env-run s.csv 16 "" true "postgres://svc@db/svc" false 2`},
		{"run", []string{"--stores", "s.csv", "--no-shop", "--shop-concurrency", "3"}, `env-run s.csv 16 "" true "" true 3`},
		{"schedule", []string{"--cron", "@weekly", "--run-now", "--stores", "s.csv"}, `"@weekly" true "" s.csv 16 ""`},
		{"schedule", []string{"--cron", "@weekly", "--stores", "s.csv", "--state", "postgres://svc@db/svc"}, `"@weekly" false "" s.csv 16 "postgres://svc@db/svc"`},
		{"demo", nil, `demo 127.0.0.1:8080 127.0.0.1:0 false 1 200 false`},
		{"demo", []string{"--exit", "--no-shop", "--run", "d2", "--addr", "127.0.0.1:9090", "--seed", "7", "--stores", "300"}, `d2 127.0.0.1:9090 127.0.0.1:0 true 7 300 true`},
	}, []flagCase{
		{cmd: "crawl", args: nil}, // no --stores
		{cmd: "crawl", args: []string{"--stores", "s.csv", "--concurrency", "0"}},
		{cmd: "crawl", args: []string{"--stores", "s.csv", "--shard", "4/4"}},
		{cmd: "validate", args: []string{"--run", "../x"}},
		{cmd: "aggregate", args: []string{"--previous", "r1", "--no-history"}},
		{cmd: "crawl", args: []string{"--stores", "s.csv", "--state", "s3://bucket/state"}},
		{cmd: "aggregate", args: []string{"--state", "mysql://svc@db/svc"}},
		{cmd: "run", args: []string{"--stores", "s.csv", "--state", "s3://bucket/state"}},
		{cmd: "schedule", args: []string{"--cron", "@weekly", "--stores", "s.csv", "--state", "http://db/svc"}},
		{cmd: "snapshot", args: []string{"--run", ".hidden"}},
		{cmd: "run", args: []string{"--stores", "s.csv", "--concurrency", "2000"}},
		{cmd: "run", args: []string{"--stores", "s.csv", "--shop-concurrency", "0"}},
		{cmd: "schedule", args: []string{"--stores", "s.csv"}}, // no --cron
		{cmd: "demo", args: []string{"--addr", "nohostport"}},
	})
}

// flagCase is one command line of a flag test: want is what the hook saw
// (unused for a bad line).
type flagCase struct {
	cmd  string
	args []string
	want string
}

// checkFlagCases runs each good command line through build's command with
// a hook that writes *got, and wants it to match and print nothing; each bad
// line must be a usage error with the hook never called.
func checkFlagCases(t *testing.T, data string, got *string, build map[string]func(*globals) *cobra.Command, good, bad []flagCase) {
	t.Helper()
	for _, tc := range good {
		*got = ""
		var out, errOut bytes.Buffer
		cmd := build[tc.cmd](&globals{context: context.Background(), data: data, out: &out, errOut: &errOut})
		cmd.SetArgs(tc.args)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%s %q: %v", tc.cmd, tc.args, err)
		}
		if *got != tc.want {
			t.Errorf("%s %q:\n got %s\nwant %s", tc.cmd, tc.args, *got, tc.want)
		}
		if out.Len() != 0 || errOut.Len() != 0 {
			t.Errorf("%s %q: the hook ran and still printed %q %q", tc.cmd, tc.args, out.String(), errOut.String())
		}
	}
	for _, tc := range bad {
		*got = "not called"
		cmd := build[tc.cmd](&globals{context: context.Background(), data: data, out: &bytes.Buffer{}, errOut: &bytes.Buffer{}})
		cmd.SetArgs(tc.args)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		var ue *usageError
		if err := cmd.Execute(); !errors.As(err, &ue) || *got != "not called" {
			t.Errorf("%s %q: %v, hook gave %q; want a usage error and no call", tc.cmd, tc.args, err, *got)
		}
	}
}

// SVC_STATE is the default of --state for every stage that reads the
// accepted submissions, as it is for svc serve, so one environment points
// the server and the pipeline at the same inbox.
func TestStageStateFromEnv(t *testing.T) {
	t.Setenv("SVC_STATE", "postgres://svc@db/svc")
	var got []string
	g := &globals{context: context.Background(), data: t.TempDir(), out: &bytes.Buffer{}, errOut: &bytes.Buffer{}}
	cmds := []*cobra.Command{
		newCrawlCmdWith(g, func(o *crawlOptions) error { got = append(got, o.state.value); return nil }),
		newAggregateCmdWith(g, func(o *aggregateOptions) error { got = append(got, o.state.value); return nil }),
		newRunCmdWith(g, func(o *runOptions) error { got = append(got, o.state.value); return nil }),
		newScheduleCmdWith(g, func(o *scheduleOptions) error { got = append(got, o.run.state.value); return nil }),
	}
	args := [][]string{{"--stores", "s.csv"}, nil, {"--stores", "s.csv"}, {"--cron", "@weekly", "--stores", "s.csv"}}
	for i, cmd := range cmds {
		cmd.SetArgs(args[i])
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%s: %v", cmd.Name(), err)
		}
	}
	want := []string{"postgres://svc@db/svc", "postgres://svc@db/svc", "postgres://svc@db/svc", "postgres://svc@db/svc"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("--state from SVC_STATE (-want +got):\n%s", diff)
	}
}
