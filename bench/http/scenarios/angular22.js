'use strict';
// Angular 22 on Node 24, the reference: the Angular 22 fixture (test/fixtures/angular22-app, an
// `ng new --ssr` app, AngularNodeAppEngine) with the README's server.ts, against the same app
// built with `ng new`'s stock server.ts and Angular's own critical CSS (inlineCritical on:
// beasties/runtime over the build's plans, each request). Server CPU per request (the server
// pinned to one CPU, the load generator to another), A/B interleaved, medians of the rounds:
//   - a cache hit: GET /products/7 (its route declares a shared Cache-Control): stock renders it
//     every time, ssr-native's responseCache answers from memory after the first render;
//   - an uncacheable page: GET /orders/<user> (rendered per user): both render; the stock server
//     with its critical CSS turned off gives that step's share of the request;
//   - the bytes a browser receives for those pages (stock sends them uncompressed; the README's
//     server br, and dcz once its dictionary is learned).
// Both builds are made here when missing (Node 24 fetched by scripts/runtimes.js, npm ci, two ng
// builds: minutes); when that fails the scenario is skipped, saying how to build.
const { execFileSync } = require('child_process');
const crypto = require('crypto');
const http = require('http');
const path = require('path');
const { angular22: app } = require('../../../scripts/angular-fixture');
const { cpuSeconds, settleCpu } = require('../lib/cpu-time');
const { median } = require('../lib/median');
const { serverRuntime } = require('../lib/runtime');

const SCRIPT = path.join(__dirname, '..', 'servers', 'angular22.js');
// The Host the README's server.ts and angular.json allow (Angular 22 answers 400 to others).
const HOST = 'shop.example';
const BROWSER_ACCEPT = 'gzip, deflate, br, zstd';
const DCZ_ACCEPT = 'gzip, deflate, br, zstd, dcb, dcz';
const CONNECTIONS = 4; // a render takes milliseconds of CPU: few connections keep latency sane
const HIT = '/products/7';
const UNCACHEABLE = '/orders/ada';
// shareable pages the README server's compression samples before it offers a dictionary (>= 32)
const DICTIONARY_PAGES = 40;

// The Node the servers run on: the measured runtime when it is Node 24 or newer (--runtime
// node26, or a runner on Node 24), else Node 24 from scripts/runtimes.js's cache.
function nodeBin() {
  const rt = serverRuntime();
  if (rt.kind === 'node' && Number(rt.version.replace(/^v/, '').split('.')[0]) >= 24) return rt.bin;
  return app.nodeBin();
}

let whyNot;
function prepare() {
  if (whyNot !== undefined) return whyNot;
  whyNot = null;
  try {
    if (!app.isInstalled()) app.install();
    if (!app.isBuilt()) app.build();
    if (!app.isStockBuilt()) app.buildStock();
  } catch (err) {
    whyNot =
      `could not build test/fixtures/angular22-app (${String(err.message).split('\n')[0]}); ` +
      'build it with `node scripts/test-angular22.js` and, for the stock server, `npx ng build --configuration production,stock` there (Node 24)';
  }
  return whyNot;
}

function get(server, urlPath, headers = {}) {
  return new Promise((resolve, reject) => {
    http
      .get(
        { host: '127.0.0.1', port: server.port, path: urlPath, agent: false, headers: { host: HOST, ...headers } },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        },
      )
      .on('error', reject);
  });
}

// One load window of `amount` requests against `server` (a count, not a duration: a render takes
// milliseconds, and a window cut by time would abort renders in flight): requests/s and server
// CPU per request (its window and tail).
async function window(runLoad, server, urlPath, amount) {
  await settleCpu([server.pid], 3000);
  const before = cpuSeconds(server.pid);
  const r = await runLoad({
    url: server.url + urlPath,
    headers: { host: HOST, 'accept-encoding': BROWSER_ACCEPT },
    connections: CONNECTIONS,
    amount,
  });
  await settleCpu([server.pid], 3000);
  const cpu = ((cpuSeconds(server.pid) - before) * 1e6) / Math.max(1, r.total);
  return { rps: r.requestsPerSecond, cpu, total: r.total, errors: r.errors + r.non2xx };
}

// Every variant in every round, the order rotated and reversed every other round.
async function interleaved({ runLoad, log }, variants, urlPath, rounds, amount) {
  const samples = variants.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const order = variants.map((_, k) => (k + round) % variants.length);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const s = await window(runLoad, variants[i].server, urlPath, amount);
      samples[i].push(s);
      log(`  ${urlPath} round ${round + 1}/${rounds} ${variants[i].name}: ${s.cpu.toFixed(0)} us/req`);
    }
  }
  return samples;
}

function cpuTable(title, variants, samples, notes) {
  const base = median(samples[0].map((s) => s.cpu));
  const rows = variants.map((v, i) => {
    const cpu = median(samples[i].map((s) => s.cpu));
    const ratios = samples[i].map((s, round) => samples[0][round].cpu / s.cpu);
    const spread = ratios.length > 1 ? ` (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})` : '';
    return {
      variant: v.name,
      'req/s': Math.round(median(samples[i].map((s) => s.rps))).toLocaleString('en-US'),
      'server CPU us/req': cpu.toFixed(0),
      'CPU vs stock': `${(base / cpu).toFixed(2)}x${i === 0 ? '' : spread}`,
      errors: String(samples[i].reduce((n, s) => n + s.errors, 0)),
    };
  });
  return {
    title,
    columns: ['variant', 'req/s', 'server CPU us/req', 'CPU vs stock', 'errors'],
    rows,
    notes: [
      `${samples[0].length} rounds of ${samples[0][0].total} requests per variant, interleaved; medians. CPU vs stock: stock's CPU per request over the variant's (higher is better), in brackets the lowest and highest per-round ratio.`,
      ...notes,
    ],
  };
}

// The dictionary the README server offers (its Link header), once learned: the request headers
// that present it, or null when none was offered within the wait.
async function dictionaryHeaders(server, log) {
  for (let i = 0; i < DICTIONARY_PAGES; i++)
    await get(server, `/products/${100 + i}`, { 'accept-encoding': DCZ_ACCEPT });
  for (let attempt = 0; attempt < 20; attempt++) {
    const page = await get(server, HIT, { 'accept-encoding': DCZ_ACCEPT });
    const link = /<([^>]+)>;\s*rel="?compression-dictionary"?/.exec(String(page.headers.link || ''));
    if (link) {
      const dict = await get(server, link[1], { 'accept-encoding': 'identity' });
      const hash = crypto.createHash('sha256').update(dict.body).digest('base64');
      return { 'accept-encoding': DCZ_ACCEPT, 'available-dictionary': `:${hash}:` };
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  log(' no dictionary offered after the sample pages: dcz not measured');
  return null;
}

async function bytesTable(stock, ours, log) {
  const dcz = await dictionaryHeaders(ours, log);
  const rows = [];
  for (const [label, urlPath] of [
    ['cache hit GET /products/7', HIT],
    ['uncacheable GET /orders/ada', UNCACHEABLE],
  ]) {
    const plain = await get(stock, urlPath, { 'accept-encoding': BROWSER_ACCEPT });
    const br = await get(ours, urlPath, { 'accept-encoding': BROWSER_ACCEPT });
    const row = {
      page: label,
      'stock (as sent)': `${plain.body.length} B ${plain.headers['content-encoding'] || 'identity'}`,
      'ssr-native': `${br.body.length} B ${br.headers['content-encoding'] || 'identity'}`,
      'ssr-native, dictionary held': 'n/a',
    };
    if (dcz) {
      const d = await get(ours, urlPath, dcz);
      row['ssr-native, dictionary held'] = `${d.body.length} B ${d.headers['content-encoding'] || 'identity'}`;
    }
    rows.push(row);
  }
  return {
    title: 'bytes on the wire (Accept-Encoding of a browser)',
    columns: ['page', 'stock (as sent)', 'ssr-native', 'ssr-native, dictionary held'],
    rows,
    notes: [
      `Accept-Encoding: ${BROWSER_ACCEPT}; the dictionary column adds dcb, dcz and Available-Dictionary (the dictionary the server's Link offered, after ${DICTIONARY_PAGES} product pages were served).`,
    ],
  };
}

async function run({ pick, log, startServer, runLoad, skip }) {
  const reason = prepare();
  if (reason) skip(reason);
  const rounds = pick.rounds(1, 3, 5);
  const amount = pick(10, 60, 150); // requests per window
  const bin = nodeBin();
  const start = (dist, extra = {}) =>
    startServer(SCRIPT, { ANGULAR22_DIST: dist, ...extra }, { bin, timeoutMs: 60000 });
  const servers = {};
  try {
    servers.stock = await start(app.STOCK_DIST);
    servers.stockNoCss = await start(app.STOCK_DIST, { ANGULAR22_NO_CRITICAL_CSS: '1' });
    servers.ours = await start(app.DIST);
    const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
    log(` servers on Node ${version}`);
    // what each serves, checked before measuring it
    const stockPage = await get(servers.stock, HIT, { 'accept-encoding': BROWSER_ACCEPT });
    if (stockPage.status !== 200 || !/<style>/.test(stockPage.body.toString()))
      throw new Error(
        `stock ${HIT}: ${stockPage.status}, critical CSS inlined: ${/<style>/.test(stockPage.body.toString())}`,
      );
    const bare = await get(servers.stockNoCss, HIT, { 'accept-encoding': BROWSER_ACCEPT });
    if (bare.status !== 200 || /<style>/.test(bare.body.toString()))
      throw new Error(`stock without critical CSS ${HIT}: ${bare.status}, still inlined`);
    await get(servers.ours, HIT, { 'accept-encoding': BROWSER_ACCEPT });
    const hit = await get(servers.ours, HIT, { 'accept-encoding': BROWSER_ACCEPT });
    if (hit.status !== 200 || hit.headers.age === undefined)
      throw new Error(`the README server does not answer ${HIT} from its cache (${hit.status}, no Age)`);
    for (const s of Object.values(servers))
      for (const p of [HIT, UNCACHEABLE]) await window(runLoad, s, p, pick(10, 200, 400)); // JIT-warm: V8 compiles on its own threads, charged to the server

    const hitVariants = [
      { name: 'stock Angular 22 (AppEngine, its critical CSS)', server: servers.stock },
      { name: 'README server.ts (ssr-native)', server: servers.ours },
    ];
    const pageVariants = [
      hitVariants[0],
      { name: 'stock, its critical CSS off (bench only)', server: servers.stockNoCss },
      hitVariants[1],
    ];
    const hitSamples = await interleaved({ runLoad, log }, hitVariants, HIT, rounds, amount);
    const pageSamples = await interleaved({ runLoad, log }, pageVariants, UNCACHEABLE, rounds, amount);
    const stockCpu = median(pageSamples[0].map((s) => s.cpu));
    const noCssCpu = median(pageSamples[1].map((s) => s.cpu));
    const share = ((stockCpu - noCssCpu) / stockCpu) * 100;
    const tables = [
      cpuTable(`cache hit GET ${HIT} (Accept-Encoding: br)`, hitVariants, hitSamples, [
        'stock renders the page every time; the README server renders it once, then serves the stored br body.',
      ]),
      cpuTable(`uncacheable GET ${UNCACHEABLE}: both render`, pageVariants, pageSamples, [
        `Angular 22's own critical CSS (beasties/runtime over build-time plans): ${(stockCpu - noCssCpu).toFixed(0)} us of stock's ${stockCpu.toFixed(0)} us per request (${share.toFixed(0)}%), the difference of the first two rows.`,
        'The README server also compresses (br) what stock sends uncompressed, and inlines critical CSS with ssr-native.',
      ]),
      await bytesTable(servers.stock, servers.ours, log),
    ];
    for (const table of tables)
      table.notes.push(`Servers on Node ${version}, the runner and load generator on Node ${process.version}.`);
    for (const table of tables.slice(0, 2))
      table.headline = {
        measure: 'server CPU us/req',
        ours: hitVariants[1].name,
        baseline: hitVariants[0].name,
        higherIsBetter: false,
      };
    return { tables };
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
  }
}

module.exports = {
  name: 'angular22',
  order: 1,
  headline: 'cache hit and uncacheable page',
  question:
    "Angular 22 on Node 24 (AppEngine, `ng new --ssr`): server CPU per request and bytes of the README's server.ts vs stock Angular 22 with its own critical CSS.",
  run,
};
