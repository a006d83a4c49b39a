package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"svc/fixtures"
)

// maxFixtureStores bounds --stores: the benchmark world is 10,000 stores.
const maxFixtureStores = 100_000

// fixturesWorldFlags are the flags that pick a world, shared by serve and
// list so both describe the same stores.
type fixturesWorldFlags struct {
	seed   int64
	stores int
}

func (f *fixturesWorldFlags) register(cmd *cobra.Command) {
	cmd.Flags().Int64Var(&f.seed, "seed", 1, "seed of the world: the same seed gives the same stores, byte for byte")
	cmd.Flags().IntVar(&f.stores, "stores", fixtures.DefaultStores,
		fmt.Sprintf("number of stores; the first %d are hand-designed and show every trait", fixtures.CoreCount))
}

func (f *fixturesWorldFlags) validate() error {
	if f.stores < 1 || f.stores > maxFixtureStores {
		return usagef("--stores must be 1 to %d", maxFixtureStores)
	}
	return nil
}

// fixturesHooks are the runF hooks of the fixtures subcommands: when set, each
// is called with the parsed options instead of the command's run function,
// so flag tests run nothing.
type fixturesHooks struct {
	serve func(*fixturesServeOptions) error
	list  func(*fixturesListOptions) error
	score func(*fixturesScoreOptions) error
	lab   func(*fixturesLabOptions) error
}

func newFixturesCmd(g *globals) *cobra.Command { return newFixturesCmdWith(g, fixturesHooks{}) }

// newFixturesCmdWith builds `svc fixtures` with the hooks of its subcommands.
func newFixturesCmdWith(g *globals, hooks fixturesHooks) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fixtures",
		Short: "Serve or list the synthetic store world that tests and the demo run against",
		Long: `The fixture world is a deterministic set of synthetic online stores on
reserved *.test host names, each with known true answers. svc reaches no real
store from where it is built, so every check is tested, demonstrated and
benchmarked against this world.

It covers every trait the checks tell apart, alone and combined: platforms
(Shopify-like with /products.json and storefront MCP, WooCommerce-like Store
API, Magento, BigCommerce, custom, single-page apps), UCP profiles (valid,
with one known defect each, missing, redirected, badly cached, soft 404),
ACP and MCP discovery documents, WebMCP in the HTML, robots.txt rules per AI
agent, Product JSON-LD, policy pages, bot walls, parked domains, redirects to
another brand, slow, failing and oversized stores, and throttled catalogs.

"svc fixtures serve" serves them; "svc fixtures list" prints them with their
expected answers. "svc fixtures lab" serves real store software beside them
(WooCommerce, EverShop, Vendure, the UCP authors' sample, an MCP-B page).`,
		Args: argsUsage(cobra.NoArgs),
	}
	cmd.AddCommand(newFixturesServeCmd(g, hooks.serve), newFixturesListCmd(g, hooks.list), newFixturesScoreCmd(g, hooks.score),
		newFixturesLabCmd(g, hooks.lab))
	return cmd
}

// fixturesServeOptions holds the flags of `svc fixtures serve`.
type fixturesServeOptions struct {
	*globals
	world fixturesWorldFlags
	addr  string
	caOut string
	slow  time.Duration
}

func newFixturesServeCmd(g *globals, runF func(*fixturesServeOptions) error) *cobra.Command {
	opts := &fixturesServeOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve every fixture store on one loopback address, over HTTP and HTTPS",
		Long: `Serve every store of the fixture world on one loopback address, by Host
header. The same port speaks plain HTTP and TLS, so http:// and https:// URLs
of every store reach it. A CA is generated at start and written to --ca-out
(default DATA/fixtures/ca.pem); it can only vouch for *.test names.

Point any svc command (or another tool) at the world with the fixture flags:

  --fixture-addr ADDR   dial every *.test host at this address
  --fixture-ca FILE     trust the CA written by this command

Without them the safe client refuses loopback addresses like any other
private target. The server runs until interrupted.`,
		Example: `  svc fixtures serve --addr 127.0.0.1:8443
  svc fixtures serve --addr 127.0.0.1:0 --stores 10000 --slow 7s
  svc probe --fixture-addr 127.0.0.1:8443 --fixture-ca var/fixtures/ca.pem https://<host from svc fixtures list>/`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return fixturesServeRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.addr, "addr", "127.0.0.1:8443", "loopback HOST:PORT to listen on (port 0 picks a free one)")
	f.StringVar(&opts.caOut, "ca-out", "", "file to write the CA certificate to (default DATA/fixtures/ca.pem)")
	f.DurationVar(&opts.slow, "slow", fixtures.DefaultSlow, "how long the stores that time out take to answer (above the client's 6s timeout)")
	opts.world.register(cmd)
	return cmd
}

// validate checks the flags before any work: the world is only ever served
// on loopback, because it is a test double, not a service.
func (o *fixturesServeOptions) validate() error {
	if err := o.world.validate(); err != nil {
		return err
	}
	if err := loopbackAddr(o.addr, "the fixture world"); err != nil {
		return err
	}
	if o.slow <= 0 || o.slow > 10*time.Minute {
		return usagef("--slow must be above 0 and at most 10m")
	}
	if o.caOut == "" {
		o.caOut = filepath.Join(o.data, "fixtures", "ca.pem")
	}
	return nil
}

// loopbackAddr checks an --addr of a test double (the fixture world, the
// lab): HOST:PORT on loopback only, because it is not a service.
func loopbackAddr(addr, what string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("--addr %q: want HOST:PORT", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return usagef("--addr %q: the port must be a number from 0 to 65535", addr)
	}
	if a, err := netip.ParseAddr(host); host != "localhost" && (err != nil || !a.IsLoopback()) {
		return usagef("--addr %q: %s listens on loopback only (127.0.0.1, ::1 or localhost)", addr, what)
	}
	return nil
}

func fixturesServeRun(ctx context.Context, o *fixturesServeOptions) error {
	w := fixtures.Generate(o.world.seed, o.world.stores)
	srv, err := fixtures.NewServer(w, fixtures.ServerOptions{
		Addr:   o.addr,
		CAOut:  o.caOut,
		Slow:   o.slow,
		Logger: slog.New(slog.NewTextHandler(o.errOut, nil)),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(o.out, "fixture world: %d stores (seed %d)\n", len(w.Stores), o.world.seed)
	fmt.Fprintf(o.out, "listening on %s (http and https)\n", srv.Addr())
	fmt.Fprintf(o.out, "CA certificate: %s\n", o.caOut)
	if len(w.Stores) > 0 {
		fmt.Fprintf(o.out, "try: svc probe --fixture-addr %s --fixture-ca %s https://%s/\n", srv.Addr(), o.caOut, w.Stores[0].Host)
	}
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		return fmt.Errorf("fixture server: %w", err)
	}
	fmt.Fprintln(o.out, "fixture server stopped")
	return nil
}

// fixturesListOptions holds the flags of `svc fixtures list`.
type fixturesListOptions struct {
	*globals
	world   fixturesWorldFlags
	jsonOut bool
	csvOut  bool
}

func newFixturesListCmd(g *globals, runF func(*fixturesListOptions) error) *cobra.Command {
	opts := &fixturesListOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Print every fixture store with its traits and expected answers",
		Long: `Print every store of the fixture world.

  (default)  a table: host, category, source, platform, expected fix, traits
  --json     one JSON document {"seed", "count", "agents", "stores": [...]}
             where each store has host, name, category, source, platform,
             traits and expect (the exact answers a correct check gives;
             null means unmeasured)
  --csv      the crawl input: host,name,category,source

Use the same --seed and --stores as "svc fixtures serve" to describe the
stores it serves.`,
		Example: `  svc fixtures list
  svc fixtures list --json > world.json
  svc fixtures list --csv --stores 10000 > stores.csv`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.world.validate(); err != nil {
				return err
			}
			if opts.jsonOut && opts.csvOut {
				return usagef("--json and --csv cannot be used together")
			}
			if runF != nil {
				return runF(opts)
			}
			return fixturesListRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.jsonOut, "json", false, "print every store with traits and expected answers as JSON")
	cmd.Flags().BoolVar(&opts.csvOut, "csv", false, "print the crawl input CSV: host,name,category,source")
	opts.world.register(cmd)
	return cmd
}

func fixturesListRun(_ context.Context, o *fixturesListOptions) error {
	w := fixtures.Generate(o.world.seed, o.world.stores)
	switch {
	case o.jsonOut:
		return w.WriteJSON(o.out)
	case o.csvOut:
		return w.WriteCSV(o.out)
	}
	return writeFixturesTable(o.out, w)
}

func writeFixturesTable(out io.Writer, w *fixtures.World) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tCATEGORY\tSOURCE\tPLATFORM\tFIX\tTRAITS")
	for _, st := range w.Stores {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", st.Host, st.Category, st.Source, st.Platform, st.Expect.Fix.Code, strings.Join(st.Traits, " "))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write fixture table: %w", err)
	}
	return nil
}
