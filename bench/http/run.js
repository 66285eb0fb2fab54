'use strict';
// The benchmark runner behind `npm run bench`.
//   npm run bench                     every scenario in bench/http/scenarios
//   npm run bench -- express-etag     one (or several) by name
//   npm run bench -- --quick          short rounds, for a quick look
// HTTP scenarios start every variant's server pinned to one CPU, then load each in turn
// (A/B interleaved, order rotated every round) from autocannon pinned to another CPU, and
// report medians over the rounds and the ratio to the scenario's baseline.
const fs = require('fs');
const path = require('path');
const { describeMachine } = require('./lib/cpu');
const { startServer } = require('./lib/server');
const { runLoad } = require('./lib/autocannon');
const { formatTable, writeResults } = require('./lib/report');
const { cpuSeconds } = require('./lib/cpu-time');
const { median } = require('./lib/median');

const SCENARIO_DIR = path.join(__dirname, 'scenarios');
// --results=<dir> writes elsewhere, e.g. bench/results/node24 for a run under another Node.
const resultsArg = process.argv.find((a) => a.startsWith('--results='));
const RESULTS_DIR = resultsArg ? path.resolve(resultsArg.slice('--results='.length)) : path.join(__dirname, '..', 'results');

function loadScenarios() {
  return fs
    .readdirSync(SCENARIO_DIR)
    .filter((f) => f.endsWith('.js'))
    .map((f) => require(path.join(SCENARIO_DIR, f)))
    .sort((a, b) => (a.order ?? 100) - (b.order ?? 100) || a.name.localeCompare(b.name));
}

function timing(scenario, quick) {
  return quick
    ? { rounds: 2, seconds: 2, warmupSeconds: 1 }
    : { rounds: scenario.rounds ?? 8, seconds: scenario.seconds ?? 3, warmupSeconds: 2 };
}

// One case: a request and the variants that answer it; the first `baseline: true` variant
// (else the first) is what ratios are taken against.
async function runHttpCase(scenario, testCase, options, log) {
  const { rounds, seconds, warmupSeconds } = timing(scenario, options.quick);
  const variants = testCase.variants;
  const baseline = variants.find((v) => v.baseline) || variants[0];
  const reference = testCase.reference && variants.find((v) => v.name === testCase.reference);
  const load = (server, duration, variant) => ({
    url: server.url + ((variant.request || testCase.request || {}).path || '/'),
    method: (variant.request || testCase.request || {}).method || 'GET',
    headers: (variant.request || testCase.request || {}).headers || {},
    body: (variant.request || testCase.request || {}).body,
    connections: testCase.connections ?? scenario.connections ?? 50,
    pipelining: testCase.pipelining ?? scenario.pipelining ?? 1,
    duration,
  });

  const servers = [];
  try {
    for (const variant of variants) servers.push(await startServer(variant.script, variant.env));
    for (let i = 0; i < variants.length; i++) await runLoad(load(servers[i], warmupSeconds, variants[i]));

    const samples = variants.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < variants.length; k++) {
        const i = (k + round) % variants.length;
        const cpuBefore = cpuSeconds(servers[i].pid);
        const result = await runLoad(load(servers[i], seconds, variants[i]));
        const cpuAfter = cpuSeconds(servers[i].pid);
        if (cpuBefore !== null && cpuAfter !== null && result.total > 0) {
          result.cpuMicrosPerRequest = ((cpuAfter - cpuBefore) * 1e6) / result.total;
        }
        samples[i].push(result);
        log(`  round ${round + 1}/${rounds} ${variants[i].name}: ${Math.round(result.requestsPerSecond)} req/s`);
      }
    }

    const summary = samples.map((runs, i) => ({
      variant: variants[i].name,
      rps: median(runs.map((r) => r.requestsPerSecond)),
      cpu: runs.every((r) => r.cpuMicrosPerRequest !== undefined) ? median(runs.map((r) => r.cpuMicrosPerRequest)) : null,
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      errors: runs.reduce((n, r) => n + r.errors, 0),
      non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
      expectNon2xx: Boolean(variants[i].expectNon2xx || testCase.expectNon2xx),
    }));
    const baseRps = summary[variants.indexOf(baseline)].rps;
    const refRps = reference ? summary[variants.indexOf(reference)].rps : null;
    const baseCpu = summary[variants.indexOf(baseline)].cpu;
    const refCpu = reference ? summary[variants.indexOf(reference)].cpu : null;
    const withCpu = summary.every((s) => s.cpu !== null);
    const columns = ['variant', 'req/s', 'p50 ms', 'p99 ms', 'errors', `ratio vs ${baseline.name}`];
    if (reference) columns.push(`vs ${reference.name}`);
    if (withCpu) columns.push('server CPU us/req', 'CPU ratio');
    if (withCpu && reference) columns.push(`CPU vs ${reference.name}`);
    const rows = summary.map((s) => {
      const row = {
        variant: s.variant,
        'req/s': Math.round(s.rps).toLocaleString('en-US'),
        'p50 ms': s.p50.toFixed(1),
        'p99 ms': s.p99.toFixed(1),
        errors: String(s.errors + (s.expectNon2xx ? 0 : s.non2xx)),
        [`ratio vs ${baseline.name}`]: `${(s.rps / baseRps).toFixed(2)}x`,
      };
      if (reference) row[`vs ${reference.name}`] = `${(s.rps / refRps).toFixed(2)}x`;
      if (withCpu) {
        // Requests per CPU-second relative to the baseline: higher is better, like req/s.
        row['server CPU us/req'] = s.cpu.toFixed(1);
        row['CPU ratio'] = `${(baseCpu / s.cpu).toFixed(2)}x`;
        if (reference) row[`CPU vs ${reference.name}`] = `${(refCpu / s.cpu).toFixed(2)}x`;
      }
      return row;
    });
    const notes = [`${rounds} rounds of ${seconds} s per variant, interleaved; medians shown.`];
    if (withCpu) {
      notes.push('server CPU us/req: user + system CPU of the server process per request (from /proc); CPU ratio: requests per CPU-second vs the baseline, robust to other load on the machine.');
    }
    if (testCase.notes) notes.push(...testCase.notes);
    return { title: testCase.name, columns, rows, notes, raw: summary };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

async function runScenario(scenario, options, machine) {
  const log = (line) => process.stderr.write(line + '\n');
  log(`\n== ${scenario.name}: ${scenario.question || ''}`);
  let tables;
  if (typeof scenario.run === 'function') {
    ({ tables } = await scenario.run({ quick: options.quick, log, startServer, runLoad, machine }));
  } else {
    const cases = scenario.cases || [{ name: scenario.name, request: scenario.request, variants: scenario.variants, reference: scenario.reference }];
    tables = [];
    for (const testCase of cases) tables.push(await runHttpCase(scenario, testCase, options, log));
  }
  for (const table of tables) {
    console.log(`\n${scenario.name} / ${table.title}`);
    console.log(formatTable(table.columns, table.rows));
    for (const note of table.notes || []) console.log(`  ${note}`);
  }
  writeResults(RESULTS_DIR, scenario, machine, tables, options);
}

async function main() {
  const args = process.argv.slice(2);
  const options = { quick: args.includes('--quick') };
  const names = args.filter((a) => !a.startsWith('--'));
  const all = loadScenarios();
  const unknown = names.filter((n) => !all.some((s) => s.name === n));
  if (unknown.length) {
    console.error(`unknown scenario(s): ${unknown.join(', ')}; available: ${all.map((s) => s.name).join(', ')}`);
    process.exit(2);
  }
  const selected = names.length ? all.filter((s) => names.includes(s.name)) : all;
  const machine = describeMachine();
  console.log(`ssr-native benchmarks on ${machine.cpu} (${machine.cpus} CPUs), Node ${machine.node}; pinning: ${machine.pinning}`);
  for (const scenario of selected) await runScenario(scenario, options, machine);
  console.log(`\nResults written to ${path.relative(process.cwd(), RESULTS_DIR) || '.'}/<scenario>.{json,md,svg}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
