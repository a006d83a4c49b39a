package ucp

import (
	"encoding/json"
	"math/big"
	"reflect"
	"sync"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// quick answers "is this document valid?" over a schema compiled by the
// library, without building errors. The library walks a profile through
// about nine hundred schema nodes, allocating for each (scope, validator,
// location); most profiles are valid, and for them quick gives the same
// answer at a small fraction of the cost. Only a "valid" answer is trusted:
// on "invalid" the library validates again and produces the errors, so a
// gap in quick can cost time, never correctness of the error list.
//
// quick supports the keywords of draft 2019-09 and 2020-12 that the UCP
// schemas use, plus the common rest; a schema graph that uses anything else
// (unevaluated*, dynamic references, contains, content, extensions, older
// drafts) gets no quick plan and always goes through the library.
type quick struct {
	s *jsonschema.Schema

	types             uint8 // typeBits; 0 means any
	ref               *quick
	allOf, anyOf      []*quick
	oneOf             []*quick
	not               *quick
	ifq, thenq, elseq *quick
	format            func(any) error
	constant          *any
	enum              []any

	required        []string
	properties      map[string]*quick
	patternProps    []patternQuick
	additional      *quick
	noAdditional    bool
	propertyNames   *quick
	dependentReq    map[string][]string
	minProps        int
	maxProps        int
	minItems        int
	maxItems        int
	uniqueItems     bool
	prefixItems     []*quick
	items           *quick
	minLen, maxLen  int
	pattern         jsonschema.Regexp
	minimum         *big.Rat
	maximum         *big.Rat
	exclusiveMin    *big.Rat
	exclusiveMax    *big.Rat
	multipleOf      *big.Rat
	hasNumberChecks bool
}

type patternQuick struct {
	re jsonschema.Regexp
	q  *quick
}

const (
	tNull uint8 = 1 << iota
	tBool
	tNumber
	tInteger
	tString
	tArray
	tObject
)

// quickMaxDepth bounds the evaluation's recursion; deeper documents go
// through the library.
const quickMaxDepth = 400

// maxQuickUnique bounds the arrays whose uniqueItems quick compares pairwise.
const maxQuickUnique = 64

// newQuick builds the plan of s, or returns nil when s's graph uses a
// keyword quick does not evaluate.
func newQuick(s *jsonschema.Schema) *quick {
	memo := map[*jsonschema.Schema]*quick{}
	q, ok := buildQuick(s, memo)
	if !ok {
		return nil
	}
	return q
}

func buildQuick(s *jsonschema.Schema, memo map[*jsonschema.Schema]*quick) (*quick, bool) {
	if s == nil {
		return nil, true
	}
	if q, ok := memo[s]; ok {
		return q, true
	}
	q := &quick{s: s, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
	memo[s] = q
	if s.Bool != nil {
		return q, true
	}
	if s.DraftVersion < 2019 || s.RecursiveRef != nil || s.DynamicRef != nil || len(s.Dependencies) > 0 ||
		len(s.DependentSchemas) > 0 || s.UnevaluatedProperties != nil || s.UnevaluatedItems != nil ||
		s.Contains != nil || s.MinContains != nil || s.MaxContains != nil || s.Items != nil || s.AdditionalItems != nil ||
		s.ContentEncoding != nil || s.ContentMediaType != nil || s.ContentSchema != nil || len(s.Extensions) > 0 {
		return nil, false
	}
	ok := true
	one := func(x *jsonschema.Schema) *quick {
		r, good := buildQuick(x, memo)
		ok = ok && good
		return r
	}
	many := func(xs []*jsonschema.Schema) []*quick {
		var out []*quick
		for _, x := range xs {
			out = append(out, one(x))
		}
		return out
	}
	if s.Types != nil {
		for _, t := range s.Types.ToStrings() {
			q.types |= map[string]uint8{"null": tNull, "boolean": tBool, "number": tNumber, "integer": tInteger,
				"string": tString, "array": tArray, "object": tObject}[t]
		}
	}
	q.ref = one(s.Ref)
	q.allOf, q.anyOf, q.oneOf = many(s.AllOf), many(s.AnyOf), many(s.OneOf)
	q.not, q.ifq, q.thenq, q.elseq = one(s.Not), one(s.If), one(s.Then), one(s.Else)
	if s.Format != nil {
		q.format = s.Format.Validate
	}
	q.constant = s.Const
	if s.Enum != nil {
		q.enum = s.Enum.Values
	}
	q.required = s.Required
	if len(s.Properties) > 0 {
		q.properties = make(map[string]*quick, len(s.Properties))
		for k, x := range s.Properties {
			q.properties[k] = one(x)
		}
	}
	for re, x := range s.PatternProperties {
		q.patternProps = append(q.patternProps, patternQuick{re, one(x)})
	}
	switch a := s.AdditionalProperties.(type) {
	case bool:
		q.noAdditional = !a
	case *jsonschema.Schema:
		q.additional = one(a)
	}
	q.propertyNames = one(s.PropertyNames)
	q.dependentReq = s.DependentRequired
	q.minProps, q.maxProps = intOr(s.MinProperties), intOr(s.MaxProperties)
	q.minItems, q.maxItems = intOr(s.MinItems), intOr(s.MaxItems)
	q.uniqueItems = s.UniqueItems
	q.prefixItems = many(s.PrefixItems)
	q.items = one(s.Items2020)
	q.minLen, q.maxLen = intOr(s.MinLength), intOr(s.MaxLength)
	q.pattern = s.Pattern
	q.minimum, q.maximum, q.exclusiveMin, q.exclusiveMax, q.multipleOf = s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum, s.MultipleOf
	q.hasNumberChecks = s.Minimum != nil || s.Maximum != nil || s.ExclusiveMinimum != nil || s.ExclusiveMaximum != nil || s.MultipleOf != nil
	return q, ok
}

func intOr(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

// check reports whether v is valid against q; false also when quick cannot
// tell (too deep, too large to compare).
func (q *quick) check(v any) bool {
	e := evalPool.Get().(*quickEval)
	ok := q.valid(v, e, 0)
	clear(e.memo)
	evalPool.Put(e)
	return ok
}

// evalPool keeps memo maps (and their buckets) between validations.
var evalPool = sync.Pool{New: func() any { return &quickEval{memo: map[quickKey]bool{}} }}

// quickEval is one evaluation's memo. The UCP schemas reach the same
// definitions from several places (a service entry meets service.json's base
// three times: through ucp base, through the business schema's base, and
// through the business entry schema), so each (definition, object) pair is
// evaluated once.
type quickEval struct {
	memo map[quickKey]bool
}

type quickKey struct {
	q   *quick
	obj uintptr // the map's identity; the document is alive and unchanged
}

// ref evaluates a $ref target, memoised for objects.
func (e *quickEval) ref(q *quick, v any, depth int) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return q.valid(v, e, depth)
	}
	k := quickKey{q, reflect.ValueOf(m).Pointer()}
	if r, ok := e.memo[k]; ok {
		return r
	}
	r := q.valid(v, e, depth)
	e.memo[k] = r
	return r
}

// valid reports whether v is valid against q.
func (q *quick) valid(v any, e *quickEval, depth int) bool {
	if q == nil {
		return true
	}
	if q.s.Bool != nil {
		return *q.s.Bool
	}
	if depth > quickMaxDepth {
		return false
	}
	depth++
	t := typeBits(v)
	if t == 0 {
		return false
	}
	if q.types != 0 && q.types&t == 0 {
		if !(q.types&tInteger != 0 && t == tNumber && isIntegral(v)) {
			return false
		}
	}
	if q.constant != nil && !jsonEqual(v, *q.constant) {
		return false
	}
	if q.enum != nil {
		found := false
		for _, e := range q.enum {
			if jsonEqual(v, e) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if q.format != nil && q.format(v) != nil {
		return false
	}
	if q.ref != nil && !e.ref(q.ref, v, depth) {
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		if !q.object(x, e, depth) {
			return false
		}
	case []any:
		if !q.array(x, e, depth) {
			return false
		}
	case string:
		if q.minLen >= 0 || q.maxLen >= 0 {
			n := utf8.RuneCountInString(x)
			if q.minLen >= 0 && n < q.minLen || q.maxLen >= 0 && n > q.maxLen {
				return false
			}
		}
		if q.pattern != nil && !q.pattern.MatchString(x) {
			return false
		}
	case json.Number:
		if q.hasNumberChecks && !q.number(x) {
			return false
		}
	}
	if q.not != nil && q.not.valid(v, e, depth) {
		return false
	}
	for _, s := range q.allOf {
		if !s.valid(v, e, depth) {
			return false
		}
	}
	if len(q.anyOf) > 0 {
		matched := false
		for _, s := range q.anyOf {
			if s.valid(v, e, depth) {
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}
	if len(q.oneOf) > 0 {
		n := 0
		for _, s := range q.oneOf {
			if s.valid(v, e, depth) {
				if n++; n > 1 {
					return false
				}
			}
		}
		if n != 1 {
			return false
		}
	}
	if q.ifq != nil {
		if q.ifq.valid(v, e, depth) {
			if q.thenq != nil && !q.thenq.valid(v, e, depth) {
				return false
			}
		} else if q.elseq != nil && !q.elseq.valid(v, e, depth) {
			return false
		}
	}
	return true
}

func (q *quick) object(m map[string]any, e *quickEval, depth int) bool {
	if q.minProps >= 0 && len(m) < q.minProps || q.maxProps >= 0 && len(m) > q.maxProps {
		return false
	}
	for _, r := range q.required {
		if _, ok := m[r]; !ok {
			return false
		}
	}
	for k, deps := range q.dependentReq {
		if _, ok := m[k]; ok {
			for _, d := range deps {
				if _, ok := m[d]; !ok {
					return false
				}
			}
		}
	}
	if q.properties == nil && q.patternProps == nil && q.additional == nil && !q.noAdditional && q.propertyNames == nil {
		return true
	}
	for k, val := range m {
		evaluated := false
		if s, ok := q.properties[k]; ok {
			evaluated = true
			if !s.valid(val, e, depth) {
				return false
			}
		}
		for _, pp := range q.patternProps {
			if pp.re.MatchString(k) {
				evaluated = true
				if !pp.q.valid(val, e, depth) {
					return false
				}
			}
		}
		if !evaluated {
			if q.noAdditional {
				return false
			}
			if q.additional != nil && !q.additional.valid(val, e, depth) {
				return false
			}
		}
		if q.propertyNames != nil && !q.propertyNames.valid(k, e, depth) {
			return false
		}
	}
	return true
}

func (q *quick) array(a []any, e *quickEval, depth int) bool {
	if q.minItems >= 0 && len(a) < q.minItems || q.maxItems >= 0 && len(a) > q.maxItems {
		return false
	}
	if q.uniqueItems && len(a) > 1 {
		if len(a) > maxQuickUnique {
			return false
		}
		for i := 1; i < len(a); i++ {
			for j := 0; j < i; j++ {
				if jsonEqual(a[i], a[j]) {
					return false
				}
			}
		}
	}
	n := min(len(q.prefixItems), len(a))
	for i := 0; i < n; i++ {
		if !q.prefixItems[i].valid(a[i], e, depth) {
			return false
		}
	}
	if q.items != nil {
		for _, x := range a[n:] {
			if !q.items.valid(x, e, depth) {
				return false
			}
		}
	}
	return true
}

func (q *quick) number(n json.Number) bool {
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return false
	}
	if q.minimum != nil && r.Cmp(q.minimum) < 0 || q.maximum != nil && r.Cmp(q.maximum) > 0 ||
		q.exclusiveMin != nil && r.Cmp(q.exclusiveMin) <= 0 || q.exclusiveMax != nil && r.Cmp(q.exclusiveMax) >= 0 {
		return false
	}
	if q.multipleOf != nil {
		return new(big.Rat).Quo(r, q.multipleOf).IsInt()
	}
	return true
}

// typeBits is the JSON type of a decoded value; 0 for values that are not
// JSON (which the library reports as invalid).
func typeBits(v any) uint8 {
	switch v.(type) {
	case nil:
		return tNull
	case bool:
		return tBool
	case json.Number:
		return tNumber
	case string:
		return tString
	case []any:
		return tArray
	case map[string]any:
		return tObject
	}
	return 0
}

func isIntegral(v any) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	r, ok := new(big.Rat).SetString(string(n))
	return ok && r.IsInt()
}

// jsonEqual is JSON equality as the library defines it: numbers by value.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		rx, ok1 := new(big.Rat).SetString(string(x))
		ry, ok2 := new(big.Rat).SetString(string(y))
		return ok1 && ok2 && rx.Cmp(ry) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}
