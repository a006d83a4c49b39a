// The store's tools for agents, offered the MCP-B way (WebMCP-org/
// npm-packages global/README.md): load the polyfill when the browser has
// no navigator.modelContext, then provideContext({tools}).
(async function () {
  if (!('modelContext' in navigator)) {
    await new Promise((resolve) => {
      const s = document.createElement('script');
      s.src = '/js/mcp-b-global.js';
      s.onload = resolve;
      s.onerror = resolve;
      document.head.appendChild(s);
    });
  }
  if (!navigator.modelContext) return;
  const text = (v) => ({content: [{type: 'text', text: JSON.stringify(v)}]});
  navigator.modelContext.provideContext({
    tools: [
      {
        name: 'searchProducts',
        description: 'Search the products of Fieldnotes Goods',
        inputSchema: {type: 'object', properties: {query: {type: 'string'}}},
        async execute({query}) {
          const r = await fetch('/api/products?q=' + encodeURIComponent(query || ''));
          return text(await r.json());
        },
      },
      {
        name: 'addToCart',
        description: 'Add a product to the shopping cart',
        inputSchema: {type: 'object', properties: {productId: {type: 'string'}, quantity: {type: 'integer', minimum: 1}}, required: ['productId']},
        async execute({productId, quantity}) {
          const r = await fetch('/api/cart', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({product_id: productId, quantity: quantity || 1})});
          if (!r.ok) return {content: [{type: 'text', text: 'Could not add the product'}], isError: true};
          return text(await r.json());
        },
      },
      {
        name: 'getCart',
        description: 'Show what the shopping cart holds',
        inputSchema: {type: 'object', properties: {}},
        async execute() { return text(await (await fetch('/api/cart')).json()); },
      },
      {
        name: 'goToCheckout',
        description: 'Open the checkout page to enter shipping and payment details',
        inputSchema: {type: 'object', properties: {}},
        async execute() { location.href = '/checkout'; return text({ok: true}); },
      },
    ],
  });
})();
