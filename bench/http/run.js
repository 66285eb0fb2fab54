'use strict';
// The benchmark runner behind `npm run bench`.
//   npm run bench                       one headline case per piece (<= 3 minutes on 2 cores)
//   npm run bench -- --all              every scenario and case, default effort (~10 minutes)
//   npm run bench -- --full             the publication run: every scenario, its own rounds
//   npm run bench -- --quick            short rounds of whatever is selected, indicative figures
//   npm run bench -- --smoke            one round of whatever is selected (CI: that it runs, not
//                                       its figures); results go to a temporary folder
//   npm run bench -- --list             the scenarios, what each answers, its headline case
//   npm run bench -- etag koa-static    just those (every case; add --headline for their headline cases)
//   npm run bench -- --runtime bun      servers and micro-benchmarks under Bun (or node22, node24,
//                                       node26; from scripts/runtimes.js's cache), results in
//                                       bench/results/<runtime>/; the load generator stays on node
//   npm run bench -- --compare old.json this run against an earlier latest.json
//                                       (add --with new.json to compare two files, running nothing)
// HTTP scenarios start every variant's server pinned to one CPU, then load each in turn
// (A/B interleaved, order rotated every round) from autocannon pinned to another CPU, and
// report medians over the rounds and the ratio to the scenario's baseline.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { describeMachine, describeSimd } = require('./lib/cpu');
const { startServer } = require('./lib/server');
const { runLoad } = require('./lib/autocannon');
const { formatTable, writeResults } = require('./lib/report');
const { cpuSeconds, settleCpu } = require('./lib/cpu-time');
const { median } = require('./lib/median');
const { httpTiming, picker } = require('./lib/modes');
const { summarize, writeSummary, compareRuns } = require('./lib/summary');
const { SkipScenario, gitCommit } = require('./lib/run-info');

const SCENARIO_DIR = path.join(__dirname, 'scenarios');
const { ENV: RUNTIME_ENV, hostName } = require('./lib/runtime');
const { estimateSeconds, formatClock } = require('./lib/progress');

// --results=<dir> writes elsewhere; a run under another runtime (--runtime) defaults to
// bench/results/<runtime>/, so it never overwrites the machine Node's results.
let RESULTS_DIR = path.join(__dirname, '..', 'results');

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
    const pids = servers.map((s) => s.pid);
    for (let round = 0; round < rounds; round++) {
      // Rotated every round, and run backwards every other round: rotation alone keeps the
      // cyclic order, so each variant would always follow the same one (and its garbage).
      const order = variants.map((_, k) => (k + round) % variants.length);
      if (round % 2 === 1) order.reverse();
      for (const i of order) {
        await settleCpu(pids, 3000); // the previous window's tail does not compete with this one
        const cpuBefore = cpuSeconds(servers[i].pid);
        const result = await runLoad(load(servers[i], seconds, variants[i]));
        await settleCpu([servers[i].pid], 3000); // this window's tail is charged to its requests
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
    const roundRatios = samples.map((runs) =>
      runs.map((r, round) => r.requestsPerSecond / samples[variants.indexOf(baseline)][round].requestsPerSecond),
    );
    const summary = samples.map((runs, i) => ({
      variant: variants[i].name,
      rps: median(runs.map((r) => r.requestsPerSecond)),
      cpu: runs.every((r) => r.cpuMicrosPerRequest !== undefined)
        ? median(runs.map((r) => r.cpuMicrosPerRequest))
        : null,
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      errors: runs.reduce((n, r) => n + r.errors, 0),
      non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
      expectNon2xx: Boolean(variants[i].expectNon2xx || testCase.expectNon2xx),
    }));
    const baseRps = summary[variants.indexOf(baseline)].rps;
    const refRps = reference ? summary[variants.indexOf(reference)].rps : null;
    const baseCpu = summary[variants.indexOf(baseline)].cpu;
    const withCpu = summary.every((s) => s.cpu !== null);
    // Against the reference, with the spread of the per-round ratios (each round pairs the two
    // windows under the same conditions) when there is more than one round.
    const cpuVs = (ref, s) => {
      const r = variants.indexOf(ref);
      const i = summary.indexOf(s);
      const ratios = samples[i].map((run, round) => samples[r][round].cpuMicrosPerRequest / run.cpuMicrosPerRequest);
      const ratio = `${(summary[r].cpu / s.cpu).toFixed(2)}x`;
      if (i === r || ratios.length < 2) return ratio;
      return `${ratio} (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`;
    };
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
        if (reference) row[`CPU vs ${reference.name}`] = cpuVs(reference, s);
      }
      return row;
    });
    const notes = [`${rounds} rounds of ${seconds} s per variant, interleaved; medians shown.`];
    if (withCpu) {
      notes.push(
        'server CPU us/req: user + system CPU of the server process per request (from /proc), from the start of its window until the server is idle again (its tail: requests in flight, closing sockets, collecting the garbage); the next window starts once every server is idle. CPU ratio: requests per CPU-second vs the baseline, robust to other load on the machine.',
      );
    }
    if (withCpu && reference && rounds > 1) {
      notes.push(
        `CPU vs ${reference.name}: the ratio of the medians, then (in brackets) the lowest and highest per-round ratio.`,
      );
    }
    if (testCase.notes) notes.push(...testCase.notes);
    return {
      title: testCase.name,
      columns,
      rows,
      notes,
      raw: summary,
      summary: httpHeadline(variants, baseline, summary, roundRatios),
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

// The case's summary row: ssr-native's variant (flagged `ours`, else named ssr-native...) against
// the baseline, by req/s, with CPU per request where measured, and the variants flagged `peer`.
function httpHeadline(variants, baseline, summary, roundRatios) {
  const b = variants.indexOf(baseline);
  const o =
    variants.findIndex((v) => v.ours) >= 0
      ? variants.findIndex((v) => v.ours)
      : variants.findIndex((v) => /ssr-native/i.test(v.name));
  if (o < 0 || o === b) return null;
  const spread = (ratios) =>
    ratios.length > 1 ? (Math.max(...ratios) - Math.min(...ratios)) / 2 / median(ratios) : null;
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
        quick: options.mode === 'quick' || options.mode === 'smoke',
        mode: options.mode,
        // the scenario's `headline` case name in a headline run (the default), else null: a
        // custom scenario then runs that case alone
        headline: options.headlineOnly ? scenario.headline : null,
        pick: picker(options.mode),
        log: (line) => log(`${scenario.name}${line.startsWith(' ') ? '' : ' '}${line}`),
        startServer,
        runLoad,
        machine,
        skip,
      };
      ({ tables } = await scenario.run(context));
    } else {
      const cases = (
        scenario.cases || [
          {
            name: scenario.name,
            request: scenario.request,
            variants: scenario.variants,
            reference: scenario.reference,
          },
        ]
      )
        .filter((c) => !c.fullOnly || options.mode === 'full') // cases flagged fullOnly: --full runs only
        .filter((c) => !options.headlineOnly || c.name === scenario.headline);
      if (!cases.length)
        throw new Error(`no case named ${JSON.stringify(scenario.headline)} (the scenario's headline)`);
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
  const options = { mode: 'default', names: [], list: false, compare: null, with: null, all: false, runtime: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick' || arg === '--full' || arg === '--smoke') options.mode = arg.slice(2);
    else if (arg === '--list') options.list = true;
    else if (arg === '--all') options.all = true;
    else if (arg === '--headline') options.headline = true;
    else if (arg === '--runtime' || arg.startsWith('--runtime=')) {
      options.runtime = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      if (!options.runtime) throw new Error('--runtime needs a name: bun, node20, node22, node24 or node26');
    } else if (arg.startsWith('--results='))
      continue; // read at load time (RESULTS_DIR)
    else if (arg === '--compare' || arg === '--with') {
      if (!argv[i + 1]) throw new Error(`${arg} needs a file (a bench/results/latest.json of an earlier run)`);
      options[arg.slice(2)] = path.resolve(argv[++i]);
    } else if (arg.startsWith('--'))
      throw new Error(
        `unknown option ${arg}; use --all, --headline, --smoke, --quick, --full, --list, --runtime <name>, --compare <old.json> [--with <new.json>]`,
      );
    else options.names.push(arg);
  }
  // The default run (no scenario named, neither --all nor --full): each scenario's headline case.
  // --headline: the headline cases of the named scenarios (or of all, as the default run).
  options.headlineOnly =
    Boolean(options.headline) || (!options.names.length && !options.all && options.mode !== 'full');
  options.quick = options.mode === 'quick' || options.mode === 'smoke'; // what writeResults and older scenarios read
  return options;
}

function readPrevious(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function printComparison(previousFile, current) {
  const previous = JSON.parse(fs.readFileSync(previousFile, 'utf8'));
  const { columns, rows } = compareRuns(previous, current);
  const on = (run) => `${run.machine.runtime} ${run.machine.runtimeVersion}`;
  console.log(
    `\nCompared with ${previousFile} (${previous.mode} run ${previous.date}, commit ${previous.commit}, ${on(previous)}; now: ${on(current)}):`,
  );
  console.log(formatTable(columns, rows));
  if (on(previous) !== on(current))
    console.log(
      '  each runtime against its own baseline; ssr-native <runtime>: its figure in the measure column under that runtime.',
    );
  else
    console.log(
      '  change: of the ratio to the baseline; flagged when it exceeds the noise both runs measured (10% where none was).',
    );
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  // Set before any scenario or server asks which runtime to use (lib/runtime.js).
  if (options.runtime) process.env[RUNTIME_ENV] = options.runtime;
  const resultsArg = process.argv.find((a) => a.startsWith('--results='));
  if (resultsArg) RESULTS_DIR = path.resolve(resultsArg.slice('--results='.length));
  // a smoke run's figures mean nothing: never over the results a real run left
  else if (options.mode === 'smoke') RESULTS_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-bench-smoke-'));
  else if (options.runtime && options.runtime !== hostName()) RESULTS_DIR = path.join(RESULTS_DIR, options.runtime);
  const all = loadScenarios();
  if (options.list) {
    for (const s of all)
      console.log(
        `${s.name.padEnd(26)} ${s.question || ''}${s.headline ? `\n${''.padEnd(26)} headline: ${s.headline}` : ''}`,
      );
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
  const headless = options.headline ? options.names.filter((n) => !all.find((s) => s.name === n).headline) : [];
  if (headless.length) {
    console.error(
      `--headline: ${headless.join(', ')} declare(s) no headline case; name them without --headline to run all their cases`,
    );
    process.exit(2);
  }
  const selected = options.names.length
    ? all.filter((s) => options.names.includes(s.name) && (!options.headlineOnly || s.headline))
    : options.headlineOnly
      ? all.filter((s) => s.headline)
      : all;
  const machine = describeMachine();
  const what = options.headlineOnly ? 'headline cases' : options.names.length ? 'named scenarios' : 'every scenario';
  console.log(
    `ssr-native benchmarks (${options.mode} run, ${what}: ${selected.length} scenario(s)) on ${machine.cpu} (${machine.cpus} CPUs), ` +
      `${machine.runtime} ${machine.runtimeVersion}${machine.runtimeName !== hostName() ? ` (load generator: Node ${machine.node})` : ''}; pinning: ${machine.pinning}; ${describeSimd(machine)}`,
  );
  if (options.headlineOnly)
    console.log('One headline case per piece; --all runs every scenario and case, --full the publication run.');
  const started = Date.now();
  const commit = gitCommit(path.join(__dirname, '..', '..'));
  const results = [];
  // Estimated time left: what each scenario took in this mode last time (the results folder's
  // latest.json), else what its cases' timing implies; refreshed as scenarios finish.
  const previous = readPrevious(path.join(RESULTS_DIR, 'latest.json'));
  const estimates = selected.map((s) => estimateSeconds(s, options, previous));
  for (const [index, scenario] of selected.entries()) {
    const scenarioStarted = Date.now();
    const progress = () => {
      const s = (Date.now() - started) / 1000;
      const inThis = Math.max(0, estimates[index] - (Date.now() - scenarioStarted) / 1000);
      const left = inThis + estimates.slice(index + 1).reduce((a, b) => a + b, 0);
      return `[${formatClock(s)} ${index + 1}/${selected.length}, ~${formatClock(left)} left]`;
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
      selection: options.headlineOnly ? 'headline' : options.names.length ? 'named' : 'all',
      ...extra,
      seconds: (Date.now() - started) / 1000,
      machine,
      scenarios,
      summary: summarize(scenarios),
    };
  }
  const run = runRecord(results);
  writeSummary(RESULTS_DIR, run);
  console.log(
    `\nDone in ${Math.round(run.seconds)} s. Results: ${path.relative(process.cwd(), RESULTS_DIR) || '.'}/latest.{json,md,svg} and <scenario>.{json,md,svg}`,
  );
  for (const r of results.filter((r) => r.status !== 'ok')) console.log(`  ${r.name}: ${r.status}: ${r.reason}`);
  if (options.compare) printComparison(options.compare, run);
  if (results.some((r) => r.status === 'failed')) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err && err.message && !err.stack.includes('/scenarios/') ? err.message : err);
  process.exit(err && err.message && err.message.startsWith('unknown option') ? 2 : 1);
});
