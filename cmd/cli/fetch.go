package cli

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"svc/pipeline/fetch"
)

// fetchOptions holds the flags of `svc fetch`.
type fetchOptions struct {
	*globals
	url     string
	headers bool
	body    bool
}

func newFetchCmd(g *globals) *cobra.Command { return newFetchCmdWith(g, nil) }

// newFetchCmdWith builds `svc fetch`; runF, when set, is called with the
// parsed options instead of fetchRun, so flag tests run nothing.
func newFetchCmdWith(g *globals, runF func(*fetchOptions) error) *cobra.Command {
	opts := &fetchOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "fetch URL",
		Short: "Fetch one URL through the safe client, as the checks do",
		Long: `Fetch one URL through the same safe HTTP client every check uses, and print
what came back: status, final URL, redirects and size (and headers or body on
request). It shows why a URL is refused: private, loopback, link-local and
other non-public destinations are refused before and at dial time, at most 3
redirects are followed, and each request has 6 seconds.

With --fixture-addr, hosts ending in .test are dialled at the fixture world.`,
		Example: `  svc fetch https://example.com/robots.txt
  svc fetch --fixture-addr 127.0.0.1:8443 --fixture-ca var/fixtures/ca.pem https://alder-apparel.test/ --headers`,
		Args: argsUsage(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.url = args[0]
			if runF != nil {
				return runF(opts)
			}
			return fetchRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.headers, "headers", false, "print the response headers")
	cmd.Flags().BoolVar(&opts.body, "body", false, "print the response body")
	return cmd
}

func fetchRun(ctx context.Context, opts *fetchOptions) error {
	client, err := opts.newClient()
	if err != nil {
		return err
	}
	resp, err := client.Get(ctx, opts.url)
	if err != nil {
		if errors.Is(err, fetch.ErrRefused) {
			return &usageError{err}
		}
		return exitWith(ExitUnreachable, err)
	}
	w := opts.out
	fmt.Fprintf(w, "status    %d\nurl       %s\n", resp.StatusCode, resp.URL.Redacted())
	for i, r := range resp.Redirects {
		fmt.Fprintf(w, "redirect  %d: %s\n", i+1, r)
	}
	fmt.Fprintf(w, "bytes     %d\nelapsed   %s\n", len(resp.Body), resp.Elapsed.Round(1e6))
	if opts.headers {
		keys := make([]string, 0, len(resp.Header))
		for k := range resp.Header {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "header    %s: %s\n", k, strings.Join(resp.Header[k], ", "))
		}
	}
	if opts.body {
		fmt.Fprintf(w, "\n%s\n", resp.Body)
	}
	return nil
}
