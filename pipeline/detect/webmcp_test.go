package detect

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestDetectWebMCP(t *testing.T) {
	tests := []struct {
		name string
		html string
		want WebMCP
	}{
		{
			name: "nothing",
			html: `<html><body><script>console.log("hi")</script></body></html>`,
			want: WebMCP{},
		},
		{
			name: "document.modelContext.registerTool with literal name",
			html: `<script>
				document.modelContext.registerTool({
				  description: "Search the catalog",
				  inputSchema: {type: "object", properties: {name: {type: "string"}}},
				  name: "search_catalog",
				  async execute({query}) { return fetch("/search?q=" + query) }
				}, {signal: ctrl.signal});
			</script>`,
			want: WebMCP{Detected: true, Kinds: []string{"imperative"}, Tools: []string{"search_catalog"}},
		},
		{
			name: "navigator with optional chaining, quoted key, minified",
			html: `<script type="module">navigator.modelContext?.registerTool({"name":'add_to_cart',"description":"Add"});window.navigator.modelContext.registerTool({name:"get_cart"})</script>`,
			want: WebMCP{Detected: true, Kinds: []string{"imperative"}, Tools: []string{"add_to_cart", "get_cart"}},
		},
		{
			name: "tool object built elsewhere gives no name",
			html: `<script>const tool = makeTool(); document.modelContext.registerTool(tool)</script>`,
			want: WebMCP{Detected: true, Kinds: []string{"imperative"}},
		},
		{
			name: "template literal name with substitution is not a literal",
			html: "<script>document.modelContext.registerTool({name: `tool_${i}`})</script>",
			want: WebMCP{Detected: true, Kinds: []string{"imperative"}},
		},
		{
			name: "aliased context",
			html: `<script>const mc = navigator.modelContext; if (mc) { mc.registerTool({ name: "track_order" }) }</script>`,
			want: WebMCP{Detected: true, Kinds: []string{"imperative"}, Tools: []string{"track_order"}},
		},
		{
			name: "MCP server SDK registerTool without modelContext does not count",
			html: `<script>server.registerTool("search", {title: "x"}, handler)</script>`,
			want: WebMCP{},
		},
		{
			name: "feature check alone does not count",
			html: `<script>if ("modelContext" in navigator) { console.log(navigator.modelContext) }</script>`,
			want: WebMCP{},
		},
		{
			name: "legacy provideContext alone is not detected, its tools are named",
			html: `<script>navigator.modelContext.provideContext({tools: [{name: "old"}]}); navigator.modelContext.clearContext()</script>`,
			want: WebMCP{Kinds: []string{"legacy"}, LegacyTools: []string{"old"}},
		},
		{
			name: "JSON-LD and external scripts are not scanned inline",
			html: `<script type="application/ld+json">{"x":"document.modelContext.registerTool({name:'no'})"}</script><script src="/a.js">document.modelContext.registerTool({name:"no"})</script>`,
			want: WebMCP{Scripts: []string{"https://shop.example/a.js"}},
		},
		{
			name: "declarative form",
			html: `<form action="/search" toolname="search_products" tooldescription="Search  the store" toolautosubmit>
				<input name="q" toolparamdescription="Search words">
				<select name="sort"></select>
				<button>Go</button></form>
				<form action="/newsletter"><input name="email"></form>`,
			want: WebMCP{Detected: true, Kinds: []string{"declarative"}, Tools: []string{"search_products"}, Forms: []WebMCPForm{{
				Tool: "search_products", Description: "Search the store", AutoSubmit: true, Action: "/search",
				Params: []WebMCPParam{{Name: "q", Description: "Search words"}},
			}}},
		},
		{
			name: "empty toolname is not a tool",
			html: `<form toolname=""><input name="q"></form>`,
			want: WebMCP{},
		},
		{
			name: "both kinds",
			html: `<form toolname="lookup"></form><script>document.modelContext.registerTool({name:"cart"})</script>`,
			want: WebMCP{Detected: true, Kinds: []string{"declarative", "imperative"}, Tools: []string{"cart", "lookup"}, Forms: []WebMCPForm{{Tool: "lookup"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DetectWebMCP(htmlPage(t, "https://shop.example/", tt.html))
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(WebMCP{}, "Evidence"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("DetectWebMCP mismatch (-want +got):\n%s", diff)
			}
			if got.Detected && len(got.Evidence) == 0 {
				t.Error("detected without evidence")
			}
		})
	}
}

func TestDetectWebMCPEvidence(t *testing.T) {
	p := htmlPage(t, "https://shop.example/", `<script>var a=1</script><script>document.modelContext.registerTool({name:"x"})</script><form toolname="f"></form>`)
	got := DetectWebMCP(p).Evidence
	want := []WebMCPEvidence{
		{Kind: WebMCPImperative, Source: "inline script 2", Tool: "x", Snippet: `document.modelContext.registerTool({name:"x"})`},
		{Kind: WebMCPDeclarative, Source: "form 1", Tool: "f", Snippet: `<form toolname="f">`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("evidence mismatch (-want +got):\n%s", diff)
	}
}

func TestFirstPartyScripts(t *testing.T) {
	html := `<head><base href="/theme/">
		<script src="https://cdn.shopify.com/s/files/app.js"></script>
		<script src="vendor.js"></script>
		<script src="//www.shop.example/assets/webmcp-adapter.js"></script>
		<script src="https://static.shop.example/x.js" type="module"></script>
		<script src="/theme/vendor.js"></script>
		<script src="https://www.googletagmanager.com/gtm.js"></script>
		<script src="data.json" type="application/json"></script>
		<script src="javascript:alert(1)"></script>
	</head>`
	got := DetectWebMCP(htmlPage(t, "https://shop.example/products/a", html)).Scripts
	want := []string{
		"https://www.shop.example/assets/webmcp-adapter.js",
		"https://shop.example/theme/vendor.js",
		"https://static.shop.example/x.js",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Scripts mismatch (-want +got):\n%s", diff)
	}
}

func TestScanScriptAndMerge(t *testing.T) {
	page := DetectWebMCP(htmlPage(t, "https://shop.example/", `<form toolname="search"></form><script src="/mcp.js"></script>`))
	script := ScanScript("https://shop.example/mcp.js", []byte(`(()=>{const c=document.modelContext;c&&c.registerTool({name:"checkout_help",execute(){}})})()`))
	if !script.Detected || len(script.Tools) != 1 || script.Evidence[0].Source != "https://shop.example/mcp.js" {
		t.Fatalf("ScanScript = %+v", script)
	}
	got := page.Merge(script, ScanScript("other", []byte("nothing here")))
	want := WebMCP{
		Detected: true,
		Kinds:    []string{"declarative", "imperative"},
		Tools:    []string{"checkout_help", "search"},
		Forms:    []WebMCPForm{{Tool: "search"}},
		Scripts:  []string{"https://shop.example/mcp.js"},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(WebMCP{}, "Evidence")); diff != "" {
		t.Errorf("Merge mismatch (-want +got):\n%s", diff)
	}
	if len(page.Tools) != 1 {
		t.Errorf("Merge changed its receiver: %v", page.Tools)
	}
}

func TestToolNameAfter(t *testing.T) {
	tests := map[string]string{
		`{name: "a"}`:                            "a",
		`  { "name" : 'b' }`:                     "b",
		"{name: `c`}":                            "c",
		`{/* c */ name /* d */ : "d"}`:           "d",
		`{title: x.name, name: "e"}`:             "e",
		`{inputSchema: {name: "no"}, name: "f"}`: "f",
		`{description: "name: 'no'"}`:            "",
		`tool`:                                   "",
		`{name: someVar}`:                        "",
		`{name: "a\"b"}`:                         "",
		`{name: "`:                               "",
		`{`:                                      "",
		``:                                       "",
		`{a: [1, {name: "no"}], name: "g"}`:      "g",
		`{a: "}", name: "h"}`:                    "h",
	}
	for in, want := range tests {
		if got := toolNameAfter([]byte(in)); got != want {
			t.Errorf("toolNameAfter(%q) = %q, want %q", in, got, want)
		}
	}
}
