package leaderboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"svc/datasets/svc100"
	"svc/pipeline/check"
	"svc/pipeline/fetch"
	"svc/pipeline/httpsig"
	"svc/pipeline/ucp"
)

// MethodVersion names the method of the pipeline's own agent-path runs; it
// is the agent.version of those runs and changes when what they do changes.
//
// agent-path/1 drove UCP as far as catalog search; agent-path/2 (issue 21)
// creates, reads back and cancels a UCP checkout session over REST or MCP;
// agent-path/3 (issue 33) speaks the release the business declares (the
// 2026-01 shapes too) and names it in UCP-Agent, takes an item from the
// storefront's Product JSON-LD when no catalog answers, and starts at the
// profile or endpoint rather than the home page. agent-path/4 (issue 35)
// is a client of the profile, not its validator: JSON Schema validity and
// hosting rules are findings in the step log and stop nothing, so a run
// without the UCP schema files measures the UCP path too; only a profile
// it cannot use stops it, and every reason code is a fixed word
// (ucp_version_unknown, the release in the step log).
const MethodVersion = "agent-path/4"

// RunOptions configure the pipeline's own agent-path runs.
type RunOptions struct {
	// RunDir is the run folder, DIR/work/<run>; the runs are written to
	// RunDir/agent_runs/ucp.json and mcp.json.
	RunDir string
	// RunID is the pipeline run's id; the runs are svc-ucp-<RunID> and
	// svc-mcp-<RunID>.
	RunID string
	// Client is the safe HTTP client (with the fixture flags over the
	// fixture world). Required.
	Client *fetch.Client
	// UCP validates the stores' UCP profiles. Nil skips the UCP path: no
	// ucp.json is written and the board shows that path as not run.
	UCP *ucp.Validator
	// AgentProfile is the URL of the service's UCP platform profile (the
	// document PlatformProfile, served by `svc serve` at
	// AgentProfileURL(base)), sent in the UCP-Agent header (REST) and as
	// meta["ucp-agent"].profile (MCP); empty sends DefaultAgentProfile,
	// which serves nothing, and the step log and the run's notes say so.
	AgentProfile string
	// AgentKey is svc's signing key (LoadAgentKey): with it every request
	// to a UCP shopping binding is signed (ucpsign.go), and a business
	// verifies it against the key the profile at AgentProfile publishes.
	// Nil sends unsigned requests, which a business that demands
	// signatures refuses (no_cart [ucp_signature_required]).
	AgentKey *httpsig.Key
	// UCPTransport makes the UCP path drive the binding of that transport
	// ("rest" or "mcp"); empty takes the first REST or MCP binding the
	// profile declares.
	UCPTransport string
	// Now is the clock of the run's timestamps; default time.Now.
	Now func() time.Time
	// Concurrency bounds stores attempted at once; default 8. Within a
	// store the requests go one at a time, and its homepage, when a path
	// needs it, is read once for both paths.
	Concurrency int
	// Force measures again when the files exist; by default an existing
	// run is kept, so a resumed pipeline run does not measure twice.
	Force bool
}

// RunAgentPaths runs the service's own UCP-path and storefront-MCP-path
// runs over SVC-100 v1, driving catalog → cart at each store and stopping
// before payment: no checkout URL is followed or kept, only whether one
// came back. The results are written in the submission format, labelled as
// measured by the service. A store that fails is an outcome (error,
// blocked), never a stopped run; only a cancelled ctx or a write failure
// is an error.
//
// Neither path needs the homepage (runOne): each reads its own entry
// point, so a homepage that fails stops neither. When a path finds nothing
// there (no MCP endpoint; no UCP profile answer), the homepage says why:
// unreachable: error [unreachable_<class>]; a bot wall or blocking status:
// blocked [blocked_<reason>]; parked or another brand: not_attempted
// [not_a_store].
//
// Outcomes of the storefront MCP path, in order (reason code in brackets):
//
//   - /api/mcp lists no catalog search tool: no_cart [no_storefront_mcp];
//   - the search fails: no_cart [catalog_search_failed]; it answers empty
//     with throttle signals, or is refused with 429: blocked [throttled];
//     empty: no_cart [catalog_empty];
//   - no update_cart tool: no_cart [no_cart_tool]; update_cart fails:
//     no_cart [cart_failed];
//   - the cart came back with a checkout link: checkout_reached
//     [checkout_link_returned] (the link shows checkout was reachable; it is
//     never opened); a cart without one: added_to_cart [cart_created].
//
// Outcomes of the UCP path (ucppath.go): the profile at /.well-known/ucp,
// read and validated: missing or unreachable is no_cart
// [ucp_profile_missing | ucp_profile_unreachable]. Whether it is valid
// (JSON Schema, spec rules, hosting rules such as Cache-Control) is
// reported in the validation report and the step log, and stops nothing,
// with or without the schema files: the path reads the structure itself.
// Only a profile it cannot use stops it: not a JSON object with a ucp
// object (or over 256 KB): no_cart [ucp_profile_invalid]; no
// dev.ucp.shopping binding: no_cart [ucp_no_shopping_service]; a business
// that offers a release svc does not know: no_cart [ucp_version_unknown]
// (the step log names the release); no mutual protocol version: no_cart
// [ucp_version_unsupported]; no REST or MCP binding: not_attempted
// [ucp_binding_not_driven]; no REST or MCP binding with an https endpoint:
// no_cart [ucp_no_usable_binding]. Over the binding: no answer or 404 at
// the first operation: no_cart [ucp_binding_unreachable]; too slow: error
// [ucp_binding_timeout]; the business refuses the version, wants a
// signature of a request svc sent unsigned, rejects svc's signature (the
// key is not in the profile svc named, the signature or digest does not
// verify), cannot fetch svc's profile, or wants a buyer identity svc does
// not hold: no_cart [ucp_version_unsupported | ucp_signature_required |
// ucp_signature_rejected | ucp_agent_profile_refused |
// ucp_buyer_auth_required]; 429: blocked
// [throttled]. A product from the catalog capability (else the public
// catalog, else the Product JSON-LD of the product pages the homepage
// links to): none [ucp_catalog_failed | ucp_catalog_empty |
// ucp_no_product_source]; a cart when declared [ucp_cart_failed]; then a
// checkout session: refused [ucp_checkout_refused], created:
// checkout_reached [ucp_checkout_created]. The session is read back and
// cancelled; complete is never called and no payment is ever sent.
func RunAgentPaths(ctx context.Context, opts RunOptions) error {
	if opts.Client == nil {
		return errors.New("agent-path runs: no HTTP client")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 8
	}
	doUCP := opts.UCP != nil
	if !opts.Force && exists(agentRunFile(opts.RunDir, PathMCP)) && (!doUCP || exists(agentRunFile(opts.RunDir, PathUCP))) {
		return nil
	}
	eng := check.New(check.Options{Client: opts.Client, UCP: opts.UCP, Now: opts.Now})
	stores := svc100.Stores()
	mcpRes := make([]attempt, len(stores))
	ucpRes := make([]attempt, len(stores))
	started := opts.Now().UTC().Truncate(time.Microsecond)

	sem := make(chan struct{}, opts.Concurrency)
	var wg sync.WaitGroup
	for i, st := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				return
			}
			origin := "https://" + st.Host
			home := &homeReading{}
			at := opts.Now().UTC().Truncate(time.Microsecond)
			res, err := runOne(ctx, eng, opts, PathMCP, origin, home)
			if err != nil {
				return
			}
			mcpRes[i] = attempt{at: at, outcome: res.Outcome, reason: res.Reason, end: opts.Now()}
			if doUCP {
				at := opts.Now().UTC().Truncate(time.Microsecond)
				res, err := runOne(ctx, eng, opts, PathUCP, origin, home)
				if err != nil {
					return
				}
				ucpRes[i] = attempt{at: at, outcome: res.Outcome, reason: res.Reason, end: opts.Now()}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("agent-path runs: %w", err)
	}
	finished := opts.Now().UTC().Truncate(time.Microsecond)
	write := func(pathID string, res []attempt) error {
		r := ownRun(opts.RunID, pathID, stores, res, started, finished)
		if pathID == PathUCP {
			r.Submission.Run.Notes += " " + agentProfileNote(opts.AgentProfile) + " " + signingNote(opts.AgentKey, opts.AgentProfile)
		}
		if _, err := Parse(mustJSON(r.Submission)); err != nil {
			return fmt.Errorf("agent-path run %s: the run does not validate: %w", pathID, err)
		}
		return writeAgentRun(opts.RunDir, r)
	}
	if err := write(PathMCP, mcpRes); err != nil {
		return err
	}
	if doUCP {
		if err := write(PathUCP, ucpRes); err != nil {
			return err
		}
	}
	return nil
}

// agentProfileNote is the sentence of a UCP run's notes that names the
// profile its requests advertised.
func agentProfileNote(profile string) string {
	if profile == "" {
		return "UCP-Agent: " + placeholderNote + "."
	}
	return "UCP-Agent named the platform profile " + profile + "."
}

// signingNote is the sentence of a UCP run's notes that says whether its
// requests were signed, and with which key (by its public id).
func signingNote(k *httpsig.Key, profile string) string {
	switch {
	case k == nil:
		return "Requests were not signed: no signing key was configured."
	case profile == "":
		return "Requests to UCP bindings were signed (RFC 9421, ES256) with the key " + k.KeyID() +
			", which no profile a business can fetch publishes: a business that verifies signatures refuses them."
	}
	return "Requests to UCP bindings were signed (RFC 9421, ES256) with the key " + k.KeyID() + ", published in that profile."
}

type attempt struct {
	at, end         time.Time
	outcome, reason string
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("leaderboard: " + err.Error()) // plain structs: cannot fail
	}
	return b
}

// ownRun turns the attempts into a submission labelled as the service's.
func ownRun(runID, pathID string, stores []svc100.Store, res []attempt, started, finished time.Time) *AgentRun {
	var info PathInfo
	for _, p := range Paths {
		if p.ID == pathID {
			info = p
		}
	}
	sub := &Submission{
		Spec: svc100.Spec, TestSet: svc100.TestSet,
		Agent: Agent{Name: info.Agent, Version: MethodVersion, Builder: MeasuredBy, Path: info.Path},
		Run: Run{
			StartedAt: started.Format(time.RFC3339Nano), FinishedAt: finished.Format(time.RFC3339Nano),
			StoppedBeforePayment: true,
			Notes: "The service's own measured run over plain HTTP (" + info.Label + ", method " + MethodVersion +
				"): catalog, then cart, stopped before payment. No checkout URL was followed or kept.",
		},
	}
	reasons := map[string]string{}
	for i, st := range stores {
		a := res[i]
		secs := a.end.Sub(a.at).Seconds()
		if secs < 0 {
			secs = 0
		}
		secs = float64(int64(secs*1000)) / 1000
		sub.Results = append(sub.Results, Result{ID: st.ID, Outcome: a.outcome, At: a.at.Format(time.RFC3339Nano), Seconds: &secs})
		reasons[st.ID] = a.reason
	}
	return &AgentRun{
		RunID: "svc-" + pathID + "-" + runID, PathID: pathID, MeasuredBy: MeasuredBy,
		Method:  "the service's own agent-path run over plain HTTP, method " + MethodVersion,
		Reasons: reasons, Submission: sub,
	}
}

// gate maps a homepage that is no shop to go on with to an outcome.
func gate(h check.Home) (outcome, reason string, gated bool) {
	switch {
	case !h.Reachable:
		return OutcomeError, "unreachable_" + h.ErrorClass, true
	case h.Blocked:
		return OutcomeBlocked, "blocked_" + h.BlockReason, true
	case h.NotAStore:
		return OutcomeNotAttempted, "not_a_store", true
	}
	return "", "", false
}

// mcpOutcome maps a storefront MCP attempt to an outcome (see
// RunAgentPaths).
func mcpOutcome(c check.StorefrontCart) (outcome, reason string) {
	switch {
	case !c.Endpoint || !c.CatalogTool:
		return OutcomeNoCart, "no_storefront_mcp"
	case c.Throttled && c.Products == 0:
		return OutcomeBlocked, "throttled"
	case !c.CatalogAnswered:
		return OutcomeNoCart, "catalog_search_failed"
	case c.Products == 0:
		return OutcomeNoCart, "catalog_empty"
	case !c.CartTool:
		return OutcomeNoCart, "no_cart_tool"
	case !c.CartCreated:
		return OutcomeNoCart, "cart_failed"
	case c.CheckoutLink:
		return OutcomeCheckoutReached, "checkout_link_returned"
	}
	return OutcomeAddedToCart, "cart_created"
}

// binding is one dev.ucp.shopping service binding of a profile.
type binding struct {
	Transport string `json:"transport"`
	Endpoint  string `json:"endpoint"`
}

func shoppingBindings(profile []byte) []binding {
	var doc struct {
		UCP struct {
			Services map[string]json.RawMessage `json:"services"`
		} `json:"ucp"`
	}
	if json.Unmarshal(profile, &doc) != nil {
		return nil
	}
	raw, ok := doc.UCP.Services["dev.ucp.shopping"]
	if !ok {
		return nil
	}
	var list []binding
	if json.Unmarshal(raw, &list) == nil {
		return list
	}
	// One service object: a binding with its transport, or the 2026-01-11
	// shape (service.json of that release), a member per transport:
	// {"version", "spec", "rest": {"schema", "endpoint"}, "mcp": {...}}.
	var one map[string]json.RawMessage
	if json.Unmarshal(raw, &one) != nil {
		return nil
	}
	if _, ok := one["transport"]; ok {
		var b binding
		if json.Unmarshal(raw, &b) != nil {
			return nil
		}
		return []binding{b}
	}
	for _, tr := range []string{"rest", "mcp", "a2a", "embedded"} {
		var t struct {
			Endpoint string `json:"endpoint"`
		}
		if m, ok := one[tr]; ok && json.Unmarshal(m, &t) == nil {
			list = append(list, binding{Transport: tr, Endpoint: t.Endpoint})
		}
	}
	return list
}
