package datasets

import (
	"strings"
	"unsafe"
)

// stringCopier copies one column's strings, read from memory that will be
// reused (a decoded page, a database's result chunk), into storage of the
// column's own: large blocks rather than one allocation per string, so a
// million rows cost a few hundred allocations and each column's bytes lie
// in row order for the writers. A value equal to the one before shares its
// copy, and while a column has shown few distinct values (a status, a
// fact name, a note) every repeat shares one copy: five million
// agent_facts notes are five strings, not five million.
type stringCopier struct {
	block []byte
	prev  string
	seen  map[string]string // the distinct values so far, while few
	many  bool              // too many distinct values: stop looking
}

const (
	copyBlockSize = 1 << 20
	internLimit   = 1 << 12 // distinct values a column may show before interning stops
	internMinLen  = 4       // shorter strings are cheaper to copy than to look up
)

// copy returns a copy of s that does not alias s's memory.
func (sc *stringCopier) copy(s string) string {
	if len(s) == 0 {
		return ""
	}
	if len(s) == len(sc.prev) && s == sc.prev {
		return sc.prev
	}
	intern := !sc.many && len(s) >= internMinLen
	if intern {
		if v, ok := sc.seen[s]; ok {
			sc.prev = v
			return v
		}
	}
	var out string
	if len(s) > copyBlockSize/16 {
		out = strings.Clone(s)
	} else {
		if len(s) > cap(sc.block)-len(sc.block) {
			sc.block = make([]byte, 0, copyBlockSize)
		}
		off := len(sc.block)
		sc.block = append(sc.block, s...)
		out = unsafe.String(&sc.block[off], len(s))
	}
	if intern {
		switch {
		case sc.seen == nil:
			sc.seen = map[string]string{out: out}
		case len(sc.seen) < internLimit:
			sc.seen[out] = out
		default:
			sc.many, sc.seen = true, nil
		}
	}
	sc.prev = out
	return out
}

// CopyString copies s into row storage of column j and returns the copy,
// for a fill function of AppendColumns whose strings alias memory it does
// not own. Use the copy as the slot's value.
func (b Batch) CopyString(j int, s string) string {
	return b.c.copier(j).copy(s)
}

// copier returns column j's string copier.
func (c *Columns) copier(j int) *stringCopier {
	if c.copiers == nil {
		c.copiers = make([]stringCopier, len(c.vecs))
	}
	return &c.copiers[j]
}
