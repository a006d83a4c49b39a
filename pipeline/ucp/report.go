package ucp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Note is the report's reminder of what validation does not prove (spec 1.5).
const Note = "Validation is not certification: a valid UCP profile does not prove that its endpoints work or that an agent can buy."

// Report is the UCP validation report of spec 2.4. The same profile (and, for
// a fetched one, the same answer) always gives the same JSON bytes.
type Report struct {
	// Valid is true exactly when the JSON Schema check ran and passed and no
	// error-level item exists. It is null (unmeasured) when a profile to be
	// fetched could not be read (no answer, a timeout, a 5xx, a wall): no
	// verdict, never "not valid". IsValid reads it as a plain boolean.
	Valid *bool `json:"valid"`
	// Schema is the outcome of the JSON Schema check alone.
	Schema SchemaResult `json:"schema"`
	// DeclaredVersion is ucp.version as written, or null when absent or not
	// a string.
	DeclaredVersion *string `json:"declaredVersion"`
	Counts          Counts  `json:"counts"`
	Errors          []Item  `json:"errors"`
	Warnings        []Item  `json:"warnings"`
	Info            []Item  `json:"info"`
	Summary         string  `json:"summary"`
	// Source says whether the profile was pasted or fetched, and from where.
	Source Source `json:"source"`
	// HTTPChecks are the hosting checks of a fetched profile; empty when the
	// profile was pasted.
	HTTPChecks []HTTPCheck `json:"httpChecks"`
	// Profile echoes the profile as parsed (compact JSON), or null when the
	// input was not JSON.
	Profile      json.RawMessage `json:"profile"`
	SchemaSource SourceInfo      `json:"schemaSource"`
	Note         string          `json:"note"`

	html        bool   // the fetched body was an HTML page
	fetchDetail string // the raw error of a failed fetch, for logs (FetchDetail)
}

// Item is one finding.
type Item struct {
	// Path is a JSON pointer (RFC 6901) into the profile; "" is the document.
	Path    string `json:"path"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
	SpecURL string `json:"specUrl"`
	// Hint marks the service's own advice, not a UCP requirement.
	Hint bool `json:"hint"`
}

// Counts are the number of items at each level.
type Counts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Info     int `json:"info"`
}

// SchemaResult is the outcome of the JSON Schema check against the business
// entry point of the release the service validates against.
type SchemaResult struct {
	Release    string `json:"release"`
	EntryPoint string `json:"entryPoint"`
	// Checked is false when the schema could not be loaded or the input was
	// not JSON; Valid is then null.
	Checked bool  `json:"checked"`
	Valid   *bool `json:"valid"`
	// ErrorCount counts the JSON Schema errors (each is also an item).
	ErrorCount int `json:"errorCount"`
	// Error says why the schema could not be loaded.
	Error string `json:"error,omitempty"`
}

// SourceInfo names where the JSON Schema files come from.
type SourceInfo struct {
	// Type is "folder" (a local copy of https://ucp.dev/<version>/schemas/)
	// or "official" (fetched from ucp.dev once and cached).
	Type     string `json:"type"`
	Location string `json:"location"`
}

// Source says how the profile was obtained.
type Source struct {
	// Type is "pasted" or "url".
	Type string `json:"type"`
	// URL is the address as given; ProfileURL the address fetched (with
	// /.well-known/ucp added to a host or homepage); FinalURL where the
	// redirects, if any, ended.
	URL        string `json:"url,omitempty"`
	ProfileURL string `json:"profileUrl,omitempty"`
	FinalURL   string `json:"finalUrl,omitempty"`
	// Status is the HTTP status of the final answer; 0 when none came.
	Status int `json:"status,omitempty"`
	// FetchError says why no answer could be read.
	FetchError string `json:"fetchError,omitempty"`
	Bytes      int    `json:"bytes"`
}

// HTTPCheck is one hosting check of a fetched profile.
type HTTPCheck struct {
	Rule string `json:"rule"`
	// Status is "pass", "fail" or "skipped".
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// Verdicts of Report.Verdict.
const (
	VerdictValid       = "valid"
	VerdictInvalid     = "invalid"
	VerdictMissing     = "missing"     // 404 or 410, or an HTML page with 200 (soft 404)
	VerdictUnreachable = "unreachable" // no answer, a timeout, a 5xx, a wall (401, 402, 403, 429, a challenge page)
	// VerdictUnvalidated is a profile that was read and broke no rule the
	// validator checks without the schemas, while the UCP JSON Schema could
	// not be loaded (no schema folder, ucp.dev unreachable): it can be
	// called neither valid nor invalid, so its validity is null.
	VerdictUnvalidated = "unvalidated"
)

// Verdict sums the report up as the store check shows a UCP profile: valid,
// invalid, missing (the store publishes none), unreachable (the profile
// could not be read) or unvalidated (read, but the schema was not there to
// check it against). A pasted profile is valid, invalid or unvalidated.
func (r *Report) Verdict() string {
	if v := r.readVerdict(); v != "" {
		return v
	}
	switch {
	case r.IsValid():
		return VerdictValid
	case !r.Schema.Checked && r.Schema.Error != "" && len(r.Errors) == 0:
		// Rules found nothing, and the schema, which could, was not
		// loaded: an error-level rule still makes a profile invalid
		// without it.
		return VerdictUnvalidated
	}
	return VerdictInvalid
}

// readVerdict is the verdict of a fetched profile whose answer was not a
// profile: missing or unreachable; "" when a profile was read (or pasted).
func (r *Report) readVerdict() string {
	if r.Source.Type != "url" {
		return ""
	}
	st := r.Source.Status
	switch {
	case r.Source.FetchError != "":
		return VerdictUnreachable
	case st == 404 || st == 410 || st == 200 && r.html:
		return VerdictMissing
	case st < 200 || st >= 300 || r.html:
		// 5xx, walls (401, 402, 403, 429, a 202 challenge page), and
		// other answers that are neither a profile nor its absence.
		return VerdictUnreachable
	}
	return ""
}

// IsValid reports whether the profile is valid; false also when it could
// not be read (Valid null).
func (r *Report) IsValid() bool { return r.Valid != nil && *r.Valid }

// FetchDetail is the raw network error of a profile that could not be
// fetched, for the server's log only: it can name a resolver or an address,
// so no answer or dataset carries it ("" when the fetch did not fail).
func (r *Report) FetchDetail() string { return r.fetchDetail }

// FetchFailed reports whether the profile was to be fetched and no HTTP
// answer could be read (network error, TLS failure, timeout).
func (r *Report) FetchFailed() bool {
	return r.Source.Type == "url" && r.Source.FetchError != ""
}

// finding is an item with its severity, before the report is assembled.
type finding struct {
	Item
	sev Severity
	// fromSchema marks items made from JSON Schema errors; a rule item with
	// the same rule and path replaces them.
	fromSchema bool
}

// findings collects items for one validation.
type findings []finding

func (fs *findings) add(sev Severity, rule, path, format string, args ...any) {
	r, ok := rules[rule]
	if !ok {
		panic("ucp: unknown rule " + rule)
	}
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	*fs = append(*fs, finding{Item: Item{Path: path, Rule: rule, Message: msg, SpecURL: r.SpecURL, Hint: r.Hint}, sev: sev})
}

// rule adds an item at the rule's default severity.
func (fs *findings) rule(rule, path, format string, args ...any) {
	fs.add(rules[rule].Severity, rule, path, format, args...)
}

// assemble sorts and de-duplicates the findings into r and sets the counts,
// validity and summary.
func (r *Report) assemble(fs findings) {
	// A rule's own item replaces schema items of the same rule and path.
	var byRule map[[2]string]bool
	if slices.ContainsFunc(fs, func(f finding) bool { return f.fromSchema }) {
		byRule = map[[2]string]bool{}
		for _, f := range fs {
			if !f.fromSchema {
				byRule[[2]string{f.Rule, f.Path}] = true
			}
		}
	}
	slices.SortStableFunc(fs, func(a, b finding) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if c := strings.Compare(a.Rule, b.Rule); c != 0 {
			return c
		}
		if c := strings.Compare(a.Message, b.Message); c != 0 {
			return c
		}
		return strings.Compare(string(a.sev), string(b.sev))
	})
	r.Errors, r.Warnings, r.Info = []Item{}, []Item{}, []Item{}
	var last finding
	for i, f := range fs {
		if f.fromSchema && byRule[[2]string{f.Rule, f.Path}] {
			continue
		}
		if i > 0 && f.Item == last.Item && f.sev == last.sev {
			continue
		}
		last = f
		switch f.sev {
		case SevError:
			r.Errors = append(r.Errors, f.Item)
		case SevWarning:
			r.Warnings = append(r.Warnings, f.Item)
		default:
			r.Info = append(r.Info, f.Item)
		}
	}
	r.Counts = Counts{Errors: len(r.Errors), Warnings: len(r.Warnings), Info: len(r.Info)}
	schemaOK := r.Schema.Checked && r.Schema.Valid != nil && *r.Schema.Valid
	valid := schemaOK && len(r.Errors) == 0
	r.Valid = &valid
	switch {
	case r.readVerdict() == VerdictUnreachable:
		r.Valid = nil // nothing was read: no verdict
	case r.Verdict() == VerdictUnvalidated:
		r.Valid = nil // read, but no schema to check it against: no verdict
	}
	if r.HTTPChecks == nil {
		r.HTTPChecks = []HTTPCheck{}
	}
	r.Note = Note
	r.Summary = r.summary()
}

func (r *Report) summary() string {
	var b strings.Builder
	b.Grow(200)
	switch {
	case r.Valid == nil && r.readVerdict() == "":
		b.WriteString("Unvalidated UCP business profile")
	case r.Valid == nil:
		b.WriteString("No verdict: the profile could not be read (")
		if r.Source.Status != 0 {
			b.WriteString("HTTP ")
			b.WriteString(strconv.Itoa(r.Source.Status))
			if r.html {
				b.WriteString(", an HTML page")
			}
		} else {
			b.WriteString("no answer")
		}
		b.WriteString("), so it was not validated and valid is null")
	case *r.Valid:
		b.WriteString("Valid UCP business profile")
	default:
		b.WriteString("Not a valid UCP business profile")
	}
	b.WriteString(": ")
	plural(&b, r.Counts.Errors, "error")
	b.WriteString(", ")
	plural(&b, r.Counts.Warnings, "warning")
	b.WriteString(", ")
	plural(&b, r.Counts.Info, "info item")
	switch {
	case !r.Schema.Checked && r.Schema.Error != "":
		b.WriteString("; the UCP ")
		b.WriteString(r.Schema.Release)
		b.WriteString(" JSON Schema could not be loaded, so the profile cannot be called valid")
	case !r.Schema.Checked:
		b.WriteString("; the JSON Schema check did not run")
	case *r.Schema.Valid:
		b.WriteString("; passes the UCP ")
		b.WriteString(r.Schema.Release)
		b.WriteString(" JSON Schema")
	default:
		b.WriteString("; fails the UCP ")
		b.WriteString(r.Schema.Release)
		b.WriteString(" JSON Schema (")
		plural(&b, r.Schema.ErrorCount, "error")
		b.WriteString(")")
	}
	if r.DeclaredVersion != nil {
		b.WriteString("; declares version ")
		b.WriteString(strconv.Quote(*r.DeclaredVersion)) // as %q
	}
	b.WriteString(".")
	return b.String()
}

// plural writes "1 word" or "n words".
func plural(b *strings.Builder, n int, word string) {
	b.WriteString(strconv.Itoa(n))
	b.WriteByte(' ')
	b.WriteString(word)
	if n != 1 {
		b.WriteByte('s')
	}
}
