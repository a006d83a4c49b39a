// The ajv 8 side of BenchmarkValidateVsAjv (bench_ajv_test.go): validates
// the given profiles against the UCP business schema, the way
// ../shared/ucp/RULES.md section 3 establishes the examples' verdicts
// (draft 2020-12, strict false, ajv-formats), and prints one JSON line:
// the verdict of each file and the validations per second it managed.
//
// node bench.js <node_modules dir> <schema release dir> <entry point> <seconds> <allErrors 0|1> <file>...
//
// Compile is outside the timing (warm, as on the Go side). Each validation
// is JSON.parse of the file's bytes and the compiled validator, as a
// service that receives a profile does it; the timed loop takes the files
// in turn. cpu_seconds is process.cpuUsage() (user + system, every thread
// of the process: the JIT and GC threads count too).
'use strict';
const fs = require('fs');
const path = require('path');

const [modules, schemaDir, entry, secondsArg, allErrorsArg, ...files] = process.argv.slice(2);
const Ajv2020 = require(path.join(modules, 'ajv', 'dist', '2020')).default;
const addFormats = require(path.join(modules, 'ajv-formats')).default;

function schemaFiles(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...schemaFiles(p));
    else if (e.name.endsWith('.json')) out.push(p);
  }
  return out.sort();
}

const ajv = new Ajv2020({ strict: false, allErrors: allErrorsArg === '1' });
addFormats(ajv);
for (const f of schemaFiles(schemaDir)) ajv.addSchema(JSON.parse(fs.readFileSync(f, 'utf8')));
const validate = ajv.compile({ $ref: entry });

// Strings, as a server holds a request body it has read.
const docs = files.map((f) => fs.readFileSync(f, 'utf8'));
const verdicts = docs.map((d) => {
  let doc;
  try {
    doc = JSON.parse(d);
  } catch (e) {
    return { valid: null, error: 'not JSON' };
  }
  const ok = validate(doc);
  return { valid: ok, errors: ok ? 0 : validate.errors.length, first: ok ? null : validate.errors[0].instancePath + ' ' + validate.errors[0].message };
});

function run(n) {
  let valid = 0;
  for (let i = 0; i < n; i++) {
    const doc = JSON.parse(docs[i % docs.length]);
    if (validate(doc)) valid++;
  }
  return valid;
}

// Warm up until the JIT has settled, then time whole passes over the files.
const warmEnd = process.hrtime.bigint() + 500_000_000n;
while (process.hrtime.bigint() < warmEnd) run(docs.length * 10);

const seconds = Number(secondsArg);
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
let n = 0;
let sink = 0;
const budget = BigInt(Math.round(seconds * 1e9));
for (;;) {
  sink += run(docs.length * 20);
  n += docs.length * 20;
  if (process.hrtime.bigint() - t0 >= budget) break;
}
const wall = Number(process.hrtime.bigint() - t0) / 1e9;
const cpu = process.cpuUsage(cpu0);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
process.stdout.write(JSON.stringify({
  ajv: require(path.join(modules, 'ajv', 'package.json')).version,
  ajv_formats: require(path.join(modules, 'ajv-formats', 'package.json')).version,
  node: process.version,
  validations: n,
  valid_in_loop: sink,
  wall_seconds: wall,
  cpu_seconds: cpuSeconds,
  verdicts,
}) + '\n');
