package ucp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// maxDepth bounds the nesting of a profile. Real profiles nest less than 15
// levels; the bound keeps a hostile document from costing deep recursion.
const maxDepth = 256

// parseProfile decodes raw into a JSON value (numbers as json.Number, as the
// schema library expects) and the bytes to echo in the report. A document
// that is not JSON gives an error in words a store owner can act on.
// Invalid UTF-8 inside strings is reported but does not stop the checks.
//
// raw is not copied: the echo is raw itself (the decoded value, re-encoded,
// when raw is not valid UTF-8), and the value's strings are views of it. The
// caller must not change raw while it uses the value, the echo or a report
// made from them (Validate says so).
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
	// The echo is the input (json.Marshal compacts a RawMessage). A copy
	// was half of what a validation allocated; nothing writes to raw while
	// the value is in use, so the strings may share its bytes.
	echo := raw
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
	// maxRecycledMap is the most members of a map that is recycled. A map
	// keeps its slots after clear: past eight members it is a table of
	// groups of eight, which costs a little more to clear and to hold, and
	// whose growth took five allocations of its own on every parse (the
	// ten capabilities of full-valid.json); a profile's registries stay
	// well under 32.
	maxRecycledMap = 32
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
