package ucp

import (
	"encoding/json"
	"math/big"
	"reflect"
	"slices"
	"strings"
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

// maxKeptMemo bounds the memo tables kept for later evaluations.
const maxKeptMemo = 1 << 12

// evalPool keeps memo tables between validations.
var evalPool = sync.Pool{New: func() any { return new(quickEval) }}

// quickEval is one evaluation's memo. The UCP schemas reach the same
// definitions from several places (a service entry meets service.json's base
// three times: through ucp base, through the business schema's base, and
// through the business entry schema), so each (definition, object) pair is
// evaluated once.
//
// The memo is a small open-addressing table rather than a Go map: keys are
// two words that hash with a multiplication, and a generation number
// empties the table in constant time.
type quickEval struct {
	slots []memoSlot // len is a power of two
	used  int
	gen   uint32
}

// memoSlot holds no pointer: the table costs the garbage collector nothing.
type memoSlot struct {
	obj uintptr // the map's identity; the document is alive and unchanged
	q   int32   // the node's id
	gen uint32  // the slot is empty unless gen is the evaluation's
	ok  bool
}

// reset starts a new evaluation.
func (e *quickEval) reset() {
	e.used = 0
	if e.gen++; e.gen == 0 { // wrapped: old slots could look current
		clear(e.slots)
		e.gen = 1
	}
	if e.slots == nil {
		e.slots = make([]memoSlot, 256)
	}
}

func (e *quickEval) slot(q int32, obj uintptr) int {
	h := (uint64(q)*0x9e3779b97f4a7c15 ^ uint64(obj)) * 0xc2b2ae3d27d4eb4f
	return int(h>>32) & (len(e.slots) - 1)
}

func (e *quickEval) lookup(q int32, obj uintptr) (ok, found bool) {
	mask := len(e.slots) - 1
	for i := e.slot(q, obj); ; i = (i + 1) & mask {
		s := &e.slots[i]
		if s.gen != e.gen {
			return false, false
		}
		if s.q == q && s.obj == obj {
			return s.ok, true
		}
	}
}

func (e *quickEval) store(q int32, obj uintptr, ok bool) {
	if 2*(e.used+1) > len(e.slots) {
		old := e.slots
		e.slots = make([]memoSlot, 2*len(old))
		e.used = 0
		for _, s := range old {
			if s.gen == e.gen {
				e.store(s.q, s.obj, s.ok)
			}
		}
	}
	mask := len(e.slots) - 1
	i := e.slot(q, obj)
	for ; e.slots[i].gen == e.gen; i = (i + 1) & mask {
		if s := &e.slots[i]; s.q == q && s.obj == obj { // a nested evaluation stored it
			s.ok = ok
			return
		}
	}
	e.slots[i] = memoSlot{q: q, obj: obj, gen: e.gen, ok: ok}
	e.used++
}

// ref evaluates a $ref target, memoised for objects.
func (e *quickEval) ref(q *quick, v any, depth int) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return q.valid(v, e, depth)
	}
	obj := reflect.ValueOf(m).Pointer()
	if r, found := e.lookup(q.id, obj); found {
		return r
	}
	r := q.valid(v, e, depth)
	e.store(q.id, obj, r)
	return r
}

// valid reports whether v is valid against q.
func (q *quick) valid(v any, e *quickEval, depth int) bool {
	if q == nil {
		return true
	}
	if q.boolean >= 0 {
		return q.boolean == 1
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
	switch q.before {
	case 0:
	case kRef: // the most common case, without a call
		if !e.ref(q.ref, v, depth) {
			return false
		}
	default:
		if !q.validBefore(v, e, depth) {
			return false
		}
	}
	if q.kinds&t != 0 && !q.validKind(v, t, e, depth) {
		return false
	}
	if q.after != 0 && !q.validAfter(v, e, depth) {
		return false
	}
	return true
}

// validName is valid for an object member's name, which would cost an
// allocation to pass as an interface. It evaluates what schemas of names use
// ($ref, type, length, pattern) and leaves anything else to valid.
func (q *quick) validName(k string, e *quickEval, depth int) bool {
	if q == nil {
		return true
	}
	if q.boolean >= 0 {
		return q.boolean == 1
	}
	if q.before&^kRef != 0 || q.after != 0 {
		return q.valid(k, e, depth)
	}
	if depth > quickMaxDepth {
		return false
	}
	depth++
	if q.types != 0 && q.types&tString == 0 {
		return false
	}
	if q.ref != nil && !q.ref.validName(k, e, depth) {
		return false
	}
	if q.kinds&tString != 0 {
		if q.minLen >= 0 || q.maxLen >= 0 {
			n := utf8.RuneCountInString(k)
			if q.minLen >= 0 && n < q.minLen || q.maxLen >= 0 && n > q.maxLen {
				return false
			}
		}
		if q.pattern != nil && !q.pattern.MatchString(k) {
			return false
		}
	}
	return true
}

// validBefore evaluates const, enum, format and $ref.
func (q *quick) validBefore(v any, e *quickEval, depth int) bool {
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
	return true
}

// validKind evaluates the keywords of v's type.
func (q *quick) validKind(v any, t uint8, e *quickEval, depth int) bool {
	switch t {
	case tObject:
		if !q.object(v.(map[string]any), e, depth) {
			return false
		}
	case tArray:
		if !q.array(v.([]any), e, depth) {
			return false
		}
	case tString:
		x := v.(string)
		if q.minLen >= 0 || q.maxLen >= 0 {
			n := utf8.RuneCountInString(x)
			if q.minLen >= 0 && n < q.minLen || q.maxLen >= 0 && n > q.maxLen {
				return false
			}
		}
		if q.pattern != nil && !q.pattern.MatchString(x) {
			return false
		}
	case tNumber:
		if q.hasNumberChecks && !q.number(v.(json.Number)) {
			return false
		}
	}
	return true
}

// validAfter evaluates not, allOf, anyOf, oneOf and if.
func (q *quick) validAfter(v any, e *quickEval, depth int) bool {
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
	for _, r := range q.lookupRequired {
		if _, ok := m[r]; !ok {
			return false
		}
	}
	for _, dr := range q.dependentReq {
		if _, ok := m[dr.name]; ok {
			for _, d := range dr.required {
				if _, ok := m[d]; !ok {
					return false
				}
			}
		}
	}
	if !q.members {
		for _, p := range q.propList {
			val, ok := m[p.name]
			if !ok {
				if p.required {
					return false
				}
				continue
			}
			if !p.q.valid(val, e, depth) {
				return false
			}
		}
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
		if q.propertyNames != nil && !q.propertyNames.validName(k, e, depth) {
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
	case map[string]any:
		return tObject
	case string:
		return tString
	case []any:
		return tArray
	case nil:
		return tNull
	case bool:
		return tBool
	case json.Number:
		return tNumber
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
