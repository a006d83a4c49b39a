package ucp

// Evaluating a quick plan: the keywords of a node applied to a value,
// objects, arrays and numbers, and JSON equality.

import (
	"encoding/json"
	"math/big"
	"unicode/utf8"
)

// valid reports whether v is valid against q.
func (q *quick) valid(v any, e *quickEval, depth int) bool {
	if q == nil {
		return true
	}
	if q.boolean >= 0 {
		return q.boolean == 1
	}
	if depth > quickMaxDepth {
		e.unsure = true
		return false
	}
	depth++
	t := typeBits(v)
	if t == 0 {
		e.unsure = true
		return false
	}
	if q.types != 0 && q.types&t == 0 {
		if !(q.types&tInteger != 0 && t == tNumber && isIntegral(v, e)) {
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
		e.unsure = true
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
		if q.hasNumberChecks && !q.number(v.(json.Number), e) {
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
			e.unsure = true
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

func (q *quick) number(n json.Number, e *quickEval) bool {
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		e.unsure = true
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

func isIntegral(v any, e *quickEval) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		e.unsure = true
	}
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
