package ucp

// The slow path of a quick plan: the errors of an invalid document, built as
// the schema library builds them (the same kinds, schema and instance
// locations and causes, up to the order of an object's members), so that
// flatten, classify and schemaMessage read them as they read the library's.
// The quick evaluation decides which parts are invalid; only those are
// explained, so a document with one error costs little more than a valid one.
// The library stays the reference: when the plan cannot tell (explain's ok is
// false) it validates instead, and TestSchemaErrorsDifferential holds both to
// the same errors.

import (
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

type verr = jsonschema.ValidationError

// explainer is one explanation: the quick evaluation whose memo it shares,
// and whether it went wrong.
type explainer struct {
	e *quickEval
	// broken is set when a part the evaluation called invalid had no error
	// to show: quick and the explanation disagree, and the library decides.
	broken bool
}

// explain returns the library's error for v (nil when v is valid); ok is
// false when the plan cannot tell and the library must validate.
func (q *quick) explain(v any) (err error, ok bool) {
	e := evalPool.Get().(*quickEval)
	e.reset()
	defer func() {
		if len(e.slots) > maxKeptMemo {
			e.slots = nil
		}
		evalPool.Put(e)
	}()
	if q.valid(v, e, 0) {
		return nil, true
	}
	if e.unsure {
		return nil, false
	}
	x := explainer{e: e}
	causes := x.node(q, v, nil, 0)
	if x.broken || e.unsure || len(causes) == 0 {
		return nil, false
	}
	return &verr{SchemaURL: q.s.Location, ErrorKind: &kind.Schema{Location: q.s.Location}, Causes: causes}, true
}

// valid is the quick verdict of a part.
func (x *explainer) valid(q *quick, v any, depth int) bool {
	return q == nil || q.valid(v, x.e, depth)
}

// sub is the error of the validator the library starts for q at loc (a
// property, an item, a branch): its one error, or a group of them; nil when
// q accepts v.
func (x *explainer) sub(q *quick, v any, loc []string, depth int) *verr {
	if x.valid(q, v, depth) {
		return nil
	}
	errs := x.node(q, v, loc, depth)
	switch len(errs) {
	case 0:
		x.broken = true
		return nil
	case 1:
		return errs[0]
	}
	return &verr{SchemaURL: q.s.Location, InstanceLocation: loc, ErrorKind: &kind.Group{}, Causes: errs}
}

// appendSub appends the error of a branch that must fail.
func (x *explainer) appendSub(errs []*verr, q *quick, v any, loc []string, depth int) []*verr {
	err := x.sub(q, v, loc, depth)
	if err == nil {
		x.broken = true
		return errs
	}
	return append(errs, err)
}

// child is loc with one more token, never sharing loc's array.
func child(loc []string, tok string) []string {
	return append(loc[:len(loc):len(loc)], tok)
}

func leaf(q *quick, loc []string, k jsonschema.ErrorKind) *verr {
	return &verr{SchemaURL: q.s.Location, InstanceLocation: loc, ErrorKind: k}
}

// node lists the errors of v against q, in the library's order of keywords.
func (x *explainer) node(q *quick, v any, loc []string, depth int) []*verr {
	if q.boolean >= 0 {
		if q.boolean == 1 {
			return nil
		}
		return []*verr{leaf(q, loc, &kind.FalseSchema{})}
	}
	if depth > quickMaxDepth {
		x.e.unsure = true
		return nil
	}
	depth++
	t := typeBits(v)
	if t == 0 {
		x.e.unsure = true
		return nil
	}
	if q.types != 0 && q.types&t == 0 && !(q.types&tInteger != 0 && t == tNumber && isIntegral(v, x.e)) {
		return []*verr{leaf(q, loc, &kind.Type{Got: typeName(t), Want: q.s.Types.ToStrings()})}
	}
	if q.constant != nil && !jsonEqual(v, *q.constant) {
		return []*verr{leaf(q, loc, &kind.Const{Got: v, Want: *q.constant})}
	}
	if q.enum != nil && !slices.ContainsFunc(q.enum, func(e any) bool { return jsonEqual(v, e) }) {
		return []*verr{leaf(q, loc, &kind.Enum{Got: v, Want: q.enum})}
	}
	if q.format != nil {
		if err := q.format(v); err != nil {
			return []*verr{leaf(q, loc, &kind.Format{Got: v, Want: q.s.Format.Name, Err: err})}
		}
	}
	var errs []*verr
	if q.ref != nil && !x.valid(q.ref, v, depth) {
		causes := x.node(q.ref, v, loc, depth)
		if len(causes) == 0 {
			x.broken = true
		}
		errs = append(errs, &verr{SchemaURL: q.s.Location, InstanceLocation: loc,
			ErrorKind: &kind.Reference{Keyword: "$ref", URL: q.ref.s.Location}, Causes: causes})
	}
	switch t {
	case tObject:
		errs = x.object(q, v.(map[string]any), loc, depth, errs)
	case tArray:
		errs = x.array(q, v.([]any), loc, depth, errs)
	case tString:
		errs = x.str(q, v.(string), loc, errs)
	case tNumber:
		errs = x.number(q, v, loc, errs)
	}
	return x.cond(q, v, loc, depth, errs)
}

func typeName(t uint8) string {
	switch t {
	case tNull:
		return "null"
	case tBool:
		return "boolean"
	case tNumber:
		return "number"
	case tString:
		return "string"
	case tArray:
		return "array"
	}
	return "object"
}

func (x *explainer) object(q *quick, m map[string]any, loc []string, depth int, errs []*verr) []*verr {
	if q.minProps >= 0 && len(m) < q.minProps {
		errs = append(errs, leaf(q, loc, &kind.MinProperties{Got: len(m), Want: q.minProps}))
	}
	if q.maxProps >= 0 && len(m) > q.maxProps {
		errs = append(errs, leaf(q, loc, &kind.MaxProperties{Got: len(m), Want: q.maxProps}))
	}
	if missing := missingOf(m, q.required); missing != nil {
		errs = append(errs, leaf(q, loc, &kind.Required{Missing: missing}))
	}
	// The members in map order, as the library takes them: the report sorts
	// its findings.
	var additional []string
	for k, val := range m {
		evaluated := false
		if s, ok := q.properties[k]; ok {
			evaluated = true
			if err := x.sub(s, val, child(loc, k), depth); err != nil {
				errs = append(errs, err)
			}
		}
		for _, pp := range q.patternProps {
			if pp.re.MatchString(k) {
				evaluated = true
				if err := x.sub(pp.q, val, child(loc, k), depth); err != nil {
					errs = append(errs, err)
				}
			}
		}
		if !evaluated {
			if q.noAdditional {
				additional = append(additional, k)
			} else if q.additional != nil {
				if err := x.sub(q.additional, val, child(loc, k), depth); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	if len(additional) > 0 {
		errs = append(errs, leaf(q, loc, &kind.AdditionalProperties{Properties: additional}))
	}
	if pn := q.propertyNames; pn != nil {
		for k := range m {
			if pn.validName(k, x.e, depth) {
				continue
			}
			// The library validates the name on its own, from an empty
			// location, and reports it at the object.
			causes := x.node(pn, k, []string{}, 0)
			if len(causes) == 0 {
				x.broken = true
			}
			errs = append(errs, &verr{SchemaURL: pn.s.Location, InstanceLocation: loc,
				ErrorKind: &kind.PropertyNames{Property: k}, Causes: causes})
		}
	}
	for _, dr := range q.dependentReq {
		if _, ok := m[dr.name]; ok {
			if missing := missingOf(m, dr.required); missing != nil {
				errs = append(errs, leaf(q, loc, &kind.DependentRequired{Prop: dr.name, Missing: missing}))
			}
		}
	}
	return errs
}

func missingOf(m map[string]any, names []string) []string {
	var missing []string
	for _, r := range names {
		if _, ok := m[r]; !ok {
			missing = append(missing, r)
		}
	}
	return missing
}

func (x *explainer) array(q *quick, a []any, loc []string, depth int, errs []*verr) []*verr {
	if q.minItems >= 0 && len(a) < q.minItems {
		errs = append(errs, leaf(q, loc, &kind.MinItems{Got: len(a), Want: q.minItems}))
	}
	if q.maxItems >= 0 && len(a) > q.maxItems {
		errs = append(errs, leaf(q, loc, &kind.MaxItems{Got: len(a), Want: q.maxItems}))
	}
	if q.uniqueItems && len(a) > 1 {
		if len(a) > maxQuickUnique {
			x.e.unsure = true
			return errs
		}
	dup:
		for i := 1; i < len(a); i++ {
			for j := 0; j < i; j++ {
				if jsonEqual(a[i], a[j]) {
					errs = append(errs, leaf(q, loc, &kind.UniqueItems{Duplicates: [2]int{j, i}}))
					break dup
				}
			}
		}
	}
	n := min(len(q.prefixItems), len(a))
	for i := 0; i < n; i++ {
		if err := x.sub(q.prefixItems[i], a[i], child(loc, strconv.Itoa(i)), depth); err != nil {
			errs = append(errs, err)
		}
	}
	if q.items != nil {
		for i := n; i < len(a); i++ {
			if err := x.sub(q.items, a[i], child(loc, strconv.Itoa(i)), depth); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

func (x *explainer) str(q *quick, s string, loc []string, errs []*verr) []*verr {
	if q.minLen >= 0 || q.maxLen >= 0 {
		n := utf8.RuneCountInString(s)
		if q.minLen >= 0 && n < q.minLen {
			errs = append(errs, leaf(q, loc, &kind.MinLength{Got: n, Want: q.minLen}))
		}
		if q.maxLen >= 0 && n > q.maxLen {
			errs = append(errs, leaf(q, loc, &kind.MaxLength{Got: n, Want: q.maxLen}))
		}
	}
	if q.pattern != nil && !q.pattern.MatchString(s) {
		errs = append(errs, leaf(q, loc, &kind.Pattern{Got: s, Want: q.pattern.String()}))
	}
	return errs
}

func (x *explainer) number(q *quick, v any, loc []string, errs []*verr) []*verr {
	if !q.hasNumberChecks {
		return errs
	}
	r, ok := new(big.Rat).SetString(string(v.(json.Number)))
	if !ok {
		x.e.unsure = true
		return errs
	}
	if q.minimum != nil && r.Cmp(q.minimum) < 0 {
		errs = append(errs, leaf(q, loc, &kind.Minimum{Got: r, Want: q.minimum}))
	}
	if q.maximum != nil && r.Cmp(q.maximum) > 0 {
		errs = append(errs, leaf(q, loc, &kind.Maximum{Got: r, Want: q.maximum}))
	}
	if q.exclusiveMin != nil && r.Cmp(q.exclusiveMin) <= 0 {
		errs = append(errs, leaf(q, loc, &kind.ExclusiveMinimum{Got: r, Want: q.exclusiveMin}))
	}
	if q.exclusiveMax != nil && r.Cmp(q.exclusiveMax) >= 0 {
		errs = append(errs, leaf(q, loc, &kind.ExclusiveMaximum{Got: r, Want: q.exclusiveMax}))
	}
	if q.multipleOf != nil && !new(big.Rat).Quo(r, q.multipleOf).IsInt() {
		errs = append(errs, leaf(q, loc, &kind.MultipleOf{Got: r, Want: q.multipleOf}))
	}
	return errs
}

// cond evaluates not, allOf, anyOf, oneOf and if/then/else as the library
// does, after the other keywords.
func (x *explainer) cond(q *quick, v any, loc []string, depth int, errs []*verr) []*verr {
	if q.not != nil && x.valid(q.not, v, depth) {
		errs = append(errs, leaf(q, loc, &kind.Not{}))
	}
	if len(q.allOf) > 0 {
		var causes []*verr
		for _, s := range q.allOf {
			if err := x.sub(s, v, loc, depth); err != nil {
				causes = append(causes, err)
			}
		}
		if len(causes) > 0 {
			errs = append(errs, &verr{SchemaURL: q.s.Location, InstanceLocation: loc, ErrorKind: &kind.AllOf{}, Causes: causes})
		}
	}
	if len(q.anyOf) > 0 && !slices.ContainsFunc(q.anyOf, func(s *quick) bool { return x.valid(s, v, depth) }) {
		var causes []*verr
		for _, s := range q.anyOf {
			causes = x.appendSub(causes, s, v, loc, depth)
		}
		errs = append(errs, &verr{SchemaURL: q.s.Location, InstanceLocation: loc, ErrorKind: &kind.AnyOf{}, Causes: causes})
	}
	if len(q.oneOf) > 0 {
		matched := -1
		for i, s := range q.oneOf {
			if !x.valid(s, v, depth) {
				continue
			}
			if matched >= 0 {
				errs = append(errs, leaf(q, loc, &kind.OneOf{Subschemas: []int{matched, i}}))
				break
			}
			matched = i
		}
		if matched < 0 {
			var causes []*verr
			for _, s := range q.oneOf {
				causes = x.appendSub(causes, s, v, loc, depth)
			}
			errs = append(errs, &verr{SchemaURL: q.s.Location, InstanceLocation: loc, ErrorKind: &kind.OneOf{}, Causes: causes})
		}
	}
	if q.ifq != nil {
		branch := q.elseq
		if x.valid(q.ifq, v, depth) {
			branch = q.thenq
		}
		if branch != nil {
			if err := x.sub(branch, v, loc, depth); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}
