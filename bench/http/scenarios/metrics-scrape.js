'use strict';
// Does ssr-native/metrics cost anything per request? The same Express + serveStatic server
// without metrics, with them registered but never scraped, and scraped every 100 ms during the
// load (what a busy Prometheus does, ten times over): server CPU per served request, in
// interleaved rounds. The scrapes' own CPU is included, spread over the served requests. A
// second table: CPU per scrape (micro/metrics-scrape.js) against prom-client alone scraping as
// many series, the figure a loaded machine disturbs least.
const http = require('http');
const path = require('path');
const { spawnSync } = require('child_process');
const { LOAD_CPU, pinnedCommand } = require('../lib/cpu');
const { median } = require('../lib/median');
const { cpuSeconds } = require('../lib/cpu-time');

const SCRIPT = path.join(__dirname, '..', 'servers', 'metrics.js');
const VARIANTS = [
  { name: 'no metrics', env: { METRICS: '0' } },
  { name: 'metrics registered, not scraped', env: { METRICS: '1' } },
  { name: 'scraped every 100 ms', env: { METRICS: '1' }, scrapeMs: 100 },
];

function scrapeEvery(url, ms) {
  let scrapes = 0;
  const timer = setInterval(() => {
    http
      .get(url, (res) => {
        res.resume();
        res.on('end', () => scrapes++);
      })
      .on('error', () => {});
  }, ms);
  return () => (clearInterval(timer), scrapes);
}

module.exports = {
  name: 'metrics-scrape',
  order: 40,
  question:
    'Express 5 + serveStatic, 4 KB file: server CPU per request without ssr-native/metrics, with it registered, and scraped every 100 ms.',
  async run({ pick, log, startServer, runLoad }) {
    const rounds = pick.rounds(2, 3, 7);
    const seconds = pick(2, 3, 5);
    const servers = [];
    try {
      for (const v of VARIANTS) servers.push(await startServer(SCRIPT, v.env));
      const load = (server, duration) => ({ url: `${server.url}/app.css`, connections: 20, duration });
      for (const server of servers) await runLoad(load(server, 1));
      const cpu = VARIANTS.map(() => []);
      const rps = VARIANTS.map(() => []);
      let scraped = 0;
      for (let round = 0; round < rounds; round++) {
        for (let k = 0; k < VARIANTS.length; k++) {
          const i = (k + round) % VARIANTS.length;
          const stop = VARIANTS[i].scrapeMs ? scrapeEvery(`${servers[i].url}/metrics`, VARIANTS[i].scrapeMs) : () => 0;
          const before = cpuSeconds(servers[i].pid);
          const result = await runLoad(load(servers[i], seconds));
          const after = cpuSeconds(servers[i].pid);
          scraped += stop();
          if (before === null || after === null) throw new Error('no /proc CPU times: this scenario needs Linux');
          cpu[i].push(((after - before) * 1e6) / result.total);
          rps[i].push(result.requestsPerSecond);
          log(`  round ${round + 1}/${rounds} ${VARIANTS[i].name}: ${cpu[i][cpu[i].length - 1].toFixed(1)} us CPU/req`);
        }
      }
      if (scraped === 0) throw new Error('no scrape completed: /metrics did not answer');
      const base = 0;
      const ratio = (i) => {
        const r = cpu[base].map((c, n) => cpu[i][n] / c);
        return `${median(r).toFixed(3)}x (${Math.min(...r).toFixed(3)}-${Math.max(...r).toFixed(3)})`;
      };
      const rows = VARIANTS.map((v, i) => ({
        variant: v.name,
        'req/s': Math.round(median(rps[i])).toLocaleString('en-US'),
        'server CPU us/req': median(cpu[i]).toFixed(1),
        'us/req min-max': `${Math.min(...cpu[i]).toFixed(1)}-${Math.max(...cpu[i]).toFixed(1)}`,
        'CPU vs no metrics, median (min-max)': i === base ? '-' : ratio(i),
      }));
      const micro = [];
      for (const caches of [3, 20]) {
        const [cmd, args] = pinnedCommand(LOAD_CPU, process.execPath, [
          path.join(__dirname, '..', 'micro', 'metrics-scrape.js'),
          String(caches),
          String(pick(100, 300, 1000)),
        ]);
        const out = spawnSync(cmd, args, { encoding: 'utf8' });
        if (out.status !== 0) throw new Error(out.stderr);
        micro.push({ caches, ...JSON.parse(out.stdout) });
        log(`  scrape cost with ${caches} FileCaches measured`);
      }
      return {
        tables: [
          {
            title: 'CPU per scrape (registry.metrics(), one process pinned to one CPU)',
            columns: [
              'FileCaches',
              'series',
              'text bytes',
              'us CPU/scrape',
              'prom-client alone, same series',
              'CPU share at 10 scrapes/s',
            ],
            rows: micro.map((m) => ({
              FileCaches: String(m.caches),
              series: String(m.series),
              'text bytes': String(m.bytes),
              'us CPU/scrape': m.usPerScrape.toFixed(0),
              'prom-client alone, same series': `${m.baselineUsPerScrape.toFixed(0)} us`,
              'CPU share at 10 scrapes/s': `${((m.usPerScrape * 10) / 1e4).toFixed(2)}% of one CPU`,
            })),
            notes: [
              'plus both content-type caches and the argon2 pool; nothing of this runs per request, only per scrape.',
            ],
          },
          {
            headline: {
              measure: 'server CPU us/req',
              ours: 'scraped every 100 ms',
              baseline: 'no metrics',
              higherIsBetter: false,
            },
            title: 'GET /app.css (4 KB, from memory), 20 connections',
            columns: ['variant', 'req/s', 'server CPU us/req', 'us/req min-max', 'CPU vs no metrics, median (min-max)'],
            rows,
            notes: [
              `${rounds} interleaved rounds of ${seconds} s per variant (order rotated each round); server pinned to CPU 0, load to CPU 1; ${scraped} scrapes completed.`,
              'CPU vs no metrics: server CPU per served request over the server without metrics, per round; 1.00x = nothing measurable.',
            ],
          },
        ],
      };
    } finally {
      for (const s of servers) await s.stop();
    }
  },
};
