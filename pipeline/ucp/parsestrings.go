package ucp

// Strings in the parser: member names and string values, plain ones
// sliced from the source, common ones boxed once, escapes decoded.

import (
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"
)

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

// str decodes a string value; a plain one is a slice of src. Its header
// is boxed in the parser's block (box.go), not allocated on its own.
func (p *parser) str() (any, error) {
	start := p.pos + 1
	lit, plain, err := p.span()
	if err != nil {
		return nil, err
	}
	if plain {
		return p.boxString(p.src[start:start+len(lit)], typeString), nil
	}
	return p.boxString(p.unquote(lit), typeString), nil
}

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
