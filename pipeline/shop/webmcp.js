// The WebMCP observer of shopper C. It runs in the page's own world before
// any page script, on every document. It records the tools a page
// registers with modelContext.registerTool, under navigator and under
// document (recent Chromium moved it), and the tools it provides all at
// once with provideContext({tools}) (the earlier form of the API, which
// the MCP-B polyfill and the pages written for it still use), wrapping a
// native modelContext when the browser has one and standing in for it
// when it has none, as a WebMCP-capable agent browser would. It exposes,
// read-only, the list of tools and a way to call one; nothing else of the
// page is touched.
(() => {
  if (window.__svcWebMCP) return;
  const tools = new Map();
  const plain = (v, max) => {
    try {
      const s = JSON.stringify(v === undefined ? null : v);
      if (s && s.length > (max || 65536)) return {truncated: true, text: s.slice(0, max || 65536)};
      return s === undefined ? null : JSON.parse(s);
    } catch (e) { return null; }
  };
  const record = (tool, via, base) => {
    if (tool && typeof tool.name === 'string' && tool.name && tools.size < 64) tools.set(tool.name, {tool, via, base: !!base});
  };
  // provideContext replaces the tools provided before (not those
  // registered one by one); clearContext removes them.
  const clearBase = () => { for (const [n, t] of tools) if (t.base) tools.delete(n); };
  const provide = (ctx, via) => {
    clearBase();
    const list = ctx && Array.isArray(ctx.tools) ? ctx.tools.slice(0, 64) : [];
    for (const t of list) record(t, via, true);
  };
  const observe = (target, proto, via) => {
    const mc = target.modelContext;
    if (mc && typeof mc.registerTool === 'function') {
      const reg = mc.registerTool.bind(mc);
      mc.registerTool = (tool, opts) => { record(tool, via); return reg(tool, opts); };
      if (typeof mc.unregisterTool === 'function') {
        const unreg = mc.unregisterTool.bind(mc);
        mc.unregisterTool = name => { tools.delete(name); return unreg(name); };
      }
      if (typeof mc.provideContext === 'function') {
        const prov = mc.provideContext.bind(mc);
        mc.provideContext = ctx => { provide(ctx, via); return prov(ctx); };
      } else {
        mc.provideContext = ctx => provide(ctx, via);
      }
      if (typeof mc.clearContext === 'function') {
        const clear = mc.clearContext.bind(mc);
        mc.clearContext = () => { clearBase(); return clear(); };
      } else {
        mc.clearContext = () => clearBase();
      }
      return;
    }
    const shim = {
      registerTool(tool) { record(tool, via); return {unregister() { if (tool) tools.delete(tool.name); }}; },
      unregisterTool(name) { tools.delete(name); },
      provideContext(ctx) { provide(ctx, via); },
      clearContext() { clearBase(); },
    };
    try { Object.defineProperty(proto, 'modelContext', {configurable: true, enumerable: true, get() { return shim; }}); } catch (e) {}
  };
  observe(navigator, Navigator.prototype, 'navigator');
  observe(document, Document.prototype, 'document');
  const api = Object.freeze({
    list() {
      return [...tools.values()].map(({tool, via}) => ({
        name: String(tool.name).slice(0, 100), description: String(tool.description || '').slice(0, 300),
        inputSchema: plain(tool.inputSchema, 8192), via,
      }));
    },
    async call(name, args) {
      const t = tools.get(name);
      if (!t || typeof t.tool.execute !== 'function') throw new Error('no such tool');
      return plain(await t.tool.execute(args || {}, {}), 65536);
    },
  });
  Object.defineProperty(window, '__svcWebMCP', {value: api, configurable: false, enumerable: false, writable: false});
})();
