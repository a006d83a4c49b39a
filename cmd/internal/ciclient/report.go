package ciclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Report is the --json document. Field order is the contract the Node
// client follows.
type Report struct {
	Version  string       `json:"version"`
	API      string       `json:"api"`
	Require  []string     `json:"require"`
	Hosts    []HostResult `json:"hosts"`
	Passed   bool         `json:"passed"`
	ExitCode int          `json:"exitCode"`
}

// HostResult is one host's result.
type HostResult struct {
	Host       string      `json:"host"`
	Passed     bool        `json:"passed"`
	Checks     Outcomes    `json:"checks"`
	SavedCheck *SavedCheck `json:"savedCheck"` // null when /api/agent-checkout did not answer
	Errors     []Failure   `json:"errors"`
}

// SavedCheck says which saved check the checks other than ucp came from.
type SavedCheck struct {
	CheckedAt *string `json:"checkedAt"`
	Cached    *bool   `json:"cached"`
	ResultURL *string `json:"resultUrl"`
}

// Outcome is one check of one host.
type Outcome struct {
	name     string
	Status   string `json:"status"`
	Required bool   `json:"required"`
	Detail   string `json:"detail"`
	exit     int    // the exit code this outcome calls for when required
}

// Outcomes encode as one object keyed by check name, in output order.
type Outcomes []Outcome

// MarshalJSON writes the outcomes as one object in output order.
func (cs Outcomes) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, c := range cs {
		if i > 0 {
			b.WriteByte(',')
		}
		// No HTML escaping, as JSON.stringify: the Encoder's own setting
		// does not reach into a Marshaler's output.
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(c.name); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(c); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Failure is one API request that gave no usable answer.
type Failure struct {
	Endpoint string `json:"endpoint"`
	Status   int    `json:"status"` // HTTP status; 0 when none came
	Code     string `json:"code"`
	Message  string `json:"message"`
	exit     int    // ExitRateLimited, ExitNetwork, or ExitFailed (the API refused the host)
}

// finish sets the pass flags and the exit code: the highest a required
// check calls for.
func (r *Report) finish() {
	r.Passed = true
	for i := range r.Hosts {
		h := &r.Hosts[i]
		h.Passed = true
		for _, c := range h.Checks {
			if c.Required && c.Status != StatusPass {
				h.Passed = false
				r.ExitCode = max(r.ExitCode, c.exit)
			}
		}
		r.Passed = r.Passed && h.Passed
	}
}

// WriteJSON writes the --json document, indented, without HTML escaping.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteTable writes the human output: a table per host, then a total.
func (r *Report) WriteTable(w io.Writer) {
	passed := 0
	for _, h := range r.Hosts {
		if h.Passed {
			passed++
		}
		var failing []string
		for _, c := range h.Checks {
			if c.Required && c.Status != StatusPass {
				failing = append(failing, c.name+" "+c.Status)
			}
		}
		if h.Passed {
			fmt.Fprintf(w, "%s: passed\n", h.Host)
		} else {
			fmt.Fprintf(w, "%s: FAILED (%s)\n", h.Host, strings.Join(failing, ", "))
		}
		fmt.Fprintf(w, "  %-14s%-12s%-10s%s\n", "check", "result", "required", "detail")
		for _, c := range h.Checks {
			req := "no"
			if c.Required {
				req = "yes"
			}
			fmt.Fprintf(w, "  %-14s%-12s%-10s%s\n", c.name, c.Status, req, c.Detail)
		}
		if sc := h.SavedCheck; sc != nil {
			at := "time unknown"
			if sc.CheckedAt != nil {
				at = clean(*sc.CheckedAt)
			}
			note := ""
			if sc.Cached != nil && *sc.Cached {
				note = " (from the 24-hour cache)"
			} else if sc.Cached != nil {
				note = " (a fresh check)"
			}
			fmt.Fprintf(w, "  saved check: %s%s\n", at, note)
		}
		for _, e := range h.Errors {
			fmt.Fprintf(w, "  error: %s: %s\n", e.Endpoint, failureText(e))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%d of %d hosts passed (required: %s); exit %d\n", passed, len(r.Hosts), requireText(r.Require), r.ExitCode)
}

func failureText(e Failure) string {
	if e.Status == 0 {
		return e.Code + ": " + e.Message
	}
	return fmt.Sprintf("HTTP %d %s: %s", e.Status, e.Code, e.Message)
}

func requireText(req []string) string {
	if len(req) == 0 {
		return "none"
	}
	return strings.Join(req, ", ")
}

var mdEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "|", `\|`)

var mdIcon = map[string]string{StatusPass: "✅", StatusFail: "❌", StatusUnmeasured: "❔"}

// WriteMarkdown writes the --summary text: a table of hosts by checks, the
// reasons of what did not pass, and a blank line so appends stay apart.
func (r *Report) WriteMarkdown(w io.Writer) {
	passed := 0
	for _, h := range r.Hosts {
		if h.Passed {
			passed++
		}
	}
	fmt.Fprintf(w, "### svc check: %d of %d hosts passed\n\n", passed, len(r.Hosts))
	fmt.Fprintf(w, "| host | result | %s |\n", strings.Join(Names, " | "))
	fmt.Fprintf(w, "|---|---|%s\n", strings.Repeat("---|", len(Names)))
	for _, h := range r.Hosts {
		result := "❌ failed"
		if h.Passed {
			result = "✅ passed"
		}
		cells := []string{mdEscaper.Replace(h.Host), result}
		for _, c := range h.Checks {
			cell := mdIcon[c.Status] + " " + c.Status
			if c.Required {
				cell = "**" + cell + "**"
			}
			cells = append(cells, cell)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Fprintf(w, "\nRequired checks (bold): %s. An unmeasured required check counts as failed. API: %s. Exit code %d.\n",
		requireText(r.Require), mdEscaper.Replace(r.API), r.ExitCode)
	var lines []string
	for _, h := range r.Hosts {
		for _, c := range h.Checks {
			if c.Status == StatusPass {
				continue
			}
			req := ""
			if c.Required {
				req = " (required)"
			}
			lines = append(lines, fmt.Sprintf("- %s %s%s: %s: %s", mdEscaper.Replace(h.Host), c.name, req, c.Status, mdEscaper.Replace(c.Detail)))
		}
		for _, e := range h.Errors {
			lines = append(lines, fmt.Sprintf("- %s error: %s: %s", mdEscaper.Replace(h.Host), e.Endpoint, mdEscaper.Replace(failureText(e))))
		}
	}
	if len(lines) > 0 {
		fmt.Fprintf(w, "\n<details><summary>What did not pass</summary>\n\n%s\n\n</details>\n", strings.Join(lines, "\n"))
	}
	fmt.Fprintln(w)
}
