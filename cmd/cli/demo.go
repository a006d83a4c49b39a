package cli

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"svc/fixtures"
	"svc/pipeline/durable"
	"svc/serve"
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
		Short: "Run the whole service on the fixture world, offline: pipeline and API",
		Long: `Start the fixture world (synthetic stores on *.test names, HTTP and HTTPS on
one loopback address), run the whole pipeline over it (crawl, validate,
aggregate, snapshot) into DATA, show trait by trait that every store got
its known answer, and serve the API on --addr with live checks routed to
the fixture world. The API is ready when GET /api/protocols answers 200.
Ctrl-C stops everything.

Nothing leaves this machine: the stores are served from loopback and only
*.test names are routed there.`,
		Example: `  svc demo
  svc demo --data /tmp/svc-demo --addr 127.0.0.1:9090
  svc demo --exit      # pipeline only, no server`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.world.validate(); err != nil {
				return err
			}
			if err := validRunID(o.runID); err != nil {
				return err
			}
			for _, a := range []string{o.addr, o.fixtureAt} {
				if _, _, err := net.SplitHostPort(a); err != nil {
					return usagef("%q: want HOST:PORT", a)
				}
			}
			return demoRun(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address of the API")
	f.StringVar(&o.fixtureAt, "fixtures-addr", "127.0.0.1:0", "loopback address of the fixture world (port 0: any free port)")
	f.StringVar(&o.runID, "run", "demo", "run id of the demo's pipeline run")
	f.BoolVar(&o.exitAfter, "exit", false, "exit after the pipeline instead of serving")
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
	if o.ucpFlags.dir == "" {
		fmt.Fprintln(w, "note: no --ucp-schema-dir (or SVC_UCP_SCHEMA_DIR): UCP profiles cannot be schema-checked offline, so none is called valid")
	}
	// The demo is the real commands with the fixture flags set.
	o.fixtureAddr, o.fixtureCA = srv.Addr(), caPath
	storesCSV := filepath.Join(o.data, "fixtures", "stores.csv")
	var buf bytes.Buffer
	if err := world.WriteCSV(&buf); err != nil {
		return err
	}
	if err := durable.WriteFileAtomic(storesCSV, buf.Bytes(), 0o644); err != nil {
		return err
	}
	run := &runOptions{globals: o.globals, runID: o.runID, stores: storesCSV, concurrency: 16, agentPaths: true, ucpFlags: o.ucpFlags}
	if err := runAll(ctx, run); err != nil {
		return err
	}
	fmt.Fprintln(w)
	score := &fixturesScoreOptions{globals: o.globals, world: o.world, runID: o.runID}
	if err := fixturesScoreRun(score); err != nil && o.exitAfter {
		return err
	}
	if o.exitAfter {
		return nil
	}
	so := &serveOptions{globals: o.globals, addr: o.addr, ucpFlags: o.ucpFlags, statsEvery: time.Minute}
	return serveRun(ctx, so, func(addr string) {
		base := "http://" + addr
		if err := waitReady(ctx, base+"/api/protocols"); err != nil {
			fmt.Fprintf(o.errOut, "svc: the API did not become ready: %v\n", err)
			return
		}
		h := world.Stores[0].Host
		fmt.Fprintf(w, "\nAPI ready on %s (GET /api/protocols answers 200). Try:\n", base)
		for _, ex := range []string{
			"curl -s " + base + "/api/protocols",
			"curl -s " + base + "/api/agent-checkout/adoption",
			"curl -s '" + base + "/api/agent-checkout?url=https://" + h + "/'",
			"curl -s '" + base + "/api/ucp/validate?url=" + h + "'",
			"curl -s '" + base + "/api/leaderboard?stores=1'",
			"curl -s " + base + "/api/weekly/agent-checkout.json",
			"curl -s " + base + "/data/latest/manifest.json",
			"bin/svc --data " + o.data + " sql \"SELECT verdict, count(*) FROM store_answers GROUP BY 1\"",
		} {
			fmt.Fprintf(w, "  %s\n", ex)
		}
		fmt.Fprintln(w, "\nSample contributions (every fixture store is already listed, so the store comes back already_listed):")
		for _, smp := range serve.SubmissionSamples(h) {
			fmt.Fprintf(w, "  # %s\n  %s\n", smp.Title, smp.Curl(base))
		}
		fmt.Fprintln(w, "Ctrl-C stops the API and the fixture world.")
	})
}

// waitReady polls url until it answers 200.
func waitReady(ctx context.Context, url string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s did not answer 200 within 30 s", url)
}
