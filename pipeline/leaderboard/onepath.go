package leaderboard

import (
	"context"
	"errors"
	"fmt"

	"svc/pipeline/check"
	"svc/pipeline/steplog"
)

// RunPath runs one plain-HTTP agent path (PathUCP or PathMCP) on one store
// now, exactly as RunAgentPaths runs it on each store of SVC-100 (see
// runOne). It is the ucp and mcp paths of svc shop. It returns the outcome
// and its reason code (see RunAgentPaths); a store that answers neither
// the path nor its homepage is outcome error with a reason starting
// "unreachable_". Only a missing client, an unknown path or a cancelled
// ctx is an error.
func RunPath(ctx context.Context, opts RunOptions, pathID, origin string) (outcome, reason string, err error) {
	res, err := RunPathLog(ctx, opts, pathID, origin)
	return res.Outcome, res.Reason, err
}

// RunPathLog is RunPath with the step log: each operation with its HTTP
// status or JSON-RPC outcome and the protocol codes seen, ids and
// checkout or continue URLs never in it.
func RunPathLog(ctx context.Context, opts RunOptions, pathID, origin string) (PathResult, error) {
	if opts.Client == nil {
		return PathResult{}, errors.New("agent path: no HTTP client")
	}
	if pathID != PathUCP && pathID != PathMCP {
		return PathResult{}, fmt.Errorf("agent path: unknown path %q", pathID)
	}
	eng := check.New(check.Options{Client: opts.Client, UCP: opts.UCP, Now: opts.Now})
	res, err := runOne(ctx, eng, opts, pathID, origin, &homeReading{})
	if err != nil {
		return PathResult{}, fmt.Errorf("agent path %s %s: %w", pathID, origin, err)
	}
	return res, nil
}

// runOne runs one path at origin. Neither path needs the homepage: the UCP
// path reads /.well-known/ucp, the MCP path its endpoint, so a homepage
// that fails (an error page, a redirect loop) stops neither. Only when the
// path found nothing at the store to go on (no profile, no MCP endpoint)
// is the homepage read, to say why: unreachable, behind a wall, or no shop
// at all (parked, another brand) is then the outcome, as before.
//
// home is the store's homepage as read for the other path, when it was:
// RunAgentPaths runs both paths at a store one after the other and reads
// its homepage once for both (a store that never answers costs its
// timeout once for the homepage, not once per path).
func runOne(ctx context.Context, eng *check.Engine, opts RunOptions, pathID, origin string, home *homeReading) (PathResult, error) {
	var res PathResult
	switch {
	case pathID == PathMCP:
		c := eng.StorefrontCart(ctx, origin)
		res.Outcome, res.Reason = mcpOutcome(c)
		res.Log = mcpLog(origin, c)
		res.nothing = res.Reason == "no_storefront_mcp"
	case opts.UCP == nil:
		res.Outcome, res.Reason = OutcomeNotAttempted, "ucp_validator_unavailable"
	default:
		res = ucpPath(ctx, opts, origin)
	}
	if res.nothing {
		h, err := home.read(ctx, eng, origin)
		if err != nil {
			return PathResult{}, err
		}
		if o, r, gated := gate(h); gated {
			res.Outcome, res.Reason = o, r
			res.Log = append(res.Log, steplog.Step{Action: "homepage", URL: origin + "/", Note: r})
		}
	}
	for i := range res.Log {
		res.Log[i].N = i + 1
	}
	return res, nil
}

// homeReading is a store's homepage, read at most once for the paths
// run at that store one after the other (not safe for concurrent use).
type homeReading struct {
	home check.Home
	done bool
}

// read returns the homepage, reading it the first time it is asked for;
// a cancelled read is not kept.
func (r *homeReading) read(ctx context.Context, eng *check.Engine, origin string) (check.Home, error) {
	if r.done {
		return r.home, nil
	}
	h, err := eng.CheckHome(ctx, origin)
	if err != nil {
		return check.Home{}, err
	}
	r.home, r.done = h, true
	return h, nil
}

// mcpLog is the step log of a storefront MCP attempt: the calls made, each
// with its HTTP status and JSON-RPC outcome. No cart id or checkout_url is
// ever in it (the engine drops the URL on the spot).
func mcpLog(origin string, c check.StorefrontCart) []steplog.Step {
	var log []steplog.Step
	for _, call := range c.Calls {
		s := steplog.Step{N: len(log) + 1, Action: call.Name, URL: origin + "/api/mcp", Status: call.Status, RPC: call.RPC, Note: call.Note}
		log = append(log, s)
	}
	if len(log) == 0 {
		log = append(log, steplog.Step{N: 1, Action: "initialize", URL: origin + "/api/mcp", Note: "no MCP answer"})
	}
	return log
}
