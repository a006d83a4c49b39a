package detect

import (
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// The kinds of WebMCP evidence.
const (
	// WebMCPImperative: a modelContext.registerTool call in a script.
	WebMCPImperative = "imperative"
	// WebMCPDeclarative: a <form toolname="…">.
	WebMCPDeclarative = "declarative"
	// WebMCPLegacy: provideContext or clearContext, removed from the API in
	// March 2026. Browsers no longer run these, so legacy evidence alone
	// does not make Detected true; it is reported so the store can be told.
	WebMCPLegacy = "legacy"
)

// WebMCPCaveat is the limit of any server-side WebMCP check, for reports.
const WebMCPCaveat = "Server HTML shows tools declared in forms or registered by inline and first-party scripts. " +
	"It cannot show tools a platform script registers at runtime in the browser (Shopify does so on some Liquid themes); " +
	"WebMCP inferred from the platform alone is an inference, not evidence."

// MaxScriptBytes is how much of a fetched script body ScanScript reads.
const MaxScriptBytes = 4 << 20

const (
	maxFirstPartyScripts = 20
	maxToolNames         = 64
	maxToolName          = 100
	maxWebMCPEvidence    = 32
	callScanWindow       = 16384 // bytes of an object literal searched for the tool's name
)

// WebMCP is what server HTML (and any scripts scanned) shows of WebMCP.
type WebMCP struct {
	// Detected is true when a current API is used: a registerTool call or
	// a form with a toolname.
	Detected bool `json:"detected"`
	// Kinds lists WebMCPImperative, WebMCPDeclarative, WebMCPLegacy as seen.
	Kinds []string `json:"kinds,omitempty"`
	// Tools are the tool names that could be read, sorted, unique: from
	// forms, and from registerTool calls whose tool object literal is in
	// the same script (see toolResolver). A tool object built by code gives
	// no name.
	Tools []string `json:"tools,omitempty"`
	// LegacyTools are the names passed to the removed provideContext, read
	// the same way; browsers no longer run them, so they are kept apart.
	LegacyTools []string         `json:"legacyTools,omitempty"`
	Forms       []WebMCPForm     `json:"forms,omitempty"`
	Evidence    []WebMCPEvidence `json:"evidence,omitempty"`
	// Scripts are first-party script URLs (same registrable domain as the
	// page) the engine may fetch and pass to ScanScript. Names that hint at
	// MCP or agents come first.
	Scripts []string `json:"scripts,omitempty"`
}

// WebMCPForm is one declarative tool.
type WebMCPForm struct {
	Tool        string        `json:"tool"`
	Description string        `json:"description,omitempty"`
	AutoSubmit  bool          `json:"autoSubmit,omitempty"`
	Action      string        `json:"action,omitempty"`
	Params      []WebMCPParam `json:"params,omitempty"`
}

// WebMCPParam is a form field with a toolparamdescription.
type WebMCPParam struct {
	Name        string `json:"name,omitempty"`
	Description string `json:"description"`
}

// WebMCPEvidence is one place WebMCP was seen.
type WebMCPEvidence struct {
	Kind string `json:"kind"`
	// Source is "inline script N" (the Nth <script> element of the page,
	// counting external and JSON-LD ones), "form N" (the Nth <form>), or
	// the source given to ScanScript, usually the script URL.
	Source string `json:"source"`
	// Tool is the tool name when it could be read.
	Tool string `json:"tool,omitempty"`
	// Snippet is a short excerpt around the match.
	Snippet string `json:"snippet,omitempty"`
}

var (
	// The receiver may be written navigator, document, window.navigator,
	// with optional chaining anywhere on the path.
	reRegisterDirect = regexp.MustCompile(`\b(?:navigator|document)\s*(?:\?\.|\.)\s*modelContext\s*(?:\?\.|\.)\s*registerTool\s*(?:\?\.\s*)?\(`)
	// The removed calls, also on the early drafts' window.modelContext and
	// window.agent.
	reLegacy       = regexp.MustCompile(`(?:\b(?:navigator|document|window)\s*(?:\?\.|\.)\s*modelContext|\b(?:window|self)\s*(?:\?\.|\.)\s*agent)\s*(?:\?\.|\.)\s*(provideContext|clearContext)\s*(?:\?\.\s*)?\(`)
	reModelContext = regexp.MustCompile(`\b(?:navigator|document)\s*(?:\?\.|\.)\s*modelContext\b|\b(?:navigator|document)\s*\[\s*["']modelContext["']\s*\]`)
	reRegisterAny  = regexp.MustCompile(`(?:\?\.|\.)\s*registerTool\s*(?:\?\.\s*)?\(`)
)

// DetectWebMCP looks for WebMCP in the page's server HTML: registerTool and
// the legacy calls in inline scripts, and declarative forms. It also lists
// first-party script URLs to fetch and pass to ScanScript; merge the results
// with Merge. See WebMCPCaveat for what this cannot see.
func DetectWebMCP(p *Page) WebMCP {
	var w WebMCP
	for _, s := range p.doc.scripts {
		if s.src == "" && isJSType(s.typ) && len(s.text) > 0 {
			w.scan(s.text, fmt.Sprintf("inline script %d", s.index))
		}
	}
	for _, f := range p.doc.forms {
		if !f.hasToolName || f.toolName == "" {
			continue
		}
		name := truncateUTF8(f.toolName, maxToolName)
		wf := WebMCPForm{Tool: name, Description: truncateUTF8(f.toolDescription, maxFieldBytes), AutoSubmit: f.toolAutoSubmit, Action: truncateUTF8(f.action, maxFieldBytes)}
		for _, fp := range f.params {
			wf.Params = append(wf.Params, WebMCPParam{Name: truncateUTF8(fp.name, maxFieldBytes), Description: truncateUTF8(fp.description, maxFieldBytes)})
		}
		if len(w.Forms) < maxForms {
			w.Forms = append(w.Forms, wf)
		}
		w.add(WebMCPEvidence{Kind: WebMCPDeclarative, Source: fmt.Sprintf("form %d", f.index), Tool: name, Snippet: formSnippet(wf)})
	}
	w.Scripts = firstPartyScripts(p)
	w.finish()
	return w
}

// ScanScript looks for registerTool and the legacy calls in a script body the
// engine fetched; source names it in the evidence (usually its URL).
func ScanScript(source string, body []byte) WebMCP {
	var w WebMCP
	if len(body) > MaxScriptBytes {
		body = body[:MaxScriptBytes]
	}
	w.scan(body, source)
	w.finish()
	return w
}

// Merge combines the findings of a page and of scripts scanned for it.
func (w WebMCP) Merge(others ...WebMCP) WebMCP {
	out := w
	out.Kinds = slices.Clone(w.Kinds)
	out.Tools = slices.Clone(w.Tools)
	out.LegacyTools = slices.Clone(w.LegacyTools)
	out.Forms = slices.Clone(w.Forms)
	out.Evidence = slices.Clone(w.Evidence)
	for _, o := range others {
		out.Kinds = append(out.Kinds, o.Kinds...)
		out.Tools = append(out.Tools, o.Tools...)
		out.LegacyTools = append(out.LegacyTools, o.LegacyTools...)
		out.Forms = append(out.Forms, o.Forms...)
		for _, e := range o.Evidence {
			out.add(e)
		}
	}
	out.finish()
	return out
}

// scan finds WebMCP calls in one script.
func (w *WebMCP) scan(js []byte, source string) {
	// Every pattern below needs "modelContext" or "provideContext"; most
	// scripts lack both, and a byte search skips them far faster than the
	// regexp engine would.
	if !bytes.Contains(js, []byte("modelContext")) && !bytes.Contains(js, []byte("provideContext")) {
		return
	}
	r := &toolResolver{js: js}
	imperative := func(m []int) {
		names := r.argNames(m[1], 0)
		if len(names) == 0 {
			names = []string{""}
		}
		for _, name := range names {
			w.add(WebMCPEvidence{Kind: WebMCPImperative, Source: source, Tool: name, Snippet: snippet(js, m[0], m[1], 120)})
		}
	}
	direct := reRegisterDirect.FindAllIndex(js, maxWebMCPEvidence)
	for _, m := range direct {
		imperative(m)
	}
	// A page may keep the context in a variable first:
	//   const mc = navigator.modelContext; mc.registerTool({...})
	// Count bare registerTool calls only when the same script reaches
	// modelContext through navigator or document, so an MCP server SDK's
	// own registerTool does not count.
	if len(direct) == 0 && reModelContext.Match(js) {
		for _, m := range reRegisterAny.FindAllIndex(js, maxWebMCPEvidence) {
			imperative(m)
		}
	}
	if !bytes.Contains(js, []byte("provideContext")) && !bytes.Contains(js, []byte("clearContext")) {
		return
	}
	for _, m := range reLegacy.FindAllSubmatchIndex(js, maxWebMCPEvidence) {
		var names []string
		if string(js[m[2]:m[3]]) == "provideContext" {
			names = r.contextNames(m[1], 0)
		}
		if len(names) == 0 {
			names = []string{""}
		}
		for _, name := range names {
			w.add(WebMCPEvidence{Kind: WebMCPLegacy, Source: source, Tool: name, Snippet: snippet(js, m[0], m[1], 120)})
		}
	}
}

func (w *WebMCP) add(e WebMCPEvidence) {
	if len(w.Evidence) < maxWebMCPEvidence {
		w.Evidence = append(w.Evidence, e)
	}
	switch {
	case e.Tool == "":
	case e.Kind == WebMCPLegacy:
		w.LegacyTools = append(w.LegacyTools, e.Tool)
	default:
		w.Tools = append(w.Tools, e.Tool)
	}
	w.Kinds = append(w.Kinds, e.Kind)
}

// finish sorts and deduplicates, and sets Detected.
func (w *WebMCP) finish() {
	w.Kinds = sortedUnique(w.Kinds)
	w.Tools = sortedUnique(w.Tools)
	if len(w.Tools) > maxToolNames {
		w.Tools = w.Tools[:maxToolNames]
	}
	w.LegacyTools = sortedUnique(w.LegacyTools)
	if len(w.LegacyTools) > maxToolNames {
		w.LegacyTools = w.LegacyTools[:maxToolNames]
	}
	w.Detected = slices.Contains(w.Kinds, WebMCPImperative) || slices.Contains(w.Kinds, WebMCPDeclarative)
}

func sortedUnique(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// isJSType reports whether a script type attribute means JavaScript.
func isJSType(t string) bool {
	mt, _, _ := strings.Cut(t, ";")
	switch strings.TrimSpace(mt) {
	case "", "text/javascript", "application/javascript", "module", "text/ecmascript",
		"application/ecmascript", "application/x-javascript", "text/x-javascript", "text/jscript", "text/babel":
		return true
	}
	return false
}

func formSnippet(f WebMCPForm) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<form toolname=%q", f.Tool)
	if f.Description != "" {
		fmt.Fprintf(&b, " tooldescription=%q", truncateUTF8(f.Description, 60))
	}
	if f.AutoSubmit {
		b.WriteString(" toolautosubmit")
	}
	b.WriteString(">")
	return b.String()
}

// toolNameAfter reads the tool name from the argument of a registerTool
// call, given the script text just after the "(": the string value of a
// "name" key at the top level of an object literal. Keys of nested objects
// (an inputSchema property called "name", say) are skipped. It returns ""
// when the argument is not an object literal or has no literal name.
func toolNameAfter(js []byte) string {
	js = js[:min(len(js), callScanWindow)]
	i := skipJSSpace(js, 0)
	if i >= len(js) || js[i] != '{' {
		return ""
	}
	return scanObject(js, i).name
}

// objLit is what scanObject reads of an object literal's top level.
type objLit struct {
	name      string   // the literal string value of a "name" key
	nameVar   string   // the identifier a "name" key holds instead
	tools     int      // index of the value of a "tools" key, or -1
	toolsVar  string   // the identifier of a shorthand {tools}
	spreads   []string // identifiers spread into it: {...spec}
	values    []int    // index of every property value, in order
	end       int      // index after the closing brace, or -1
	truncated bool     // the literal runs past the scan window
}

// scanObject reads the object literal that opens at js[i] ('{'), looking at
// most callScanWindow bytes ahead.
func scanObject(js []byte, i int) objLit {
	o := objLit{tools: -1, end: -1}
	limit := min(len(js), i+callScanWindow)
	depth := 0
	prev := byte('{') // last significant byte before the current token
	key := func(k string, after int) {
		j := skipJSSpace(js[:limit], after)
		switch {
		case j < limit && js[j] == ':':
			v := skipJSSpace(js[:limit], j+1)
			o.values = append(o.values, v)
			switch k {
			case "name":
				if o.name == "" {
					if n, ok := nameValue(js[:limit], after); ok {
						o.name = n
					} else if v < limit && isIdentStart(js[v]) {
						e := v
						for e < limit && isIdentPart(js[e]) {
							e++
						}
						if k := skipJSSpace(js[:limit], e); k < limit && (js[k] == ',' || js[k] == '}') {
							o.nameVar = string(js[v:e]) // {name: SEARCH_TOOL}
						}
					}
				}
			case "tools":
				o.tools = v
			}
		case j < limit && (js[j] == ',' || js[j] == '}') && k == "tools":
			o.toolsVar = "tools"
		}
	}
	for i < limit {
		c := js[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			end := skipJSString(js[:limit], i)
			if end < 0 {
				o.truncated = true
				return o
			}
			if depth == 1 && (prev == '{' || prev == ',') && c != '`' {
				key(string(js[i+1:end-1]), end)
			}
			i, prev = end, c
		case c == '/' && i+1 < limit && (js[i+1] == '/' || js[i+1] == '*'):
			i = skipJSSpace(js[:limit], i)
		case c == '.' && depth == 1 && (prev == '{' || prev == ',') && bytes.HasPrefix(js[i:limit], []byte("...")):
			j := skipJSSpace(js[:limit], i+3)
			k := j
			for k < limit && isIdentPart(js[k]) {
				k++
			}
			if k > j && isIdentStart(js[j]) && len(o.spreads) < 8 {
				o.spreads = append(o.spreads, string(js[j:k]))
			}
			i, prev = max(k, i+3), 'a'
		case c == '{' || c == '[' || c == '(':
			depth++
			i, prev = i+1, c
		case c == '}' || c == ']' || c == ')':
			depth--
			if depth <= 0 {
				if c == '}' {
					o.end = i + 1
				}
				return o
			}
			i, prev = i+1, c
		case isIdentStart(c):
			j := i
			for j < limit && isIdentPart(js[j]) {
				j++
			}
			if depth == 1 && (prev == '{' || prev == ',') {
				key(string(js[i:j]), j)
			}
			i, prev = j, 'a'
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		default:
			i, prev = i+1, c
		}
	}
	o.truncated = true
	return o
}

// nameValue reads `: "value"` at js[i:], for a key that was just read.
func nameValue(js []byte, i int) (string, bool) {
	i = skipJSSpace(js, i)
	if i >= len(js) || js[i] != ':' {
		return "", false
	}
	return literalName(js, i+1)
}

// literalName reads a string literal at js[i:] (after white space) that
// can be a tool name.
func literalName(js []byte, i int) (string, bool) {
	i = skipJSSpace(js, i)
	if i >= len(js) || (js[i] != '"' && js[i] != '\'' && js[i] != '`') {
		return "", false
	}
	end := skipJSString(js, i)
	if end < 0 {
		return "", false
	}
	v := strings.TrimSpace(string(js[i+1 : end-1]))
	if v == "" || len(v) > maxToolName || strings.ContainsAny(v, "\\${}\n") {
		return "", false // escapes or template substitutions: not a literal name
	}
	return strings.ToValidUTF8(v, ""), true
}

// skipJSString returns the index after the string literal opening at i, or
// -1 when it does not close within js.
func skipJSString(js []byte, i int) int {
	q := js[i]
	for j := i + 1; j < len(js); j++ {
		switch js[j] {
		case '\\':
			j++
		case q:
			return j + 1
		case '\n':
			if q != '`' {
				return -1
			}
		}
	}
	return -1
}

// skipJSSpace skips white space and comments from i.
func skipJSSpace(js []byte, i int) int {
	for i < len(js) {
		switch {
		case js[i] == ' ' || js[i] == '\t' || js[i] == '\r' || js[i] == '\n':
			i++
		case js[i] == '/' && i+1 < len(js) && js[i+1] == '/':
			for i < len(js) && js[i] != '\n' {
				i++
			}
		case js[i] == '/' && i+1 < len(js) && js[i+1] == '*':
			k := bytes.Index(js[i+2:], []byte("*/"))
			if k < 0 {
				return len(js)
			}
			i += k + 4
		default:
			return i
		}
	}
	return i
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || ('0' <= c && c <= '9') }

// firstPartyScripts lists external scripts on the page's registrable
// domain. Third-party scripts (analytics, chat widgets, platform CDNs) are
// left out: we check what the store itself ships, and fetching every
// third-party script would multiply the requests per store.
func firstPartyScripts(p *Page) []string {
	if p.URL == nil {
		return nil
	}
	site := RegistrableDomain(p.URL.Hostname())
	if site == "" {
		return nil
	}
	seen := map[string]bool{}
	var hinted, plain []string
	for _, s := range p.doc.scripts {
		if s.src == "" || !isJSType(s.typ) {
			continue
		}
		u := resolve(p.doc.base, s.src)
		if u == nil || RegistrableDomain(u.Hostname()) != site {
			continue
		}
		us := u.String()
		if seen[us] {
			continue
		}
		seen[us] = true
		if scriptHint(u) {
			hinted = append(hinted, us)
		} else {
			plain = append(plain, us)
		}
	}
	out := append(hinted, plain...)
	if len(out) > maxFirstPartyScripts {
		out = out[:maxFirstPartyScripts]
	}
	return out
}

// scriptHint reports a script path that suggests an agent adapter, so it is
// fetched first when the engine cannot fetch them all.
func scriptHint(u *url.URL) bool {
	p := strings.ToLower(u.Path)
	return strings.Contains(p, "mcp") || strings.Contains(p, "agent") || strings.Contains(p, "modelcontext")
}
