package ucp

// The parser proper: a recursive descent over the bytes of one document
// into maps, slices and json.Number, with its errors and byte classes.

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// parser decodes JSON as encoding/json does (UseNumber; invalid UTF-8 and
// lone surrogates become U+FFFD; the last of duplicate keys wins), about
// four times faster than encoding/json's Decoder, and bounds the nesting.
//
// Allocation is what a decode costs, so the parser avoids it where it can:
// strings without escapes are slices of one copy of the input (src), objects
// take maps recycled from documents that are done with (docMaps), and the
// elements of an array are gathered on a stack and copied into a block
// shared by the document's arrays.
type parser struct {
	data    []byte
	src     string // data as a string, the strings' backing
	pos     int
	depth   int
	badUTF8 bool

	vals     []any // elements of the arrays being read
	valsHigh int   // the most vals held, cleared when the parse ends
	// maps gives the objects their maps; nil makes new ones.
	maps *docMaps
	// block is the free part of the current block that arrays' elements
	// are carved from, blockSize its size when made.
	block     []any
	blockSize int
	// strs and arrs are the free parts of the blocks that string and array
	// values are boxed in (box.go).
	strs []string
	arrs [][]any
	// strBlocks and arrBlocks count the blocks made (blockFor).
	strBlocks, arrBlocks int
}

// maxBlock bounds the blocks of array elements.
const maxBlock = 1024

// newMap returns an empty map for an object.
func (p *parser) newMap() map[string]any {
	if p.maps == nil {
		return map[string]any{}
	}
	return p.maps.take()
}

// newArray returns an array of n elements, usually carved from a shared
// block: a document has dozens of small arrays.
func (p *parser) newArray(n int) []any {
	if n > len(p.block) {
		p.blockSize = min(max(2*p.blockSize, 16), maxBlock)
		if n > p.blockSize/2 {
			return make([]any, n)
		}
		p.block = make([]any, p.blockSize)
	}
	a := p.block[:n:n] // capped: an append never reaches the next array
	p.block = p.block[n:]
	return a
}

// syntaxError is a JSON error with its position.
type syntaxError struct {
	msg       string
	line, col int
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("%s at line %d, column %d", e.msg, e.line, e.col)
}

func (p *parser) fail(format string, args ...any) error {
	line, col := position(p.data, int64(p.pos))
	return &syntaxError{msg: fmt.Sprintf(format, args...), line: line, col: col}
}

func (p *parser) failHere() error {
	if p.pos >= len(p.data) {
		return p.fail("the document ends too early (truncated?)")
	}
	return p.fail("unexpected character %q", rune(p.data[p.pos]))
}

func (p *parser) document() (any, error) {
	if p.src == "" && len(p.data) > 0 {
		p.src = string(p.data)
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(p.data) {
		return nil, p.fail("there is more after the JSON value (%q)", rune(p.data[p.pos]))
	}
	return v, nil
}

func (p *parser) space() {
	d, i := p.data, p.pos
	for i < len(d) && d[i] <= ' ' && byteClass[d[i]]&classSpace != 0 {
		i++
		// Indentation comes in runs of spaces.
		for i+8 <= len(d) && binary.LittleEndian.Uint64(d[i:]) == spaces8 {
			i += 8
		}
	}
	p.pos = i
}

// Eight bytes at a time, as little-endian words.
const (
	spaces8 = 0x2020202020202020
	ones8   = 0x0101010101010101
	highs8  = 0x8080808080808080
)

// plain8 reports whether the eight bytes of w all stand for themselves in a
// string: no quote, backslash, control character or non-ASCII byte.
func plain8(w uint64) bool {
	zero := func(v uint64) uint64 { return (v - ones8) &^ v & highs8 } // the bytes of v that are 0
	return (w&highs8 | (w-0x20*ones8)&^w&highs8 | zero(w^'"'*ones8) | zero(w^'\\'*ones8)) == 0
}

// Byte classes of the parser's hot loops.
const (
	classSpace = 1 << iota // JSON white space
	classPlain             // stands for itself in a string: printable ASCII but " and \
)

var byteClass = func() (t [256]uint8) {
	for _, c := range []byte(" \t\n\r") {
		t[c] |= classSpace
	}
	for c := 0x20; c < 0x80; c++ {
		if c != '"' && c != '\\' {
			t[c] |= classPlain
		}
	}
	return t
}()

func (p *parser) value() (any, error) {
	p.space()
	if p.pos >= len(p.data) {
		return nil, p.failHere()
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, p.failHere()
}

func (p *parser) literal(word string) error {
	if !bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		for i := 0; i < len(word) && p.pos < len(p.data) && p.data[p.pos] == word[i]; i++ {
			p.pos++
		}
		return p.failHere()
	}
	p.pos += len(word)
	return nil
}

func (p *parser) enter() error {
	if p.depth++; p.depth > maxDepth {
		return p.fail("the document nests deeper than %d levels", maxDepth)
	}
	return nil
}

func (p *parser) object() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++ // {
	m := p.newMap()
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return m, nil
	}
	for {
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.failHere()
		}
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.failHere()
		}
		p.pos++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		m[k] = v // in order: the last of duplicate keys wins
		p.space()
		if p.pos >= len(p.data) {
			return nil, p.failHere()
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			p.depth--
			return m, nil
		default:
			return nil, p.failHere()
		}
	}
}

func (p *parser) array() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++ // [
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return p.boxArray([]any{}), nil
	}
	base := len(p.vals)
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		p.vals = append(p.vals, v)
		p.valsHigh = max(p.valsHigh, len(p.vals))
		p.space()
		if p.pos >= len(p.data) {
			return nil, p.failHere()
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			p.depth--
			a := p.newArray(len(p.vals) - base)
			copy(a, p.vals[base:])
			p.vals = p.vals[:base] // cleared when the parse ends
			return p.boxArray(a), nil
		default:
			return nil, p.failHere()
		}
	}
}

// number checks the JSON number grammar and keeps the literal.
func (p *parser) number() (any, error) {
	start := p.pos
	d := p.data
	if d[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(d) && d[p.pos] >= '0' && d[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	switch {
	case p.pos < len(d) && d[p.pos] == '0':
		p.pos++
	case digits() == 0:
		return nil, p.failHere()
	}
	if p.pos < len(d) && d[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.failHere()
		}
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		p.pos++
		if p.pos < len(d) && (d[p.pos] == '+' || d[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.failHere()
		}
	}
	return p.boxString(p.src[start:p.pos], typeNumber), nil
}
