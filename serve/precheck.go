package serve

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"svc/datasets"
	"svc/pipeline/fetch"
	"svc/serve/readlayer"
)

// The pre-checkout answer (spec 2.2): before an agent tries to buy, what
// the saved data says about reaching checkout at a store. Precheck reads
// saved data only: the snapshot's directory and rails row, the history of
// live checks, and plain-HTTP reachability saved by store submission. It
// fetches nothing from the store (spec 4.2.2 and DESIGN 1: only the live
// check, UCP validation by URL and submission vetting go out). So the
// plain-HTTP fallback of a host with no row is built from saved
// reachability, and scan_url points at the live check that measures it.

// NotProved is the sentence every rail's proves line includes (spec 2.2).
const NotProved = "Does not prove an agent completed checkout."

// StaleAfter is the age at which a saved check is stale (spec 2.2).
const StaleAfter = 24 * time.Hour

// precheckPerMinute is the precheck limit per network (spec 8).
const precheckPerMinute = 60

// Precheck sources that the directory does not vouch for: the answer says
// known=false (spec 2.2).
var unknownSources = map[string]bool{
	"third-party-list": true, "map-derived": true, "campaign": true, "opted-out": true,
}

// PrecheckAnswer is the pre-checkout answer. Field order is the JSON key
// order: last_checked comes right after host.
type PrecheckAnswer struct {
	Host string `json:"host"`
	// LastChecked, CheckedAgo and Stale describe the check that produced
	// the answer shown.
	LastChecked *time.Time `json:"last_checked"`
	CheckedAgo  string     `json:"checked_ago"`
	Stale       bool       `json:"stale"`
	Known       bool       `json:"known"`
	// ReachableCheckout is the saved check's cart link: true when the
	// store's cart returned a checkout link; null when not measured.
	ReachableCheckout *bool          `json:"reachable_checkout"`
	Verdict           *string        `json:"verdict"`
	Rails             []Rail         `json:"rails"`
	Blockers          []Blocker      `json:"blockers"`
	Confidence        string         `json:"confidence"`
	Source            string         `json:"source"`
	Licence           string         `json:"licence"`
	ReportOutcome     *ReportOutcome `json:"report_outcome"`
	ScanURL           string         `json:"scan_url,omitempty"`
	// The plain-HTTP fallback, present only when no directory, rails or
	// history row exists.
	*PrecheckFallback
	LastReachableCheck *LastReachable `json:"lastReachableCheck,omitempty"`
}

// Rail is one agent-commerce rail of the saved check.
type Rail struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Proves string `json:"proves"`
}

// Blocker is one thing the saved check saw that stops agents.
type Blocker struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ReportOutcome says how an agent reports the outcome of its checkout
// attempt (the reportCheckout operation).
type ReportOutcome struct {
	OperationID string   `json:"operationId"`
	Method      string   `json:"method"`
	URL         string   `json:"url"`
	Body        any      `json:"body"`
	Outcomes    []string `json:"outcomes"`
}

// PrecheckFallback is the plain-HTTP fallback (spec 2.2). It holds no
// address, response body or raw error.
type PrecheckFallback struct {
	Proves         string     `json:"proves"`
	CheckedAt      *time.Time `json:"checkedAt"`
	Sources        []string   `json:"sources"`
	EvidenceLevel  string     `json:"evidenceLevel"`
	CheckoutTested bool       `json:"checkoutTested"`
	Note           string     `json:"note"`
}

// LastReachable is a plain-HTTP reachability time newer than the check
// behind the answer. It does not re-verify the checkout link or rails.
type LastReachable struct {
	CheckedAt         time.Time `json:"checkedAt"`
	Proves            string    `json:"proves"`
	EvidenceLevel     string    `json:"evidenceLevel"`
	ReachabilityStale bool      `json:"reachability_stale"`
}

const (
	evidenceHTTPOnly = "http-only"
	proveReachable   = "The homepage answered a plain HTTPS GET, and was not a parked page or a redirect to another brand, when the store was submitted. " + NotProved
	proveNothing     = "Nothing: no saved check or plain-HTTP reachability of this host exists. " + NotProved
	// proveLiveReachable is what a live check newer than the verdict's
	// check proves here; its own results are the store card's liveCheck.
	proveLiveReachable = "The homepage answered a plain HTTPS GET in a live check (GET /api/agent-checkout) made after the check behind this verdict; " +
		"that check's own results are on the store card (liveCheck) and do not replace the verdict, rails or blockers here. " + NotProved
)

// rails, in answer order, with what each proves.
var railProves = []struct{ name, proves string }{
	{"catalog", "A catalog endpoint of the store (storefront MCP, /products.json, the WooCommerce Store API, or a headless platform's public GraphQL catalog: Vendure, EverShop) answered a plain-HTTP request, with a named and priced product when status is product_found. " + NotProved},
	{"checkout_link", "The store's cart, driven over plain HTTP, returned a checkout link when status is returned; the link itself is never kept. " + NotProved},
	{"ucp", "The store's /.well-known/ucp profile was checked against the UCP 2026-08-25 schema and rules; valid is not certification and does not show that its endpoints work. " + NotProved},
	{"storefront_mcp", "The platform's storefront MCP endpoint answered JSON-RPC and listed catalog tools when status is detected. " + NotProved},
	{"webmcp", "The homepage's server HTML declares a WebMCP tool when status is detected; this is not a browser session. " + NotProved},
	{"checkout_webmcp", "Checkout WebMCP: measured (svc's browser shopper reached the checkout page and read the WebMCP tools there), evidence seen, inferred from the platform, or unknown; a buyer's approval is still required. " + NotProved},
	{"acp", "The store serves an ACP discovery document at /.well-known/acp.json when status is found. " + NotProved},
}

// IsInternalAgent reports whether a User-Agent is the service's own
// (SVC-<name>-internal, the first product token, any case): its prechecks
// are not counted in the statistics.
func IsInternalAgent(ua string) bool {
	tok := strings.Fields(ua)
	if len(tok) == 0 {
		return false
	}
	name, _, _ := strings.Cut(tok[0], "/")
	ok, _ := path.Match("svc-*-internal", strings.ToLower(name))
	return ok
}

// Precheck answers GET /api/precheck and the precheck tool: limits, URL
// checks, then the saved data of the host. internal requests (the
// service's own agents) are not counted in the statistics.
func (s *Server) Precheck(ctx context.Context, caller string, p PrecheckParams, internal bool) (*PrecheckAnswer, error) {
	if err := s.limits.perMinute(caller, "precheck", precheckPerMinute); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.URL) == "" {
		return nil, fail(ErrInvalid, "url is required: pass the store's homepage or a product URL, e.g. ?url=https://shop.example/")
	}
	u, err := fetch.ParseURL(p.URL)
	if err != nil {
		return nil, unsafeURL(err)
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	rl, dir, err := s.hostView(caller, host, "precheck")
	if err != nil {
		return nil, err
	}
	defer rl.Release()
	if dir == nil && s.liveRow(host, nil) == nil {
		if twin := wwwTwin(host); twin != "" {
			if d, err := rl.Lookup(twin); err == nil && d != nil {
				host, dir = twin, d
			}
		}
	}
	ans := s.precheckAnswer(host, dir, s.liveRow(host, dir))
	if !internal {
		s.countPrecheck(host)
	}
	return ans, nil
}

// precheckAnswer builds the answer from the host's snapshot row (dir) and
// newest live check (live), either of which may be nil.
func (s *Server) precheckAnswer(host string, dir, live *readlayer.Row) *PrecheckAnswer {
	now := s.now()
	ans := &PrecheckAnswer{
		Host: host, Licence: datasets.License,
		Rails: []Rail{}, Blockers: []Blocker{}, ReportOutcome: s.reportOutcome(host),
	}
	// The snapshot's row is the answer; a live check answers only for a
	// host the snapshot does not have. A newer live check of a snapshot
	// store is newer plain-HTTP evidence: lastReachableCheck below, never
	// a replacement of the verdict (spec 4.2.1).
	row, source := dir, "directory"
	if dir == nil && live != nil {
		row, source = live, "live_check"
	}
	optedOut := dir != nil && dir.Text(readlayer.FSource) == "opted-out"
	if row == nil || optedOut {
		// No directory, rails or history row (or one the store asked us not
		// to show): the plain-HTTP fallback.
		fb := &PrecheckFallback{Proves: proveNothing, Sources: []string{}, EvidenceLevel: evidenceHTTPOnly,
			Note: "Precheck reads saved data only and fetches nothing from the store. "}
		if optedOut {
			fb.Note += "This store opted out of the directory: its saved checks are not shown."
		} else {
			ans.ScanURL = s.link("/api/agent-checkout?url=" + url.QueryEscape(host))
			fb.Note += "No check of this host is saved; scan_url runs a live check, whose result later prechecks show."
			if t := s.reads.lastReachable(host); !t.IsZero() {
				fb.Proves, fb.CheckedAt, fb.Sources = proveReachable, &t, []string{"store_submission"}
			}
		}
		ans.PrecheckFallback = fb
		ans.Source, ans.Confidence = evidenceHTTPOnly, "none"
		if fb.CheckedAt != nil {
			ans.Confidence = "low"
		}
		ans.setChecked(fb.CheckedAt, now)
		return ans
	}
	ans.Source = source
	// A live check of a host not in the directory has no source: known,
	// since it was measured.
	ans.Known = !unknownSources[row.Text(readlayer.FSource)]
	ans.setChecked(row.Time(readlayer.FCheckedAt), now)
	ans.ReachableCheckout = row.Bool(readlayer.FCartLink)
	ans.Verdict = row.Str(readlayer.FVerdict)
	ans.Rails = rails(row)
	ans.Blockers = blockers(row)
	switch {
	case ans.ReachableCheckout == nil:
		ans.Confidence = "low"
	case ans.Stale:
		ans.Confidence = "medium"
	default:
		ans.Confidence = "high"
	}
	// lastReachableCheck: the newest plain-HTTP answer of the homepage
	// after the check behind the verdict, from a store submission or a
	// live check.
	t, proves := s.reads.lastReachable(host), proveReachable
	if dir != nil && live != nil && newer(live, dir) && live.IsTrue(readlayer.FReachable) {
		if lt := *live.Time(readlayer.FCheckedAt); lt.After(t) {
			t, proves = lt, proveLiveReachable
		}
	}
	if !t.IsZero() && ans.LastChecked != nil && t.After(*ans.LastChecked) {
		ans.LastReachableCheck = &LastReachable{CheckedAt: t.UTC(), Proves: proves,
			EvidenceLevel: evidenceHTTPOnly, ReachabilityStale: now.Sub(t) >= StaleAfter}
	}
	return ans
}

// newer reports whether a's check is newer than b's (a time beats none).
func newer(a, b *readlayer.Row) bool {
	ta, tb := a.Time(readlayer.FCheckedAt), b.Time(readlayer.FCheckedAt)
	return ta != nil && (tb == nil || ta.After(*tb))
}

// setChecked fills last_checked, checked_ago and stale from t.
func (a *PrecheckAnswer) setChecked(t *time.Time, now time.Time) {
	if t == nil || t.IsZero() {
		a.LastChecked, a.CheckedAgo, a.Stale = nil, "never checked", true
		return
	}
	u := t.UTC()
	a.LastChecked = &u
	a.CheckedAgo = ago(now.Sub(u))
	a.Stale = now.Sub(u) >= StaleAfter
}

// ago says how long ago in words.
func ago(d time.Duration) string {
	unit := func(n int64, word string) string {
		if n == 1 {
			return "1 " + word + " ago"
		}
		return fmt.Sprintf("%d %ss ago", n, word)
	}
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return unit(int64(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return unit(int64(d/time.Hour), "hour")
	}
	return unit(int64(d/(24*time.Hour)), "day")
}

func tri(b *bool, yes, no string) string {
	switch {
	case b == nil:
		return "not_measured"
	case *b:
		return yes
	}
	return no
}

// rails reads the rails of a row.
func rails(r *readlayer.Row) []Rail {
	status := map[string]string{
		"checkout_link":  tri(r.Bool(readlayer.FCartLink), "returned", "not_returned"),
		"storefront_mcp": tri(r.Bool(readlayer.FStorefrontMCP), "detected", "not_detected"),
		"webmcp":         tri(r.Bool(readlayer.FWebMCP), "detected", "not_detected"),
		"acp":            tri(r.Bool(readlayer.FACPFound), "found", "not_found"),
	}
	switch {
	case r.IsNull(readlayer.FCatalog):
		status["catalog"] = "not_measured"
	case r.IsFalse(readlayer.FCatalog):
		status["catalog"] = "no_catalog"
	case r.IsTrue(readlayer.FProductFound):
		status["catalog"] = "product_found"
	case r.IsFalse(readlayer.FProductFound):
		status["catalog"] = "empty"
	case r.IsTrue(readlayer.FThrottled):
		status["catalog"] = "throttled"
	default:
		status["catalog"] = "answered"
	}
	status["ucp"] = "not_measured"
	if v := r.Text(readlayer.FUCPStatus); v != "" && v != "not_checked" {
		status["ucp"] = v
	}
	status["checkout_webmcp"] = "not_measured"
	if v := r.Text(readlayer.FCheckoutWebMCP); v != "" {
		status["checkout_webmcp"] = v
	}
	out := make([]Rail, len(railProves))
	for i, rp := range railProves {
		out[i] = Rail{Name: rp.name, Status: status[rp.name], Proves: rp.proves}
	}
	return out
}

// userAgents are the agents acting for a shopper now; a robots.txt
// disallow for them stops an agent at the door.
var userAgents = []string{"ChatGPT-User", "Claude-User", "Perplexity-User"}

// blockers lists what the saved check saw that stops agents.
func blockers(r *readlayer.Row) []Blocker {
	out := []Blocker{}
	add := func(code, msg string) { out = append(out, Blocker{code, msg}) }
	if e := r.Text(readlayer.FCheckError); e != "" {
		add("check_failed", "The saved check could not run ("+e+"); nothing else was measured.")
	}
	if r.IsTrue(readlayer.FBlocked) {
		msg := "The store's edge refused the check (bot wall, challenge or block)"
		if why := r.Text(readlayer.FBlockReason); why != "" {
			msg += ": " + why
		}
		add("edge_block", msg+".")
	}
	if r.IsTrue(readlayer.FParked) {
		add("parked", "The host serves a domain-parking page, not a store.")
	}
	if r.IsTrue(readlayer.FOtherBrand) {
		add("redirects_to_other_brand", "The homepage redirects to another brand's domain.")
	}
	if r.IsFalse(readlayer.FReachable) {
		msg := "The homepage did not answer"
		if e := r.Text(readlayer.FReachError); e != "" {
			msg += " (" + e + ")"
		}
		add("unreachable", msg+".")
	}
	if msg := robotsBlocker(r.Text(readlayer.FRobotsStatus), func(a string) string { return r.Text(readlayer.RobotsField(a)) }); msg != "" {
		add("robots_disallows_agents", msg)
	}
	if r.IsTrue(readlayer.FThrottled) {
		add("catalog_throttled", "The catalog answered empty with throttle signals: agents may be rate limited.")
	}
	if r.IsFalse(readlayer.FCatalog) {
		add("no_catalog", "No catalog answered over plain HTTP, so an agent cannot find products without a browser.")
	}
	return out
}

// robotsBlocker says how robots.txt stops the user-initiated agents, or
// "" when it does not or was not read. Verdicts count only when a
// robots.txt answered: a file that got no answer at all (robots status
// unreachable, or not_checked) disallows nothing, it is unmeasured.
func robotsBlocker(status string, verdict func(agent string) string) string {
	var disallowed []string
	for _, a := range userAgents {
		if verdict(a) == "disallowed" {
			disallowed = append(disallowed, a)
		}
	}
	switch {
	case len(disallowed) == 0:
		return ""
	case status == "ok":
		return "robots.txt disallows " + strings.Join(disallowed, ", ") + " at /."
	case status == "error":
		return "robots.txt answered a server error, which RFC 9309 tells agents to read as disallowing everything: " +
			strings.Join(disallowed, ", ") + " may not load /."
	}
	return ""
}

func (s *Server) reportOutcome(host string) *ReportOutcome {
	return &ReportOutcome{
		OperationID: "reportCheckout", Method: http.MethodPost, URL: s.link(reportPath),
		Body:     map[string]string{"host": host, "outcome": "one of outcomes"},
		Outcomes: reportOutcomes,
	}
}

// countPrecheck counts one precheck answered for host in the daily
// per-host table (spec 2.3: per request, one row per host and UTC day). It
// writes nothing: the sync loop (sync.go) writes the counts every
// Config.Sync (to the file log every minute), so a request never waits on
// the state, and a server killed loses at most that interval's counts.
func (s *Server) countPrecheck(host string) {
	day := s.now().UTC().Format(time.DateOnly)
	rs := s.reads
	rs.statsMu.Lock()
	rs.pending[precheckKey{day: day, host: host}]++
	if s.shared == nil { // the file log's table lives here
		rs.addCount(day, 1)
	}
	full := len(rs.pending) >= maxPending
	rs.statsMu.Unlock()
	if full {
		s.wakeSync()
	}
}

func (s *Server) precheck(w http.ResponseWriter, r *http.Request) error {
	internal := IsInternalAgent(r.UserAgent())
	return serveRead(s, w, r, decodePrecheck, func(ctx context.Context, caller string, p PrecheckParams) (*PrecheckAnswer, error) {
		return s.Precheck(ctx, caller, p, internal)
	}, cachePrecheck)
}

// PrecheckStats is the answer of GET /api/precheck/stats (spec 2.3).
type PrecheckStats struct {
	ChecksServed int64   `json:"checks_served"`
	Today        int64   `json:"today"`
	Since        *string `json:"since"`
	Note         string  `json:"note"`
}

func (s *Server) precheckStats(w http.ResponseWriter, r *http.Request) error {
	today := s.now().UTC().Format(time.DateOnly)
	rs := s.reads
	rs.statsMu.Lock()
	st := PrecheckStats{ChecksServed: rs.served,
		Note: "checks_served counts the prechecks answered, per request, in the daily per-host table: one row per store host and UTC day. " +
			"No IP address or user agent is stored; requests whose User-Agent is SVC-*-internal are not counted."}
	if rs.today == today {
		st.Today = rs.servedDay
	}
	first := rs.firstDay
	var pending, pendingToday int64 // this replica's counts the table has not had yet
	for k, n := range rs.pending {
		pending += n
		if k.day == today {
			pendingToday += n
		}
		if first == "" || k.day < first {
			first = k.day
		}
	}
	rs.statsMu.Unlock()
	if s.shared != nil { // the table every replica adds to
		served, todays, dbFirst, err := s.shared.PrecheckStats(r.Context(), today)
		if err != nil {
			s.log.Error("read precheck stats", "error", err)
			return fail(ErrUnavailable, "the precheck stats could not be read; try again later")
		}
		st.ChecksServed, st.Today = served+pending, todays+pendingToday
		if dbFirst != "" && (first == "" || dbFirst < first) {
			first = dbFirst
		}
	}
	if first != "" {
		st.Since = &first
	}
	w.Header().Set("Cache-Control", cacheShort)
	return writeJSON(w, http.StatusOK, st)
}
