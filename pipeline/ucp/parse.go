package ucp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of a profile. Real profiles nest less than 15
// levels; the bound keeps a hostile document from costing deep recursion.
const maxDepth = 256

// parseProfile decodes raw into a JSON value (numbers as json.Number, as the
// schema library expects) and a compact copy to echo in the report. A
// document that is not JSON gives an error in words a store owner can act on.
// Invalid UTF-8 inside strings is reported but does not stop the checks.
func parseProfile(raw []byte, fs *findings) (any, json.RawMessage, error) {
	trimmed := bytes.TrimLeft(raw, " \t\r\n")
	switch {
	case len(trimmed) == 0:
		return nil, nil, errors.New("the profile is empty")
	case bytes.HasPrefix(trimmed, []byte("\xef\xbb\xbf")):
		return nil, nil, errors.New("the profile starts with a UTF-8 byte order mark, which JSON parsers reject")
	case trimmed[0] == '<':
		return nil, nil, errors.New("the body is HTML or XML, not JSON (an error page or a soft 404?)")
	}
	p := parser{data: raw}
	doc, err := p.document()
	if err != nil {
		return nil, nil, fmt.Errorf("the profile is not valid JSON: %w", err)
	}
	if p.badUTF8 {
		fs.rule(ruleJSONObject, "", "the profile is not valid UTF-8; invalid bytes were read as U+FFFD")
		// Echo the decoded value, so the report itself stays valid UTF-8.
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, nil, fmt.Errorf("the profile cannot be echoed: %w", err)
		}
		return doc, b, nil
	}
	// The echo is a copy of the input (the caller may reuse its buffer);
	// json.Marshal compacts a RawMessage.
	return doc, bytes.Clone(raw), nil
}

// parser decodes JSON as encoding/json does (UseNumber; invalid UTF-8 and
// lone surrogates become U+FFFD; the last of duplicate keys wins), about
// four times faster than encoding/json's Decoder, and bounds the nesting.
type parser struct {
	data    []byte
	pos     int
	depth   int
	badUTF8 bool
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
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

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
	m := map[string]any{}
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
		m[k] = v
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
	a := []any{}
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return a, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
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
			return a, nil
		default:
			return nil, p.failHere()
		}
	}
}

// commonKeys are member names of UCP profiles, returned without allocating.
var commonKeys = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{"ucp", "version", "services", "capabilities", "payment_handlers", "supported_versions",
		"map_order", "spec", "schema", "transport", "endpoint", "config", "id", "extends", "keys", "kid", "kty",
		"crv", "x", "y", "use", "alg", "available_instruments", "type", "constraints", "delegate", "color_scheme",
		"dev.ucp.shopping", "dev.ucp.shopping.checkout", "dev.ucp.shopping.cart", "dev.ucp.shopping.order",
		"dev.ucp.shopping.catalog.search", "dev.ucp.shopping.catalog.lookup", "dev.ucp.shopping.fulfillment",
		"dev.ucp.shopping.discount", "dev.ucp.shopping.buyer_consent", "dev.ucp.common.identity_linking", "scopes", "providers"} {
		m[k] = k
	}
	return m
}()

// commonValues are string values of UCP profiles, boxed once.
var commonValues = func() map[string]any {
	m := map[string]any{}
	for _, v := range []string{"2026-08-25", "2026-04-08", "2026-01-23", "2026-01-11", "rest", "mcp", "a2a", "embedded",
		"EC", "OKP", "P-256", "P-384", "Ed25519", "ES256", "ES384", "EdDSA", "sig", "card", "shipping", "pickup", "light", "dark",
		"dev.ucp.shopping.checkout", "dev.ucp.shopping.cart", "oauth2"} {
		m[v] = v
	}
	return m
}()

// key decodes an object member name; common names cost no allocation.
func (p *parser) key() (string, error) {
	lit, plain, err := p.span()
	if err != nil {
		return "", err
	}
	if plain {
		if k, ok := commonKeys[string(lit)]; ok { // the lookup does not copy lit
			return k, nil
		}
		return string(lit), nil
	}
	return p.unquote(lit), nil
}

// str decodes a string value; common values cost no allocation.
func (p *parser) str() (any, error) {
	lit, plain, err := p.span()
	if err != nil {
		return nil, err
	}
	if plain {
		if v, ok := commonValues[string(lit)]; ok {
			return v, nil
		}
		return string(lit), nil
	}
	return p.unquote(lit), nil
}

// span checks the string literal at p.pos and returns its body; plain means
// it has no escapes and is ASCII, so the body is the string.
func (p *parser) span() (lit []byte, plain bool, err error) {
	start := p.pos
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
	return json.Number(d[start:p.pos]), nil
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
