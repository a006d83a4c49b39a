package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestCommandFlags parses the one-store and tool commands' command lines
// through their runF hooks, like TestStageFlags does for the pipeline: the
// options must hold the flags, arguments and environment defaults, nothing
// may run, and a bad command line is a usage error before the hook.
func TestCommandFlags(t *testing.T) {
	for _, k := range []string{"SVC_UCP_SCHEMA_DIR", "SVC_UCP_OFFLINE", "SVC_LLM_URL", "SVC_LLM_KEY"} {
		t.Setenv(k, "")
	}
	t.Setenv("SVC_RUN", "env-run")
	t.Setenv("SVC_LLM_MODEL", "env-model")
	data := t.TempDir()
	var got string
	withStdin := func(cmd *cobra.Command, in string) *cobra.Command {
		cmd.SetIn(strings.NewReader(in))
		return cmd
	}
	sql := func(g *globals) *cobra.Command {
		return newSQLCmdWith(g, func(o *sqlOptions) error {
			got = fmt.Sprintf("%q %s %d", o.query, o.version, o.maxRows)
			return nil
		})
	}
	fixturesCmd := func(g *globals) *cobra.Command {
		return newFixturesCmdWith(g, fixturesHooks{
			serve: func(o *fixturesServeOptions) error {
				got = fmt.Sprintf("serve %s %s %s %d %d", o.addr, strings.TrimPrefix(o.caOut, data), o.slow, o.world.seed, o.world.stores)
				return nil
			},
			list: func(o *fixturesListOptions) error {
				got = fmt.Sprintf("list %v %v %d %d", o.jsonOut, o.csvOut, o.world.seed, o.world.stores)
				return nil
			},
			score: func(o *fixturesScoreOptions) error {
				got = fmt.Sprintf("score %s %v %d %d", o.runID, o.noUCPSchemas, o.world.seed, o.world.stores)
				return nil
			},
		})
	}
	build := map[string]func(g *globals) *cobra.Command{
		"probe": func(g *globals) *cobra.Command {
			return newProbeCmdWith(g, func(o *probeOptions) error {
				got = fmt.Sprintf("%s %v %q %v", o.url, o.json, o.ucpFlags.dir, o.ucpFlags.offline)
				return nil
			})
		},
		"fetch": func(g *globals) *cobra.Command {
			return newFetchCmdWith(g, func(o *fetchOptions) error {
				got = fmt.Sprintf("%s %v %v", o.url, o.headers, o.body)
				return nil
			})
		},
		"sql":       func(g *globals) *cobra.Command { return withStdin(sql(g), "") },
		"sql-stdin": func(g *globals) *cobra.Command { return withStdin(sql(g), "SELECT 2; SELECT 3") },
		"ucp": func(g *globals) *cobra.Command {
			return withStdin(newUCPCmdWith(g, func(o *ucpValidateOptions) error {
				var in []byte
				if o.in != nil {
					in = make([]byte, 4)
					n, _ := o.in.Read(in)
					in = in[:n]
				}
				got = fmt.Sprintf("%s %v %v %q %v %q", o.target, o.json, o.deep, o.ucpFlags.dir, o.ucpFlags.offline, in)
				return nil
			}), "{}\n")
		},
		"fixtures": fixturesCmd,
		"shop": func(g *globals) *cobra.Command {
			return newShopCmdWith(g, func(o *shopOptions) error {
				got = fmt.Sprintf("%s %s %v %q %s %q | %s %q %d %q", o.url, o.shopper, o.json, o.screenshot, o.timeout, o.llm.Model,
					o.runID, o.stores, o.concurrency, o.shard.shard)
				if o.profile.url != "" {
					got += " profile=" + o.profile.url
				}
				return nil
			})
		},
	}
	checkFlagCases(t, data, &got, build, []flagCase{
		{"probe", []string{"https://shop.example/"}, `https://shop.example/ false "" false`},
		{"probe", []string{"--json", "--ucp-schema-dir", "schemas", "--ucp-offline", "shop.example"}, `shop.example true "schemas" true`},
		{"fetch", []string{"https://shop.example/robots.txt"}, `https://shop.example/robots.txt false false`},
		{"fetch", []string{"--headers", "--body", "https://shop.example/"}, `https://shop.example/ true true`},
		{"sql", []string{"SELECT 1"}, `"SELECT 1" latest 1000`},
		{"sql", []string{"--version", "2026-11-23", "--max-rows", "5", "SELECT 1"}, `"SELECT 1" 2026-11-23 5`},
		{"sql-stdin", nil, `"SELECT 2; SELECT 3" latest 1000`},
		{"ucp", []string{"validate", "shop.example"}, `shop.example false false "" false "{}\n"`},
		{"ucp", []string{"validate", "--json", "--deep", "--ucp-schema-dir", "schemas", "--ucp-offline", "-"}, `- true true "schemas" true "{}\n"`},
		{"fixtures", []string{"serve"}, "serve 127.0.0.1:8443 /fixtures/ca.pem 8s 1 200"},
		{"fixtures", []string{"serve", "--addr", "[::1]:0", "--ca-out", "ca.pem", "--slow", "7s", "--seed", "3", "--stores", "50"}, "serve [::1]:0 ca.pem 7s 3 50"},
		{"fixtures", []string{"list"}, "list false false 1 200"},
		{"fixtures", []string{"list", "--csv", "--seed", "3", "--stores", "10000"}, "list false true 3 10000"},
		{"fixtures", []string{"score"}, "score env-run false 1 200"},
		{"fixtures", []string{"score", "--run", "r1", "--no-ucp-schemas"}, "score r1 true 1 200"},
		{"shop", []string{"https://shop.example/", "--shopper", "A"}, `https://shop.example/ A false "" 1m30s "env-model" | env-run "" 2 ""`},
		{"shop", []string{"--shopper", "ucp", "--json", "--screenshot", "s.jpg", "--timeout", "30s", "shop.example"}, `shop.example ucp true "s.jpg" 30s "env-model" | env-run "" 2 ""`},
		{"shop", []string{"--shopper", "ucp", "--agent-profile", "https://svc.example/.well-known/ucp", "shop.example"}, `shop.example ucp false "" 1m30s "env-model" | env-run "" 2 "" profile=https://svc.example/.well-known/ucp`},
		// The stage form: no URL.
		{"shop", nil, `  false "" 1m30s "env-model" | env-run "" 2 ""`},
		{"shop", []string{"--run", "r1", "--stores", "s.csv", "--concurrency", "4", "--shard", "1/4", "--shopper", "b"}, ` b false "" 1m30s "env-model" | r1 "s.csv" 4 "1/4"`},
	}, []flagCase{
		{cmd: "probe", args: nil}, // no URL
		{cmd: "probe", args: []string{"a.example", "b.example"}},
		{cmd: "probe", args: []string{"ftp://shop.example/"}},
		{cmd: "fetch", args: nil},
		{cmd: "fetch", args: []string{"--headers", "a.example", "b.example"}},
		{cmd: "sql", args: nil}, // no query, empty standard input
		{cmd: "sql", args: []string{"  "}},
		{cmd: "sql", args: []string{"SELECT 1", "SELECT 2"}},
		{cmd: "sql", args: []string{"--max-rows", "0", "SELECT 1"}},
		{cmd: "sql", args: []string{"--version", "../x", "SELECT 1"}},
		{cmd: "sql", args: []string{"--version", ".hidden", "SELECT 1"}},
		{cmd: "ucp", args: []string{"validate"}},
		{cmd: "ucp", args: []string{"validate", "a.json", "b.json"}},
		{cmd: "fixtures", args: []string{"serve", "--addr", "0.0.0.0:8443"}},
		{cmd: "fixtures", args: []string{"serve", "--addr", "127.0.0.1:99999"}},
		{cmd: "fixtures", args: []string{"serve", "--addr", "nohostport"}},
		{cmd: "fixtures", args: []string{"serve", "--slow", "0s"}},
		{cmd: "fixtures", args: []string{"serve", "--stores", "0"}},
		{cmd: "fixtures", args: []string{"list", "--json", "--csv"}},
		{cmd: "fixtures", args: []string{"list", "--stores", "100001"}},
		{cmd: "fixtures", args: []string{"list", "extra"}},
		{cmd: "fixtures", args: []string{"score", "--run", "../x"}},
		{cmd: "shop", args: []string{"https://shop.example/"}},                                                                  // no --shopper
		{cmd: "shop", args: []string{"--shopper", "ucp", "--agent-profile", "http://svc.example/ucp", "https://shop.example/"}}, // not https
		{cmd: "shop", args: []string{"--shopper", "Z", "https://shop.example/"}},
		{cmd: "shop", args: []string{"--shopper", "A", "--timeout", "0s", "https://shop.example/"}},
		{cmd: "shop", args: []string{"--shopper", "A", "--timeout", "11m", "https://shop.example/"}},
		{cmd: "shop", args: []string{"--shopper", "A", "https://shop.example/checkout"}},
		{cmd: "shop", args: []string{"--shopper", "A", "ftp://shop.example/"}},
		{cmd: "shop", args: []string{"--shopper", "A", "a", "b"}},                               // two URLs
		{cmd: "shop", args: []string{"--shopper", "ucp"}},                                       // the stage runs browser shoppers only
		{cmd: "shop", args: []string{"--json"}},                                                 // a one-store flag in the stage form
		{cmd: "shop", args: []string{"--concurrency", "0"}},                                     // stage: no pages
		{cmd: "shop", args: []string{"--shard", "4/4"}},                                         // stage: no such shard
		{cmd: "shop", args: []string{"--run", "../x"}},                                          // stage: bad run id
		{cmd: "shop", args: []string{"--shopper", "A", "--run", "r1", "https://shop.example/"}}, // a stage flag in the one-store form
	})
}

// TestUsageMovedBeforeHook pins what moving a check from the run function
// to RunE must not change: through Run, the same message, the usage text and
// exit 64, with nothing on standard output.
func TestUsageMovedBeforeHook(t *testing.T) {
	t.Setenv("SVC_DATA", "")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"sql", "--version", "../x", "SELECT 1"}, `svc: --version "../x" is not a version folder name` + "\n\nUsage:\n  svc sql [QUERY]"},
		{[]string{"probe", "ftp://shop.example/"}, "svc: refused ftp://shop.example/: only http and https URLs are allowed, not ftp:\n\nUsage:\n  svc probe URL"},
	} {
		var out, errOut bytes.Buffer
		args := append([]string{"--data", t.TempDir()}, tc.args...)
		if code := Run(context.Background(), args, &out, &errOut); code != ExitUsage {
			t.Errorf("%q: exit %d, want %d\n%s", tc.args, code, ExitUsage, errOut.String())
		}
		if !strings.HasPrefix(errOut.String(), tc.msg) || out.Len() != 0 {
			t.Errorf("%q: stdout %q, stderr %q; want stderr to start %q", tc.args, out.String(), errOut.String(), tc.msg)
		}
	}
}
