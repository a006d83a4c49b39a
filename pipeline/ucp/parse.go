package ucp

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// maxDepth bounds the nesting of a profile. Real profiles nest less than 15
// levels; the bound keeps a hostile document from costing deep recursion.
const maxDepth = 256

// parseProfile decodes raw into a JSON value (numbers as json.Number, as the
// schema library expects) and a copy to echo in the report. A document that
// is not JSON gives an error in words a store owner can act on. Invalid
// UTF-8 inside strings is reported but does not stop the checks.
//
// The value's strings are views of the echo: one copy of the input serves
// both. A report must therefore keep no string of the value once it is
// returned (its caller owns the echo and may write to it); validate copies
// the one it keeps, ucp.version.
func parseProfile(raw []byte, fs *findings) (any, json.RawMessage, error) {
	doc, echo, _, err := parseDocument(raw, fs)
	return doc, echo, err
}

// parseDocument is parseProfile, and also returns the document's maps, to
// be recycled when the document is no longer used (nil when there is no
// document).
func parseDocument(raw []byte, fs *findings) (any, json.RawMessage, *docMaps, error) {
	trimmed := bytes.TrimLeft(raw, " \t\r\n")
	switch {
	case len(trimmed) == 0:
		return nil, nil, nil, errors.New("the profile is empty")
	case bytes.HasPrefix(trimmed, []byte("\xef\xbb\xbf")):
		return nil, nil, nil, errors.New("the profile starts with a UTF-8 byte order mark, which JSON parsers reject")
	case trimmed[0] == '<':
		return nil, nil, nil, errors.New("the body is HTML or XML, not JSON (an error page or a soft 404?)")
	}
	// The echo is a copy of the input (the caller may reuse its buffer);
	// json.Marshal compacts a RawMessage. Nothing writes to it while the
	// value is in use, so the strings may share its bytes.
	echo := bytes.Clone(raw)
	st := stackPool.Get().(*stacks)
	maps := docMapsPool.Get().(*docMaps)
	p := parser{data: echo, src: unsafe.String(unsafe.SliceData(echo), len(echo)), vals: st.vals, maps: maps}
	doc, err := p.document()
	st.keep(len(raw), p.vals[:p.valsHigh])
	stackPool.Put(st)
	if err != nil {
		maps.recycle()
		return nil, nil, nil, fmt.Errorf("the profile is not valid JSON: %w", err)
	}
	if p.badUTF8 {
		fs.rule(ruleJSONObject, "", "the profile is not valid UTF-8; invalid bytes were read as U+FFFD")
		// Echo the decoded value, so the report itself stays valid UTF-8.
		b, err := json.Marshal(doc)
		if err != nil {
			maps.recycle()
			return nil, nil, nil, fmt.Errorf("the profile cannot be echoed: %w", err)
		}
		return doc, b, maps, nil
	}
	return doc, echo, maps, nil
}

// docMaps are the small maps of one parsed document. Maps are most of what
// a parse allocates (a profile has dozens of objects), so once the document
// is no longer used, recycle clears them for the objects of later parses.
type docMaps struct {
	free []map[string]any // cleared, ready for objects
	used []map[string]any // taken by the document
}

var docMapsPool = sync.Pool{New: func() any { return new(docMaps) }}

const (
	// maxRecycledMap is the most members of a map that is recycled: up to
	// eight, a map is one group of slots, and stays one after clear.
	maxRecycledMap = 8
	// maxFreeMaps bounds the maps kept for later parses.
	maxFreeMaps = 512
)

// take returns an empty map for an object.
func (d *docMaps) take() map[string]any {
	var m map[string]any
	if k := len(d.free); k > 0 {
		m = d.free[k-1]
		d.free[k-1] = nil
		d.free = d.free[:k-1]
	} else {
		m = map[string]any{}
	}
	d.used = append(d.used, m)
	return m
}

// recycle clears the document's small maps for later parses. Nothing may
// use the document afterwards: not one of its maps may be kept anywhere.
func (d *docMaps) recycle() {
	if d == nil {
		return
	}
	for _, m := range d.used {
		if len(m) <= maxRecycledMap && len(d.free) < maxFreeMaps {
			clear(m)
			d.free = append(d.free, m)
		}
	}
	clear(d.used)
	d.used = d.used[:0]
	docMapsPool.Put(d)
}

// stacks are a parser's work stack, kept for the next parse.
type stacks struct {
	vals []any
}

var stackPool = sync.Pool{New: func() any { return new(stacks) }}

// maxKeptStacks is the largest document whose stacks are kept: a huge one
// would leave huge stacks behind.
const maxKeptStacks = 64 << 10

// keep stores the stack of a parse of n bytes, emptied, for the next one;
// vals is as much of it as the parse used.
func (st *stacks) keep(n int, vals []any) {
	clear(vals) // it must not keep the values alive
	st.vals = nil
	if n <= maxKeptStacks {
		st.vals = vals[:0]
	}
}

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
		return []any{}, nil
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
			return a, nil
		default:
			return nil, p.failHere()
		}
	}
}

// boxedValues are string values common in UCP profiles, boxed once: a
// string stored in an interface otherwise costs an allocation.
var boxedValues = func() map[string]any {
	m := map[string]any{}
	defer func() {
		for v := range m {
			boxedShape[v[0]] |= 1 << len(v)
		}
	}()
	for _, v := range []string{"2026-08-25", "2026-04-08", "2026-01-23", "2026-01-11", "rest", "mcp", "a2a", "embedded",
		"EC", "OKP", "P-256", "P-384", "Ed25519", "ES256", "ES384", "EdDSA", "sig", "card", "shipping", "pickup", "light", "dark",
		"dev.ucp.shopping.checkout", "dev.ucp.shopping.cart", "oauth2"} {
		m[v] = v
	}
	return m
}()

// key decodes an object member name; a plain one is a slice of src.
func (p *parser) key() (string, error) {
	start := p.pos + 1
	lit, plain, err := p.span()
	if err != nil {
		return "", err
	}
	if plain {
		return p.src[start : start+len(lit)], nil
	}
	return p.unquote(lit), nil
}

// str decodes a string value; a plain one is a slice of src, and common
// values cost no allocation at all.
func (p *parser) str() (any, error) {
	start := p.pos + 1
	lit, plain, err := p.span()
	if err != nil {
		return nil, err
	}
	if plain {
		if len(lit) > 0 && len(lit) < 64 && boxedShape[lit[0]]&(1<<len(lit)) != 0 {
			if v, ok := boxedValues[string(lit)]; ok { // the lookup does not copy lit
				return v, nil
			}
		}
		return p.src[start : start+len(lit)], nil
	}
	return p.unquote(lit), nil
}

// boxedShape has, for each first byte, a bit for the length of each boxed
// value starting with it: most strings skip the lookup.
var boxedShape [256]uint64

// span checks the string literal at p.pos and returns its body; plain means
// it has no escapes and is ASCII, so the body is the string.
func (p *parser) span() (lit []byte, plain bool, err error) {
	start := p.pos
	// Most strings are plain ASCII: find the closing quote in one tight loop.
	d, i := p.data, start+1
	for i+8 <= len(d) && plain8(binary.LittleEndian.Uint64(d[i:])) {
		i += 8
	}
	for i < len(d) && byteClass[d[i]]&classPlain != 0 {
		i++
	}
	if i < len(d) && d[i] == '"' {
		p.pos = i + 1
		return d[start+1 : i], true, nil
	}
	p.pos++ // opening quote
	plain = true
	for {
		if p.pos >= len(p.data) {
			return nil, false, p.failHere()
		}
		c := p.data[p.pos]
		if c == '"' {
			break
		}
		if c < 0x20 {
			return nil, false, p.fail("control character %q in a string", rune(c))
		}
		if c == '\\' {
			plain = false
			p.pos++
			if p.pos >= len(p.data) {
				return nil, false, p.failHere()
			}
			switch p.data[p.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.pos++
			case 'u':
				if p.pos+4 >= len(p.data) || !isHex(p.data[p.pos+1]) || !isHex(p.data[p.pos+2]) || !isHex(p.data[p.pos+3]) || !isHex(p.data[p.pos+4]) {
					p.pos++
					return nil, false, p.fail("invalid \\u escape in a string")
				}
				p.pos += 5
			default:
				return nil, false, p.fail("invalid escape \\%c in a string", p.data[p.pos])
			}
			continue
		}
		if c >= 0x80 {
			plain = false
		}
		p.pos++
	}
	lit = p.data[start+1 : p.pos]
	p.pos++ // closing quote
	return lit, plain, nil
}

// unquote decodes the body of a string literal already checked by str.
func (p *parser) unquote(lit []byte) string {
	b := make([]byte, 0, len(lit))
	for i := 0; i < len(lit); {
		c := lit[i]
		switch {
		case c == '\\':
			i++
			switch lit[i] {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(lit[i+1:])
				i += 5
				if utf16.IsSurrogate(r) {
					if i+5 < len(lit) && lit[i] == '\\' && lit[i+1] == 'u' {
						if dec := utf16.DecodeRune(r, hex4(lit[i+2:])); dec != utf8.RuneError {
							b = utf8.AppendRune(b, dec)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
				continue
			default: // " \ /
				b = append(b, lit[i])
			}
			i++
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(lit[i:])
			if r == utf8.RuneError && size == 1 {
				p.badUTF8 = true
			}
			b = utf8.AppendRune(b, r)
			i += size
		}
	}
	return string(b)
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		c = lower(c)
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		default:
			r = r<<4 | rune(c-'a'+10)
		}
	}
	return r
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
	return json.Number(p.src[start:p.pos]), nil
}

func position(raw []byte, off int64) (line, col int) {
	if off > int64(len(raw)) {
		off = int64(len(raw))
	}
	line, col = 1, 1
	for _, c := range raw[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// nesting returns the deepest nesting of arrays and objects in raw, scanning
// bytes without decoding (strings are skipped).
func nesting(raw []byte) int {
	depth, max := 0, 0
	inString, escaped := false, false
	for _, c := range raw {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > max {
				max = depth
			}
		case ']', '}':
			depth--
		}
	}
	return max
}

// jsonType names the JSON type of v for messages.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "an unknown value"
}
