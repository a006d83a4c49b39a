package detect

import (
	"bytes"
	"regexp"
	"strings"
)

// Bounds on resolving tool objects built outside the call.
const (
	maxResolveDepth   = 4    // identifier hops followed from one call
	maxResolveSteps   = 64   // identifier lookups per script scan
	maxIdentHits      = 256  // occurrences of one identifier examined
	maxArrayItems     = 64   // elements read from one array literal
	headerScanWindow  = 8192 // bytes before a call searched for the enclosing function
	maxResolvedPerArg = maxToolNames
)

// toolResolver reads tool names from the argument of a registerTool or
// provideContext call when the tool object is not written in the call, as
// long as the object literal is in the same script:
//
//	const addTodoTool = {name: "add-todo", ...}; mc.registerTool(addTodoTool)
//	function register(spec) { mc.registerTool({...spec, execute}) }; register({name: "a"})
//	tools.forEach(t => mc.registerTool(t)) with const tools = [{name: "a"}, b]
//	mc.provideContext({tools: [a, b]})
//
// It is a bounded text scan, not a JavaScript interpreter: names produced by
// code (a factory call, a template with substitutions, data fetched at run
// time) stay unread.
type toolResolver struct {
	js    []byte
	steps int
}

// argNames returns the tool names held by the expression at js[i:]: an
// object literal's name, an identifier bound to a tool object or to an
// array of them, or an array literal of either.
func (r *toolResolver) argNames(i, depth int) []string {
	js := r.js
	i = skipJSSpace(js, i)
	if i >= len(js) || depth > maxResolveDepth {
		return nil
	}
	switch c := js[i]; {
	case c == '{':
		o := scanObject(js, i)
		if o.name != "" {
			return []string{o.name}
		}
		if o.nameVar != "" {
			if n := r.stringConst(o.nameVar); n != "" {
				return []string{n}
			}
		}
		// {...spec, execute}: the spread object's name (one per call of a
		// wrapper whose parameter spec is).
		for _, s := range o.spreads {
			if n := r.identNames(s, i, depth+1); len(n) > 0 {
				return n
			}
		}
	case c == '[':
		return r.arrayNames(i, depth)
	case isIdentStart(c):
		j := i
		for j < len(js) && isIdentPart(js[j]) {
			j++
		}
		k := skipJSSpace(js, j)
		if k < len(js) && (js[k] == '.' || js[k] == '(' || js[k] == '[') {
			return nil // a member, a call or an index: built by code
		}
		return r.identNames(string(js[i:j]), i, depth+1)
	}
	return nil
}

// contextNames reads the tools of a provideContext argument: an object
// literal (or a variable bound to one) whose "tools" key holds the list.
func (r *toolResolver) contextNames(i, depth int) []string {
	js := r.js
	i = skipJSSpace(js, i)
	if i < len(js) && isIdentStart(js[i]) && depth == 0 {
		j := i
		for j < len(js) && isIdentPart(js[j]) {
			j++
		}
		for _, at := range identHits(js, string(js[i:j])) {
			k := skipJSSpace(js, at+j-i)
			if k < len(js) && js[k] == '=' && (at == 0 || js[at-1] != '.') {
				if v := skipJSSpace(js, k+1); v < len(js) && js[v] == '{' {
					return r.contextNames(v, depth+1)
				}
			}
		}
		return nil
	}
	if i >= len(js) || js[i] != '{' {
		return nil
	}
	switch o := scanObject(js, i); {
	case o.tools >= 0:
		return r.argNames(o.tools, depth+1)
	case o.toolsVar != "":
		return r.identNames(o.toolsVar, i, depth+1)
	}
	return nil
}

// stringConst finds `id = "literal"` in the script and returns the
// literal, or "".
func (r *toolResolver) stringConst(id string) string {
	if r.steps >= maxResolveSteps || jsKeywords[id] {
		return ""
	}
	r.steps++
	js := r.js
	for _, at := range identHits(js, id) {
		if at > 0 && js[at-1] == '.' {
			continue
		}
		j := skipJSSpace(js, at+len(id))
		if j >= len(js) || js[j] != '=' || (j+1 < len(js) && (js[j+1] == '=' || js[j+1] == '>')) {
			continue
		}
		if v, ok := literalName(js, j+1); ok {
			return v
		}
	}
	return ""
}

// arrayNames reads the elements of the array literal at js[i] ('[').
func (r *toolResolver) arrayNames(i, depth int) []string {
	js := r.js
	var out []string
	limit := min(len(js), i+callScanWindow*8)
	i++
	for n := 0; n < maxArrayItems && i < limit; n++ {
		i = skipJSSpace(js[:limit], i)
		if i >= limit || js[i] == ']' {
			break
		}
		out = append(out, r.argNames(i, depth+1)...)
		end := skipExpr(js[:limit], i)
		if end < 0 || end >= limit || js[end] != ',' {
			break
		}
		i = end + 1
	}
	return out
}

// objectValueNames reads the tool names of an object literal's property
// values: {search: {name: "search"}, cart: {name: "cart"}}.
func (r *toolResolver) objectValueNames(i, depth int) []string {
	if i >= len(r.js) || r.js[i] != '{' {
		return nil
	}
	var out []string
	for n, v := range scanObject(r.js, i).values {
		if n >= maxArrayItems {
			break
		}
		if v < len(r.js) && r.js[v] == '{' {
			if name := scanObject(r.js, v).name; name != "" {
				out = append(out, name)
			}
		}
	}
	return out
}

// identNames resolves an identifier used at position use: a variable bound
// to an object or array literal, a parameter of the enclosing function
// (through the calls of that function), or the variable of a loop or
// callback over an array.
func (r *toolResolver) identNames(id string, use, depth int) []string {
	if depth > maxResolveDepth || r.steps >= maxResolveSteps || jsKeywords[id] {
		return nil
	}
	r.steps++
	if n := r.definitionNames(id, depth); len(n) > 0 {
		return n
	}
	if n := r.iterationNames(id, use, depth); len(n) > 0 {
		return n
	}
	return r.parameterNames(id, use, depth)
}

// definitionNames finds `id = {...}` or `id = [...]` (with or without
// const, let or var) and reads the literal.
func (r *toolResolver) definitionNames(id string, depth int) []string {
	js := r.js
	for _, at := range identHits(js, id) {
		if at > 0 && js[at-1] == '.' {
			continue // obj.id = ...: a property, not the variable
		}
		j := skipJSSpace(js, at+len(id))
		if j >= len(js) || js[j] != '=' || (j+1 < len(js) && (js[j+1] == '=' || js[j+1] == '>')) {
			continue
		}
		v := skipJSSpace(js, j+1)
		if v < len(js) && (js[v] == '{' || js[v] == '[') {
			if n := r.argNames(v, depth); len(n) > 0 {
				return n
			}
		}
	}
	// An array filled later: list.push({...}, other).
	var out []string
	for _, at := range identHits(js, id) {
		j := skipJSSpace(js, at+len(id))
		if j+5 > len(js) || string(js[j:j+5]) != ".push" {
			continue
		}
		k := skipJSSpace(js, j+5)
		if k >= len(js) || js[k] != '(' {
			continue
		}
		for n := 0; n < maxArrayItems; n++ {
			a := nthArg(js, k+1, n)
			if a < 0 {
				break
			}
			out = append(out, r.argNames(a, depth+1)...)
		}
		if len(out) >= maxResolvedPerArg {
			break
		}
	}
	return out
}

var (
	reForOf     = `(?:const|let|var)\s+%s\s+of\s+`
	reIterStart = `(Object\s*\.\s*values\s*\(\s*[A-Za-z_$][\w$]*\s*\)|[A-Za-z_$][\w$]*)\s*\.\s*(?:forEach|map)\s*\(\s*(?:async\s*)?(?:\(\s*%[1]s\s*[,)]|%[1]s\s*=>|function\s*[\w$]*\s*\(\s*%[1]s\s*[,)])`
	reObjValues = regexp.MustCompile(`^Object\s*\.\s*values\s*\(\s*([A-Za-z_$][\w$]*)\s*\)$`)
)

// iterationNames resolves the variable of `for (const id of list)` and of
// `list.forEach(id => ...)` (or map, or Object.values(obj).forEach) in the
// text before the use.
func (r *toolResolver) iterationNames(id string, use, depth int) []string {
	win := r.js[max(0, use-headerScanWindow):use]
	q := regexp.QuoteMeta(id)
	if locs := regexp.MustCompile(strings.ReplaceAll(reForOf, "%s", q)).FindAllIndex(win, -1); len(locs) > 0 {
		at := max(0, use-headerScanWindow) + locs[len(locs)-1][1]
		return r.argNames(at, depth)
	}
	re := regexp.MustCompile(strings.ReplaceAll(reIterStart, "%[1]s", q))
	m := re.FindAllSubmatch(win, -1)
	if len(m) == 0 {
		return nil
	}
	list := string(m[len(m)-1][1])
	if om := reObjValues.FindStringSubmatch(list); om != nil {
		for _, at := range identHits(r.js, om[1]) {
			j := skipJSSpace(r.js, at+len(om[1]))
			if j < len(r.js) && r.js[j] == '=' {
				if n := r.objectValueNames(skipJSSpace(r.js, j+1), depth); len(n) > 0 {
					return n
				}
			}
		}
		return nil
	}
	return r.identNames(list, use, depth+1)
}

// Function headers whose parameter list is group 2 and name group 1:
// `function W(a, b)`, `W = (a) =>`, `W: async function (a)`, `W(a) {`.
var reFuncHeader = regexp.MustCompile(`(?:function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(([^()]*)\)|([A-Za-z_$][\w$]*)\s*[=:]\s*(?:async\s*)?(?:function\s*[\w$]*\s*)?\(([^()]*)\)\s*(?:=>|\{)|([A-Za-z_$][\w$]*)\s*[=:]\s*(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>|([A-Za-z_$][\w$]*)\s*\(([^()]*)\)\s*\{)`)

// parameterNames resolves a parameter of the function that encloses the
// use: the nearest header before it naming id as a parameter; then every
// call of that function gives the argument at the parameter's place.
func (r *toolResolver) parameterNames(id string, use, depth int) []string {
	base := max(0, use-headerScanWindow)
	win := r.js[base:use]
	var fn string
	var idx, header int
	for _, m := range reFuncHeader.FindAllSubmatchIndex(win, -1) {
		for g := 1; g+1 < len(m)/2; g += 2 {
			if m[2*g] < 0 {
				continue
			}
			name := string(win[m[2*g]:m[2*g+1]])
			if jsKeywords[name] {
				continue
			}
			if k := paramIndex(string(win[m[2*g+2]:m[2*g+3]]), id); k >= 0 {
				fn, idx, header = name, k, base+m[0]
			}
		}
	}
	if fn == "" {
		return nil
	}
	var out []string
	for _, at := range identHits(r.js, fn) {
		if at >= header && at < use {
			continue // the header itself, or inside the body before the use
		}
		j := skipJSSpace(r.js, at+len(fn))
		if j >= len(r.js) || r.js[j] != '(' || precededByFunction(r.js, at) {
			continue
		}
		if a := nthArg(r.js, j+1, idx); a >= 0 {
			out = append(out, r.argNames(a, depth)...)
		}
		if len(out) >= maxResolvedPerArg {
			break
		}
	}
	return out
}

// paramIndex returns the position of id in a parameter list ("a, b = 1,
// ...c"), or -1.
func paramIndex(params, id string) int {
	if !strings.Contains(params, id) || strings.ContainsAny(params, "{[") {
		return -1
	}
	for k, p := range strings.Split(params, ",") {
		p, _, _ = strings.Cut(p, "=")
		if strings.TrimSpace(p) == id {
			return k
		}
	}
	return -1
}

// nthArg returns the index where argument n (from 0) of a call starts,
// given the index just after its "(", or -1.
func nthArg(js []byte, i, n int) int {
	for k := 0; ; k++ {
		i = skipJSSpace(js, i)
		if i >= len(js) || js[i] == ')' {
			return -1
		}
		if k == n {
			return i
		}
		end := skipExpr(js, i)
		if end < 0 || end >= len(js) || js[end] != ',' {
			return -1
		}
		i = end + 1
	}
}

// skipExpr returns the index of the ',' or closing bracket that ends the
// expression starting at i, at its own nesting level, or -1.
func skipExpr(js []byte, i int) int {
	depth := 0
	limit := min(len(js), i+callScanWindow*8)
	for i < limit {
		switch c := js[i]; {
		case c == '"' || c == '\'' || c == '`':
			end := skipJSString(js[:limit], i)
			if end < 0 {
				return -1
			}
			i = end
			continue
		case c == '/' && i+1 < limit && (js[i+1] == '/' || js[i+1] == '*'):
			i = skipJSSpace(js[:limit], i)
			continue
		case c == '{' || c == '[' || c == '(':
			depth++
		case c == '}' || c == ']' || c == ')':
			if depth == 0 {
				return i
			}
			depth--
		case c == ',' && depth == 0:
			return i
		}
		i++
	}
	return -1
}

// identHits lists where id occurs in js as a whole identifier.
func identHits(js []byte, id string) []int {
	var out []int
	for from := 0; len(out) < maxIdentHits; {
		j := bytes.Index(js[from:], []byte(id))
		if j < 0 {
			break
		}
		at := from + j
		end := at + len(id)
		if (at == 0 || !isIdentPart(js[at-1])) && (end == len(js) || !isIdentPart(js[end])) {
			out = append(out, at)
		}
		from = end
	}
	return out
}

// precededByFunction reports "function " just before js[at:].
func precededByFunction(js []byte, at int) bool {
	k := at - 1
	for k >= 0 && (js[k] == ' ' || js[k] == '\t' || js[k] == '*') {
		k--
	}
	return k >= 7 && string(js[k-7:k+1]) == "function"
}

// jsKeywords are never names of variables or functions.
var jsKeywords = setOf("if", "for", "while", "switch", "catch", "function", "return", "typeof", "new", "await",
	"async", "const", "let", "var", "of", "in", "do", "else", "with", "class", "this", "null", "true", "false",
	"undefined", "void", "delete", "yield", "super", "import", "export", "default")
