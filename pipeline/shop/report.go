package shop

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"strings"

	"svc/pipeline/leaderboard"
	"svc/pipeline/steplog"
)

// Outcomes of a run, in the words of the leaderboard (spec 2.11).
const (
	AddedToCart     = leaderboard.OutcomeAddedToCart     // the cart verifiably holds the item; no checkout page reached
	CheckoutReached = leaderboard.OutcomeCheckoutReached // a checkout page or view loaded
	NoCart          = leaderboard.OutcomeNoCart          // no way to add found (or a protocol the store does not offer)
	Blocked         = leaderboard.OutcomeBlocked         // a bot wall, challenge or captcha stopped it before the cart
	Error           = leaderboard.OutcomeError           // the store broke: 5xx, timeouts
	NotAttempted    = leaderboard.OutcomeNotAttempted    // the path could not run
)

// Shopper names a path.
type Shopper string

// The paths of svc shop. A to E are browser shoppers; ucp and mcp are the
// plain-HTTP agent paths of the leaderboard.
const (
	Semantic      Shopper = "A"
	Accessibility Shopper = "B"
	WebMCP        Shopper = "C"
	Model         Shopper = "D"
	Mobile        Shopper = "E"
	UCP           Shopper = "ucp"
	MCP           Shopper = "mcp"
)

// Shoppers lists every path, in the order of the contract command.
var Shoppers = []Shopper{Semantic, Accessibility, WebMCP, Model, Mobile, UCP, MCP}

// Browser reports whether the path runs in Chromium.
func (s Shopper) Browser() bool {
	switch s {
	case Semantic, Accessibility, WebMCP, Model, Mobile:
		return true
	}
	return false
}

// ParseShopper accepts a path name (A–E case-insensitive, ucp, mcp).
func ParseShopper(s string) (Shopper, bool) {
	for _, p := range Shoppers {
		if strings.EqualFold(string(p), s) {
			return p, true
		}
	}
	return "", false
}

// Report is one run of one path on one store: what svc shop prints.
type Report struct {
	Shopper Shopper `json:"shopper"`
	// Store is the origin the run started from (scheme and host only).
	Store   string `json:"store"`
	Outcome string `json:"outcome"`
	// Reason is a stable code for how the run ended, e.g.
	// checkout_page_loaded, sold_out, no_add_control, login_required.
	Reason string `json:"reason"`
	// Steps counts the actions taken (len(Log)).
	Steps   int     `json:"steps"`
	Seconds float64 `json:"seconds"`
	Log     []Step  `json:"log"`
	// Screenshot is the last page, small, named by its content hash; nil
	// when none was taken (plain-HTTP paths, a store that never loaded).
	Screenshot *Screenshot `json:"screenshot"`
	// Refused lists the requests the run was not allowed to make (host and
	// code only, never a URL).
	Refused []Refusal `json:"refused,omitempty"`
	// Browser is the Chromium product of a browser path.
	Browser string `json:"browser,omitempty"`
	// Model is the model of path D.
	Model string `json:"model,omitempty"`
	// StoppedBeforePayment is always true: no run ever pays or orders.
	StoppedBeforePayment bool `json:"stoppedBeforePayment"`
	// CheckoutWebMCP is what the run saw of WebMCP at the first checkout
	// page it reached; nil when it reached none (not measured).
	CheckoutWebMCP *CheckoutWebMCP `json:"checkoutWebmcp"`
}

// CheckoutWebMCP is the WebMCP seen at a checkout page, as the browser's
// own WebMCP lists it there: the tools registered with document.modelContext
// (by the page or through its polyfill) and the forms with a toolname.
// Tool names only.
type CheckoutWebMCP struct {
	Detected bool     `json:"detected"`
	Tools    []string `json:"tools"`
}

// Refusal is a request a run was not allowed to make.
type Refusal struct {
	Host   string `json:"host"`
	Code   string `json:"code"`
	Method string `json:"method,omitempty"`
	Count  int    `json:"count"`
}

// Step is one action of a run (package steplog, shared with the
// leaderboard's plain-HTTP paths). URL has no query or fragment, and on a
// checkout page it is withheld.
type Step = steplog.Step

// Screenshot is a small JPEG of the last page.
type Screenshot struct {
	SHA256 string `json:"sha256"`
	Type   string `json:"type"`
	Bytes  int    `json:"bytes"`
	Data   []byte `json:"-"`
}

func newScreenshot(jpeg []byte) *Screenshot {
	if len(jpeg) == 0 {
		return nil
	}
	sum := sha256.Sum256(jpeg)
	return &Screenshot{SHA256: hex.EncodeToString(sum[:]), Type: "image/jpeg", Bytes: len(jpeg), Data: jpeg}
}

// Withheld replaces the address of a checkout page in every record.
const Withheld = "(checkout page: address withheld)"

// StepURL is the address a step records: scheme, host and path, without
// query or fragment; on a checkout page only the origin and Withheld.
func StepURL(raw string, checkout bool) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	if checkout || LooksLikeCheckoutURL(u) {
		return u.Scheme + "://" + u.Host + "/" + Withheld
	}
	out := u.Scheme + "://" + u.Host + u.EscapedPath()
	if len(out) > 300 {
		out = out[:300]
	}
	return out
}

// Origin is scheme://host of a URL.
func Origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// WriteText writes the report as `svc shop` prints it for a person: the
// outcome, each step, the refusals and the screenshot's hash.
func (r *Report) WriteText(w io.Writer) {
	row := func(k, v string) { fmt.Fprintf(w, "%-10s %s\n", k, v) }
	row("store", r.Store)
	row("shopper", string(r.Shopper))
	row("outcome", r.Outcome+" ("+r.Reason+")")
	row("steps", fmt.Sprintf("%d in %.1f s", r.Steps, r.Seconds))
	if r.Browser != "" {
		row("browser", r.Browser)
	}
	for _, s := range r.Log {
		what := s.Action
		if s.Role != "" || s.Name != "" {
			what += " " + strings.TrimSpace(s.Role+" "+fmt.Sprintf("%q", s.Name))
		}
		fmt.Fprintf(w, "  %2d. %s", s.N, what)
		// A protocol operation: its HTTP status, JSON-RPC outcome and
		// protocol codes.
		if s.Status != 0 {
			fmt.Fprintf(w, " [HTTP %d]", s.Status)
		}
		if s.RPC != "" {
			fmt.Fprintf(w, " [%s]", s.RPC)
		}
		if len(s.Codes) > 0 {
			fmt.Fprintf(w, " [%s]", strings.Join(s.Codes, ", "))
		}
		if s.Note != "" {
			fmt.Fprintf(w, " — %s", s.Note)
		}
		if s.URL != "" {
			fmt.Fprintf(w, "\n      %s", s.URL)
		}
		fmt.Fprintln(w)
	}
	for _, f := range r.Refused {
		row("refused", fmt.Sprintf("%s %s ×%d", f.Host, f.Code, f.Count))
	}
	if r.Screenshot != nil {
		row("screenshot", fmt.Sprintf("sha256 %s (%d bytes)", r.Screenshot.SHA256, r.Screenshot.Bytes))
	}
	row("payment", "never: the run stopped before payment")
}
