// The WebMCP observer of shopper C. It runs in the page's own world before
// any page script, on every document. It records the tools a page
// registers with modelContext.registerTool, under document (where the
// draft now puts it) and under navigator (where it first was and the
// MCP-B polyfill still puts it), and the tools it provides all at once
// with provideContext({tools}) (the earlier form of the API, which pages
// written for the polyfill still use), wrapping a native modelContext when
// the browser has one and standing in for it when it has none, as a
// WebMCP-capable agent browser would. The stand-in follows the draft
// (webmachinelearning/webmcp index.bs): an EventTarget whose registerTool
// returns a promise, rejected for an empty name or description, a name
// already registered or an aborted signal, and whose tools are withdrawn
// when the signal given with them aborts; it keeps the earlier methods
// too. It exposes, read-only, the list of tools and a way to call one;
// nothing else of the page is touched.
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
  // drop removes tool if it is still the one registered under its name,
  // and reports whether it did.
  const drop = tool => {
    const t = tool && tools.get(tool.name);
    if (!t || t.tool !== tool) return false;
    tools.delete(tool.name);
    return true;
  };
  // withdrawOn removes a tool when the signal it was registered with
  // aborts (the draft's only way to unregister one).
  const withdrawOn = (signal, tool, changed) => {
    if (!signal || typeof signal.addEventListener !== 'function') return;
    signal.addEventListener('abort', () => { if (drop(tool)) changed(); }, {once: true});
  };
  const observe = (target, proto, via) => {
    const mc = target.modelContext;
    const none = () => {};
    if (mc && typeof mc.registerTool === 'function') {
      const reg = mc.registerTool.bind(mc);
      mc.registerTool = (tool, opts) => {
        const r = reg(tool, opts);
        const signal = opts && opts.signal;
        if (!(signal && signal.aborted)) {
          record(tool, via);
          withdrawOn(signal, tool, none);
        }
        // A registration the browser refuses is not a tool.
        if (r && typeof r.then === 'function') r.then(null, () => drop(tool));
        return r;
      };
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
    const shim = new EventTarget();
    let handler = null;
    // toolchange is fired from a task, as the draft queues it.
    const changed = () => setTimeout(() => shim.dispatchEvent(new Event('toolchange')), 0);
    shim.addEventListener('toolchange', e => { if (typeof handler === 'function') handler.call(shim, e); });
    Object.defineProperty(shim, 'ontoolchange', {get() { return handler; }, set(f) { handler = typeof f === 'function' ? f : null; }});
    Object.assign(shim, {
      registerTool(tool, opts) {
        const signal = opts && opts.signal;
        if (signal && signal.aborted) return Promise.reject(signal.reason);
        if (!tool || typeof tool.name !== 'string' || !tool.name || typeof tool.description !== 'string' || !tool.description) {
          return Promise.reject(new TypeError('a tool needs a name and a description'));
        }
        if (tools.has(tool.name)) return Promise.reject(new DOMException('a tool named ' + tool.name + ' is registered', 'InvalidStateError'));
        record(tool, via);
        withdrawOn(signal, tool, changed);
        changed();
        // The MCP-B polyfill answered {unregister()}; its pages call that.
        const done = Promise.resolve();
        done.unregister = () => { if (drop(tool)) changed(); };
        return done;
      },
      unregisterTool(name) { tools.delete(name); changed(); },
      provideContext(ctx) { provide(ctx, via); changed(); },
      clearContext() { clearBase(); changed(); },
    });
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
