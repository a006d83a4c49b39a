// Tests of svc-check.mjs with node's own test runner:
//
//   node --test cmd/svc-check/
//
// Every exit code and flag is run against a canned API served from this
// file. With SVC_CHECK_TEST_API (the real API over the fixture world) and
// SVC_CHECK_TEST_EXPECT ({host: {check: status}}, from the world's known
// answers) the script is also run against the real API; the Go test
// TestCheckNodeTestRunner sets both, and that is how `make test` runs this
// file.

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer as createNetServer } from "node:net";

const SCRIPT = fileURLToPath(new URL("./svc-check.mjs", import.meta.url));
const CHECKS = ["ucp", "webmcp", "catalog", "checkout", "mcp", "robots", "product-data", "policies"];

// run runs the script and resolves to its exit code and output.
function run(args, env = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { env: { ...process.env, SVC_API: "", ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? err.code : 0, stdout, stderr });
    });
  });
}

const VALID = (h) => ({
  valid: true, declaredVersion: "2026-08-25", counts: { errors: 0, warnings: 0, info: 0 }, errors: [],
  source: { type: "url", profileUrl: `https://${h}/.well-known/ucp`, status: 200 }, profile: {}, schema: { checked: true, valid: true },
});
const MISSING = (h) => ({
  valid: false, declaredVersion: null, counts: { errors: 1, warnings: 0, info: 0 }, errors: [],
  source: { type: "url", profileUrl: `https://${h}/.well-known/ucp`, status: 404 }, profile: null, schema: { checked: false, valid: null },
});
const GOOD = (h) => ({
  host: h, catalogAnswered: true, productFound: true, cartLink: true, webmcp: true, webmcpDetail: { tools: [] },
  storefrontMcp: { detected: true, tools: ["search_catalog"] },
  robots: { status: "ok", agents: { "ChatGPT-User": { verdict: "allowed", purpose: "user" }, GPTBot: { verdict: "disallowed", purpose: "training" } } },
  productData: { source: "jsonld", name: "Mug", price: "1", currency: "EUR", availability: "InStock", gtin: "1", sku: null, image: "x", complete: true },
  policies: { returns: true, shipping: true, privacy: true, terms: true },
  blockStatus: { blocked: false }, reachability: { reachable: true }, catalog: { source: "products_json" },
  checkedAt: "2026-11-20T10:00:00Z", cached: true, resultUrl: `/stores/${h}/`,
});
const NOWEBMCP = (h) => ({ ...GOOD(h), webmcp: false, cartLink: null, catalogAnswered: false });
const UNREACHABLE = (h) => ({ host: h, webmcp: null, reachability: { reachable: false, httpStatus: 500 } });

// canned starts the canned API; the host's first label picks the answer.
async function canned() {
  const requests = [];
  const server = createServer((req, res) => {
    const u = new URL(req.url, "http://x");
    const target = u.searchParams.get("url") || "";
    requests.push({ path: u.pathname, target, ua: req.headers["user-agent"] });
    const host = target.replace(/^https?:\/\//, "").replace(/\/$/, "");
    const name = host.split(".")[0];
    const validate = u.pathname === "/api/ucp/validate";
    const send = (status, body) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(typeof body === "string" ? body : JSON.stringify(body));
    };
    if (!validate && u.pathname !== "/api/agent-checkout") return send(404, { error: { code: "not_found", message: "no such endpoint" } });
    switch (name) {
      case "nowebmcp":
        return send(200, validate ? VALID(host) : NOWEBMCP(host));
      case "missing":
        return send(200, validate ? MISSING(host) : GOOD(host));
      case "unreachable":
        return send(200, validate ? { ...MISSING(host), source: { type: "url", fetchError: "timeout" } } : UNREACHABLE(host));
      case "limited":
        if (validate) return send(200, VALID(host));
        res.setHeader("Retry-After", "10");
        return send(429, { error: { code: "check_in_progress", message: `a check of ${host} is already running` } });
      case "down":
        return send(503, { error: { code: "unavailable", message: "check temporarily unavailable" } });
      case "html":
        res.writeHead(200, { "Content-Type": "text/html" });
        return res.end("<html></html>");
      case "refused":
        return send(400, { error: { code: "invalid_request", message: "invalid or unsafe store URL: private address" } });
      case "slow": {
        const t = setTimeout(() => send(200, {}), 10_000);
        res.on("close", () => clearTimeout(t));
        return;
      }
      default:
        return send(200, validate ? VALID(host) : GOOD(host));
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, requests, close: () => new Promise((r) => server.close(r)) };
}

// closedURL is an http URL nothing listens on.
async function closedURL() {
  const s = createNetServer();
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${s.address().port}`;
  await new Promise((r) => s.close(r));
  return url;
}

describe("svc-check against a canned API", () => {
  let api;
  before(async () => {
    api = await canned();
  });
  after(() => api.close());

  const exits = [
    ["0: every required check passed", ["good.test"], 0, "good.test: passed"],
    ["1: a required check failed", ["nowebmcp.test"], 1, "nowebmcp.test: FAILED (webmcp fail)"],
    ["1: a required check is unmeasured", ["unreachable.test"], 1, "the store could not be reached (HTTP 500)"],
    ["1: the API refused the host", ["refused.test"], 1, "not checked: the API refused the host: invalid or unsafe store URL: private address"],
    ["2: the API answered 503", ["down.test"], 2, "error: /api/ucp/validate: HTTP 503 unavailable: check temporarily unavailable"],
    ["2: the answer is not JSON", ["html.test"], 2, "bad_answer: the API's answer is not JSON"],
    ["2: timeout", ["--timeout", "0.3", "slow.test"], 2, "not checked: the API did not answer within 0.3 s"],
    ["3: the API answered 429", ["limited.test"], 3, "HTTP 429 check_in_progress: a check of limited.test is already running"],
    ["3 beats 2 and 1", ["nowebmcp.test", "down.test", "limited.test"], 3, "0 of 3 hosts passed"],
    ["2 beats 1", ["nowebmcp.test", "down.test"], 2, "0 of 2 hosts passed"],
    ["a failing check that is not required", ["--require", "ucp,mcp", "nowebmcp.test"], 0, "(required: ucp, mcp); exit 0"],
    ["a 429 on a check that is not required", ["--require", "ucp", "limited.test"], 0, "limited.test: passed"],
    ["--require all", ["--require", "all", "good.test", "missing.test"], 1, "missing.test: FAILED (ucp fail)"],
    ["--require=all", ["--require=all", "good.test"], 0, "required: ucp, webmcp, catalog, checkout, mcp, robots, product-data, policies"],
    ["--require none", ["--require", "none", "nowebmcp.test", "down.test"], 0, "(required: none); exit 0"],
    ["--json=false", ["--json=false", "good.test"], 0, "good.test: passed"],
  ];
  for (const [name, args, code, out] of exits) {
    test(name, async () => {
      const r = await run([...args, "--api", api.url]);
      assert.equal(r.code, code, r.stderr);
      assert.ok(r.stdout.includes(out), `stdout lacks ${JSON.stringify(out)}:\n${r.stdout}`);
      if (code >= 2) assert.match(r.stderr, /svc-check: .*: GET \/api\//);
    });
  }

  test("2: the API cannot be reached; later requests are not attempted", async () => {
    const r = await run(["good.test", "other.test", "--api", await closedURL()]);
    assert.equal(r.code, 2);
    assert.equal(r.stderr.match(/could not connect to the API/g).length, 1, r.stderr);
    assert.equal(r.stdout.match(/error: \/api\/(ucp\/validate|agent-checkout): unreachable: could not connect to the API/g).length, 4, r.stdout);
  });

  test("--json prints one document in the documented shape", async () => {
    const r = await run(["--json", "--require", "ucp,checkout", "good.test", "nowebmcp.test", "--api", api.url]);
    assert.equal(r.code, 1);
    const doc = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(doc), ["version", "api", "require", "hosts", "passed", "exitCode"]);
    assert.equal(doc.version, "svc-check/1");
    assert.equal(doc.api, api.url);
    assert.deepEqual(doc.require, ["ucp", "checkout"]);
    assert.equal(doc.passed, false);
    assert.equal(doc.exitCode, 1);
    const [good, bad] = doc.hosts;
    assert.deepEqual(Object.keys(good), ["host", "passed", "checks", "savedCheck", "errors"]);
    assert.deepEqual(Object.keys(good.checks), CHECKS);
    assert.deepEqual(good.checks.checkout, { status: "pass", required: true, detail: "the cart returned a checkout link (a boolean; the URL is never kept)" });
    assert.deepEqual(good.savedCheck, { checkedAt: "2026-11-20T10:00:00Z", cached: true, resultUrl: "/stores/good.test/" });
    assert.deepEqual(good.errors, []);
    assert.equal(bad.passed, false);
    assert.deepEqual(bad.checks.checkout, { status: "unmeasured", required: true, detail: "no product could be added to a cart" });
    assert.deepEqual(bad.checks.webmcp, { status: "fail", required: false, detail: "no WebMCP in the server HTML" });
    assert.equal(bad.checks.catalog.status, "fail");
  });

  test("--summary appends Markdown", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-check-"));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "summary.md");
    const args = ["--summary", file, "good.test", "nowebmcp.test", "--api", api.url];
    assert.equal((await run(args)).code, 1);
    const once = readFileSync(file, "utf8");
    assert.ok(once.startsWith("### svc check: 1 of 2 hosts passed\n\n| host | result | ucp | webmcp |"), once);
    assert.ok(once.includes("| nowebmcp.test | ❌ failed | **✅ pass** | **❌ fail** | ❌ fail |"), once);
    assert.ok(once.includes("- nowebmcp.test webmcp (required): fail: no WebMCP in the server HTML"), once);
    await run(args);
    assert.equal(readFileSync(file, "utf8"), once + once);
  });

  test("SVC_API is the default --api; --api wins", async () => {
    assert.equal((await run(["good.test"], { SVC_API: api.url })).code, 0);
    assert.equal((await run(["good.test", "--api", api.url], { SVC_API: "http://127.0.0.1:1" })).code, 0);
  });

  test("hosts are reduced to scheme and host and deduplicated", async () => {
    const before = api.requests.length;
    const r = await run(["https://GOOD.test/p/mug?x=1", "good.test.", "http://other.test:8443/x", "--api", api.url + "/"]);
    assert.equal(r.code, 0, r.stderr);
    const reqs = api.requests.slice(before);
    assert.deepEqual(reqs.map((q) => `${q.path} ${q.target}`), [
      "/api/ucp/validate https://good.test/",
      "/api/agent-checkout https://good.test/",
      "/api/ucp/validate http://other.test:8443/",
      "/api/agent-checkout http://other.test:8443/",
    ]);
    assert.ok(reqs.every((q) => q.ua === "svc-check/1"));
  });

  test("--help", async () => {
    const r = await run(["--help"]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^Usage: svc-check HOST\.\.\./);
  });

  const usage = [
    ["unknown check", ["--require", "ucp,nope", "good.test"], /unknown check "nope"/],
    ["all with a name", ["--require", "all,ucp", "good.test"], /all stands alone/],
    ["empty --require", ["--require", "", "good.test"], /empty check name/],
    ["no host", [], /give at least one HOST/],
    ["bad host", ["ftp://good.test/"], /only http and https/],
    ["host with a password", ["user:pw@good.test"], /user name or password/],
    ["bad --api", ["--api", "ftp://x/", "good.test"], /--api "ftp:\/\/x\/"/],
    ["--timeout 0", ["--timeout", "0", "good.test"], /--timeout "0"/],
    ["--timeout not a number", ["--timeout", "soon", "good.test"], /--timeout "soon"/],
    ["unknown flag", ["--nope", "good.test"], /unknown flag: --nope/],
    ["flag without value", ["good.test", "--summary"], /flag needs an argument: --summary/],
    ["unwritable --summary", ["--summary", tmpdir(), "good.test"], /--summary: /],
  ];
  for (const [name, args, msg] of usage) {
    test(`64: ${name}`, async () => {
      const before = api.requests.length;
      const r = await run(args.includes("--api") ? args : ["--api", api.url, ...args]);
      assert.equal(r.code, 64, r.stderr);
      assert.match(r.stderr, msg);
      assert.match(r.stderr, /Usage: svc-check/);
      assert.equal(r.stdout, "");
      assert.equal(api.requests.length, before, "a usage error made API requests");
    });
  }
});

describe("svc-check against the real API over the fixture world", () => {
  const apiURL = process.env.SVC_CHECK_TEST_API;
  const expect = process.env.SVC_CHECK_TEST_EXPECT ? JSON.parse(process.env.SVC_CHECK_TEST_EXPECT) : null;
  const skip = !apiURL || !expect ? "set SVC_CHECK_TEST_API and SVC_CHECK_TEST_EXPECT (the Go test TestCheckNodeTestRunner does)" : false;

  test("every check says what the store's known answers say", { skip }, async () => {
    const hosts = Object.keys(expect);
    const r = await run(["--json", "--require", "all", "--api", apiURL, ...hosts]);
    assert.equal(r.code, 1, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.deepEqual(doc.hosts.map((h) => h.host), hosts);
    for (const h of doc.hosts) {
      const got = {};
      for (const [n, c] of Object.entries(h.checks)) if (n in expect[h.host]) got[n] = c.status;
      assert.deepEqual(got, expect[h.host], h.host);
      assert.deepEqual(h.errors, [], h.host);
      assert.equal(typeof h.savedCheck.checkedAt, "string");
    }
  });

  test("--require none exits 0 and the saved checks are reused", { skip }, async () => {
    const host = Object.keys(expect)[0];
    const r = await run(["--json", "--require", "none", "--api", apiURL, host]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).hosts[0].savedCheck.cached, true);
  });
});
