package leaderboard

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"svc/pipeline/detect"
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

// ucpForbidden are the operations the path never performs.
var ucpForbidden = []string{"complete_checkout", "complete"}

// ucpCodeRE is the shape of a UCP error or message code; anything else a
// store sends is not copied into a log.
var ucpCodeRE = regexp.MustCompile(`^[a-z][a-z0-9_.]{0,63}$`)

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

// ucpDoc is the part of a profile the path reads, in any release:
// capabilities are a registry keyed by name from 2026-01-23 on, an array
// of {name, version, spec, schema} in 2026-01-11.
type ucpDoc struct {
	UCP struct {
		Version           string                     `json:"version"`
		SupportedVersions map[string]string          `json:"supported_versions"`
		Services          map[string]json.RawMessage `json:"services"`
		Capabilities      json.RawMessage            `json:"capabilities"`
	} `json:"ucp"`
}

// capabilities are the names of the capabilities the profile declares.
func (d ucpDoc) capabilities() map[string]bool {
	caps := map[string]bool{}
	var byName map[string]json.RawMessage
	if json.Unmarshal(d.UCP.Capabilities, &byName) == nil {
		for k := range byName {
			caps[k] = true
		}
		return caps
	}
	var list []struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(d.UCP.Capabilities, &list) == nil {
		for _, c := range list {
			if c.Name != "" {
				caps[c.Name] = true
			}
		}
	}
	return caps
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

// negotiate picks the protocol version by the rules of overview "Initial
// Service and Capability Discovery": the newest version both the business
// (version and supported_versions keys) and the path speak; "" when none.
func negotiate(d ucpDoc) string {
	offered := []string{d.UCP.Version}
	for v := range d.UCP.SupportedVersions {
		offered = append(offered, v)
	}
	best := ""
	for _, v := range offered {
		if slices.Contains(UCPVersions, v) && v > best {
			best = v
		}
	}
	return best
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

// maxFindingRules bounds the rule ids a validate_profile step names.
const maxFindingRules = 6

// findingsNote is the validate_profile step of a profile the validator
// did not call valid: what it found (rule ids, never the store's text), and
// that the path goes on, since validity is a finding and not a gate.
func findingsNote(rep *ucp.Report) string {
	var rules []string
	for _, it := range rep.Errors {
		if !slices.Contains(rules, it.Rule) {
			rules = append(rules, it.Rule)
		}
	}
	for _, c := range rep.HTTPChecks {
		if c.Status == "fail" && !slices.Contains(rules, c.Rule) {
			rules = append(rules, c.Rule)
		}
	}
	var b strings.Builder
	if !rep.Schema.Checked {
		b.WriteString("the UCP JSON Schema was not checked (this run has no UCP schema files), so the profile is neither valid nor invalid here; ")
	}
	if len(rules) > 0 {
		b.WriteString("the validation report finds " + strconv.Itoa(rep.Counts.Errors) + " error(s): " +
			strings.Join(firstN(rules, maxFindingRules), ", ") + "; ")
	}
	b.WriteString("the path reads the profile's structure itself and goes on: validity is a finding, not a gate")
	return b.String()
}

// parseUCPDoc reads the part of a profile the path uses, leniently, as a
// client does: a member of the wrong type is left empty rather than
// making the whole profile unreadable. ok is false when the document is
// not a JSON object with a ucp object.
func parseUCPDoc(b []byte) (ucpDoc, bool) {
	var d ucpDoc
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) != nil {
		return d, false
	}
	var u map[string]json.RawMessage
	if json.Unmarshal(top["ucp"], &u) != nil || u == nil {
		return d, false
	}
	_ = json.Unmarshal(u["version"], &d.UCP.Version)
	var sv map[string]any
	if json.Unmarshal(u["supported_versions"], &sv) == nil {
		for k, v := range sv {
			if s, ok := v.(string); ok {
				if d.UCP.SupportedVersions == nil {
					d.UCP.SupportedVersions = map[string]string{}
				}
				d.UCP.SupportedVersions[k] = s
			}
		}
	}
	_ = json.Unmarshal(u["services"], &d.UCP.Services)
	d.UCP.Capabilities = u["capabilities"]
	return d, true
}

// releaseFindings checks a profile the validator did not call valid
// against the JSON Schema of the release it declares, when that is an
// older release the path speaks, and logs what it found
// (check_release_schema): the validator checks every profile against
// ucp.TargetRelease, whose format (capabilities keyed by name, services as
// arrays of bindings) a 2026-01-11 profile does not follow, nor needs to.
// It is a finding only: nothing here stops the path. Defects only in
// payment handlers are named as such (the path pays nothing; the UCP
// authors' own sample lists handlers versioned "1.0", where 2026-01-11
// wants a date).
func (r *ucpRun) releaseFindings(ctx context.Context, v *ucp.Validator, profile []byte, version string) {
	if version == ucp.TargetRelease || !slices.Contains(UCPVersions, version) {
		return
	}
	step := steplog.Step{Action: "check_release_schema"}
	errs, err := v.ValidateRelease(ctx, profile, version)
	if err != nil {
		step.Note = "the UCP " + version + " JSON Schema could not be checked"
		r.add(step)
		return
	}
	var blocking, payment []string
	for _, e := range errs {
		if e.Pointer == "/payment" || strings.HasPrefix(e.Pointer, "/payment/") || strings.HasPrefix(e.Pointer, "/ucp/payment_handlers") {
			payment = append(payment, e.String())
		} else {
			blocking = append(blocking, e.String())
		}
	}
	switch {
	case len(blocking) > 0:
		step.Note = "the UCP " + version + " JSON Schema, the release it declares, finds: " + strings.Join(firstN(blocking, 3), "; ")
	case len(payment) > 0:
		step.Note = "the UCP " + version + " JSON Schema, the release it declares, finds defects only in payment handlers, which the path never uses: " +
			strings.Join(firstN(payment, 3), "; ")
	default:
		step.Note = "valid against the UCP " + version + " JSON Schema, the release it declares (the validator checks " + ucp.TargetRelease + ")"
	}
	r.add(step)
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "...")
	}
	return s
}

// unknownRelease ends the path at a business that offers no release the
// path speaks and at least one svc does not know: no_cart
// ucp_version_unknown, the step log naming the releases (a reason code is
// a fixed word, never carries a value).
func (r *ucpRun) unknownRelease(doc ucpDoc, unknown []string) PathResult {
	r.add(steplog.Step{Action: "negotiate_version", Codes: []string{"version_unsupported"},
		Note: "the business offers " + offeredVersions(doc) + ", of which " + strings.Join(unknown, ", ") +
			" is no UCP release svc knows; the path speaks " + strings.Join(UCPVersions, ", ")})
	return r.end(OutcomeNoCart, "ucp_version_unknown")
}

// unknownVersions are the well-formed versions a business offers that are
// no UCP release svc knows, sorted.
func unknownVersions(d ucpDoc) []string {
	var out []string
	known := ucp.Releases()
	for _, v := range append([]string{d.UCP.Version}, slices.Collect(maps.Keys(d.UCP.SupportedVersions))...) {
		if ucpVersionRE.MatchString(v) && !slices.Contains(known, v) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// ucpVersionRE is the shape of a UCP version (YYYY-MM-DD).
var ucpVersionRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

func offeredVersions(d ucpDoc) string {
	vs := []string{d.UCP.Version}
	for v := range d.UCP.SupportedVersions {
		vs = append(vs, v)
	}
	sort.Strings(vs)
	return strings.Join(slices.Compact(vs), ", ")
}

// ucpAnswer is one operation's answer, binding-independent.
type ucpAnswer struct {
	status  int            // HTTP status; 0 when none came
	rpc     string         // JSON-RPC outcome of an MCP call
	body    map[string]any // the UCP object (REST body, MCP structuredContent)
	codes   []string       // UCP codes of errors and messages
	failure string         // no answer: timeout, unreachable, not_ucp, unsigned (not sent)
}

// ok reports a successful operation: an answer that is no error, and no
// error response envelope (ucp.status "error": checkout rest.md "Error
// Response").
func (a ucpAnswer) ok() bool {
	if a.failure != "" || a.status >= 400 || a.rpc != "" && a.rpc != "result" || a.body == nil {
		return false
	}
	env, _ := a.body["ucp"].(map[string]any)
	st, _ := env["status"].(string)
	return st != "error"
}

// ucpDriver performs an operation over one binding. id is the session of
// get, update and cancel.
type ucpDriver interface {
	do(ctx context.Context, op, id string, arg map[string]any) ucpAnswer
	offers(op string) bool
}

// shop drives catalog → cart → checkout over d and stops.
func (r *ucpRun) shop(ctx context.Context, d ucpDriver, caps map[string]bool, origin string) PathResult {
	item, currency := "", ""
	if caps[capCatalogSearch] && d.offers("search_catalog") {
		a := d.do(ctx, "search_catalog", "", map[string]any{"query": "", "pagination": map[string]any{"limit": 10}})
		if res, stop := r.failed(a, "ucp_catalog_failed"); stop {
			return res
		}
		item = itemFromCatalog(a.body)
		if item == "" {
			return r.end(OutcomeNoCart, "ucp_catalog_empty")
		}
	} else {
		item = r.publicCatalogItem(ctx, origin)
		if item == "" {
			item, currency = r.storefrontItem(ctx, origin)
		}
		if item == "" {
			return r.end(OutcomeNoCart, "ucp_no_product_source")
		}
	}
	line := []any{map[string]any{"item": map[string]any{"id": item}, "quantity": 1}}
	checkout := map[string]any{"line_items": line}
	if r.version == "2026-01-11" {
		// 2026-01-11 shopping/checkout.json: a create request requires
		// currency and payment (from 2026-01-23 the business sets the
		// currency and payment is optional). payment is sent empty: no
		// instrument, no credential.
		if currency == "" {
			currency = "USD"
		}
		checkout["currency"] = currency
		checkout["payment"] = map[string]any{}
	}
	if caps[capCart] && d.offers("create_cart") {
		a := d.do(ctx, "create_cart", "", map[string]any{"line_items": line})
		if res, stop := r.failed(a, "ucp_cart_failed"); stop {
			return res
		}
		cartID, _ := a.body["id"].(string)
		if cartID == "" {
			return r.end(OutcomeNoCart, "ucp_cart_failed")
		}
		if d.offers("get_cart") {
			d.do(ctx, "get_cart", cartID, nil)
		}
		// cart index.md: checkout is initialized from the cart by cart_id
		// when the cart capability is advertised.
		checkout = map[string]any{"cart_id": cartID}
	}
	a := d.do(ctx, "create_checkout", "", checkout)
	if res, stop := r.failed(a, "ucp_checkout_refused"); stop {
		return res
	}
	id, _ := a.body["id"].(string)
	if id == "" {
		return r.end(OutcomeNoCart, "ucp_checkout_refused")
	}
	d.do(ctx, "get_checkout", id, nil)
	if d.offers("cancel_checkout") {
		d.do(ctx, "cancel_checkout", id, nil)
	}
	return r.end(OutcomeCheckoutReached, "ucp_checkout_created")
}

// failed maps an operation that did not succeed to the path's end; stop
// is false when it succeeded.
func (r *ucpRun) failed(a ucpAnswer, refused string) (PathResult, bool) {
	if a.ok() {
		return PathResult{}, false
	}
	has := func(codes ...string) bool {
		for _, c := range codes {
			if slices.Contains(a.codes, c) {
				return true
			}
		}
		return false
	}
	switch {
	case a.failure == "timeout":
		return r.end(OutcomeError, "ucp_binding_timeout"), true
	case a.failure == "unsigned":
		return r.end(OutcomeError, "ucp_signing_failed"), true
	case a.failure != "":
		return r.end(OutcomeNoCart, "ucp_binding_unreachable"), true
	case has("version_unsupported"):
		return r.end(OutcomeNoCart, "ucp_version_unsupported"), true
	case has("signature_missing"):
		// Message Signatures (signatures.md): the business wants a
		// signature and svc sent none (no signing key was configured).
		return r.end(OutcomeNoCart, "ucp_signature_required"), true
	case has("signature_invalid", "key_not_found", "algorithm_unsupported", "digest_mismatch"):
		// svc signed, and the business did not accept it: the key is not
		// the one the profile svc named publishes, or it does not verify.
		return r.end(OutcomeNoCart, "ucp_signature_rejected"), true
	case has("identity_required", "insufficient_scope"), a.status == http.StatusUnauthorized, a.status == http.StatusForbidden:
		// Identity linking: svc links no buyer account.
		return r.end(OutcomeNoCart, "ucp_buyer_auth_required"), true
	case has("invalid_profile_url", "profile_unreachable", "profile_malformed"):
		return r.end(OutcomeNoCart, "ucp_agent_profile_refused"), true
	case a.status == http.StatusTooManyRequests:
		return r.end(OutcomeBlocked, "throttled"), true
	case a.status == http.StatusNotFound && len(r.log) > 0 && r.firstOp():
		return r.end(OutcomeNoCart, "ucp_binding_unreachable"), true
	}
	return r.end(OutcomeNoCart, refused), true
}

// firstOp reports whether the last step was the binding's first operation
// (a 404 there means the declared binding is not served).
func (r *ucpRun) firstOp() bool {
	return r.ops <= 1
}

// itemFromCatalog takes the first available variant of a catalog answer
// (catalog search.md: products[].variants[] with id and availability).
func itemFromCatalog(body map[string]any) string {
	products, _ := body["products"].([]any)
	first := ""
	for _, p := range products {
		pm, _ := p.(map[string]any)
		variants, _ := pm["variants"].([]any)
		for _, v := range variants {
			vm, _ := v.(map[string]any)
			id, _ := vm["id"].(string)
			if id == "" {
				continue
			}
			if first == "" {
				first = id
			}
			av, _ := vm["availability"].(map[string]any)
			if ok, _ := av["available"].(bool); ok {
				return id
			}
		}
	}
	return first
}

// publicCatalogItem finds an item id in the store's public JSON catalog
// when the profile declares no catalog capability: /products.json, then
// the WooCommerce Store API. The id is a variant's SKU (else its id).
func (r *ucpRun) publicCatalogItem(ctx context.Context, origin string) string {
	for _, path := range []string{"/products.json", "/wp-json/wc/store/v1/products", "/wp-json/wc/store/products"} {
		resp, err := r.client.Get(ctx, origin+path)
		step := steplog.Step{Action: "public_catalog", URL: origin + path}
		if err != nil {
			step.Note = "no answer"
			r.add(step)
			continue
		}
		step.Status = resp.StatusCode
		item := ""
		if resp.StatusCode == http.StatusOK {
			item = itemFromPublicCatalog(resp.Body)
		}
		if item == "" {
			step.Note = "no product"
			r.add(step)
			continue
		}
		step.Note = "product found"
		r.add(step)
		return item
	}
	return ""
}

// maxStorefrontPages bounds the product pages storefrontItem reads.
const maxStorefrontPages = 4

// storefrontItem finds an item id as a shopper would, on the storefront:
// the product pages the homepage links to, and the Product JSON-LD they
// carry. The id is the first in-stock product's sku; currency is its
// offer's. A homepage that does not answer gives "".
func (r *ucpRun) storefrontItem(ctx context.Context, origin string) (item, currency string) {
	resp, err := r.client.Get(ctx, origin+"/")
	step := steplog.Step{Action: "storefront_home", URL: origin + "/"}
	if err != nil {
		step.Note = "no answer"
		r.add(step)
		return "", ""
	}
	step.Status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		r.add(step)
		return "", ""
	}
	links := detect.ProductLinks(detect.NewPage(resp.URL, resp.StatusCode, resp.Header, resp.Body))
	step.Note = strconv.Itoa(len(links)) + " product links"
	r.add(step)
	for i, l := range links {
		if i >= maxStorefrontPages {
			break
		}
		resp, err := r.client.Get(ctx, l)
		step := steplog.Step{Action: "product_page", URL: steplog.RedactURL(l)}
		if err != nil {
			step.Note = "no answer"
			r.add(step)
			continue
		}
		step.Status = resp.StatusCode
		if resp.StatusCode == http.StatusOK {
			ld := detect.ExtractJSONLD(detect.NewPage(resp.URL, resp.StatusCode, resp.Header, resp.Body))
			for _, p := range ld.Products {
				if p.SKU == "" || !inStock(p) {
					continue
				}
				step.Note = "Product JSON-LD with a sku"
				r.add(step)
				for _, o := range p.Offers {
					if o.Currency != "" {
						return p.SKU, o.Currency
					}
				}
				return p.SKU, ""
			}
		}
		step.Note = "no in-stock Product JSON-LD with a sku"
		r.add(step)
	}
	return "", ""
}

// inStock reports whether a product's offers do not all say it cannot be
// bought.
func inStock(p detect.Product) bool {
	if len(p.Offers) == 0 {
		return true
	}
	for _, o := range p.Offers {
		switch o.Availability {
		case "OutOfStock", "SoldOut", "Discontinued":
		default:
			return true
		}
	}
	return false
}

func itemFromPublicCatalog(b []byte) string {
	type variant struct {
		ID        json.Number `json:"id"`
		SKU       string      `json:"sku"`
		Available *bool       `json:"available"`
	}
	var shop struct {
		Products []struct {
			Variants []variant `json:"variants"`
		} `json:"products"`
	}
	pick := func(vs []variant) string {
		for _, v := range vs {
			if v.Available != nil && !*v.Available {
				continue
			}
			if v.SKU != "" {
				return v.SKU
			}
			if v.ID != "" {
				return v.ID.String()
			}
		}
		return ""
	}
	if json.Unmarshal(b, &shop) == nil && len(shop.Products) > 0 {
		for _, p := range shop.Products {
			if id := pick(p.Variants); id != "" {
				return id
			}
		}
		return ""
	}
	var woo []variant
	if json.Unmarshal(b, &woo) == nil {
		return pick(woo)
	}
	return ""
}

// uuid4 is a random RFC 4122 version 4 UUID, for Request-Id and
// Idempotency-Key (rest.openapi.json: both format uuid).
func uuid4() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// codesOf collects the UCP codes of an answer: a protocol error's code,
// error.data.code, and the codes of messages (never their text).
func codesOf(v map[string]any) []string {
	var out []string
	addCode := func(c any) {
		if s, _ := c.(string); ucpCodeRE.MatchString(s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if v == nil {
		return nil
	}
	addCode(v["code"])
	msgs, _ := v["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		addCode(mm["code"])
	}
	sort.Strings(out)
	return out
}

func forbidden(op string) bool {
	return slices.Contains(ucpForbidden, op) || strings.HasSuffix(op, "/complete")
}

// errForbidden is what a driver returns for an operation the path never
// performs; reaching it is a bug the tests look for.
var errForbidden = errors.New("ucp path: operation not allowed")
