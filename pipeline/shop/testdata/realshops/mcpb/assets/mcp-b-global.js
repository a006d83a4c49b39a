// A stand-in for the MCP-B polyfill (@mcp-b/global): navigator.modelContext
// with provideContext and registerTool, for browsers that have none.
(function () {
  if ('modelContext' in navigator) return;
  const tools = new Map();
  const mc = {
    provideContext(ctx) { tools.clear(); for (const t of (ctx && ctx.tools) || []) tools.set(t.name, t); },
    clearContext() { tools.clear(); },
    registerTool(t) { tools.set(t.name, t); return {unregister() { tools.delete(t.name); }}; },
    unregisterTool(name) { tools.delete(name); },
  };
  Object.defineProperty(Navigator.prototype, 'modelContext', {configurable: true, get() { return mc; }});
})();
