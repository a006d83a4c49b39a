package cli

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"svc/fixtures"
	"svc/pipeline"
	"svc/pipeline/check"
	"svc/pipeline/fetch"
)

// demoOptions holds the flags of `svc demo`.
type demoOptions struct {
	*globals
	addr      string
	fixtureAt string
	ucpFlags  ucpSchemaFlags
	world     fixturesWorldFlags
	runID     string
	exitAfter bool
}

func newDemoCmd(g *globals) *cobra.Command {
	o := &demoOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole service on the fixture world, offline",
		Long: `Start the fixture world (synthetic stores on *.test names, HTTP and HTTPS on
one loopback address), check every store with the same engine as the live
check, and show, trait by trait, that each store got its known answer. The
fixture world then stays up so you can probe it; Ctrl-C stops everything.

Nothing leaves this machine: the stores are served from loopback and only
*.test names are routed there.`,
		Example: `  svc demo
  svc demo --data /tmp/svc-demo --exit`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.world.validate(); err != nil {
				return err
			}
			if err := validRunID(o.runID); err != nil {
				return err
			}
			if _, _, err := net.SplitHostPort(o.fixtureAt); err != nil {
				return usagef("--fixtures-addr %q: want HOST:PORT", o.fixtureAt)
			}
			return demoRun(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.fixtureAt, "fixtures-addr", "127.0.0.1:0", "loopback address of the fixture world (port 0: any free port)")
	f.StringVar(&o.runID, "run", "demo", "run id of the demo's crawl")
	f.BoolVar(&o.exitAfter, "exit", false, "exit after the crawl instead of serving until interrupted")
	o.world.register(cmd)
	o.ucpFlags.register(cmd)
	return cmd
}

func demoRun(ctx context.Context, o *demoOptions) error {
	w := o.out
	world := fixtures.Generate(o.world.seed, o.world.stores)
	caPath := filepath.Join(o.data, "fixtures", "ca.pem")
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{Addr: o.fixtureAt, CAOut: caPath})
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintf(w, "fixture world: %d stores on %s (http and https), CA in %s\n", len(world.Stores), srv.Addr(), caPath)

	client, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM()})
	if err != nil {
		return err
	}
	v, err := o.ucpFlags.validator(o.globals, client)
	if err != nil {
		return err
	}
	if o.ucpFlags.dir == "" {
		fmt.Fprintln(w, "note: no --ucp-schema-dir (or SVC_UCP_SCHEMA_DIR): UCP profiles cannot be schema-checked offline, so none is called valid")
	}
	var stores []pipeline.Store
	for _, s := range world.Stores {
		stores = append(stores, pipeline.Store{Host: s.Host, Name: s.Name, Category: s.Category, Source: s.Source})
	}
	dir := pipeline.RunDir(o.data, o.runID)
	if _, err := pipeline.OpenRun(o.data, o.runID, time.Now()); err != nil {
		return err
	}
	log := o.logger()
	st, err := pipeline.Crawl(ctx, pipeline.CrawlOptions{
		Stores: stores, Dir: dir, Concurrency: 16,
		Checker:  check.New(check.Options{Client: client, UCP: v}),
		Progress: pipeline.NewProgress(o.errOut, "crawl", log), Log: log,
	})
	if err != nil {
		return err
	}
	if _, err := pipeline.WriteChecks(dir); err != nil {
		return err
	}
	fmt.Fprintf(w, "crawl: %d stores checked (%d resumed, %d failed) in %s\n\n", st.Total, st.Resumed, st.Failed, st.Elapsed.Round(time.Millisecond))
	score := &fixturesScoreOptions{globals: o.globals, world: o.world, runID: o.runID}
	if err := fixturesScoreRun(score); err != nil && o.exitAfter {
		return err
	}
	if o.exitAfter {
		return nil
	}
	fmt.Fprintf(w, "\nThe fixture world stays up. Try, in another shell:\n")
	fmt.Fprintf(w, "  bin/svc probe --fixture-addr %s --fixture-ca %s https://%s/\n", srv.Addr(), caPath, world.Stores[0].Host)
	fmt.Fprintf(w, "  bin/svc fetch --fixture-addr %s --fixture-ca %s https://%s/robots.txt --body\n", srv.Addr(), caPath, world.Stores[0].Host)
	fmt.Fprintf(w, "Ctrl-C stops it.\n")
	<-ctx.Done()
	return nil
}
