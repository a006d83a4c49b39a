package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"svc/datasets/svc100"
	"svc/fixtures"
	"svc/pipeline"
	"svc/pipeline/durable"
	"svc/pipeline/fetch"
	"svc/pipeline/inbox"
	"svc/pipeline/leaderboard"
	"svc/pipeline/ucp"
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
	noShop    bool
	// shop starts the shop stage's runner in place of Chromium, and
	// served is called with the API's base URL once the demo has said it
	// is ready: test hooks, no flags.
	shop   func() (pipeline.ShopRunner, func(), error)
	served func(base string)
}

func newDemoCmd(g *globals) *cobra.Command { return newDemoCmdWith(g, nil) }

// newDemoCmdWith builds `svc demo`; runF, when set, is called with the
// parsed options instead of demoRun, so flag tests run nothing.
func newDemoCmdWith(g *globals, runF func(*demoOptions) error) *cobra.Command {
	o := &demoOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole service on the fixture world, offline: pipeline and API",
		Long: `Start the fixture world (synthetic stores on *.test names, HTTP and HTTPS on
one loopback address), run the pipeline over it into DATA (crawl, with the
agent paths measured beside it, then validate, aggregate, snapshot), show
trait by trait that every store got its known answer, and serve the API on
--addr with live checks routed to the fixture world. The API is ready when
GET /api/protocols answers 200, in well under a minute. Ctrl-C stops
everything.

Behind the API the shop stage then runs the browser shoppers A to E over
the SVC-100 stand-ins in Debian's Chromium when it is installed (several
minutes on 2 cores), and aggregate and snapshot publish the next version,
with the browser lane, which the server picks up without a restart. Until
it lands, the home page and the leaderboard say that the browser lane is
being measured and how far it is. Without Chromium the demo says so and the
browser lane stays unmeasured; --no-shop skips it. With --exit the demo
runs every stage, the shop stage included, publishes once and exits.

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
			if runF != nil {
				return runF(o)
			}
			return demoRun(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address of the API")
	f.StringVar(&o.fixtureAt, "fixtures-addr", "127.0.0.1:0", "loopback address of the fixture world (port 0: any free port)")
	f.StringVar(&o.runID, "run", "demo", "run id of the demo's pipeline run")
	f.BoolVar(&o.exitAfter, "exit", false, "exit after the pipeline instead of serving")
	f.BoolVar(&o.noShop, "no-shop", false, "skip the shop stage (the browser shoppers over SVC-100): the browser lane stays unmeasured")
	o.world.register(cmd)
	o.ucpFlags.register(cmd)
	return cmd
}

func demoRun(ctx context.Context, o *demoOptions) error {
	w := o.out
	world := fixtures.Generate(o.world.seed, o.world.stores)
	caPath := filepath.Join(o.data, "fixtures", "ca.pem")
	// UCP wants a platform profile on https (overview, "Profile
	// Requirements") and the demo's API is plain http, so the fixture world
	// serves svc's platform profile, the same bytes `svc serve` publishes,
	// on a host of its own for the UCP path to name. It publishes svc's
	// signing key, kept in DATA/state (made there on the first demo): the
	// key the validate stage signs with and the API publishes. The fixture
	// world gets the public profile only; the stores that demand
	// signatures fetch it from there to verify the path's requests.
	key, err := leaderboard.LoadAgentKey(ctx, "", filepath.Join(o.data, "state"))
	if err != nil {
		return err
	}
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{Addr: o.fixtureAt, CAOut: caPath,
		UCP: map[string][]byte{demoProfileHost: leaderboard.PlatformProfileWithKeys(key.PublicJWK())}})
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintf(w, "fixture world: %d stores on %s (http and https), CA in %s\n", len(world.Stores), srv.Addr(), caPath)
	fmt.Fprintf(w, "svc's UCP signing key: %s (kept in %s), published in the profile on %s\n", key.KeyID(),
		filepath.Join(o.data, "state", inbox.AgentKeyFile), demoAgentProfile)
	haveSchemas := demoSchemas(ctx, o)
	// The demo is the real commands with the fixture flags set.
	o.fixtureAddr, o.fixtureCA = srv.Addr(), caPath
	svc100.UseFixtureStandIns() // the demo's stores play SVC-100 v1
	storesCSV := filepath.Join(o.data, "fixtures", "stores.csv")
	var buf bytes.Buffer
	if err := world.WriteCSV(&buf); err != nil {
		return err
	}
	if err := durable.WriteFileAtomic(storesCSV, buf.Bytes(), 0o644); err != nil {
		return err
	}
	run := &runOptions{globals: o.globals, runID: o.runID, stores: storesCSV, concurrency: 16, agentPaths: true, ucpFlags: o.ucpFlags,
		noShop: o.noShop, shopPages: pipeline.DefaultPages, shop: o.shop}
	// The UCP path names svc's platform profile on the fixture world's
	// https host (above).
	run.profile.url = demoAgentProfile
	score := &fixturesScoreOptions{globals: o.globals, world: o.world, runID: o.runID, noUCPSchemas: !haveSchemas}
	if o.exitAfter {
		// Every stage, the shop stage included, then one snapshot.
		if err := runAll(ctx, run); err != nil {
			return err
		}
		fmt.Fprintln(w)
		return fixturesScoreRun(ctx, score)
	}
	// Serving: the run publishes before the shop stage, which then runs
	// behind the API (demoLane).
	var lane *demoLane
	run.shopDeferred = func(l *pipeline.ShopLane) { lane = &demoLane{lane: l} }
	if err := runAll(ctx, run); err != nil {
		return err
	}
	if o.noShop {
		lane = nil // the shop stage would only say it is skipped
	}
	// The server's log lines share the terminal with the shop stage's
	// progress line.
	sg := *o.globals
	sg.errOut = pipeline.OverBar(o.errOut)
	so := &serveOptions{globals: &sg, addr: o.addr, ucpFlags: o.ucpFlags, statsEvery: time.Minute}
	if lane != nil {
		so.pending = lane.pending
	}
	var wg sync.WaitGroup
	defer wg.Wait() // the lane stops (ctx) before the fixture world closes
	return serveRun(ctx, so, func(addr string) {
		base := "http://" + addr
		if err := waitReady(ctx, base+"/api/protocols"); err != nil {
			fmt.Fprintf(o.errOut, "svc: the API did not become ready: %v\n", err)
			return
		}
		fmt.Fprintln(w)
		_ = fixturesScoreRun(ctx, score) // its table says which store missed
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
		if lane != nil {
			fmt.Fprintf(w, "\nThe browser lane (the browser shoppers A to E over SVC-100, several minutes on 2 cores) is being measured "+
				"behind the API: %s/ and %s/leaderboard/ say how far it is, and the next version, with it, replaces this one when it lands.\n", base, base)
		}
		fmt.Fprintln(w, "Ctrl-C stops the API and the fixture world.")
		if o.served != nil {
			o.served(base)
		}
		if lane != nil {
			wg.Go(func() { lane.run(ctx, o, base) })
		}
	})
}

// demoLane is the browser lane of a demo that serves before it lands: the
// shop stage, then the next version, which the running server loads.
type demoLane struct {
	lane   *pipeline.ShopLane
	mu     sync.Mutex
	done   bool   // the lane ended
	landed string // the version it published; "" when it failed
}

// run runs the lane, notes the version it published and says once the
// API serves it.
func (d *demoLane) run(ctx context.Context, o *demoOptions, base string) {
	err := d.lane.Run(ctx)
	landed := ""
	if err == nil {
		landed = latestVersion(o.data)
	} else if ctx.Err() == nil {
		fmt.Fprintf(o.errOut, "svc: the browser lane did not land; the API keeps serving the version without it: %v\n", err)
	}
	d.mu.Lock()
	d.done, d.landed = true, landed
	d.mu.Unlock()
	if landed == "" {
		return
	}
	deadline := time.Now().Add(30 * time.Second)
	for ctx.Err() == nil && time.Now().Before(deadline) {
		if servedVersion(ctx, base) == landed {
			fmt.Fprintf(o.out, "\nThe browser lane has landed: %s serves version %s, with it (no restart).\n", base, landed)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	if ctx.Err() == nil {
		fmt.Fprintf(o.errOut, "svc: version %s is published but %s did not serve it within 30 s\n", landed, base)
	}
}

// pending is the notice of the home page and the leaderboard
// (serve.Config.Pending) while the version served lacks the browser lane.
func (d *demoLane) pending(served string) string {
	d.mu.Lock()
	done, landed := d.done, d.landed
	d.mu.Unlock()
	if done && (landed == "" || served == landed) {
		return ""
	}
	p := d.lane.Progress()
	switch {
	case done || p.Finished:
		return fmt.Sprintf("The browser lane is measured (%d of %d runs) and being published: this page shows version %s, "+
			"published before it, until the version with it replaces it in a moment.", p.Done, p.Total, served)
	case p.Started:
		return fmt.Sprintf("The browser lane is being measured: %d of %d runs (the browser shoppers A to E over SVC-100). "+
			"This page shows version %s, published before it; the version with the browser lane replaces it when the runs are done.",
			p.Done, p.Total, served)
	}
	return fmt.Sprintf("The browser lane is being measured: the browser shoppers A to E are starting over SVC-100. "+
		"This page shows version %s, published before it; the version with the browser lane replaces it when the runs are done.", served)
}

// latestVersion is the version DATA/public/data/latest points at; "" when
// there is none.
func latestVersion(data string) string {
	target, err := os.Readlink(filepath.Join(data, "public", "data", "latest"))
	if err != nil {
		return ""
	}
	return filepath.Base(target)
}

// servedVersion is the version the API at base serves; "" when it does
// not say.
func servedVersion(ctx context.Context, base string) string {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/data/latest/manifest.json", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var m struct {
		Version string `json:"version"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&m) != nil {
		return ""
	}
	return m.Version
}

// demoSchemaTimeout bounds the demo's one attempt to fetch the UCP schemas
// from ucp.dev: a machine that is offline should not make a new user wait.
const demoSchemaTimeout = 5 * time.Second

// demoSchemas decides, once and before the run, which UCP schemas the demo
// validates profiles against: the folder of --ucp-schema-dir; else the
// official ones from ucp.dev (or the copy cached under DATA/state/), when
// they load within demoSchemaTimeout. Without either the run is made
// offline, so no stage waits on ucp.dev again, and a note says once why
// profiles are unvalidated rather than valid. The answer picks the truth
// the demo scores against: a run without schemas is held to
// fixtures.World.WithoutUCPSchemas, a run with them to the strict one.
func demoSchemas(ctx context.Context, o *demoOptions) bool {
	w := o.out
	if o.ucpFlags.dir != "" {
		fmt.Fprintln(w, "UCP schemas: the folder of --ucp-schema-dir")
		return true // the run refuses a folder that lacks them
	}
	cache := filepath.Join(o.data, "state", "ucp-schema")
	client, err := fetch.New(fetch.Options{})
	if err == nil {
		var v *ucp.Validator
		v, err = ucp.New(ctx, ucp.Config{CacheDir: cache, Client: client, Offline: o.ucpFlags.offline})
		if err == nil {
			err = v.LoadSchemas(ctx, demoSchemaTimeout)
		}
	}
	if err == nil {
		fmt.Fprintf(w, "UCP schemas: the official ones from ucp.dev (cached in %s)\n", cache)
		return true
	}
	why := "ucp.dev could not be reached (" + rootCause(err) + ")"
	if o.ucpFlags.offline {
		why = "--ucp-offline (SVC_UCP_OFFLINE) is set and no copy is cached in " + cache
	}
	o.ucpFlags.offline = true
	fmt.Fprintf(w, "note: no UCP schemas: no --ucp-schema-dir, and %s. A profile that breaks no rule is reported as "+
		"unvalidated (valid: null), neither valid nor invalid, the share of valid profiles is not measured, and the known "+
		"answers below expect exactly that. "+
		"Give --ucp-schema-dir (for example ../shared/ucp/schema) or run online to validate profiles in full.\n", why)
	return false
}

// rootCause is the innermost cause of err, for a short message: the end
// of the chain, and of its text (the schema compiler wraps without %w).
func rootCause(err error) string {
	for next := errors.Unwrap(err); next != nil; next = errors.Unwrap(err) {
		err = next
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
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

// demoProfileHost is the fixture world's host that serves svc's platform
// profile in the demo, and demoAgentProfile its URL.
const (
	demoProfileHost  = "svc-agent.test"
	demoAgentProfile = "https://" + demoProfileHost + leaderboard.AgentProfilePath
)
