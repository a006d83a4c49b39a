package check

// The files a store publishes for agents: robots.txt, the UCP profile,
// the ACP discovery file and the MCP server card, and WebMCP checkout tools.

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"svc/pipeline/detect"
	"svc/pipeline/ucp"
)

// robots reads /robots.txt and gives every AI agent's verdict for "/".
// A robots.txt that got no HTTP answer at all (DNS, connection, TLS,
// timeout) was not read: its status is unreachable and every verdict is
// unmeasured. RFC 9309's complete disallow applies to a server that
// answered with an error (5xx), not to a file nobody could ask for: a
// store that cannot be reached is unreachable, not disallowing agents.
func (e *Engine) robots(ctx context.Context, origin string, res *Result) {
	resp, err := e.client.Get(ctx, origin+"/robots.txt")
	if err != nil {
		res.Robots = Robots{Status: RobotsUnreachable, Agents: map[string]AgentVerdict{}}
		return
	}
	res.Robots = robotsResult(detect.RobotsFromResponse(resp.StatusCode, resp.Body))
}

// RobotsUnreachable is the robots status of a robots.txt no HTTP answer
// came for; its agents' verdicts are unmeasured.
const RobotsUnreachable = "unreachable"

func robotsResult(r *detect.Robots) Robots {
	out := Robots{HTTPStatus: r.HTTPStatus, Agents: map[string]AgentVerdict{}}
	switch r.State {
	case detect.RobotsParsed:
		out.Status = "ok"
	case detect.RobotsUnavailable:
		out.Status = "not_found"
	default:
		out.Status = "error"
	}
	for _, v := range detect.RobotsReport(r, "") {
		out.Agents[v.Agent.Token] = AgentVerdict{Verdict: string(v.Home.Verdict), Purpose: string(v.Agent.Purpose)}
	}
	return out
}

// robotsAllowAll reports whether no AI agent is disallowed at "/".
func robotsAllowAll(r Robots) bool {
	for _, v := range r.Agents {
		if v.Verdict == string(detect.Disallowed) {
			return false
		}
	}
	return true
}

// ucpProfile validates /.well-known/ucp with the full validator.
func (e *Engine) ucpProfile(ctx context.Context, origin string, res *Result) {
	if e.ucp == nil {
		return
	}
	// The profile is read without the session's cookies, as the live
	// validation reads it, and conditionally when the crawl kept it.
	rep, err := e.ucp.ValidateURL(ctx, origin, ucp.URLOptions{Client: e.plainClient()})
	if err != nil {
		if errors.Is(err, ucp.ErrTooLarge) {
			res.UCPProfile.Status = ucp.VerdictInvalid
			res.UCPProfile.ErrorRules = []string{"ucp.doc.size"}
			return
		}
		res.UCPProfile.Status = ucp.VerdictUnreachable
		return
	}
	p := UCPProfile{
		Status: rep.Verdict(), URL: rep.Source.ProfileURL, HTTPStatus: rep.Source.Status,
		SchemaSource: rep.SchemaSource.Type, ErrorRules: []string{}, WarningRules: []string{},
	}
	if p.Status == ucp.VerdictValid || p.Status == ucp.VerdictInvalid || p.Status == ucp.VerdictUnvalidated {
		p.DeclaredVersion = rep.DeclaredVersion
		if p.Status != ucp.VerdictUnvalidated {
			p.Valid = ptr(rep.IsValid()) // unvalidated: null, neither valid nor invalid
		}
		p.Errors, p.Warnings = rep.Counts.Errors, rep.Counts.Warnings
		p.ErrorRules = ruleIDs(rep.Errors)
		p.WarningRules = ruleIDs(rep.Warnings)
		if len(rep.Profile) > 0 {
			p.DirectoryCount = ptr(ucp.CountsInDirectory(rep.Profile))
			p.ShoppingService, p.Checkout = profileHints(rep.Profile)
		}
	}
	res.UCPProfile = p
}

// ruleIDs returns the distinct rule ids of items, sorted.
func ruleIDs(items []ucp.Item) []string {
	out := []string{}
	for _, it := range items {
		if !contains(out, it.Rule) {
			out = append(out, it.Rule)
		}
	}
	sort.Strings(out)
	return out
}

// profileHints reads whether the profile declares a dev.ucp.shopping
// service and a checkout capability (the service's own hints).
func profileHints(profile []byte) (*bool, *bool) {
	var doc struct {
		UCP struct {
			Services     map[string]json.RawMessage `json:"services"`
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		} `json:"ucp"`
	}
	if json.Unmarshal(profile, &doc) != nil {
		return nil, nil
	}
	_, shopping := doc.UCP.Services["dev.ucp.shopping"]
	_, checkout := doc.UCP.Capabilities["dev.ucp.shopping.checkout"]
	return ptr(shopping), ptr(checkout)
}

// acp probes the ACP discovery document.
func (e *Engine) acp(ctx context.Context, origin string) Discovery {
	const path = "/.well-known/acp.json"
	resp, ok, err := e.getJSON(ctx, origin+path)
	if err != nil || !ok {
		return Discovery{Found: ptr(false)}
	}
	var doc struct {
		Protocol struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"protocol"`
	}
	if json.Unmarshal(resp.Body, &doc) != nil || !strings.EqualFold(doc.Protocol.Name, "acp") {
		return Discovery{Found: ptr(false)}
	}
	return Discovery{Found: ptr(true), Path: path, Version: doc.Protocol.Version}
}

// mcpCardPaths are where MCP server cards have been seen (draft SEP-2127).
var mcpCardPaths = []string{"/.well-known/mcp.json", "/.well-known/mcp/server-card.json", "/.well-known/mcp-server-card"}

func (e *Engine) mcpCard(ctx context.Context, origin string) Discovery {
	for _, p := range mcpCardPaths {
		resp, ok, err := e.getJSON(ctx, origin+p)
		if err != nil || !ok {
			continue
		}
		var doc map[string]any
		if json.Unmarshal(resp.Body, &doc) == nil && len(doc) > 0 {
			return Discovery{Found: ptr(true), Path: p}
		}
	}
	return Discovery{Found: ptr(false)}
}

// CheckoutTools are the Checkout WebMCP tools that run inside a platform's hosted checkout (SIGNALS.md).
var CheckoutTools = []string{"navigate_to_storefront", "get_checkout", "update_checkout", "complete_checkout"}

// checkoutWebMCP is platform-only: evidence when the page itself declares a
// checkout tool, an inference for Shopify, unknown otherwise. detected stays
// null without evidence.
func checkoutWebMCP(platform string, wm detect.WebMCP) CheckoutWebMCP {
	var seen []string
	for _, t := range wm.Tools {
		if contains(CheckoutTools, t) {
			seen = append(seen, t)
		}
	}
	switch {
	case len(seen) > 0:
		return CheckoutWebMCP{Status: "evidence", Detected: ptr(true), Tools: seen,
			Reason: "Evidence: the store's server HTML declares checkout WebMCP tools. Buyer approval is required before any order."}
	case platform == detect.PlatformShopify:
		return CheckoutWebMCP{Status: "inferred", Tools: append([]string(nil), CheckoutTools...),
			Reason: "Inferred from the platform: Shopify's hosted checkout registers these WebMCP tools at runtime; nothing on this store shows them from outside. Buyer approval is required."}
	}
	return CheckoutWebMCP{Status: "unknown", Tools: []string{},
		Reason: "Not measurable from outside: Checkout WebMCP runs inside a platform's hosted checkout, and nothing shows it for this store."}
}
