package ucp

// The orphan rules: extensions none of whose parents is an active
// capability.

import (
	"slices"
	"strings"
)

// orphans reports extensions none of whose parents is an active capability,
// repeating until nothing changes (an extension of a pruned extension is
// pruned too). A capability is active while it has a root entry (no extends)
// or a live extension entry; an entry listing itself is not its own parent.
func (c *checker) orphans() {
	type ext struct {
		key      string
		ki       int // index of key in keys
		i        int // index in the key's array
		from, to int // the parents in names
		orphan   bool
	}
	var extBuf [8]ext
	var nameBuf [16]string
	exts := extBuf[:0]
	names := nameBuf[:0] // the parents of every extension, one after another
	// roots[i] says whether keys[i] has a root entry, live[i] counts its live
	// extension entries.
	keys := c.capabilityKeys
	var rootBuf [16]bool
	var liveBuf [16]int
	var roots []bool
	var live []int
	if len(keys) <= len(rootBuf) {
		roots, live = rootBuf[:len(keys)], liveBuf[:len(keys)]
	} else {
		roots, live = make([]bool, len(keys)), make([]int, len(keys))
	}
	for ki, key := range keys {
		if !reverseDomain(key) {
			continue
		}
		arr, _ := c.capabilities[key].([]any)
		for i, v := range arr {
			e, ok := v.(map[string]any)
			if !ok {
				continue
			}
			from := len(names)
			switch x := e["extends"].(type) {
			case nil:
				roots[ki] = true
				continue
			case string:
				names = append(names, x)
			case []any:
				for _, p := range x {
					if s, ok := p.(string); ok {
						names = append(names, s)
					}
				}
			default:
				continue // the schema reports it
			}
			exts = append(exts, ext{key: key, ki: ki, i: i, from: from, to: len(names)})
		}
	}
	for i := range exts {
		x := &exts[i]
		live[x.ki]++
	}
	active := func(name string) bool {
		i, found := slices.BinarySearch(keys, name)
		return found && (roots[i] || live[i] > 0)
	}
	for changed := true; changed; {
		changed = false
		for i := range exts {
			x := &exts[i]
			if x.orphan {
				continue
			}
			alive := false
			for _, p := range names[x.from:x.to] {
				if p != x.key && active(p) {
					alive = true
					break
				}
			}
			if !alive {
				x.orphan, changed = true, true
				live[x.ki]--
			}
		}
	}
	path := func(x *ext) string { return "/ucp/capabilities/" + escapeToken(x.key) + "/" + itoa(x.i) + "/extends" }
	for i := range exts {
		x := &exts[i]
		if x.orphan {
			c.fs.rule(ruleOrphan, path(x), "%s extends %s, but no parent is an active capability of this profile; the extension can never take effect and must be left out",
				x.key, strings.Join(names[x.from:x.to], ", "))
			continue
		}
		var missing []string
		for _, p := range names[x.from:x.to] {
			if !active(p) {
				missing = append(missing, p)
			}
		}
		if len(missing) > 0 && x.to-x.from > 1 {
			c.fs.rule(rulePartialParent, path(x), "%s applies only where its parents are active; %s %s not declared", x.key, strings.Join(missing, ", "), isAre(len(missing)))
		}
	}
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
