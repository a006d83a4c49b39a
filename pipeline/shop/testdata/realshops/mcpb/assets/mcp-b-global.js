// A stand-in for the MCP-B polyfill (@mcp-b/global) as its releases behave
// beside a browser's own WebMCP: navigator.modelContext becomes the
// polyfill's (its own property, as the real one defines it), keeps the
// earlier provideContext for pages written for it, and hands every tool to
// the browser's document.modelContext when there is one, withdrawing it
// by its AbortSignal (the real polyfill's registerNativeToolMirror, 5.1.0).
// Without a browser WebMCP the tools stay with the polyfill alone.
(function () {
  if ('modelContext' in navigator) return;
  const native = document.modelContext;
  const tools = new Map(); // name → the AbortController of its mirror
  const drop = (name) => { const c = tools.get(name); if (c) c.abort(); tools.delete(name); };
  const add = (t) => {
    if (!t || !t.name) return;
    drop(t.name);
    const c = new AbortController();
    tools.set(t.name, c);
    if (native) Promise.resolve(native.registerTool(t, {signal: c.signal})).catch(() => {});
  };
  const mc = {
    provideContext(ctx) { for (const n of [...tools.keys()]) drop(n); for (const t of (ctx && ctx.tools) || []) add(t); },
    clearContext() { for (const n of [...tools.keys()]) drop(n); },
    registerTool(t) { add(t); return {unregister() { drop(t.name); }}; },
    unregisterTool(name) { drop(name); },
  };
  Object.defineProperty(navigator, 'modelContext', {configurable: true, enumerable: true, value: mc});
})();
