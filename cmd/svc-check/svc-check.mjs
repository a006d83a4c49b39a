#!/usr/bin/env node
// svc-check: can AI agents shop at these stores? A single-file client of the
// svc API for JavaScript CI pipelines. Node 18+, no dependencies.
//
//   node svc-check.mjs HOST... [--require LIST] [--json] [--summary FILE]
//                              [--api URL] [--timeout SECONDS]
//
// It is the same client as `svc check` (cmd/internal/ciclient): same flags, same
// table, JSON and Markdown summary byte for byte, same exit codes. Change
// both together; the Go test TestCheckParity holds them to it. Run with
// --help for the checks, the JSON shape and the exit codes.

import { openSync, writeSync, closeSync } from "node:fs";

const CHECKS = ["ucp", "webmcp", "catalog", "checkout", "mcp", "robots", "product-data", "policies"];
const DEFAULT_API = "http://127.0.0.1:8080";
const DEFAULT_TIMEOUT = 120; // seconds; a fresh live check may take up to 90 s on the server
const MAX_BODY = 4 << 20;
const USER_AGENT = "svc-check/1";
const VERSION = "svc-check/1";

const EXIT_FAILED = 1; // a required check failed or is unmeasured
const EXIT_NETWORK = 2; // the API could not be reached, timed out, answered 5xx or not JSON
const EXIT_RATE_LIMITED = 3; // the API answered 429
const EXIT_USAGE = 64; // bad flags or arguments; nothing was checked

const HELP = `Usage: svc-check HOST... [--require LIST] [--json] [--summary FILE] [--api URL] [--timeout SECONDS]

Check stores through the svc API and report eight checks per host as pass,
fail or unmeasured. The exit code says whether every required check passed.
This is the same client as \`svc check\`; see its help for every detail.

HOST is a host name (shop.example) or any URL of the store; only its scheme
(https when none) and host are used. Each host costs two API requests:
  GET /api/ucp/validate?url=https://HOST/     the UCP profile, always live
  GET /api/agent-checkout?url=https://HOST/   the latest saved check (the API's
                                              24-hour cache, else a fresh check)

Checks and the API fields they read (null or missing is unmeasured):
  ucp           validation report: valid (fail: invalid or missing profile;
                unmeasured: could not be fetched)
  webmcp        webmcp (WebMCP in the store's server HTML)
  catalog       catalogAnswered and productFound
  checkout      cartLink (a boolean; no checkout URL is ever returned)
  mcp           storefrontMcp.detected
  robots        robots.agents: fail when a user-initiated AI agent is disallowed
  product-data  productData: pass when complete
  policies      policies: pass when returns, shipping, privacy, terms all found

Flags:
  --require LIST     checks that decide the exit code, comma separated
                     (default ucp,webmcp); "all" or "none"
  --json             print one JSON document instead of the table
  --summary FILE     append a Markdown summary (e.g. "$GITHUB_STEP_SUMMARY")
  --api URL          base URL of the svc API (env SVC_API; default ${DEFAULT_API})
  --timeout SECONDS  seconds to wait for each API answer (default ${DEFAULT_TIMEOUT}, at most 3600)
  -h, --help         this help

Exit codes, from the required checks only (the highest of 3, 2, 1 wins):
  0   every required check passed
  1   a required check failed or is unmeasured
  2   network error: the API could not be reached, timed out, answered 5xx
  3   rate limited: the API answered 429
  64  usage: unknown check name, bad flag, host or --api URL, unwritable
      --summary file; nothing was checked
`;

class UsageError extends Error {}

// parseArgs reads argv the way the Go command's flags do.
function parseArgs(argv) {
  const opts = {
    hosts: [],
    require: "ucp,webmcp",
    json: false,
    summary: "",
    api: process.env.SVC_API ? process.env.SVC_API : DEFAULT_API,
    timeout: String(DEFAULT_TIMEOUT),
    help: false,
  };
  const valued = { "--require": "require", "--summary": "summary", "--api": "api", "--timeout": "timeout" };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      opts.hosts.push(...argv.slice(i + 1));
      break;
    }
    if (a === "-h" || a === "--help") {
      opts.help = true;
      continue;
    }
    if (!a.startsWith("-") || a === "-") {
      opts.hosts.push(a);
      continue;
    }
    const eq = a.indexOf("=");
    const name = eq >= 0 ? a.slice(0, eq) : a;
    if (name === "--json") {
      // The spellings Go's strconv.ParseBool takes.
      const v = eq >= 0 ? a.slice(eq + 1) : "true";
      if (["1", "t", "T", "TRUE", "true", "True"].includes(v)) opts.json = true;
      else if (["0", "f", "F", "FALSE", "false", "False"].includes(v)) opts.json = false;
      else throw new UsageError(`invalid argument "${v}" for "--json" flag`);
      continue;
    }
    if (!(name in valued)) throw new UsageError(`unknown flag: ${name}`);
    let v;
    if (eq >= 0) v = a.slice(eq + 1);
    else if (i + 1 < argv.length) v = argv[++i];
    else throw new UsageError(`flag needs an argument: ${name}`);
    opts[valued[name]] = v;
  }
  return opts;
}

// parseRequire turns --require into check names in output order.
function parseRequire(s) {
  const want = new Set();
  const parts = s.toLowerCase().split(",");
  for (let p of parts) {
    p = p.trim();
    if (p === "all" || p === "none") {
      if (parts.length > 1) throw new UsageError(`--require "${s}": ${p} stands alone`);
      return p === "all" ? [...CHECKS] : [];
    }
    if (p === "") throw new UsageError(`--require "${s}": empty check name; give names of ${CHECKS.join(", ")}, or all, or none`);
    if (!CHECKS.includes(p)) throw new UsageError(`--require: unknown check "${p}"; the checks are ${CHECKS.join(", ")} (or all, or none)`);
    want.add(p);
  }
  return CHECKS.filter((n) => want.has(n));
}

// parseTimeout reads --timeout: seconds above 0, at most an hour, in the
// number syntax the Go client takes too.
function parseTimeout(s) {
  const f = Number(s);
  if (!/^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/.test(s) || !(f > 0) || f > 3600) {
    throw new UsageError(`--timeout "${s}": want a number of seconds above 0 and at most 3600`);
  }
  return f;
}

// parseAPI checks --api and returns it without trailing slashes.
function parseAPI(s) {
  let u;
  try {
    u = new URL(s);
  } catch {
    u = null;
  }
  if (!u || (u.protocol !== "http:" && u.protocol !== "https:") || !u.host || u.username || u.password || u.search || u.hash || /\s/.test(s)) {
    throw new UsageError(`--api "${s}": want the API's http or https base URL, e.g. ${DEFAULT_API}`);
  }
  return s.replace(/\/+$/, "");
}

// parseHost reduces a host or URL argument to its scheme and host.
function parseHost(arg) {
  let raw = arg.trim();
  if (!raw.includes("://")) raw = "https://" + raw;
  const bad = (why) => new UsageError(`host "${arg}": ${why}; give a host name such as shop.example, or a store URL`);
  let u;
  try {
    u = new URL(raw);
  } catch {
    throw bad("not a host name or URL");
  }
  if (/[ \t\r\n]/.test(arg)) throw bad("not a host name or URL");
  if (u.protocol !== "http:" && u.protocol !== "https:") throw bad("only http and https");
  if (u.username || u.password) throw bad("a user name or password is not allowed");
  let host = u.hostname.toLowerCase().replace(/\.$/, "");
  if (host === "") throw bad("no host name");
  if (u.port) host += ":" + u.port; // URL drops the scheme's default port
  const scheme = u.protocol.slice(0, -1);
  return { host, url: `${scheme}://${host}/` };
}

// Accessors over decoded JSON: a missing key or a value of another type is
// null, as in the Go client.
const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const jObj = (v, ...keys) => {
  for (const k of keys) v = isObj(v) ? v[k] : undefined;
  return isObj(v) ? v : null;
};
const jBool = (m, k) => (isObj(m) && typeof m[k] === "boolean" ? m[k] : null);
const jStr = (m, k) => (isObj(m) && typeof m[k] === "string" ? m[k] : null);
const jInt = (m, k) => (isObj(m) && typeof m[k] === "number" && Number.isSafeInteger(m[k]) ? m[k] : null);
const jArr = (m, k) => (isObj(m) && Array.isArray(m[k]) ? m[k] : []);
const jStrings = (m, k) => jArr(m, k).filter((v) => typeof v === "string").map(clean);

// clean replaces control characters in text from the API, so the table stays
// one line per check and both clients encode the same JSON.
const clean = (s) => s.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, " ");
const plural = (n, word) => (n === 1 ? "1 " + word : `${n} ${word}s`);
// byteOrder sorts as Go's sort.Strings: by UTF-8 bytes.
const byteOrder = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b));

const outcome = (status, detail, exit = 0) => ({ status, detail, exit });
const pass = (d) => outcome("pass", d);
const fail = (d) => outcome("fail", d);
const unmeasured = (d) => outcome("unmeasured", d);

// failedRequest is the outcome of a check whose API request failed.
function failedRequest(f) {
  let d;
  if (f.exit === EXIT_RATE_LIMITED) d = "not checked: rate limited by the API: " + f.message;
  else if (f.exit === EXIT_FAILED) d = "not checked: the API refused the host: " + f.message;
  else d = "not checked: " + f.message;
  return outcome("unmeasured", d, f.exit);
}

// evalUCP reads the live validation report (spec 2.4).
function evalUCP(r) {
  const valid = jBool(r, "valid");
  if (valid === null) return unmeasured("the validation report has no verdict");
  const src = jObj(r, "source");
  const status = jInt(src, "status");
  const pu = jStr(src, "profileUrl");
  const where = pu ? clean(pu) : "/.well-known/ucp";
  if (valid) {
    let d = "valid UCP profile";
    const v = jStr(r, "declaredVersion");
    if (v !== null) d += ` (version ${clean(v)})`;
    const w = jInt(jObj(r, "counts"), "warnings") ?? 0;
    if (w > 0) d += ", " + plural(w, "warning");
    return pass(d);
  }
  const fe = jStr(src, "fetchError");
  if (fe) return unmeasured(`the profile could not be fetched (${clean(fe)})`);
  if (status !== null && (status === 404 || status === 410)) return fail(`no UCP profile at ${where} (HTTP ${status})`);
  if (status !== null && (status < 200 || status >= 300)) return unmeasured(`the profile could not be read (HTTP ${status})`);
  if (!("profile" in r) || r.profile === null) return fail(`no UCP profile at ${where} (the answer is not JSON)`);
  const n = jInt(jObj(r, "counts"), "errors") ?? 0;
  const se = jStr(jObj(r, "schema"), "error");
  if (n === 0 && se) return unmeasured("the validator could not load the UCP JSON Schema");
  let d = "invalid UCP profile: " + plural(n, "error");
  let rules = [];
  for (const it of jArr(r, "errors")) {
    const s = jStr(jObj(it), "rule");
    if (s && !rules.includes(clean(s))) rules.push(clean(s));
  }
  if (rules.length > 3) rules = [...rules.slice(0, 3), "…"];
  if (rules.length > 0) d += ` (${rules.join(", ")})`;
  return fail(d);
}

// gateReason says why a store's fields are null, when the answer shows it.
function gateReason(a, fallback) {
  const bs = jObj(a, "blockStatus");
  const re = jObj(a, "reachability");
  if (jBool(bs, "blocked") === true) {
    const r = jStr(bs, "reason");
    return r ? `the store blocked the check (${clean(r)})` : "the store blocked the check";
  }
  if (jBool(re, "reachable") === false) {
    const e = jStr(re, "error");
    if (e) return `the store could not be reached (${clean(e)})`;
    const n = jInt(re, "httpStatus");
    if (n !== null && n !== 0) return `the store could not be reached (HTTP ${n})`;
    return "the store could not be reached";
  }
  if (jBool(re, "parked") === true) return "the host is a parked domain";
  if (jBool(re, "redirectsToOtherBrand") === true) return "the host redirects to another brand";
  return fallback;
}

// evalSaved reads one check from the live check's answer (spec 2.1).
function evalSaved(name, a) {
  switch (name) {
    case "webmcp": {
      const b = jBool(a, "webmcp");
      if (b === null) return unmeasured(gateReason(a, "not measured"));
      if (!b) return fail("no WebMCP in the server HTML");
      const tools = jStrings(jObj(a, "webmcpDetail"), "tools");
      return pass(tools.length > 0 ? "WebMCP tools in the server HTML: " + tools.join(", ") : "WebMCP in the server HTML");
    }
    case "catalog": {
      const cat = jObj(a, "catalog");
      let answered = "catalog answered";
      const s = jStr(cat, "source");
      if (s) answered += ` (${clean(s)})`;
      const ca = jBool(a, "catalogAnswered");
      const pf = jBool(a, "productFound");
      if (ca === null) return unmeasured(gateReason(a, "not measured"));
      if (!ca) return fail("no catalog answered");
      if (pf === null) {
        if (jBool(cat, "throttled") === true) return unmeasured(answered + " but throttled; no product seen");
        return unmeasured(answered + "; product not measured");
      }
      return pf ? pass(answered + ", product found") : fail(answered + " with no product");
    }
    case "checkout": {
      const b = jBool(a, "cartLink");
      if (b === null) return unmeasured(gateReason(a, "no product could be added to a cart"));
      return b ? pass("the cart returned a checkout link (a boolean; the URL is never kept)") : fail("no checkout link from the cart");
    }
    case "mcp": {
      const sm = jObj(a, "storefrontMcp");
      const b = jBool(sm, "detected");
      if (b === null) return unmeasured(gateReason(a, "not measured"));
      if (!b) return fail("no storefront MCP endpoint");
      const n = jArr(sm, "tools").length;
      return pass("storefront MCP endpoint answered" + (n > 0 ? ` (${plural(n, "tool")})` : ""));
    }
    case "robots": {
      const rb = jObj(a, "robots");
      const agents = jObj(rb, "agents");
      const st = jStr(rb, "status");
      if (st === null || st === "not_checked" || agents === null || Object.keys(agents).length === 0) {
        return unmeasured(gateReason(a, "robots.txt not checked"));
      }
      const users = [];
      const disallowed = [];
      for (const k of Object.keys(agents).sort(byteOrder)) {
        const v = jObj(agents[k]);
        if (jStr(v, "purpose") !== "user") continue;
        users.push(clean(k));
        if (jStr(v, "verdict") === "disallowed") disallowed.push(clean(k));
      }
      if (users.length === 0) return unmeasured("no user-initiated AI agent in the robots reading");
      if (disallowed.length > 0) return fail("robots.txt disallows " + disallowed.join(", "));
      if (st === "not_found") return pass("no robots.txt: no restrictions");
      return pass("user-initiated AI agents allowed: " + users.join(", "));
    }
    case "product-data": {
      const pd = jObj(a, "productData");
      if (pd === null) return unmeasured(gateReason(a, "not measured"));
      const src = jStr(pd, "source");
      if (src === null) return fail("no product data found");
      if (jBool(pd, "complete") === true) return pass(`complete product data (${clean(src)})`);
      const missing = ["name", "price", "currency", "availability"].filter((f) => jStr(pd, f) === null);
      if (jStr(pd, "gtin") === null && jStr(pd, "sku") === null) missing.push("gtin or sku");
      if (jStr(pd, "image") === null) missing.push("image");
      if (missing.length === 0) return fail(`incomplete product data (${clean(src)})`);
      return fail(`incomplete product data (${clean(src)}): no ${missing.join(", ")}`);
    }
    case "policies": {
      const p = jObj(a, "policies");
      const missing = [];
      const unknown = [];
      for (const k of ["returns", "shipping", "privacy", "terms"]) {
        const b = jBool(p, k);
        if (b === null) unknown.push(k);
        else if (!b) missing.push(k);
      }
      if (missing.length > 0) return fail("no policy page found for " + missing.join(", "));
      if (unknown.length > 0) return unmeasured(gateReason(a, "not measured"));
      return pass("returns, shipping, privacy and terms pages found");
    }
  }
  throw new Error("svc-check: no rule for check " + name);
}

// Client asks the API.
class Client {
  constructor(api, timeout, timeoutText) {
    this.api = api;
    this.timeout = timeout;
    this.timeoutText = timeoutText; // as given, for messages
    this.down = null; // set once the API could not be reached: later requests are skipped
  }

  async get(endpoint, target) {
    if (this.down) return { failure: { ...this.down, endpoint } };
    const { obj, failure, cause } = await this.fetch(endpoint, target);
    if (failure) {
      failure.message = clean(failure.message);
      failure.code = clean(failure.code);
      let msg = `svc-check: ${target.host}: GET ${endpoint}: ${failure.message}`;
      if (cause) msg += ` (${cause})`;
      process.stderr.write(msg + "\n");
      const f = { endpoint, status: failure.status, code: failure.code, message: failure.message, exit: failure.exit };
      if (f.status === 0 && f.exit === EXIT_NETWORK && f.code !== "bad_answer") this.down = f;
      return { failure: f };
    }
    return { obj };
  }

  async fetch(endpoint, target) {
    const timedOut = () => ({ status: 0, code: "timeout", message: `the API did not answer within ${this.timeoutText} s`, exit: EXIT_NETWORK });
    const signal = AbortSignal.timeout(this.timeout * 1000);
    const reqURL = `${this.api}${endpoint}?url=${encodeURIComponent(target.url)}`;
    let resp;
    try {
      resp = await fetch(reqURL, { headers: { Accept: "application/json", "User-Agent": USER_AGENT }, signal, redirect: "follow" });
    } catch (err) {
      if (isTimeout(err, signal)) return { failure: timedOut(), cause: describe(err) };
      return { failure: { status: 0, code: "unreachable", message: "could not connect to the API", exit: EXIT_NETWORK }, cause: describe(err) };
    }
    const st = resp.status;
    let body;
    try {
      body = await readCapped(resp, MAX_BODY + 1);
    } catch (err) {
      if (isTimeout(err, signal)) return { failure: timedOut(), cause: describe(err) };
      return { failure: { status: st, code: "unreachable", message: "the API's answer broke off", exit: EXIT_NETWORK }, cause: describe(err) };
    }
    if (st >= 200 && st < 300) {
      if (body.length > MAX_BODY) return { failure: { status: st, code: "bad_answer", message: "the API's answer is larger than 4 MiB", exit: EXIT_NETWORK } };
      let v;
      try {
        v = JSON.parse(new TextDecoder().decode(body));
      } catch {
        return { failure: { status: st, code: "bad_answer", message: "the API's answer is not JSON", exit: EXIT_NETWORK } };
      }
      if (!isObj(v)) return { failure: { status: st, code: "bad_answer", message: "the API's answer is not a JSON object", exit: EXIT_NETWORK } };
      return { obj: v };
    }
    const f = { status: st, code: `http_${st}`, message: `the API answered HTTP ${st}`, exit: EXIT_NETWORK };
    if (body.length <= MAX_BODY) {
      let v;
      try {
        v = JSON.parse(new TextDecoder().decode(body));
      } catch {
        v = undefined;
      }
      const e = jObj(v, "error");
      if (jStr(e, "code")) f.code = jStr(e, "code");
      if (jStr(e, "message")) f.message = jStr(e, "message");
    }
    if (st === 429) f.exit = EXIT_RATE_LIMITED;
    else if (st === 400) f.exit = EXIT_FAILED;
    return { failure: f };
  }

  async checkHost(target, required) {
    const h = { host: target.host, passed: false, checks: [], savedCheck: null, errors: [] };
    const u = await this.get("/api/ucp/validate", target);
    const a = await this.get("/api/agent-checkout", target);
    for (const r of [u, a]) if (r.failure) h.errors.push(r.failure);
    if (!a.failure) {
      h.savedCheck = { checkedAt: jStr(a.obj, "checkedAt"), cached: jBool(a.obj, "cached"), resultUrl: jStr(a.obj, "resultUrl") };
    }
    for (const n of CHECKS) {
      let o;
      if (n === "ucp") o = u.failure ? failedRequest(u.failure) : evalUCP(u.obj);
      else o = a.failure ? failedRequest(a.failure) : evalSaved(n, a.obj);
      o.name = n;
      o.required = required.includes(n);
      if (o.exit === 0 && o.status !== "pass") o.exit = EXIT_FAILED;
      h.checks.push(o);
    }
    return h;
  }
}

function isTimeout(err, signal) {
  return signal.aborted || (err && (err.name === "TimeoutError" || err.name === "AbortError"));
}

function describe(err) {
  const c = err && err.cause;
  return c && (c.code || c.message) ? `${err.message}: ${c.code || c.message}` : String((err && err.message) || err);
}

// readCapped reads at most limit bytes of the body.
async function readCapped(resp, limit) {
  if (!resp.body) return new Uint8Array(0);
  const reader = resp.body.getReader();
  const chunks = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.length;
    if (total >= limit) {
      await reader.cancel().catch(() => {});
      break;
    }
  }
  const out = Buffer.concat(chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)));
  return out.subarray(0, limit);
}

// finish sets the pass flags and the exit code: the highest a required
// check calls for.
function finish(report) {
  report.passed = true;
  for (const h of report.hosts) {
    h.passed = true;
    for (const c of h.checks) {
      if (c.required && c.status !== "pass") {
        h.passed = false;
        report.exitCode = Math.max(report.exitCode, c.exit);
      }
    }
    report.passed = report.passed && h.passed;
  }
}

// toJSON gives the --json document, in the Go client's field order.
function toJSON(r) {
  const doc = {
    version: r.version,
    api: r.api,
    require: r.require,
    hosts: r.hosts.map((h) => ({
      host: h.host,
      passed: h.passed,
      checks: Object.fromEntries(h.checks.map((c) => [c.name, { status: c.status, required: c.required, detail: c.detail }])),
      savedCheck: h.savedCheck,
      errors: h.errors.map((e) => ({ endpoint: e.endpoint, status: e.status, code: e.code, message: e.message })),
    })),
    passed: r.passed,
    exitCode: r.exitCode,
  };
  return JSON.stringify(doc, null, 2) + "\n";
}

const errorText = (e) => (e.status === 0 ? `${e.code}: ${e.message}` : `HTTP ${e.status} ${e.code}: ${e.message}`);
const requireText = (req) => (req.length === 0 ? "none" : req.join(", "));
const row = (a, b, c, d) => `  ${a.padEnd(14)}${b.padEnd(12)}${c.padEnd(10)}${d}\n`;

// toTable gives the human output: a table per host, then a total.
function toTable(r) {
  let s = "";
  let passed = 0;
  for (const h of r.hosts) {
    if (h.passed) passed++;
    const failing = h.checks.filter((c) => c.required && c.status !== "pass").map((c) => `${c.name} ${c.status}`);
    s += h.passed ? `${h.host}: passed\n` : `${h.host}: FAILED (${failing.join(", ")})\n`;
    s += row("check", "result", "required", "detail");
    for (const c of h.checks) s += row(c.name, c.status, c.required ? "yes" : "no", c.detail);
    const sc = h.savedCheck;
    if (sc) {
      const at = sc.checkedAt !== null ? clean(sc.checkedAt) : "time unknown";
      const note = sc.cached === true ? " (from the 24-hour cache)" : sc.cached === false ? " (a fresh check)" : "";
      s += `  saved check: ${at}${note}\n`;
    }
    for (const e of h.errors) s += `  error: ${e.endpoint}: ${errorText(e)}\n`;
    s += "\n";
  }
  s += `${passed} of ${r.hosts.length} hosts passed (required: ${requireText(r.require)}); exit ${r.exitCode}\n`;
  return s;
}

const md = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\|/g, "\\|");
const ICON = { pass: "✅", fail: "❌", unmeasured: "❔" };

// toMarkdown gives the --summary text: a table of hosts by checks, the
// reasons of what did not pass, and a blank line so appends stay apart.
function toMarkdown(r) {
  const passed = r.hosts.filter((h) => h.passed).length;
  let s = `### svc check: ${passed} of ${r.hosts.length} hosts passed\n\n`;
  s += `| host | result | ${CHECKS.join(" | ")} |\n`;
  s += `|---|---|${"---|".repeat(CHECKS.length)}\n`;
  for (const h of r.hosts) {
    const cells = [md(h.host), h.passed ? "✅ passed" : "❌ failed"];
    for (const c of h.checks) {
      const cell = `${ICON[c.status]} ${c.status}`;
      cells.push(c.required ? `**${cell}**` : cell);
    }
    s += `| ${cells.join(" | ")} |\n`;
  }
  s += `\nRequired checks (bold): ${requireText(r.require)}. An unmeasured required check counts as failed. API: ${md(r.api)}. Exit code ${r.exitCode}.\n`;
  const lines = [];
  for (const h of r.hosts) {
    for (const c of h.checks) {
      if (c.status === "pass") continue;
      lines.push(`- ${md(h.host)} ${c.name}${c.required ? " (required)" : ""}: ${c.status}: ${md(c.detail)}`);
    }
    for (const e of h.errors) lines.push(`- ${md(h.host)} error: ${e.endpoint}: ${md(errorText(e))}`);
  }
  if (lines.length > 0) s += `\n<details><summary>What did not pass</summary>\n\n${lines.join("\n")}\n\n</details>\n`;
  return s + "\n";
}

// main runs the checker and returns the exit code.
async function main(argv) {
  let opts, required, api, timeout, summaryFd = null;
  const targets = [];
  try {
    opts = parseArgs(argv);
    if (opts.help) {
      process.stdout.write(HELP);
      return 0;
    }
    if (opts.hosts.length === 0) throw new UsageError("give at least one HOST");
    required = parseRequire(opts.require);
    api = parseAPI(opts.api);
    timeout = parseTimeout(opts.timeout);
    const seen = new Set();
    for (const h of opts.hosts) {
      const t = parseHost(h);
      if (!seen.has(t.host)) {
        seen.add(t.host);
        targets.push(t);
      }
    }
    if (opts.summary !== "") {
      try {
        summaryFd = openSync(opts.summary, "a", 0o644);
      } catch (err) {
        throw new UsageError(`--summary: ${err.message}`);
      }
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`svc-check: ${err.message}\n\n${HELP}`);
      return EXIT_USAGE;
    }
    throw err;
  }

  const client = new Client(api, timeout, opts.timeout);
  const report = { version: VERSION, api, require: required, hosts: [], passed: true, exitCode: 0 };
  for (const t of targets) report.hosts.push(await client.checkHost(t, required));
  finish(report);

  process.stdout.write(opts.json ? toJSON(report) : toTable(report));
  if (summaryFd !== null) {
    try {
      writeSync(summaryFd, toMarkdown(report));
      closeSync(summaryFd);
    } catch (err) {
      process.stderr.write(`svc-check: --summary: ${err.message}\n`);
      return EXIT_USAGE;
    }
  }
  if (report.exitCode === EXIT_RATE_LIMITED) process.stderr.write(`svc-check: the API at ${api} rate limited a required check; try again later\n`);
  if (report.exitCode === EXIT_NETWORK) process.stderr.write(`svc-check: the API at ${api} could not answer a required check\n`);
  return report.exitCode;
}

// Always run (no import guard: a symlinked copy, as in node_modules/.bin,
// must never exit 0 without checking anything). An unexpected error is
// exit 2, never a pass.
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`svc-check: ${(err && err.stack) || err}\n`);
    process.exitCode = EXIT_NETWORK;
  },
);
