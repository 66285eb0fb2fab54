'use strict';
// The benchmark runner behind `npm run bench`.
//   npm run bench                       every scenario, default effort (~10 minutes on 2 cores)
//   npm run bench -- --full             the publication run (each scenario's own rounds)
//   npm run bench -- --quick            a short smoke run of every scenario
//   npm run bench -- --list             the scenarios and what each answers
//   npm run bench -- etag koa-static    just those
//   npm run bench -- --compare old.json this run against an earlier latest.json
//                                       (add --with new.json to compare two files, running nothing)
// HTTP scenarios start every variant's server pinned to one CPU, then load each in turn
// (A/B interleaved, order rotated every round) from autocannon pinned to another CPU, and
// report medians over the rounds and the ratio to the scenario's baseline.
const fs = require('fs');
const path = require('path');
const { describeMachine, describeSimd } = require('./lib/cpu');
const { startServer } = require('./lib/server');
const { runLoad } = require('./lib/autocannon');
const { formatTable, writeResults } = require('./lib/report');
const { cpuSeconds } = require('./lib/cpu-time');
const { median } = require('./lib/median');
const { MODES, httpTiming, picker } = require('./lib/modes');
const { summarize, writeSummary, compareRuns } = require('./lib/summary');
const { SkipScenario, gitCommit } = require('./lib/run-info');

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

// One case: a request and the variants that answer it; the first `baseline: true` variant
// (else the first) is what ratios are taken against.
async function runHttpCase(scenario, testCase, options, log) {
  const { rounds, seconds, warmupSeconds } = httpTiming(options.mode, scenario, testCase);
  const variants = testCase.variants.filter((v) => !v.fullOnly || options.mode === 'full'); // fullOnly: --full runs only
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

    // Rounds are interleaved, so each round's ratio pairs variants under the same conditions:
    // their spread is the noise of the ratio.
    const roundRatios = samples.map((runs, i) =>
      runs.map((r, round) => r.requestsPerSecond / samples[variants.indexOf(baseline)][round].requestsPerSecond),
    );
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
    return { title: testCase.name, columns, rows, notes, raw: summary, summary: httpHeadline(variants, baseline, summary, roundRatios) };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

// The case's summary row: ssr-native's variant (flagged `ours`, else named ssr-native...) against
// the baseline, by req/s, with CPU per request where measured, and the variants flagged `peer`.
function httpHeadline(variants, baseline, summary, roundRatios) {
  const b = variants.indexOf(baseline);
  const o = variants.findIndex((v) => v.ours) >= 0 ? variants.findIndex((v) => v.ours) : variants.findIndex((v) => /ssr-native/i.test(v.name));
  if (o < 0 || o === b) return null;
  const spread = (ratios) => (ratios.length > 1 ? (Math.max(...ratios) - Math.min(...ratios)) / 2 / median(ratios) : null);
  const cpuRatio = (i) => (summary[i].cpu && summary[b].cpu ? summary[b].cpu / summary[i].cpu : null);
  return {
    measure: 'req/s',
    baseline: { name: baseline.name, value: summary[b].rps },
    ours: { name: variants[o].name, value: summary[o].rps },
    ratio: summary[o].rps / summary[b].rps,
    noise: spread(roundRatios[o]),
    cpuRatio: cpuRatio(o),
    peers: variants
      .map((v, i) => ({ v, i }))
      .filter(({ v, i }) => v.peer && i !== o && i !== b)
      .map(({ v, i }) => ({ name: v.name, value: summary[i].rps, ratio: summary[i].rps / summary[b].rps })),
  };
}

async function runScenario(scenario, options, machine, progress) {
  const started = Date.now();
  const log = (line) => process.stderr.write(`${progress()} ${line}\n`);
  log(`== ${scenario.name}: ${scenario.question || ''}`);
  const base = { name: scenario.name, question: scenario.question || '' };
  const skip = (reason) => {
    throw new SkipScenario(reason);
  };
  let tables;
  try {
    const reason = typeof scenario.skip === 'function' ? await scenario.skip() : null;
    if (reason) skip(reason);
    if (typeof scenario.run === 'function') {
      const context = {
        quick: options.mode === 'quick',
        mode: options.mode,
        pick: picker(options.mode),
        log: (line) => log(`${scenario.name}${line.startsWith(' ') ? '' : ' '}${line}`),
        startServer,
        runLoad,
        machine,
        skip,
      };
      ({ tables } = await scenario.run(context));
    } else {
      const cases = (scenario.cases || [{ name: scenario.name, request: scenario.request, variants: scenario.variants, reference: scenario.reference }])
        .filter((c) => !c.fullOnly || options.mode === 'full'); // cases flagged fullOnly: --full runs only
      tables = [];
      for (const testCase of cases) {
        log(`${scenario.name} / ${testCase.name}`);
        tables.push(await runHttpCase(scenario, testCase, options, (line) => log(`${scenario.name}${line}`)));
      }
    }
  } catch (err) {
    const seconds = (Date.now() - started) / 1000;
    if (err instanceof SkipScenario) {
      console.log(`\n${scenario.name}: skipped: ${err.message}`);
      return { ...base, status: 'skipped', reason: err.message, seconds };
    }
    console.log(`\n${scenario.name}: FAILED: ${err && err.stack ? err.stack : err}`);
    return { ...base, status: 'failed', reason: String((err && err.message) || err), seconds };
  }
  for (const table of tables) {
    console.log(`\n${scenario.name} / ${table.title}`);
    console.log(formatTable(table.columns, table.rows));
    for (const note of table.notes || []) console.log(`  ${note}`);
  }
  writeResults(RESULTS_DIR, scenario, machine, tables, options);
  const seconds = (Date.now() - started) / 1000;
  log(`${scenario.name} done in ${Math.round(seconds)} s`);
  return { ...base, status: 'ok', seconds, settings: scenarioSettings(scenario, options.mode), tables };
}

function scenarioSettings(scenario, mode) {
  if (typeof scenario.run === 'function') return { mode };
  return { mode, ...httpTiming(mode, scenario), connections: scenario.connections ?? 50 };
}

function parseArgs(argv) {
  const options = { mode: 'default', names: [], list: false, compare: null, with: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick' || arg === '--full') options.mode = arg.slice(2);
    else if (arg === '--list') options.list = true;
    else if (arg === '--compare' || arg === '--with') {
      if (!argv[i + 1]) throw new Error(`${arg} needs a file (a bench/results/latest.json of an earlier run)`);
      options[arg.slice(2)] = path.resolve(argv[++i]);
    } else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}; use --quick, --full, --list, --compare <old.json> [--with <new.json>]`);
    else options.names.push(arg);
  }
  options.quick = options.mode === 'quick'; // what writeResults and older scenarios read
  return options;
}

function printComparison(previousFile, current) {
  const previous = JSON.parse(fs.readFileSync(previousFile, 'utf8'));
  const { columns, rows } = compareRuns(previous, current);
  console.log(`\nCompared with ${previousFile} (${previous.mode} run ${previous.date}, commit ${previous.commit}):`);
  console.log(formatTable(columns, rows));
  console.log('  change: of the ratio to the baseline; flagged when it exceeds the noise both runs measured (10% where none was).');
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const all = loadScenarios();
  if (options.list) {
    for (const s of all) console.log(`${s.name.padEnd(18)} ${s.question || ''}`);
    return;
  }
  if (options.compare && options.with) {
    printComparison(options.compare, JSON.parse(fs.readFileSync(options.with, 'utf8')));
    return;
  }
  const unknown = options.names.filter((n) => !all.some((s) => s.name === n));
  if (unknown.length) {
    console.error(`unknown scenario(s): ${unknown.join(', ')}; available: ${all.map((s) => s.name).join(', ')}`);
    process.exit(2);
  }
  const selected = options.names.length ? all.filter((s) => options.names.includes(s.name)) : all;
  const machine = describeMachine();
  console.log(
    `ssr-native benchmarks (${options.mode} run, ${selected.length} scenario(s)) on ${machine.cpu} (${machine.cpus} CPUs), ` +
      `${machine.runtime} ${machine.runtimeVersion}; pinning: ${machine.pinning}; ${describeSimd(machine)}`,
  );
  const started = Date.now();
  const commit = gitCommit(path.join(__dirname, '..', '..'));
  const results = [];
  for (const [index, scenario] of selected.entries()) {
    const progress = () => {
      const s = Math.round((Date.now() - started) / 1000);
      return `[${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')} ${index + 1}/${selected.length}]`;
    };
    results.push(await runScenario(scenario, options, machine, progress));
    // Rewritten after every scenario, so an interrupted run still leaves what it measured.
    if (index < selected.length - 1) writeSummary(RESULTS_DIR, runRecord(results, { partial: true }));
  }
  function runRecord(scenarios, extra = {}) {
    return {
      date: new Date().toISOString(),
      commit,
      mode: options.mode,
      ...extra,
      seconds: (Date.now() - started) / 1000,
      machine,
      scenarios,
      summary: summarize(scenarios),
    };
  }
  const run = runRecord(results);
  writeSummary(RESULTS_DIR, run);
  console.log(`\nDone in ${Math.round(run.seconds)} s. Results: ${path.relative(process.cwd(), RESULTS_DIR) || '.'}/latest.{json,md,svg} and <scenario>.{json,md,svg}`);
  for (const r of results.filter((r) => r.status !== 'ok')) console.log(`  ${r.name}: ${r.status}: ${r.reason}`);
  if (options.compare) printComparison(options.compare, run);
  if (results.some((r) => r.status === 'failed')) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err && err.message && !err.stack.includes('/scenarios/') ? err.message : err);
  process.exit(err && err.message && err.message.startsWith('unknown option') ? 2 : 1);
});
