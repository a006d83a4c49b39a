package ucp

// The memo of one quick evaluation: an open-addressing table of
// (definition, object) answers, pooled between validations.

import (
	"reflect"
	"sync"
)

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
	// unsure is set when the evaluation declined to decide a value (too
	// deep, too long to compare, a number it cannot read): its "invalid"
	// answers are then not to be trusted.
	unsure bool
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
	e.unsure = false
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
