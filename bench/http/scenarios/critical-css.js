'use strict';
// What does critical-CSS inlining cost per page: ssr-native's engine against beasties as Angular
// runs it (a new Beasties with Angular's options per page: CommonEngine 17-22, AppEngine 17-21 on
// every miss) and beasties/runtime (0.5.4: the stylesheet compiled once, one scan a page; what
// Angular 22.2's AppEngine uses), on a ~50 KB Bootstrap page with Bootstrap 5 + Angular
// Material's azure-blue theme as the stylesheet, distinct pages. Each candidate runs in its own
// process pinned to one CPU, the order rotated every round (interleaved, same run).
//
// Then the same question on the Angular 21 fixture (test/fixtures/angular-app, built: skipped
// otherwise), its per-user Bootstrap page /orders/:user rendered at a distinct URL every request
// (autocannon's [<id>]): server CPU per request of CommonEngine with Angular's default inlining,
// with inlining off, and off + ssr-native's criticalCss in front (nothing else of ssr-native), and
// the AppEngine server off (the build's setting) and off + criticalCss.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const fixture = require('../../../scripts/angular-fixture');
const { cpuSeconds, settleCpu } = require('../lib/cpu-time');
const { LOAD_CPU, pinnedCommand } = require('../lib/cpu');
const { median } = require('../lib/median');
const { serverRuntime } = require('../lib/runtime');
const { headlineFromSamples } = require('../lib/headline');

const CANDIDATES = ['beasties', 'beasties-runtime', 'ssr-native'];
const LABELS = {
  beasties: 'beasties 0.5.4 classic, new Beasties per page (Angular 17-21)',
  'beasties-runtime': 'beasties/runtime 0.5.4, compiled once (Angular 22.2 AppEngine)',
  'ssr-native': 'ssr-native/critical-css',
};
const TITLE = 'The critical-CSS step alone: a ~50 KB Bootstrap page, Bootstrap 5 + Material azure-blue (~288 KB CSS)';
const ROWS = 210; // table rows: a 51 KB page

const ANGULAR_SCRIPT = path.join(__dirname, '..', 'servers', 'angular.js');
const ANGULAR_TITLE =
  'The Angular 21 fixture: a per-user Bootstrap page (/orders/:user, 50 rows), a distinct URL per request';
const ANGULAR_VARIANTS = [
  ['stock-common-engine', "CommonEngine, Angular's default inlining (beasties per render)"],
  ['stock-common-engine-no-inline', 'CommonEngine, inlining off'],
  ['stock-common-engine-critical-css', 'CommonEngine, inlining off + ssr-native criticalCss'],
  ['stock-app-engine', 'AppEngine, inlining off (angular.json)'],
  ['stock-app-engine-critical-css', 'AppEngine, inlining off + ssr-native criticalCss'],
];
const CONNECTIONS = 4; // renders take milliseconds: few connections keep latency sane

// Why the fixture case cannot run, or null.
function fixtureMissing() {
  if (!fixture.isBuilt()) return 'test/fixtures/angular-app is not built (npm run test:angular builds it)';
  const dir = path.dirname(fixture.SERVER_BUNDLE);
  const hasOrders = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.mjs'))
    .some((f) => fs.readFileSync(path.join(dir, f), 'utf8').includes('orders/:user'));
  return hasOrders ? null : 'the built fixture predates its /orders/:user page (npm run test:angular rebuilds it)';
}

async function angularCase({ pick, log, startServer, runLoad }) {
  // Even the quick run takes 3 rounds: the AppEngine ratio is a few percent, and one round of one
  // second on a 2-CPU machine moves it by more than that.
  const rounds = pick.rounds(3, 3, 6);
  const seconds = pick(1, 2, 4);
  const servers = {};
  try {
    for (const [name] of ANGULAR_VARIANTS)
      servers[name] = await startServer(ANGULAR_SCRIPT, { ANGULAR_SERVER: name }, { timeoutMs: 60000 });
    const load = (server, duration) =>
      runLoad({ url: `${server.url}/orders/u[<id>]`, idReplacement: true, connections: CONNECTIONS, duration });
    for (const server of Object.values(servers)) await load(server, pick(1, 2, 3)); // warm-up: JIT, plans
    const samples = Object.fromEntries(ANGULAR_VARIANTS.map(([name]) => [name, []]));
    for (let round = 0; round < rounds; round++) {
      const order = ANGULAR_VARIANTS.map((_, i) => ANGULAR_VARIANTS[(i + round) % ANGULAR_VARIANTS.length][0]);
      if (round % 2 === 1) order.reverse();
      for (const name of order) {
        const server = servers[name];
        // every server quiet first: the stock server's queued renders (130 ms each) would
        // otherwise run on the server CPU inside the next variant's window
        await settleCpu(Object.values(servers).map((s) => s.pid));
        const before = cpuSeconds(server.pid);
        const r = await load(server, seconds);
        const after = cpuSeconds(server.pid);
        samples[name].push({
          cpuMs: ((after - before) * 1000) / Math.max(1, r.total),
          rps: r.requestsPerSecond,
          errors: r.errors + r.non2xx,
        });
      }
      log(`  critical-css fixture round ${round + 1}/${rounds}`);
    }
    const cpu = (name) => median(samples[name].map((x) => x.cpuMs));
    const angularDefault = cpu('stock-common-engine');
    const reference = (name) =>
      name.startsWith('stock-app-engine') ? 'stock-app-engine' : 'stock-common-engine-no-inline';
    // The ratio of each round's pair (measured minutes apart at most), then the median: a slow
    // stretch of the machine moves both sides of a pair, not one side of a ratio of medians.
    const ratiosToOff = (name) => samples[name].map((x, round) => x.cpuMs / samples[reference(name)][round].cpuMs);
    const ratioToOff = (name) => {
      const ratios = ratiosToOff(name);
      const range = ratios.length > 1 ? ` (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})` : '';
      return `${median(ratios).toFixed(3)}x${range}`;
    };
    return {
      title: ANGULAR_TITLE,
      columns: [
        'variant',
        'server CPU ms/req',
        'req/s',
        'errors',
        "requests per CPU-second vs Angular's default",
        'CPU vs inlining off',
      ],
      rows: ANGULAR_VARIANTS.map(([name, label]) => ({
        variant: label,
        'server CPU ms/req': cpu(name).toFixed(2),
        'req/s': median(samples[name].map((x) => x.rps)).toFixed(1),
        errors: samples[name].reduce((a, x) => a + x.errors, 0),
        "requests per CPU-second vs Angular's default": `${(angularDefault / cpu(name)).toFixed(2)}x`,
        'CPU vs inlining off': ratioToOff(name),
      })),
      notes: [
        `${rounds} interleaved rounds of ${seconds} s per variant (order rotated, reversed every other round), ${CONNECTIONS} connections; server on CPU 0, load generator on CPU 1; medians ('CPU vs inlining off': the median of the rounds' ratios, their range in brackets). Each request renders /orders/u<uuid>: no cache (Angular's LRU, our memo) can answer it.`,
        "Targets: each criticalCss row within 1.10x of its server with inlining off ('CPU vs inlining off'), and >= 8x the requests per CPU-second of Angular's default.",
        'CommonEngine is the only server of this build that inlines at run time (render() option); the AppEngine rows compare off and off + criticalCss.',
      ],
    };
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
  }
}

module.exports = {
  name: 'critical-css',
  order: 40,
  headline: TITLE,
  question:
    'CPU ms per page of critical-CSS inlining: ssr-native against beasties as Angular 17-21 runs it and beasties/runtime (Angular 22.2), same run; target <= 0.3 ms.',
  async run({ pick, log, headline, startServer, runLoad }) {
    const rounds = pick.rounds(2, 3, 7);
    // pages per process: each candidate runs about the same CPU time per round
    const pages = {
      beasties: pick(3, 8, 20),
      'beasties-runtime': pick(30, 100, 300),
      'ssr-native': pick(300, 1000, 3000),
    };
    const samples = Object.fromEntries(CANDIDATES.map((name) => [name, []]));
    let sizes;
    for (let round = 0; round < rounds; round++) {
      const order = CANDIDATES.map((_, i) => CANDIDATES[(i + round) % CANDIDATES.length]);
      if (round % 2 === 1) order.reverse();
      for (const candidate of order) {
        const [cmd, args] = pinnedCommand(LOAD_CPU, serverRuntime().bin, [
          path.join(__dirname, '..', 'micro', 'critical-css-pages.js'),
          candidate,
          String(pages[candidate]),
          String(ROWS),
        ]);
        const out = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
        if (out.status !== 0) throw new Error(`${candidate}: ${out.stderr}`);
        const result = JSON.parse(out.stdout);
        samples[candidate].push(result.ms);
        sizes = sizes || {};
        sizes[candidate] = result;
      }
      log(`  critical-css round ${round + 1}/${rounds}`);
    }
    const base = median(samples.beasties);
    const runtime = median(samples['beasties-runtime']);
    const page = sizes['ssr-native'];
    const tables = [
      {
        title: TITLE,
        columns: ['implementation', 'ms/page', 'ratio vs beasties classic', 'ratio vs beasties/runtime', 'inlined CSS'],
        rows: CANDIDATES.map((name) => {
          const ms = median(samples[name]);
          return {
            implementation: LABELS[name],
            'ms/page': ms < 1 ? ms.toFixed(3) : ms.toFixed(1),
            'ratio vs beasties classic': `${(base / ms).toFixed(1)}x`,
            'ratio vs beasties/runtime': `${(runtime / ms).toFixed(2)}x`,
            'inlined CSS': `${(sizes[name].inlinedBytes / 1024).toFixed(1)} KB`,
          };
        }),
        notes: [
          `Page ${(page.pageBytes / 1024).toFixed(1)} KB (${ROWS} table rows, a distinct user per page), stylesheet ${(page.cssBytes / 1024).toFixed(0)} KB (bootstrap.css 5.3.8 + azure-blue.css of @angular/material).`,
          `CPU time per page; median of ${rounds} rounds, each candidate in a fresh process pinned to one CPU, order rotated and reversed every other round. Stylesheet compilation (once per file) is not timed for beasties/runtime and ssr-native; beasties classic parses it on every page, as Angular does. beasties/runtime keeps its default result cache (keyed by the page's token set), as Angular 22.2 runs it. Target: ssr-native <= 0.3 ms.`,
        ],
        summary: headlineFromSamples({
          measure: 'ms/page',
          higherIsBetter: false,
          samples: Object.fromEntries(Object.entries(samples).map(([name, v]) => [LABELS[name], v])),
          baseline: LABELS.beasties,
          ours: LABELS['ssr-native'],
          peers: [LABELS['beasties-runtime']],
        }),
      },
    ];
    if (!headline) {
      const missing = fixtureMissing();
      if (missing) log(`  critical-css: fixture case skipped: ${missing}`);
      else tables.push(await angularCase({ pick, log, startServer, runLoad }));
    }
    return { tables };
  },
};
