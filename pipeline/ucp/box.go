package ucp

// Boxing without an allocation each. A string, json.Number or []any stored
// in an interface normally costs an allocation of its header (the runtime's
// convTstring, convTslice): most of what a parse allocates, a profile has a
// hundred strings. The parser instead writes the headers into blocks it
// allocates a few at a time and makes interfaces that point into them, as
// the runtime's own conversion does with a header it has just allocated. A
// header is written once, before its interface exists, and never again; the
// blocks are ordinary heap memory the garbage collector scans and keeps
// alive as long as a value points into them.

import (
	"encoding/json"
	"unsafe"
)

// eface is the layout of an empty interface.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

func typeWord(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

var (
	typeString = typeWord("")
	typeNumber = typeWord(json.Number(""))
	typeArray  = typeWord([]any(nil))
)

// boxBlock bounds the number of headers in a block. A block holds about as
// many as the rest of the document is likely to need, so a small profile
// does not pay for a large block; a document that needs more gets another.
const boxBlock = 128

// blockFor is the size of the next block when n bytes remain to parse: one
// header for every per bytes (12 for strings, 48 for arrays), between 8 and
// boxBlock. The first block of a document takes four times per, about what
// documented profiles hold (full-valid.json has a string value every 73
// bytes and an array every 280): sized for the densest document, it was
// mostly left unused, and the blocks were a third of what a validation
// allocated.
func blockFor(n, per int, first bool) int {
	if first {
		per *= 4
	}
	return min(max(n/per, 8), boxBlock)
}

// boxString boxes s as a string (typeString) or a json.Number (typeNumber),
// which share a layout.
func (p *parser) boxString(s string, typ unsafe.Pointer) any {
	if len(p.strs) == 0 {
		p.strs = make([]string, blockFor(len(p.data)-p.pos, 12, p.strBlocks == 0))
		p.strBlocks++
	}
	h := &p.strs[0]
	*h = s
	p.strs = p.strs[1:]
	var v any
	*(*eface)(unsafe.Pointer(&v)) = eface{typ: typ, data: unsafe.Pointer(h)}
	return v
}

// boxArray boxes a as a []any.
func (p *parser) boxArray(a []any) any {
	if len(p.arrs) == 0 {
		p.arrs = make([][]any, blockFor(len(p.data)-p.pos, 48, p.arrBlocks == 0))
		p.arrBlocks++
	}
	h := &p.arrs[0]
	*h = a
	p.arrs = p.arrs[1:]
	var v any
	*(*eface)(unsafe.Pointer(&v)) = eface{typ: typeArray, data: unsafe.Pointer(h)}
	return v
}
