// The business profile as the UCP path reads it: its services and
// capabilities, the version both sides speak, and what the validator
// found in it, logged as findings that never stop the path.

package leaderboard

import (
	"context"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"svc/pipeline/steplog"
	"svc/pipeline/ucp"
)

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
