package leaderboard

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"svc/pipeline/fetch"
	"svc/pipeline/httpsig"
	"svc/pipeline/steplog"
	"svc/pipeline/ucp"
)

// The UCP path (issue 21): it reads the business profile, negotiates the
// protocol version, takes a shopping service binding (REST or MCP), finds
// a product, creates a cart when the cart capability is declared, creates
// a checkout session with one line item, reads it back, cancels it, and
// stops. It never calls complete and never sends a payment instrument: no
// code path builds either request (ucpForbidden guards the operation
// names). Section names below are those of the official specification,
// github.com/Universal-Commerce-Protocol/ucp, docs/specification/.

// UCPVersions are the UCP protocol versions the path speaks, newest first:
// every release whose schemas svc holds (../shared/ucp/schema/), the
// first the release svc validates profiles against (spec 2.4). The path
// reads the version a business declares, speaks it, and names it in
// UCP-Agent (version="..."): a business refuses an agent that names a
// newer version than its own (the UCP authors' REST sample answers 400
// "Unsupported UCP version").
var UCPVersions = []string{"2026-08-25", "2026-04-08", "2026-01-23", "2026-01-11"}

// DefaultAgentProfile is the placeholder profile URL the path advertises
// in UCP-Agent (overview "Platform Advertisement on Request": every
// request MUST carry one) when RunOptions.AgentProfile is empty, that is
// when the command knows no base URL of a `svc serve` publishing
// PlatformProfile. Nothing answers there: a business that fetches it
// refuses with profile_unreachable (no_cart [ucp_agent_profile_refused]),
// and the step log and the run's notes say the placeholder was sent.
const DefaultAgentProfile = "https://svc.example/.well-known/ucp"

// placeholderNote is what a step log and a run's notes say when the path
// sent DefaultAgentProfile.
const placeholderNote = "no agent profile URL was configured (no --base-url or --agent-profile), so UCP-Agent named the placeholder " +
	DefaultAgentProfile + ", which serves no profile: a business that fetches it refuses the request"

// PathResult is one run of a plain-HTTP agent path: outcome, reason code
// and the step log (ids and checkout or continue URLs redacted).
type PathResult struct {
	Outcome string
	Reason  string
	Log     []steplog.Step
	// nothing is set when the path found nothing of its own at the store
	// (no profile answer, or one too large to read; no MCP endpoint):
	// runOne then asks the homepage why.
	nothing bool
}

// ucpRun is the UCP path at one store.
type ucpRun struct {
	client  *fetch.Client
	profile string       // the agent's own profile URL
	version string       // the protocol version spoken, once negotiated
	key     *httpsig.Key // signs every binding request; nil: unsigned
	log     []steplog.Step
	ops     int // requests made to the binding
}

func (r *ucpRun) add(s steplog.Step) {
	s.N = len(r.log) + 1
	r.log = append(r.log, s)
}

func (r *ucpRun) end(outcome, reason string) PathResult {
	return PathResult{Outcome: outcome, Reason: reason, Log: r.log}
}

// agentHeader is the UCP-Agent header of a request (an RFC 8941
// dictionary): the agent's profile and, once negotiated, the version it
// speaks.
func (r *ucpRun) agentHeader() string {
	h := `profile="` + r.profile + `"`
	if r.version != "" {
		h += `, version="` + r.version + `"`
	}
	return h
}

// ucpPath runs the UCP path at origin. It reads /.well-known/ucp itself:
// the store's homepage is not needed (see runUCP).
//
// The path is a client (agent-path/4, issue 35): it needs the profile's
// structure (the dev.ucp.shopping bindings, the capabilities, the
// version), which it reads itself, and goes on whatever the validator
// says of the profile's JSON Schema validity and hosting (Cache-Control,
// redirects, content type): those are findings of the validation report,
// which the step log names (validate_profile), and they stop nothing, so
// a run without the UCP schema files measures as much as one with them.
// Only a profile it cannot use stops it: not a JSON object with a ucp
// object (ucp_profile_invalid), no shopping service
// (ucp_no_shopping_service), no version it speaks (ucp_version_unknown,
// ucp_version_unsupported), no binding it can send to
// (ucp_no_usable_binding).
func ucpPath(ctx context.Context, opts RunOptions, origin string) PathResult {
	r := &ucpRun{client: opts.Client, profile: opts.AgentProfile, key: opts.AgentKey}
	if r.profile == "" {
		r.profile = DefaultAgentProfile
		r.add(steplog.Step{Action: "agent_profile", Note: placeholderNote})
	}
	rep, err := opts.UCP.ValidateURL(ctx, origin, ucp.URLOptions{})
	read := steplog.Step{Action: "read_profile", URL: origin + "/.well-known/ucp"}
	if err != nil {
		read.Note = "the validator refused the profile URL"
		r.add(read)
		res := r.end(OutcomeError, "ucp_profile_refused")
		if errors.Is(err, ucp.ErrTooLarge) {
			res = r.end(OutcomeNoCart, "ucp_profile_invalid")
		}
		res.nothing = true
		return res
	}
	read.Status = rep.Source.Status
	read.Note = "profile " + string(rep.Verdict())
	r.add(read)
	switch rep.Verdict() {
	case ucp.VerdictMissing:
		res := r.end(OutcomeNoCart, "ucp_profile_missing")
		res.nothing = true
		return res
	case ucp.VerdictUnreachable:
		res := r.end(OutcomeNoCart, "ucp_profile_unreachable")
		res.nothing = true
		return res
	case ucp.VerdictInvalid, ucp.VerdictUnvalidated:
		r.add(steplog.Step{Action: "validate_profile", Note: findingsNote(rep)})
	}
	doc, ok := parseUCPDoc(rep.Profile)
	if !ok {
		r.add(steplog.Step{Action: "read_structure", Note: "not a JSON object with a ucp object: nothing the path can read"})
		return r.end(OutcomeNoCart, "ucp_profile_invalid")
	}
	if rep.Verdict() != ucp.VerdictValid && rep.Schema.Checked {
		r.releaseFindings(ctx, opts.UCP, rep.Profile, doc.UCP.Version)
	}
	if len(shoppingBindings(rep.Profile)) == 0 {
		r.add(steplog.Step{Action: "read_structure", Note: "the profile declares no dev.ucp.shopping binding"})
		return r.end(OutcomeNoCart, "ucp_no_shopping_service")
	}
	// Version negotiation (overview "Protocol Version"): the newest mutual
	// version; a version-specific profile for an older one, whose
	// ucp.version must equal the key it was chosen by.
	v := negotiate(doc)
	if v == "" {
		if unknown := unknownVersions(doc); len(unknown) > 0 {
			// Of a release svc does not know the format is not known
			// either: the step log names the release.
			return r.unknownRelease(doc, unknown)
		}
		r.add(steplog.Step{Action: "negotiate_version", Codes: []string{"version_unsupported"},
			Note: "the business offers " + offeredVersions(doc) + "; the path speaks " + strings.Join(UCPVersions, ", ")})
		return r.end(OutcomeNoCart, "ucp_version_unsupported")
	}
	profile := rep.Profile
	if v != doc.UCP.Version {
		leaf := doc.UCP.SupportedVersions[v]
		resp, err := r.client.Get(ctx, leaf)
		step := steplog.Step{Action: "read_version_profile", URL: steplog.RedactURL(leaf)}
		if err == nil {
			step.Status = resp.StatusCode
		}
		var ld ucpDoc
		ok := false
		if err == nil && resp.StatusCode == http.StatusOK {
			ld, ok = parseUCPDoc(resp.Body)
		}
		if !ok || ld.UCP.Version != v {
			step.Note = "no usable profile for version " + v
			r.add(step)
			return r.end(OutcomeNoCart, "ucp_version_profile_unusable")
		}
		r.add(step)
		doc, profile = ld, resp.Body
	}
	r.version = v
	r.add(steplog.Step{Action: "negotiate_version", Note: "version " + v})

	b, res, ok := r.pickBinding(shoppingBindings(profile), opts.UCPTransport)
	if !ok {
		return res
	}
	r.add(steplog.Step{Action: "pick_binding", URL: steplog.RedactURL(b.Endpoint), Note: b.Transport})
	if r.key != nil {
		r.add(steplog.Step{Action: "sign_requests", Note: signNote(r.key)})
	}
	caps := doc.capabilities()
	var d ucpDriver
	if b.Transport == "mcp" {
		m := &ucpMCP{run: r, endpoint: b.Endpoint}
		if res, ok := m.open(ctx); !ok {
			return res
		}
		d = m
	} else {
		d = &ucpREST{run: r, endpoint: strings.TrimSuffix(b.Endpoint, "/")}
	}
	return r.shop(ctx, d, caps, origin)
}

// pickBinding takes the binding the path drives: the first of the wanted
// transport (transport; "" wants REST or MCP) whose endpoint the path can
// send to. ok is false when the path ends there: no binding of the wanted
// transport (ucp_transport_not_declared when one was asked for, else
// not_attempted ucp_binding_not_driven: svc drives no other transport), or
// none with an https endpoint (ucp_no_usable_binding).
func (r *ucpRun) pickBinding(bindings []binding, transport string) (binding, PathResult, bool) {
	wanted := func(tr string) bool {
		if transport == "" {
			return tr == "rest" || tr == "mcp"
		}
		return tr == transport
	}
	seen := false
	for _, x := range bindings {
		if !wanted(x.Transport) {
			continue
		}
		seen = true
		if why := endpointUnusable(x.Endpoint); why != "" {
			r.add(steplog.Step{Action: "pick_binding", URL: steplog.RedactURL(x.Endpoint), Note: x.Transport + " " + why})
			continue
		}
		return x, PathResult{}, true
	}
	switch {
	case seen:
		return binding{}, r.end(OutcomeNoCart, "ucp_no_usable_binding"), false
	case transport != "":
		r.add(steplog.Step{Action: "pick_binding", Note: "the profile declares no " + transport + " binding"})
		return binding{}, r.end(OutcomeNoCart, "ucp_transport_not_declared"), false
	}
	r.add(steplog.Step{Action: "pick_binding", Note: "no REST or MCP binding"})
	return binding{}, r.end(OutcomeNotAttempted, "ucp_binding_not_driven"), false
}

// endpointUnusable says why the path sends nothing to a binding's
// endpoint ("" when it can): none declared, not https (the spec requires
// https; svc never sends a UCP request in the clear), or no host.
func endpointUnusable(endpoint string) string {
	if endpoint == "" {
		return "binding declares no endpoint: the path has nowhere to send"
	}
	u, err := url.Parse(endpoint)
	switch {
	case err != nil || u.Scheme == "" || u.Host == "" && u.Scheme == "https":
		return "endpoint is not a URL: the path sends nothing there"
	case u.Scheme != "https":
		return "endpoint is not https: the path sends nothing there"
	}
	return ""
}
