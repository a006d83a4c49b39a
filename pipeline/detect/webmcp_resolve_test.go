package detect

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestWebMCPToolsBuiltOutsideTheCall: tool objects written outside the
// registerTool or provideContext call are resolved when the literal is in
// the same script (issue 18).
func TestWebMCPToolsBuiltOutsideTheCall(t *testing.T) {
	tests := []struct {
		name  string
		js    string
		tools []string
		kinds []string
	}{
		{
			name: "a const tool object",
			js: `const addTodoTool = {name: "add-todo", description: "Add", execute() {}};
				document.modelContext.registerTool(addTodoTool);`,
			tools: []string{"add-todo"},
		},
		{
			name:  "a let assigned later, registered through an alias",
			js:    `let cartTool; cartTool = {"name": "view-cart"}; const mc = navigator.modelContext; mc?.registerTool(cartTool, {signal});`,
			tools: []string{"view-cart"},
		},
		{
			name: "a wrapper function taking a spec object",
			js: `function expose(spec) { return document.modelContext.registerTool({...spec, execute: run(spec)}); }
				expose({name: "search-products", description: "Search"});
				expose({name: "get-product", description: "Details"});`,
			tools: []string{"get-product", "search-products"},
		},
		{
			name: "an arrow wrapper passing the spec on, called with a variable",
			js: `const register = (tool, opts) => navigator.modelContext.registerTool(tool, opts);
				const checkoutTool = {name: "start-checkout"};
				register(checkoutTool, {});
				register({name: "apply-coupon"});`,
			tools: []string{"apply-coupon", "start-checkout"},
		},
		{
			name: "a class method wrapper",
			js: `class Agent { add(def) { document.modelContext.registerTool(def) } }
				const a = new Agent(); a.add({name: "track-order"});`,
			tools: []string{"track-order"},
		},
		{
			name: "an array registered in a loop",
			js: `const tools = [{name: "a-tool"}, {name: "b-tool", inputSchema: {properties: {name: {}}}}];
				for (const tool of tools) { document.modelContext.registerTool(tool); }`,
			tools: []string{"a-tool", "b-tool"},
		},
		{
			name: "an array registered with forEach, elements by name",
			js: `const search = {name: "search"}; const cart = {name: "cart"};
				[search, cart];
				const list = [search, cart];
				list.forEach((t) => navigator.modelContext.registerTool(t));`,
			tools: []string{"cart", "search"},
		},
		{
			name: "an object of tools registered with Object.values",
			js: `const TOOLS = {search: {name: "find-items"}, cart: {name: "add-item"}};
				Object.values(TOOLS).forEach(tool => document.modelContext.registerTool(tool));`,
			tools: []string{"add-item", "find-items"},
		},
		{
			name: "an array filled with push",
			js: `const defs = []; defs.push({name: "one"}); defs.push({name: "two"}, {name: "three"});
				defs.forEach(d => document.modelContext.registerTool(d));`,
			tools: []string{"one", "three", "two"},
		},
		{
			name: "provideContext with tools by name and a shorthand list",
			js: `const a = {name: "tool-a"}, b = {name: "tool-b"};
				navigator.modelContext.provideContext({tools: [a, b]});
				const tools = [{name: "tool-c"}];
				navigator.modelContext.provideContext({tools});`,
			tools: []string{"tool-a", "tool-b", "tool-c"},
			kinds: []string{WebMCPLegacy},
		},
		{
			name:  "provideContext with a context variable",
			js:    `const ctx = {tools: [{name: "tool-d"}]}; window.navigator.modelContext.provideContext(ctx);`,
			tools: []string{"tool-d"},
			kinds: []string{WebMCPLegacy},
		},
		{
			name:  "a name held in a const string",
			js:    `const SEARCH = "search-catalog"; document.modelContext.registerTool({name: SEARCH, execute() {}});`,
			tools: []string{"search-catalog"},
		},
		{
			name:  "a for-of over an array literal",
			js:    `const a = {name: "one"}; for (const t of [a, {name: "two"}]) navigator.modelContext.registerTool(t);`,
			tools: []string{"one", "two"},
		},
		{
			name: "a factory call, a member and a fetched list stay unread",
			js: `document.modelContext.registerTool(makeTool("x"));
				document.modelContext.registerTool(registry.search);
				fetch("/tools.json").then(r => r.json()).then(ts => ts.forEach(t => document.modelContext.registerTool(t)));`,
		},
		{
			name: "a name from a template with a substitution is not read",
			js:   "const dyn = {name: `tool-${id}`}; document.modelContext.registerTool(dyn);",
		},
		{
			name: "a recursive definition ends",
			js:   `let x = {...x}; let y = [y, x]; document.modelContext.registerTool(x); document.modelContext.registerTool(y)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ScanScript("s.js", []byte(tt.js))
			kinds := tt.kinds
			if kinds == nil {
				kinds = []string{WebMCPImperative}
			}
			gotTools := got.Tools
			if slices.Equal(kinds, []string{WebMCPLegacy}) {
				if len(got.Tools) > 0 {
					t.Errorf("legacy calls gave current tools %q", got.Tools)
				}
				gotTools = got.LegacyTools
			}
			if diff := cmp.Diff(tt.tools, gotTools, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(kinds, got.Kinds); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWebMCPExplainerExamples runs the code shapes of the WebMCP explainer
// and its earlier drafts (github.com/webmachinelearning/webmcp: README.md
// at 0b676d27, docs/proposal.md and README.md in their 2025 versions, and
// docs/service-workers.md), with the tool names they register.
func TestWebMCPExplainerExamples(t *testing.T) {
	tests := []struct {
		source string
		js     string
		tools  []string
		kinds  []string
	}{
		{
			source: "README.md 'Imperative Tool Registration' (0b676d27)",
			js: `const controller = new AbortController();
await document.modelContext.registerTool({
  name: "add-todo",
  description: "Add a new item to the user's active todo list",
  inputSchema: {
    type: "object",
    properties: {
      text: { type: "string", description: "The text content of the todo item" }
    },
    required: ["text"]
  },
  async execute({ text }) {
    await addTodoItemToCollection(text);
    return { content: [ { type: "text", text: ` + "`Added todo item: \"${text}\" successfully.`" + ` } ] };
  }
}, { signal: controller.signal });`,
			tools: []string{"add-todo"}, kinds: []string{WebMCPImperative},
		},
		{
			source: "README.md 'E-Commerce & Tailored Shopping' (0b676d27), elided bodies as written",
			js: `await document.modelContext.registerTool({
    name: "get-dresses",
    description: "Returns an array of product listings containing id, description, price, and photo.",
    inputSchema: { type: "object", properties: { size: { type: "number", description: "Optional EU dress size to filter by." } } },
    async execute({ size, color }) { const response = await fetchDresses(size, color); return response.json(); }
  });
  await document.modelContext.registerTool({
    name: "show-dresses",
    ...
  });
  await document.modelContext.registerTool({
    name: "filter-products",
    ...
  });`,
			tools: []string{"filter-products", "get-dresses", "show-dresses"}, kinds: []string{WebMCPImperative},
		},
		{
			source: "README.md 'Cross-origin iframe exposure' (0b676d27)",
			js: `await document.modelContext.registerTool({
  name: "share-location",
  description: "Returns the user's office location.",
  execute() { return { office: "Building 4" }; }
}, { exposedTo: ["https://trusted-partner.example"] });`,
			tools: []string{"share-location"}, kinds: []string{WebMCPImperative},
		},
		{
			source: "docs/proposal.md 'modelContext' (2025): a const tool object",
			js: `const addTodoTool = {
  execute: ({ text }, agent) => {
    // Add todo item and update UI.
    return /* structured content response */
  },
  name: "add-todo",
  description: "Add a new todo item to the list",
  inputSchema: {
    type: "object",
    properties: {
      text: { type: "string", description: "The text of the todo item" }
    },
    required: ["text"]
  },
};
const controller = new AbortController();

window.navigator.modelContext.registerTool(addTodoTool, { signal: controller.signal });

// Unregister tool later...
controller.abort();`,
			tools: []string{"add-todo"}, kinds: []string{WebMCPImperative},
		},
		{
			source: "docs/proposal.md 'agent' (2025): execute named before the name",
			js: `  window.navigator.modelContext.registerTool({
    execute: buyProduct,
    name: "buyProduct",
    description: "Use this tool to purchase a product given its unique product_id.",
    inputSchema: { type: "object", properties: { "product_id": { description: "The unique identifier.", type: "string" } }, required: ["product_id"] },
  });
async function buyProduct({ product_id }, agent) { executePurchase(product_id); }`,
			tools: []string{"buyProduct"}, kinds: []string{WebMCPImperative},
		},
		{
			source: "README.md (2025): navigator.modelContext.provideContext with a tools array",
			js: `window.navigator.modelContext.provideContext({
    tools: [
        {
            name: "add-todo",
            description: "Add a new todo item to the list",
            inputSchema: { type: "object", properties: { text: { type: "string", description: "The text of the todo item" } }, required: ["text"] },
            execute: ({ text }, agent) => {
                return /* structured content response */
            }
        }
    ]
});`,
			tools: []string{"add-todo"}, kinds: []string{WebMCPLegacy},
		},
		{
			source: "README.md (2025): window.agent.provideContext in the stamp example",
			js: `if ("agent" in window) {
    window.agent.provideContext({
        tools: [
            {
                name: "add-stamp",
                description: "Add a new stamp to the collection",
                inputSchema: { type: "object", properties: { name: { type: "string", description: "The name of the stamp" } }, required: ["name", "description", "year"] },
                async execute({ name, description, year, imageUrl }) {
                    // TODO
                }
            }
        ]
    });
}`,
			tools: []string{"add-stamp"}, kinds: []string{WebMCPLegacy},
		},
		{
			source: "docs/service-workers.md: self.agent.provideContext",
			js: `self.agent.provideContext({
  tools: [
    {
      name: "add-to-cart",
      description: "Add an item to the user's shopping cart.",
      inputSchema: {  /* ... */ },
      async execute(params, clientInfo) {
        const cart = carts.get(clientInfo.sessionId);
        cart.add(params.itemId);
      }
    }
  ]
})`,
			tools: []string{"add-to-cart"}, kinds: []string{WebMCPLegacy},
		},
	}
	for _, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			got := ScanScript("s.js", []byte(tt.js))
			gotTools := got.Tools
			if slices.Equal(tt.kinds, []string{WebMCPLegacy}) {
				if len(got.Tools) > 0 {
					t.Errorf("legacy calls gave current tools %q", got.Tools)
				}
				gotTools = got.LegacyTools
			}
			if diff := cmp.Diff(tt.tools, gotTools, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.kinds, got.Kinds); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
		})
	}
}
