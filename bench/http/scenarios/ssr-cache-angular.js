'use strict';
// The ssr-cache questions on a real Angular app: does the response cache serve the Angular 21
// fixture's cacheable server-rendered route (/products/:id in test/fixtures/angular-app, its
// Cache-Control from app.routes.server.ts) at the cost of a static file? The stock AppEngine
// server against the fixture's AppEngine server with responseCache in front of the Angular
// handler (src/server.ts): warm hits, a 90% hit / 10% miss mix over many product pages, and a
// hit's server CPU against serveStatic sending a file of the same size (the prerendered
// /about/index.html) and the favicon from that same server. Skipped, with the reason, when the
// fixture is not built (or was built before it had the cacheable route): building takes
// minutes, `npm run test:angular` does it (CI builds it before the benchmarks).
const fs = require('fs');
const http = require('http');
const path = require('path');
const fixture = require('../../../scripts/angular-fixture');
const { median } = require('../lib/median');
const { cpuSeconds, settleCpu } = require('../lib/cpu-time');

const SCRIPT = path.join(__dirname, '..', 'servers', 'angular.js');
// A render takes milliseconds of CPU: few connections keep the stock server's latency sane.
const CONNECTIONS = 10;

function get(url) {
  return new Promise((resolve) => {
    http
      .get(url, { agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
      })
      .on('error', () => resolve({ status: 0, headers: {}, text: '' }));
  });
}

async function getJson(url) {
  return JSON.parse((await get(url)).text);
}

// The renders still queued from the last run (a stock server's, the mix's misses) must not run
// inside the next variant's measurement.
const settle = (server) => settleCpu([server.pid]);

async function measure(runLoad, server, p, seconds) {
  await settle(server);
  const before = cpuSeconds(server.pid);
  const r = await runLoad({ url: `${server.url}${p}`, connections: CONNECTIONS, duration: seconds });
  const after = cpuSeconds(server.pid);
  return {
    rps: r.requestsPerSecond,
    cpu: ((after - before) * 1e6) / Math.max(1, r.total),
    p99: r.p99,
    errors: r.errors + r.non2xx,
  };
}

const rps = (samples) => median(samples.map((x) => x.rps));
const times = (a, b) => (a > 0 && b > 0 && Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : 'n/a');
const cpu = (samples) => median(samples.map((x) => x.cpu));

async function run({ quick, pick, log, startServer, runLoad }) {
  const rounds = pick.rounds(1, 3, 5);
  const seconds = pick(1, 2, 3);
  const mixUrls = pick(100, 1000, 1000); // warming them costs a render each
  const env = (name) => ({ ANGULAR_SERVER: name, ANGULAR_MIX_URLS: String(mixUrls) });
  const tables = [];
  const servers = {};
  try {
    servers.stock = await startServer(SCRIPT, env('stock-app-engine'), { timeoutMs: 60000 });
    servers.cached = await startServer(SCRIPT, env('app-engine'), { timeoutMs: 60000 });
    const page = await get(`${servers.cached.url}/products/1`);
    const again = await get(`${servers.cached.url}/products/1`);
    if (page.status !== 200 || again.headers.age === undefined)
      throw new Error(`/products/1 is not cached by the fixture's AppEngine server (${page.status}, no Age)`);
    const pageKb = Math.round(Buffer.byteLength(page.text) / 1024);
    const assetKb = Math.round(fs.statSync(path.join(fixture.BROWSER, 'about', 'index.html')).size / 1024);
    const faviconKb = Math.round(fs.statSync(path.join(fixture.BROWSER, 'favicon.ico')).size / 1024);
    if (!quick)
      for (const s of Object.values(servers))
        await runLoad({ url: `${s.url}/products/1`, connections: CONNECTIONS, duration: 1 });

    // 1. warm hits, then the mix (its product pages warmed first in the cached server)
    const cases = [
      { name: `Angular AppEngine, warm hits, GET /products/1 (${pageKb} KB)`, path: '/products/1' },
      {
        name: `Angular AppEngine, 90% hits / 10% misses over ${mixUrls.toLocaleString('en-US')} product pages`,
        path: '/mix',
        warm: true,
      },
    ];
    for (const c of cases) {
      if (c.warm) {
        const start = Date.now();
        for (let i = 0; i < mixUrls; i += 10)
          await Promise.all(Array.from({ length: 10 }, (_, j) => get(`${servers.cached.url}/products/${i + j}`)));
        log(`  ${mixUrls} product pages warmed in ${((Date.now() - start) / 1000).toFixed(1)} s`);
      }
      const samples = { stock: [], cached: [] };
      const statsBefore = await getJson(`${servers.cached.url}/__bench/stats`);
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 ? ['cached', 'stock'] : ['stock', 'cached'];
        for (const v of order) samples[v].push(await measure(runLoad, servers[v], c.path, seconds));
      }
      const stats = await getJson(`${servers.cached.url}/__bench/stats`);
      const count = (name) => stats[name] - statsBefore[name];
      const ratio = times(rps(samples.cached), rps(samples.stock));
      const cpuRatio = times(cpu(samples.stock), cpu(samples.cached));
      const row = (v, label, r, c2) => ({
        variant: label,
        'req/s': Math.round(rps(samples[v])).toLocaleString('en-US'),
        'server CPU us/req': cpu(samples[v]).toFixed(1),
        'p99 ms': median(samples[v].map((x) => x.p99)),
        errors: samples[v].reduce((a, x) => a + x.errors, 0),
        'ratio vs stock (req/s)': r,
        'ratio vs stock (CPU)': c2,
      });
      tables.push({
        title: c.name,
        columns: [
          'variant',
          'req/s',
          'server CPU us/req',
          'p99 ms',
          'errors',
          'ratio vs stock (req/s)',
          'ratio vs stock (CPU)',
        ],
        rows: [
          row('stock', 'AppEngine + writeResponseToNodeResponse (stock)', '1.00x', '1.00x'),
          row('cached', 'AppEngine + ssr-native responseCache', ratio, cpuRatio),
        ],
        notes: [
          `${rounds} interleaved rounds of ${seconds} s, ${CONNECTIONS} connections; server on CPU 0, load on CPU 1; the machine is shared with other work.`,
          `The cached server's counters over the rounds: ${count('hits')} hits, ${count('staleServed')} stale (served, then rendered in the background: s-maxage=60), ${count('misses')} misses, ${count('coalesced')} coalesced.`,
          ...(c.warm ? [] : ["target: >= 30x the stock AppEngine server's requests/s"]),
        ],
      });
      log(`  ${c.name}: ${ratio} req/s, ${cpuRatio} CPU`);
    }

    // 2. a hit's CPU against serveStatic sending files from the same server
    const paths = [
      [`cache hit, /products/1 (${pageKb} KB)`, '/products/1'],
      [`ssr-native serveStatic, /about/index.html (${assetKb} KB)`, '/about/index.html'],
      [`ssr-native serveStatic, /favicon.ico (${faviconKb} KB)`, '/favicon.ico'],
    ];
    if (!quick)
      for (const [, p] of paths)
        await runLoad({ url: `${servers.cached.url}${p}`, connections: CONNECTIONS, duration: 1 });
    const samples = paths.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < paths.length; k++) {
        const i = (k + round) % paths.length;
        samples[i].push(await measure(runLoad, servers.cached, paths[i][1], seconds));
      }
    }
    const hitCpu = cpu(samples[0]);
    tables.push({
      title: "Angular AppEngine: a hit vs serveStatic's files (same server)",
      columns: ['variant', 'req/s', 'server CPU us/req', 'ratio hit CPU / this'],
      rows: paths.map(([label], i) => ({
        variant: label,
        'req/s': Math.round(rps(samples[i])).toLocaleString('en-US'),
        'server CPU us/req': cpu(samples[i]).toFixed(1),
        'ratio hit CPU / this': times(hitCpu, cpu(samples[i])),
      })),
      notes: [
        `target: a hit within 1.25x of serveStatic's CPU per request for a file of similar size (/about/index.html, the prerendered page). Every request first passes serveStatic (a miss for /products/1), then the cache.`,
      ],
    });
    log(`  hit CPU ${hitCpu.toFixed(1)} us vs serveStatic ${cpu(samples[1]).toFixed(1)} us`);

    // 3. a burst of 200 concurrent first requests for one product page
    const statsBefore = await getJson(`${servers.cached.url}/__bench/stats`);
    const burst = await Promise.all(Array.from({ length: 200 }, () => get(`${servers.cached.url}/products/burst`)));
    const statsAfter = await getJson(`${servers.cached.url}/__bench/stats`);
    const renderNumbers = new Set(burst.map((r) => (/id="render"[^>]*>render (\d+)</.exec(r.text) || [])[1]));
    tables.push({
      title: 'Angular AppEngine: 200 concurrent first requests for /products/burst',
      columns: ['variant', 'renders (cache stats)', 'distinct renders received', 'non-200'],
      rows: [
        {
          variant: 'AppEngine + ssr-native responseCache',
          'renders (cache stats)': statsAfter.renders - statsBefore.renders,
          'distinct renders received': renderNumbers.size,
          'non-200': burst.filter((r) => r.status !== 200).length,
        },
      ],
      notes: ['target: exactly 1 render. The page shows its render number in the server process (src/app/pages.ts).'],
    });
    log(`  burst: ${statsAfter.renders - statsBefore.renders} render(s) for 200 requests`);
  } finally {
    for (const s of Object.values(servers)) await s.stop();
  }
  return { tables };
}

module.exports = {
  name: 'ssr-cache-angular',
  order: 61,
  question:
    "Angular 21 fixture, cacheable SSR route /products/:id: stock AppEngine vs the same server with responseCache (warm hits, 90/10 mix); a hit's CPU vs serveStatic sending a file of the same size.",
  skip: () =>
    fixture.hasCacheRoutes()
      ? null
      : 'test/fixtures/angular-app is not built with its cacheable route /products/:id (`npm run test:angular` builds it)',
  run,
};
