// Package cli wires every svc command. One file per command: each has an
// options struct holding its flag values and dependencies, and its RunE only
// validates and calls the command's run function, so tests can call Run with
// arguments or build options directly.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"svc/datasets/svc100"
	"svc/pipeline/fetch"
)

// Exit codes shared by the commands.
const (
	ExitOK          = 0
	ExitFailed      = 1  // the command ran and found a failure (e.g. invalid profile)
	ExitUnreachable = 2  // a store or service could not be reached
	ExitUsage       = 64 // bad flags, arguments or input (sysexits EX_USAGE)
)

// exitError carries a specific exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// exitWith wraps err so Run exits with code; a nil err still sets the code.
func exitWith(code int, err error) error {
	if err == nil {
		err = errSilent
	}
	return &exitError{code: code, err: err}
}

// errSilent ends a command with a code and no message (the output said it).
var errSilent = errors.New("")

// usageError marks errors in flags or arguments: usage is printed for these.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// globals are the flags every command shares.
type globals struct {
	context     context.Context
	out, errOut io.Writer
	data        string   // --data, env SVC_DATA: a folder, or s3://bucket/prefix (see storage.go)
	cacheDir    string   // --cache-dir, env SVC_CACHE_DIR: local mirror of an s3:// --data
	dataURL     string   // the s3:// --data as given; data is then its local cache
	store       *storage // where data syncs to; set before every command (resolveData)
	fixtureAddr string   // --fixture-addr: route *.test to this HOST:PORT
	fixtureCA   string   // --fixture-ca: PEM file added to trusted roots
}

// newClient builds the safe client with the fixture flags applied.
func (g *globals) newClient() (*fetch.Client, error) {
	ca, err := fetch.LoadFixtureCA(g.fixtureCA)
	if err != nil {
		return nil, usagef("%v", err)
	}
	if g.fixtureCA != "" && g.fixtureAddr == "" {
		return nil, usagef("--fixture-ca needs --fixture-addr")
	}
	c, err := fetch.New(fetch.Options{FixtureAddr: g.fixtureAddr, FixtureCA: ca})
	if err != nil {
		return nil, usagef("%v", err)
	}
	return c, nil
}

// envOr returns the environment variable's value, or def when it is unset.
// envFloat reads a number from the environment; def when unset or not one.
func envFloat(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil {
		return v
	}
	return def
}

// envDuration reads a duration ("30s", "5m") from the environment; def when
// unset or not one.
func envDuration(name string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

// newRoot builds the command tree. Every command is added here, in one place.
func newRoot(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "svc",
		Short: "Measure and publish whether AI agents can find products and reach checkout",
		Long: `svc checks online stores over plain HTTP (catalog, cart link, UCP profile,
WebMCP, storefront MCP, robots rules, product data, policies), validates UCP
profiles, publishes weekly CSV and Parquet datasets, and serves them through a
REST API and an MCP server. It stops before payment and never stores a
checkout URL.`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetOut(g.out)
	root.SetErr(g.errOut)
	pf := root.PersistentFlags()
	pf.StringVar(&g.data, "data", envOr("SVC_DATA", "./var"), "artifact tree: public/, state/, work/ (env SVC_DATA)")
	pf.StringVar(&g.cacheDir, "cache-dir", envOr("SVC_CACHE_DIR", ""), "local cache of an s3:// --data (env SVC_CACHE_DIR; default the user cache folder + /svc)")
	pf.StringVar(&g.fixtureAddr, "fixture-addr", "", "dial every *.test host at this HOST:PORT (fixture world only; nothing else is let through)")
	pf.StringVar(&g.fixtureCA, "fixture-ca", "", "PEM file of the fixture world's CA, added to the trusted roots")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &usageError{err} })
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if g.fixtureAddr != "" {
			// Fixture mode: the fixture world's stores play SVC-100 v1.
			svc100.UseFixtureStandIns()
		}
		return g.resolveData(cmd)
	}

	for _, add := range commands {
		root.AddCommand(add(g))
	}
	return root
}

// commands lists the constructors of the top-level commands, in help order.
var commands = []func(*globals) *cobra.Command{
	newDemoCmd,
	newProbeCmd,
	newShopCmd,
	newCheckCmd, // svc check: the API's CI client (cmd/internal/ciclient), not the check engine
	newServeCmd,
	newRunCmd,
	newScheduleCmd,
	newCrawlCmd,
	newValidateCmd,
	newAggregateCmd,
	newSnapshotCmd,
	newSQLCmd,
	newUCPCmd,
	newFixturesCmd,
	newFetchCmd,
}

// Run executes svc with args and returns the process exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	g := &globals{context: ctx, out: stdout, errOut: stderr}
	root := newRoot(g)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return ExitOK
	}
	code := ExitFailed
	var ue *usageError
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		code = ee.code
	case errors.As(err, &ue) || isCobraUsage(err):
		code = ExitUsage
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(stderr, "svc: %s\n", msg)
	}
	if code == ExitUsage && cmd != nil {
		fmt.Fprintf(stderr, "\n%s", cmd.UsageString())
	}
	return code
}

// isCobraUsage recognises cobra's own unknown-command error, which it returns
// as a plain error.
func isCobraUsage(err error) bool {
	return strings.HasPrefix(err.Error(), "unknown command")
}

// argsUsage marks the errors of a positional-argument validator as usage errors.
func argsUsage(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return &usageError{err}
		}
		return nil
	}
}

// logger returns the command-line logger: text on stderr.
func (g *globals) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(g.errOut, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// ctx is the command's context (cancelled on SIGINT and SIGTERM).
func (g *globals) ctx() context.Context { return g.context }
