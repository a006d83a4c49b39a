package ucp

import (
	"math/big"
	"slices"
	"strings"

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
	// The fields valid reads for every node come first, in one cache line.

	// boolean is the schema's value when it is true or false: 1 or 0; -1
	// when it is an object.
	boolean int8
	// before and after say which keywords valid evaluates before and after
	// the type-specific ones; kinds which types have keywords of their own.
	// Most schema nodes use two or three keywords: the masks spare valid
	// from looking at the rest.
	before, after uint8
	kinds         uint8
	types         uint8 // typeBits; 0 means any
	// members says whether object must visit every member of an instance
	// (additional or pattern properties, property names); without it the
	// declared properties are looked up instead, which costs less.
	members      bool
	noAdditional bool
	uniqueItems  bool
	ref          *quick
	propList     []propQuick // properties, sorted by name (see planLookups)
	// lookupRequired are the required members object looks up on their own.
	lookupRequired []string
	required       []string

	allOf, anyOf      []*quick
	oneOf             []*quick
	not               *quick
	ifq, thenq, elseq *quick
	format            func(any) error
	constant          *any
	enum              []any

	properties      map[string]*quick
	patternProps    []patternQuick
	additional      *quick
	propertyNames   *quick
	dependentReq    []dependency
	minProps        int
	maxProps        int
	minItems        int
	maxItems        int
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

	id int32 // the node's number in its plan, for the memo
	s  *jsonschema.Schema
}

// dependency is one dependentRequired entry: when name is present, so must
// required be.
type dependency struct {
	name     string
	required []string
}

type propQuick struct {
	name     string
	q        *quick
	required bool // the member is also required
}

type patternQuick struct {
	re jsonschema.Regexp
	q  *quick
}

// Keywords of quick.before and quick.after.
const (
	kConst = 1 << iota
	kEnum
	kFormat
	kRef
)

const (
	kNot = 1 << iota
	kAllOf
	kAnyOf
	kOneOf
	kIf
)

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
	for _, n := range memo {
		n.planLookups()
	}
	return q
}

// planLookups decides which members object looks up, once the whole graph
// is built. A required member that is also a declared property is looked up
// once, for both; a declared property whose schema accepts anything and that
// is not required is not looked up at all.
func (q *quick) planLookups() {
	q.lookupRequired = q.required
	if q.members {
		return // object visits every member and checks required apart
	}
	var list []propQuick
	var extra []string
	for _, p := range q.propList {
		p.required = slices.Contains(q.required, p.name)
		if p.required || !p.q.acceptsAll() {
			list = append(list, p)
		}
	}
	for _, r := range q.required {
		if !slices.ContainsFunc(q.propList, func(p propQuick) bool { return p.name == r }) {
			extra = append(extra, r)
		}
	}
	q.propList, q.lookupRequired = list, extra
}

// acceptsAll reports whether q holds no keyword that can fail.
func (q *quick) acceptsAll() bool {
	if q.boolean >= 0 {
		return q.boolean == 1
	}
	return q.before == 0 && q.after == 0 && q.kinds == 0 && q.types == 0
}

func buildQuick(s *jsonschema.Schema, memo map[*jsonschema.Schema]*quick) (*quick, bool) {
	if s == nil {
		return nil, true
	}
	if q, ok := memo[s]; ok {
		return q, true
	}
	q := &quick{s: s, id: int32(len(memo)), boolean: -1, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
	memo[s] = q
	if s.Bool != nil {
		q.boolean = 0
		if *s.Bool {
			q.boolean = 1
		}
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
		for k, x := range q.properties {
			q.propList = append(q.propList, propQuick{name: k, q: x})
		}
		slices.SortFunc(q.propList, func(a, b propQuick) int { return strings.Compare(a.name, b.name) })
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
	q.members = q.patternProps != nil || q.additional != nil || q.noAdditional || q.propertyNames != nil
	for k, deps := range s.DependentRequired {
		q.dependentReq = append(q.dependentReq, dependency{k, deps})
	}
	q.minProps, q.maxProps = intOr(s.MinProperties), intOr(s.MaxProperties)
	q.minItems, q.maxItems = intOr(s.MinItems), intOr(s.MaxItems)
	q.uniqueItems = s.UniqueItems
	q.prefixItems = many(s.PrefixItems)
	q.items = one(s.Items2020)
	q.minLen, q.maxLen = intOr(s.MinLength), intOr(s.MaxLength)
	q.pattern = s.Pattern
	q.minimum, q.maximum, q.exclusiveMin, q.exclusiveMax, q.multipleOf = s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum, s.MultipleOf
	q.hasNumberChecks = s.Minimum != nil || s.Maximum != nil || s.ExclusiveMinimum != nil || s.ExclusiveMaximum != nil || s.MultipleOf != nil
	q.before = flag(q.constant != nil, kConst) | flag(q.enum != nil, kEnum) | flag(q.format != nil, kFormat) | flag(q.ref != nil, kRef)
	q.after = flag(q.not != nil, kNot) | flag(len(q.allOf) > 0, kAllOf) | flag(len(q.anyOf) > 0, kAnyOf) |
		flag(len(q.oneOf) > 0, kOneOf) | flag(q.ifq != nil, kIf)
	q.kinds = flag(q.minProps >= 0 || q.maxProps >= 0 || len(q.required) > 0 || len(q.dependentReq) > 0 || len(q.propList) > 0 || q.members, tObject) |
		flag(q.minItems >= 0 || q.maxItems >= 0 || q.uniqueItems || len(q.prefixItems) > 0 || q.items != nil, tArray) |
		flag(q.minLen >= 0 || q.maxLen >= 0 || q.pattern != nil, tString) |
		flag(q.hasNumberChecks, tNumber)
	return q, ok
}

func flag(b bool, f uint8) uint8 {
	if b {
		return f
	}
	return 0
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
	e.reset()
	ok := q.valid(v, e, 0)
	if len(e.slots) > maxKeptMemo {
		e.slots = nil // a huge document's table is not worth keeping
	}
	evalPool.Put(e)
	return ok
}
