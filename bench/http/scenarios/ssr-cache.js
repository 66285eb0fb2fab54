'use strict';
// Does the response cache serve a server-rendered page at the cost of a static file, without
// costing the routes it cannot cache, and without putting its pages on V8's heap?
// Express 5 with a synthetic SSR route (~10 ms of CPU for a 20 KB page), stock against
// responseCache(): warm hits, a 90% hit / 10% miss mix over 1,000 URLs, an uncacheable route;
// a hit's server CPU against express.static and ssr-native serveStatic sending a 20 KB file from
// the same server; a burst of 200 concurrent first requests (renders counted); and the heap with
// many pages cached against an empty cache, a small one, and a plain JS Map of strings.
const { spawnSync } = require('child_process');
const path = require('path');
const { pinnedCommand, SERVER_CPU } = require('../lib/cpu');
const { serverRuntime, underBun } = require('../lib/runtime');
const { median } = require('../lib/median');
const { cpuSeconds, settleCpu } = require('../lib/cpu-time');
const { getJson, getStatus } = require('../lib/http-get');

const SCRIPT = path.join(__dirname, '..', 'servers', 'ssr-cache.js');

const mb = (bytes) => (bytes / 1048576).toFixed(1);

// One full GC's pause with `pages` pages cached (micro/cache-gc.js), in a fresh process on the
// server's CPU, the collector on one thread.
function fullGc(variant, pages) {
  const [command, args] = pinnedCommand(SERVER_CPU, serverRuntime().bin, [
    '--expose-gc',
    '--single-threaded-gc',
    path.join(__dirname, '..', 'micro', 'cache-gc.js'),
    variant,
    String(pages),
  ]);
  const out = spawnSync(command, args, { encoding: 'utf8' });
  const line = (out.stdout || '').trim().split('\n').pop();
  if (!line) throw new Error(`cache-gc ${variant} ${pages}: ${out.stderr}`);
  return JSON.parse(line);
}

module.exports = {
  name: 'ssr-cache',
  order: 60,
  headline: 'warm hits, GET /page/1', // the default run's case: the other tables come with --all
  question:
    'Express 5, a 20 KB server-rendered page (~10 ms CPU): responseCache() vs stock for warm hits, a 90/10 mix and an uncacheable route; hit CPU vs serveStatic; renders in a burst of 200; V8 heap with many pages cached vs a JS Map.',
  async run({ quick, pick, log, startServer, runLoad, headline }) {
    // A headline run (the default) takes the runner's default effort: 2 rounds of 1 s.
    const rounds = headline ? 2 : pick.rounds(1, 3, 5);
    const seconds = headline ? 1 : pick(1, 2, 3);
    const heapPages = pick(5_000, 50_000, 50_000);
    const mixUrls = pick(200, 1000, 1000); // warming them costs a render each (~10 ms)
    const tables = [];
    const servers = {};
    try {
      servers.stock = await startServer(SCRIPT, { CACHE_MODE: 'none', MIX_URLS: String(mixUrls) });
      servers.cached = await startServer(SCRIPT, { CACHE_MODE: 'ssr-native', MIX_URLS: String(mixUrls) });
      // what any middleware at the cache's place costs Express (the uncacheable route's floor)
      if (!headline) servers.empty = await startServer(SCRIPT, { CACHE_MODE: 'empty', MIX_URLS: String(mixUrls) });

      // 1. requests/s and CPU per request, interleaved rounds
      const cases = [
        { name: 'warm hits, GET /page/1', path: '/page/1', variants: ['stock', 'cached'] },
        {
          name: `90% hits / 10% misses over ${mixUrls.toLocaleString('en-US')} URLs`,
          path: '/mix/x',
          variants: ['stock', 'cached'],
        },
        {
          name: 'uncacheable route (private), GET /uncacheable',
          path: '/uncacheable',
          variants: ['stock', 'empty', 'cached'],
        },
      ];
      if (!quick) {
        for (const s of Object.values(servers)) {
          await runLoad({ url: `${s.url}/page/1`, connections: 10, duration: 1 });
          if (!headline) await runLoad({ url: `${s.url}/uncacheable`, connections: 10, duration: 1 });
        }
      }
      // warm the URLs of the mix in the cached server (not needed by a headline run)
      for (let i = 0; !headline && i < mixUrls; i += 50)
        await Promise.all(Array.from({ length: 50 }, (_, j) => getStatus(`${servers.cached.url}/page/${i + j}`)));
      const measure = async (server, p) => {
        // every server idle first; this one's tail (renders in flight) charged to its window
        await settleCpu(
          Object.values(servers).map((x) => x.pid),
          3000,
        );
        const before = cpuSeconds(server.pid);
        const r = await runLoad({ url: `${server.url}${p}`, connections: 20, duration: seconds });
        await settleCpu([server.pid], 3000);
        const after = cpuSeconds(server.pid);
        return {
          rps: r.requestsPerSecond,
          cpu: ((after - before) * 1e6) / Math.max(1, r.total),
          p99: r.p99,
          errors: r.errors + r.non2xx,
        };
      };
      for (const c of cases.filter((x) => !headline || x.name === headline)) {
        const samples = Object.fromEntries(c.variants.map((v) => [v, []]));
        for (let round = 0; round < rounds; round++) {
          const order = round % 2 ? [...c.variants].reverse() : c.variants;
          for (const v of order) samples[v].push(await measure(servers[v], c.path));
        }
        const row = (v, label) => ({
          variant: label,
          'req/s': Math.round(median(samples[v].map((x) => x.rps))).toLocaleString('en-US'),
          'server CPU us/req': median(samples[v].map((x) => x.cpu)).toFixed(1),
          'p99 ms': median(samples[v].map((x) => x.p99)),
          errors: samples[v].reduce((a, x) => a + x.errors, 0),
        });
        const ratio = median(samples.cached.map((x) => x.rps)) / median(samples.stock.map((x) => x.rps));
        const cpuRatio = median(samples.stock.map((x) => x.cpu)) / median(samples.cached.map((x) => x.cpu));
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
            {
              ...row('stock', 'Express 5, no cache'),
              'ratio vs stock (req/s)': '1.00x',
              'ratio vs stock (CPU)': '1.00x',
            },
            ...(c.variants.includes('empty')
              ? [
                  {
                    ...row('empty', 'an empty middleware (the floor)'),
                    'ratio vs stock (req/s)': `${(median(samples.empty.map((x) => x.rps)) / median(samples.stock.map((x) => x.rps))).toFixed(2)}x`,
                    'ratio vs stock (CPU)': `${(median(samples.stock.map((x) => x.cpu)) / median(samples.empty.map((x) => x.cpu))).toFixed(2)}x`,
                  },
                ]
              : []),
            {
              ...row('cached', 'ssr-native responseCache'),
              'ratio vs stock (req/s)': `${ratio.toFixed(2)}x`,
              'ratio vs stock (CPU)': `${cpuRatio.toFixed(2)}x`,
            },
          ],
          notes: [
            `${rounds} interleaved rounds of ${seconds} s, 20 connections; server on CPU 0, load on CPU 1; the machine is shared with other work.`,
          ],
        });
        log(`  ${c.name}: ${ratio.toFixed(2)}x req/s, ${cpuRatio.toFixed(2)}x CPU`);
      }

      // 2. a hit's CPU against static files of the same size from the same server
      if (!headline) {
        const paths = [
          ['cache hit, /page/1', '/page/1'],
          ['express.static, /asset.html (20 KB)', '/asset.html'],
          ['ssr-native serveStatic, /native/asset.html', '/native/asset.html'],
        ];
        const samples = paths.map(() => []);
        if (!quick)
          for (const [, p] of paths) await runLoad({ url: `${servers.cached.url}${p}`, connections: 10, duration: 1 });
        for (let round = 0; round < rounds; round++) {
          for (let k = 0; k < paths.length; k++) {
            const i = (k + round) % paths.length;
            samples[i].push(await measure(servers.cached, paths[i][1]));
          }
        }
        const hitCpu = median(samples[0].map((x) => x.cpu));
        tables.push({
          title: 'a hit vs a static file of the same size (same server)',
          columns: ['variant', 'req/s', 'server CPU us/req', 'ratio hit CPU / this'],
          rows: paths.map(([label], i) => {
            const cpu = median(samples[i].map((x) => x.cpu));
            return {
              variant: label,
              'req/s': Math.round(median(samples[i].map((x) => x.rps))).toLocaleString('en-US'),
              'server CPU us/req': cpu.toFixed(1),
              'ratio hit CPU / this': `${(hitCpu / cpu).toFixed(2)}x`,
            };
          }),
          notes: ["target: a hit within 1.25x of serveStatic's CPU per request (ratio <= 1.25x)"],
        });
      }

      // 3. 200 concurrent first requests for one URL
      if (!headline) {
        const rows = [];
        for (const v of ['stock', 'cached']) {
          const before = (await getJson(`${servers[v].url}/stats`)).renders;
          const statuses = await Promise.all(
            Array.from({ length: 200 }, () => getStatus(`${servers[v].url}/page/burst`)),
          );
          const after = (await getJson(`${servers[v].url}/stats`)).renders;
          rows.push({
            variant: v === 'stock' ? 'Express 5, no cache' : 'ssr-native responseCache',
            renders: after - before,
            'non-200': statuses.filter((s) => s !== 200).length,
          });
        }
        tables.push({
          title: 'burst: 200 concurrent first requests for /page/burst',
          columns: ['variant', 'renders', 'non-200'],
          rows,
          notes: ['target: exactly 1 render with the cache'],
        });
      }
      for (const name of ['stock', 'cached', 'empty']) {
        if (servers[name] === undefined) continue;
        await servers[name].stop();
        delete servers[name];
      }

      // 4. heap with many pages cached
      if (!headline) {
        const heapVariants = [
          // with no pages stored, /heap/<n> is /page/0 for every n: a cache of one page
          ['ssr-native, empty cache (1 page)', { CACHE_MODE: 'ssr-native', HEAP_PAGES: '0' }],
          [
            `ssr-native, ${heapPages.toLocaleString('en-US')} pages`,
            { CACHE_MODE: 'ssr-native', HEAP_PAGES: String(heapPages) },
          ],
          [
            `JS Map of strings, ${heapPages.toLocaleString('en-US')} pages`,
            { CACHE_MODE: 'map', HEAP_PAGES: String(heapPages), NODE_OPTIONS: '--max-old-space-size=4096' },
          ],
        ];
        const rows = [];
        let emptyHeap = 0;
        let smallP99 = 0;
        for (const [label, env] of heapVariants) {
          const server = await startServer(SCRIPT, env, { timeoutMs: 120000 });
          servers.heap = server;
          try {
            const url = `${server.url}/heap/[<id>]`;
            if (!quick) await runLoad({ url, connections: 20, duration: 1, idReplacement: true });
            const p99s = [];
            for (let round = 0; round < rounds; round++)
              p99s.push((await runLoad({ url, connections: 20, duration: seconds, idReplacement: true })).p99);
            const stats = await getJson(`${server.url}/stats`);
            const heap = stats.memory.heapUsed;
            if (env.HEAP_PAGES === '0') emptyHeap = heap;
            const p99 = median(p99s);
            if (env.HEAP_PAGES === '0') smallP99 = p99;
            rows.push({
              variant: label,
              'heapUsed MB': mb(heap),
              'vs empty MB': mb(heap - emptyHeap),
              'external MB': mb(stats.memory.external),
              'rss MB': mb(stats.memory.rss),
              'hit p99 ms': p99,
              'p99 vs 1 page': smallP99 ? `${(p99 / smallP99).toFixed(2)}x` : '-',
            });
            log(`  heap ${label}: ${mb(heap)} MB heap, p99 ${p99} ms`);
          } finally {
            await server.stop();
            delete servers.heap;
          }
        }
        tables.push({
          title: `V8 heap with ${heapPages.toLocaleString('en-US')} pages of 20 KB cached (after a full GC), and hit p99 under load`,
          columns: ['variant', 'heapUsed MB', 'vs empty MB', 'external MB', 'rss MB', 'hit p99 ms', 'p99 vs 1 page'],
          rows,
          notes: [
            "targets: < 100 MB of heap over the empty cache; p99 within 1.2x of the one-page cache. p99 from every response time of the run; the hits walk the stored pages in order (autocannon's [<id>] counter).",
          ],
        });

        // 5. what a major GC marks: the entries in native memory against entry objects
        if (!underBun()) {
          const gcRows = [];
          for (const [label, variant, pages] of [
            ['ssr-native, empty cache', 'ssr-native', 0],
            [`ssr-native, ${heapPages.toLocaleString('en-US')} pages`, 'ssr-native', heapPages],
            [`entry objects in a Map, ${heapPages.toLocaleString('en-US')} pages`, 'entry-objects', heapPages],
          ]) {
            const r = fullGc(variant, pages);
            gcRows.push({ variant: label, 'full GC ms': r.fullGcMs, 'heapUsed MB': r.heapUsedMB });
            log(`  full GC ${label}: ${r.fullGcMs} ms`);
          }
          tables.push({
            title: `A full GC's pause with ${heapPages.toLocaleString('en-US')} pages of 20 KB cached (what every major GC marks)`,
            columns: ['variant', 'full GC ms', 'heapUsed MB'],
            rows: gcRows,
            notes: [
              'median of 7 forced full GCs (--expose-gc --single-threaded-gc) in a fresh process on the server CPU. "entry objects": the same entries as the JavaScript objects the engine builds (headers, times, body Buffer) held in a Map, as the store held them before its entries moved to native memory.',
            ],
          });
        }
      }
      return { tables };
    } finally {
      for (const s of Object.values(servers)) await s.stop();
    }
  },
};
