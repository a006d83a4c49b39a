package readlayer

import (
	"encoding/binary"
	"errors"
	"strings"
)

// A rowCodec turns rows into records and back. String values are
// dictionary-coded per field while a field has few distinct values (enums,
// tool lists, fix texts, versions); the host inside a value is replaced by
// a mark first, so "https://<host>/.well-known/ucp" is one dictionary
// entry for every store. A field that passes dictMax distinct values
// stores further new values inline. The dictionaries are built while a
// snapshot loads and frozen before the first lookup; the zero-dictionary
// codec (inlineCodec) codes every value inline.
type rowCodec struct {
	dicts [][]string
	index []map[string]uint64 // while building; nil once frozen
}

// dictMax bounds one field's dictionary.
const dictMax = 4096

// hostMark stands for the row's host inside a string value. NUL never
// appears in the published text columns; a value that holds one is coded
// inline without substitution.
const hostMark = "\x00"

// String codes: an inline value as is, an inline value with the host
// marked, or dictionary entry code-codeDict.
const (
	codeRaw    = 0
	codeMarked = 1
	codeDict   = 2
)

func newRowCodec() *rowCodec {
	return &rowCodec{dicts: make([][]string, len(rowFields)), index: make([]map[string]uint64, len(rowFields))}
}

// inlineCodec codes every string inline: for rows kept outside a snapshot
// (live checks), where no dictionary may grow.
var inlineCodec = &rowCodec{}

// freeze ends dictionary building.
func (c *rowCodec) freeze() { c.index = nil }

// encode appends the record form of r to buf: a null bitmap, then the
// values of the non-null fields in field order.
func (c *rowCodec) encode(buf []byte, r *Row) []byte {
	nb := (len(rowFields) + 7) / 8
	start := len(buf)
	buf = append(buf, make([]byte, nb)...)
	for i, v := range r.vals {
		if !v.ok {
			continue
		}
		buf[start+i/8] |= 1 << (i % 8)
		switch rowFields[i].kind {
		case kStr:
			buf = c.appendString(buf, i, r.host, v.s)
		case kBool:
			buf = append(buf, byte(v.n))
		case kInt, kTime:
			buf = binary.AppendVarint(buf, v.n)
		}
	}
	return buf
}

func (c *rowCodec) appendString(buf []byte, f int, host, s string) []byte {
	if strings.Contains(s, hostMark) {
		buf = binary.AppendUvarint(buf, codeRaw)
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		return append(buf, s...)
	}
	if host != "" {
		s = strings.ReplaceAll(s, host, hostMark)
	}
	if c.index != nil {
		m := c.index[f]
		if m == nil {
			m = map[string]uint64{}
			c.index[f] = m
		}
		k, ok := m[s]
		if !ok && len(c.dicts[f]) < dictMax {
			s = strings.Clone(s) // the value may be a slice of a whole batch
			k, ok = uint64(len(c.dicts[f])), true
			m[s] = k
			c.dicts[f] = append(c.dicts[f], s)
		}
		if ok {
			return binary.AppendUvarint(buf, codeDict+k)
		}
	}
	buf = binary.AppendUvarint(buf, codeMarked)
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

var errCorruptRow = errors.New("corrupt lookup record")

// decode is encode's reverse.
func (c *rowCodec) decode(host string, rec []byte) (*Row, error) {
	r := NewRow(host)
	nb := (len(rowFields) + 7) / 8
	if len(rec) < nb {
		return nil, errCorruptRow
	}
	bits, rest := rec[:nb], rec[nb:]
	for i := range rowFields {
		if bits[i/8]&(1<<(i%8)) == 0 {
			continue
		}
		switch rowFields[i].kind {
		case kStr:
			code, k := binary.Uvarint(rest)
			if k <= 0 {
				return nil, errCorruptRow
			}
			rest = rest[k:]
			var s string
			switch {
			case code >= codeDict:
				if i >= len(c.dicts) || code-codeDict >= uint64(len(c.dicts[i])) {
					return nil, errCorruptRow
				}
				s = c.dicts[i][code-codeDict]
			default:
				b, tail, ok := readChunk(rest)
				if !ok {
					return nil, errCorruptRow
				}
				s, rest = string(b), tail
			}
			if code != codeRaw && strings.Contains(s, hostMark) {
				s = strings.ReplaceAll(s, hostMark, host)
			}
			r.vals[i] = rowValue{ok: true, s: s}
		case kBool:
			if len(rest) < 1 {
				return nil, errCorruptRow
			}
			r.vals[i] = rowValue{ok: true, n: int64(rest[0])}
			rest = rest[1:]
		case kInt, kTime:
			n, k := binary.Varint(rest)
			if k <= 0 {
				return nil, errCorruptRow
			}
			r.vals[i] = rowValue{ok: true, n: n}
			rest = rest[k:]
		}
	}
	return r, nil
}
