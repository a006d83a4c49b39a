package leaderboard

import (
	"context"
	"errors"
	"fmt"

	"svc/pipeline/check"
)

// RunPath runs one plain-HTTP agent path (PathUCP or PathMCP) on one store
// now, exactly as RunAgentPaths runs it on each store of SVC-100: the
// homepage gate, then the path. It is the ucp and mcp paths of svc shop.
// It returns the outcome and its reason code (see RunAgentPaths); an
// unreachable homepage is outcome error with a reason starting
// "unreachable_". Only a missing client, an unknown path or a cancelled
// ctx is an error.
func RunPath(ctx context.Context, opts RunOptions, pathID, origin string) (outcome, reason string, err error) {
	if opts.Client == nil {
		return "", "", errors.New("agent path: no HTTP client")
	}
	if pathID != PathUCP && pathID != PathMCP {
		return "", "", fmt.Errorf("agent path: unknown path %q", pathID)
	}
	eng := check.New(check.Options{Client: opts.Client, UCP: opts.UCP, Now: opts.Now})
	home, err := eng.CheckHome(ctx, origin)
	if err != nil {
		return "", "", fmt.Errorf("agent path %s %s: %w", pathID, origin, err)
	}
	if o, r, gated := gate(home); gated {
		return o, r, nil
	}
	if pathID == PathMCP {
		o, r := mcpOutcome(eng.StorefrontCart(ctx, origin))
		return o, r, nil
	}
	if opts.UCP == nil {
		return OutcomeNotAttempted, "ucp_validator_unavailable", nil
	}
	o, r := ucpOutcome(ctx, opts, origin)
	return o, r, nil
}
