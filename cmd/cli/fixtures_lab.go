package cli

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"svc/fixtures/platforms"
)

// fixturesLabOptions holds the flags of `svc fixtures lab`.
type fixturesLabOptions struct {
	*globals
	addr        string
	dir         string
	only        []string
	installOnly bool
}

func newFixturesLabCmd(g *globals, runF func(*fixturesLabOptions) error) *cobra.Command {
	opts := &fixturesLabOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "lab",
		Short: "Install, seed and serve real store software behind one TLS front on loopback",
		Long: `The lab is real store software that no one here wrote, served offline:

  woocommerce   WooCommerce 7.9.0 on WordPress 6.1.9   https://woocommerce.test/
  evershop      EverShop 2.2.1                         https://evershop.test/
  vendure       Vendure 3.7.3 + its Next.js storefront https://vendure.test/
  ucpsample     the UCP authors' REST sample 2026-01-11 https://ucp-sample.test/
  mcpb          a store page on the MCP-B polyfill 5.1.0 https://mcp-b.test/

Each is installed from Debian and npm (and ../shared/platforms/src) by its
fixtures/platforms/<name>/lab.sh into ~/.cache/svc-lab (env SVC_LAB_CACHE),
keyed by version: the first install takes minutes, later starts seconds.
One front on --addr terminates TLS for every *.test name with a fresh CA
written to DATA/lab/ca.pem, routes each host to its platform, and logs to
DATA/lab/forbidden.jsonl every request that would place an order, pay,
complete a UCP checkout, register or log in, and every password or card
value: svc must leave that log empty.

Point any svc command at the lab with the fixture flags it prints. It runs
until interrupted, then stops every platform.`,
		Example: `  svc fixtures lab --addr 127.0.0.1:8444
  svc fixtures lab --only woocommerce,ucpsample
  svc probe --json --fixture-addr 127.0.0.1:8444 --fixture-ca var/lab/ca.pem https://woocommerce.test/
  svc shop https://evershop.test/ --shopper B --fixture-addr 127.0.0.1:8444 --fixture-ca var/lab/ca.pem`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return fixturesLabRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.addr, "addr", "127.0.0.1:8444", "loopback HOST:PORT of the front (port 0 picks a free one)")
	f.StringVar(&opts.dir, "lab-dir", filepath.Join("fixtures", "platforms"), "the lab's folder in the repository, with each platform's lab.sh")
	f.StringSliceVar(&opts.only, "only", nil, "platforms to run, comma-separated (default all: "+strings.Join(platforms.Names(), ",")+")")
	f.BoolVar(&opts.installOnly, "install-only", false, "install every platform into the cache, then exit")
	return cmd
}

func (o *fixturesLabOptions) validate() error {
	if err := loopbackAddr(o.addr, "the lab"); err != nil {
		return err
	}
	if _, err := platforms.Select(o.only); err != nil {
		return usagef("--only: %v", err)
	}
	return nil
}

func fixturesLabRun(ctx context.Context, o *fixturesLabOptions) error {
	ps, _ := platforms.Select(o.only)
	lo := platforms.Options{
		Dir: o.dir, Addr: o.addr, Out: filepath.Join(o.data, "lab"), Platforms: ps,
		Progress: o.errOut, Logger: slog.New(slog.NewTextHandler(o.errOut, nil)),
	}
	if err := platforms.Install(ctx, lo); err != nil {
		return err
	}
	if o.installOnly {
		return nil
	}
	lab, err := platforms.Start(ctx, lo)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.out, "lab front on %s (http and https); CA certificate: %s\n", lab.Addr, lab.CAFile)
	for _, p := range ps {
		fmt.Fprintf(o.out, "  %-12s https://%s/\n", p.Name, p.Host)
	}
	fmt.Fprintf(o.out, "try: svc probe --fixture-addr %s --fixture-ca %s https://%s/\n", lab.Addr, lab.CAFile, ps[0].Host)
	fmt.Fprintf(o.out, "forbidden requests (must stay empty): %s\n", filepath.Join(o.data, "lab", "forbidden.jsonl"))
	<-ctx.Done()
	err = lab.Close()
	if v := lab.Front.Violations(); len(v) > 0 {
		fmt.Fprintf(o.errOut, "lab: %d forbidden requests were made, see %s\n", len(v), filepath.Join(o.data, "lab", "forbidden.jsonl"))
	}
	fmt.Fprintln(o.out, "lab stopped")
	return err
}
