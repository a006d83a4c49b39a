package ucp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// maxSchemaItems bounds the JSON Schema errors listed for one profile; a
// hostile document can produce thousands.
const maxSchemaItems = 200

// schemaCheck validates doc against sch and adds one finding per JSON Schema
// error, under the rule that error belongs to (a missing capability schema is
// ucp.capability.schema_required, a bad registry key ucp.namespace.key_format,
// ...; the rest is ucp.schema.business). It returns the number of errors.
func schemaCheck(sch compiled, doc any, fs *findings) int {
	err := sch.validate(doc)
	if err == nil {
		return 0
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		fs.rule(ruleSchema, "", "the JSON Schema check failed: %v", err)
		return 1
	}
	var leaves []*jsonschema.ValidationError
	flatten(ve, &leaves)
	for i, l := range leaves {
		if i == maxSchemaItems {
			fs.rule(ruleSchema, "", "JSON Schema: %d more errors are not listed", len(leaves)-maxSchemaItems)
			(*fs)[len(*fs)-1].fromSchema = true
			break
		}
		path := leafPath(doc, l)
		rule := classify(l, path)
		fs.add(rules[rule].Severity, rule, path, "%s", schemaMessage(l, rule))
		(*fs)[len(*fs)-1].fromSchema = true
	}
	return len(leaves)
}

// flatten collects the errors a user should see. For anyOf and oneOf it keeps
// only the branches that were meant: a branch whose discriminating value (the
// instance itself or a direct member) has the wrong type or constant is
// dropped, so a rest binding without endpoint reports the missing endpoint,
// not that its transport is not "mcp".
func flatten(e *jsonschema.ValidationError, out *[]*jsonschema.ValidationError) {
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
		if len(e.Causes) == 0 {
			*out = append(*out, e)
			return
		}
		for _, c := range e.Causes {
			flatten(c, out)
		}
	case *kind.AnyOf, *kind.OneOf:
		if o, ok := k.(*kind.OneOf); ok && o.Subschemas != nil {
			*out = append(*out, e) // matched more than one
			return
		}
		depth := len(e.InstanceLocation)
		var meant []*jsonschema.ValidationError
		for _, c := range e.Causes {
			if !mismatched(c, depth) {
				meant = append(meant, c)
			}
		}
		if len(meant) == 0 {
			*out = append(*out, e)
			return
		}
		for _, c := range meant {
			flatten(c, out)
		}
	case *kind.AdditionalProperties:
		// The library lists the names in map order; sorted, the message
		// is the same every time.
		slices.Sort(k.Properties)
		*out = append(*out, e)
	default:
		*out = append(*out, e)
	}
}

// mismatched reports whether a branch failed on a type or constant at the
// instance of depth or one of its members.
func mismatched(e *jsonschema.ValidationError, depth int) bool {
	switch e.ErrorKind.(type) {
	case *kind.Type, *kind.Const, *kind.Enum, *kind.FalseSchema:
		if len(e.InstanceLocation) <= depth+1 {
			return true
		}
	}
	for _, c := range e.Causes {
		if mismatched(c, depth) {
			return true
		}
	}
	return false
}

// leafPath is the JSON pointer of an error. The library records the
// location of a propertyNames error without copying it, so later siblings
// overwrite it; that location is found again in the document: the member
// named in the schema location that holds the offending key.
func leafPath(root any, e *jsonschema.ValidationError) string {
	pn, ok := e.ErrorKind.(*kind.PropertyNames)
	if !ok {
		return pointer(e.InstanceLocation)
	}
	member := ""
	if rest, ok := strings.CutSuffix(e.SchemaURL, "/propertyNames"); ok {
		if i := strings.LastIndex(rest, "/properties/"); i >= 0 {
			member = strings.ReplaceAll(strings.ReplaceAll(rest[i+len("/properties/"):], "~1", "/"), "~0", "~")
		}
	}
	if p, ok := findMember(root, "", "", member, pn.Property); ok {
		return p
	}
	return ""
}

// findMember searches v depth-first, in key order, for an object reached by
// a member named member (any, when "") that has the key prop, and returns
// the pointer to that key.
func findMember(v any, path, last, member, prop string) (string, bool) {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x[prop]; ok && (member == "" || last == member) {
			return appendPointer(path, prop), true
		}
		for _, k := range sortedKeys(x) {
			if p, ok := findMember(x[k], appendPointer(path, k), k, member, prop); ok {
				return p, true
			}
		}
	case []any:
		for i, y := range x {
			if p, ok := findMember(y, path+"/"+itoa(i), last, member, prop); ok {
				return p, true
			}
		}
	}
	return "", false
}

// classify names the rule a schema error at path belongs to.
func classify(e *jsonschema.ValidationError, path string) string {
	loc := e.SchemaURL
	switch k := e.ErrorKind.(type) {
	case *kind.PropertyNames:
		if strings.HasPrefix(path, "/ucp/supported_versions/") {
			return ruleVersionFormat
		}
		return ruleKeyFormat
	case *kind.Type:
		if len(e.InstanceLocation) == 0 {
			return ruleJSONObject
		}
	case *kind.Not:
		if strings.Contains(loc, "/profile.json#/$defs/jwk_public_key") {
			return ruleKeysPrivate
		}
	case *kind.Required:
		switch {
		case has(k.Missing, "schema") && strings.Contains(loc, "/capability.json#/$defs/business_schema"):
			return ruleCapSchemaReq
		case has(k.Missing, "endpoint") && strings.Contains(loc, "/service.json#/$defs/business_schema"):
			return ruleEndpointReq
		}
	case *kind.Format:
		switch last(e.InstanceLocation) {
		case "spec":
			return ruleSpecHTTPS
		case "endpoint":
			return ruleEndpointHTTPS
		case "schema":
			return ruleAuthority
		}
		if len(e.InstanceLocation) == 3 && pointer(e.InstanceLocation[:2]) == "/ucp/supported_versions" {
			return ruleSVHTTPS
		}
	}
	switch {
	case strings.Contains(loc, "/reverse_domain_name.json"):
		return ruleKeyFormat
	case strings.Contains(loc, "/ucp.json#/$defs/version"):
		return ruleVersionFormat
	case strings.Contains(loc, "/embedded_config.json"):
		return ruleEmbeddedCfg
	case strings.Contains(loc, "/profile.json#/$defs/jwk_public_key"):
		return ruleKeysShape
	}
	return ruleSchema
}

// schemaMessage words one schema error, prefixed so readers can tell schema
// findings from rule findings.
func schemaMessage(e *jsonschema.ValidationError, rule string) string {
	var msg string
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		if len(k.Missing) == 1 {
			msg = fmt.Sprintf("missing required property %q", k.Missing[0])
		} else {
			msg = "missing required properties " + quoteList(k.Missing)
		}
	case *kind.Type:
		msg = fmt.Sprintf("must be %s, not %s", strings.Join(k.Want, " or "), k.Got)
	case *kind.Pattern:
		msg = fmt.Sprintf("%q does not match the pattern %s", k.Got, k.Want)
	case *kind.Const:
		msg = fmt.Sprintf("must be %s", compactJSON(k.Want))
	case *kind.Enum:
		msg = fmt.Sprintf("%s is not one of %s", compactJSON(k.Got), compactJSON(k.Want))
	case *kind.Format:
		msg = fmt.Sprintf("%s is not a valid %q (%v)", compactJSON(k.Got), k.Want, k.Err)
	case *kind.Not:
		if rule == ruleKeysPrivate {
			msg = "a published key must not contain private key members (d, p, q, dp, dq, qi, oth, k)"
		} else {
			msg = "must not match the schema it is negated against"
		}
	case *kind.PropertyNames:
		if rule == ruleVersionFormat {
			msg = fmt.Sprintf("key %q is not a YYYY-MM-DD version", k.Property)
		} else {
			msg = fmt.Sprintf("key %q is not a reverse-domain name (lower case, at least two dot-separated labels)", k.Property)
		}
	case *kind.AnyOf:
		msg = "matches none of the allowed forms"
	case *kind.OneOf:
		if k.Subschemas != nil {
			msg = "matches more than one of the alternatives, but must match exactly one"
		} else {
			msg = "matches none of the alternatives"
		}
	default:
		msg = e.ErrorKind.LocalizedString(printer)
	}
	return "JSON Schema: " + msg
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil || len(b) > 200 {
		return fmt.Sprintf("%.200v", v)
	}
	return string(b)
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

func has(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func last(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return ss[len(ss)-1]
}

// pointer builds a JSON pointer (RFC 6901) from tokens.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

// appendPointer adds one token to a JSON pointer.
func appendPointer(p, tok string) string { return p + "/" + escapeToken(tok) }

func escapeToken(t string) string {
	plain := true
	for i := 0; i < len(t) && plain; i++ {
		plain = t[i] != '~' && t[i] != '/'
	}
	if plain {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}
