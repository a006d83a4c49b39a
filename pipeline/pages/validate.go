package pages

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

	"svc/pipeline/ucp"
)

// Validation is what the validator page shows: the form, filled with what
// was sent, and the report or the reason there is none.
type Validation struct {
	URL     string // the URL field as sent
	Profile string // the pasted profile as sent
	// Report is the validation report (spec 2.4); nil before a request or
	// when validation could not run.
	Report *ucp.Report
	// Error says why validation could not run, in words for people.
	Error string
}

// Verdict is the report's verdict in words.
func (v *Validation) Verdict() Tri {
	if v.Report == nil {
		return Tri{}
	}
	switch v.Report.Verdict() {
	case ucp.VerdictValid:
		return mark("yes", "Valid UCP profile")
	case ucp.VerdictInvalid:
		return mark("no", "Not a valid UCP profile")
	case ucp.VerdictMissing:
		return mark("no", "No UCP profile is served there")
	case ucp.VerdictUnreachable:
		return mark("unknown", "No verdict: the profile could not be read")
	case ucp.VerdictUnvalidated:
		return mark("unknown", "Not validated: the UCP schemas were not available to check it against")
	}
	return mark("unknown", v.Report.Verdict())
}

// ProfileJSON is the report's profile echo, indented for reading.
func (v *Validation) ProfileJSON() string {
	if v.Report == nil || len(v.Report.Profile) == 0 || string(v.Report.Profile) == "null" {
		return ""
	}
	var buf bytes.Buffer
	if json.Indent(&buf, v.Report.Profile, "", "  ") != nil {
		return string(v.Report.Profile)
	}
	return buf.String()
}

func validatePage(v *Validation) *Page {
	title := "Validate a UCP profile"
	if v.Report != nil {
		title = "UCP validation report"
	}
	return &Page{Title: title, Section: "validate", NoIndex: v.Report != nil || v.Error != "",
		Description: "Check a store's UCP profile against the UCP 2026-08-25 JSON Schema and the spec's rules: paste it or give the store's address.",
		Data:        v}
}

// RenderValidate renders the validator page for the server: the form with
// a report or an error.
func RenderValidate(w io.Writer, site *Site, v *Validation) error {
	p := validatePage(v)
	p.Site = site
	return renderPage(w, "validate", p)
}

// validate renders the empty validator form.
func (b *builder) validate(ctx context.Context) error {
	body, err := b.render("validate", validatePage(&Validation{}))
	if err != nil {
		return err
	}
	b.add(ValidateFile, body, false)
	return nil
}
