package shop

import (
	"fmt"
	"net/http"
	"testing"
)

// specToolsJS offers the mcpb shop's tools the way the WebMCP draft now
// says (webmachinelearning/webmcp index.bs, June 2026): modelContext is on
// Document (c7b5c70, "Move the modelContext getter to Document"), is an
// EventTarget with a toolchange event, and registerTool returns a promise
// (ec37ec4), rejected for a second tool of the same name; a tool is
// withdrawn only through the AbortSignal given when it was registered
// (unregisterTool and provideContext are gone; bc93f03 rejects a
// registration whose signal is already aborted). Pages written to it chain
// .catch on each registration. The page first registers a tool of an older
// version of itself and withdraws it with its signal: calling it is a trap.
const specToolsJS = `(function () {
  const mc = document.modelContext;
  if (!mc) return;
  const text = (v) => ({content: [{type: 'text', text: JSON.stringify(v)}]});
  mc.addEventListener('toolchange', () => { document.documentElement.dataset.toolchanges = String(1 + Number(document.documentElement.dataset.toolchanges || 0)); });
  const old = new AbortController();
  mc.registerTool({
    name: 'addToCartLegacy', description: 'Add a product to the shopping cart',
    inputSchema: {type: 'object', properties: {productId: {type: 'string'}}, required: ['productId']},
    async execute() { await fetch('/trap/withdrawn-tool', {method: 'POST'}); return text({ok: true}); },
  }, {signal: old.signal}).then(() => old.abort()).catch(console.error);
  const gone = new AbortController();
  gone.abort();
  mc.registerTool({name: 'addToCartNever', description: 'Add a product to the shopping cart', async execute() {
    await fetch('/trap/aborted-tool', {method: 'POST'}); return text({ok: true});
  }}, {signal: gone.signal}).catch(() => {});
  mc.registerTool({
    name: 'searchProducts', description: 'Search the products of Fieldnotes Goods',
    inputSchema: {type: 'object', properties: {query: {type: 'string'}}},
    async execute({query}) { return text(await (await fetch('/api/products?q=' + encodeURIComponent(query || ''))).json()); },
  }).catch(console.error);
  mc.registerTool({
    name: 'addToCart', description: 'Add a product to the shopping cart',
    inputSchema: {type: 'object', properties: {productId: {type: 'string'}, quantity: {type: 'integer', minimum: 1}}, required: ['productId']},
    async execute({productId, quantity}) {
      const r = await fetch('/api/cart', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({product_id: productId, quantity: quantity || 1})});
      if (!r.ok) return {content: [{type: 'text', text: 'Could not add the product'}], isError: true};
      return text(await r.json());
    },
  }).catch(console.error);
  mc.registerTool({
    name: 'getCart', description: 'Show what the shopping cart holds', inputSchema: {type: 'object', properties: {}},
    async execute() { return text(await (await fetch('/api/cart')).json()); },
  }).catch(console.error);
  mc.registerTool({name: 'getCart', description: 'A second getCart, refused', async execute() { return text({}); }}).catch(() => {});
  mc.registerTool({
    name: 'goToCheckout', description: 'Open the checkout page to enter shipping and payment details', inputSchema: {type: 'object', properties: {}},
    async execute() { location.href = '/checkout'; return text({ok: true}); },
  }).catch(console.error);
})();
`

// specToolsShop is the mcpb held-out shop with its tools offered as the
// WebMCP draft now says (specToolsJS).
func specToolsShop() *realShop {
	s := mcpbShop()
	s.host = "webmcp-draft.test"
	s.serve = func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/js/agent-tools.js" {
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			fmt.Fprint(w, specToolsJS)
			return
		}
		serveMCPB(h, s, w, r)
	}
	return s
}

// TestWebMCPAsTheDraftNowSays: C finds and uses tools registered the way
// the WebMCP draft now says (on document, a promise per registration,
// withdrawal by AbortSignal) and reaches checkout; it never calls a tool
// withdrawn or refused before it looked. The tools are Chromium's own
// (its WebMCP domain): the browser, not svc, withdraws the aborted tool
// and refuses the second getCart.
func TestWebMCPAsTheDraftNowSays(t *testing.T) {
	rep := runOnShop(t, specToolsShop(), WebMCP)[WebMCP]
	wantOutcome(t, WebMCP, rep, CheckoutReached)
	const listed = "WebMCP tools: addToCart (page), getCart (page), goToCheckout (page), searchProducts (page)"
	if len(rep.Log) < 2 || rep.Log[1].Note != listed {
		t.Errorf("the tools C saw are not the four the page keeps: %+v", rep.Log)
	}
}
