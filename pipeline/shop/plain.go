package shop

import (
	"context"
	"errors"
	"net/url"
	"strings"

	"svc/pipeline/leaderboard"
)

// runPlain runs the ucp or mcp path: the leaderboard's own plain-HTTP
// agent paths (leaderboard.RunPath), one store, now. A storefront MCP
// checkout_url or a UCP continue_url is never followed or kept; only
// whether one came back. The log is the path's step log: each operation
// with its HTTP status or JSON-RPC outcome and protocol codes.
func runPlain(ctx context.Context, opts Options, shopper Shopper, u *url.URL, rep *Report) error {
	if opts.Client == nil {
		return errors.New("shop: the plain-HTTP paths need a client")
	}
	path := leaderboard.PathMCP
	if shopper == UCP {
		path = leaderboard.PathUCP
	}
	res, err := leaderboard.RunPathLog(ctx, leaderboard.RunOptions{
		Client: opts.Client, UCP: opts.UCP, AgentProfile: opts.AgentProfile, AgentKey: opts.AgentKey, Now: opts.Now,
	}, path, Origin(u))
	if err != nil {
		if ctx.Err() != nil {
			rep.Outcome, rep.Reason = Error, "run_timeout"
			return nil
		}
		return err
	}
	rep.Outcome, rep.Reason = res.Outcome, res.Reason
	rep.Log = append(rep.Log, res.Log...)
	if strings.HasPrefix(res.Reason, "unreachable_") {
		return ErrUnreachable
	}
	return nil
}
