'use strict';
// CPU per scrape of ssr-native/metrics: registry.metrics() on a real prom-client registry with
// `caches` FileCaches (each holding 20 files), both content-type caches and the argon2 pool.
// Usage: node micro/metrics-scrape.js <caches> <scrapes>
//   -> JSON { usPerScrape, baselineUsPerScrape, bytes, series }
// The baseline: prom-client alone scraping as many series from gauges set in collect() (what
// any collect()-based exporter costs), so the ratio is what reading our stats() adds.
// CPU time of the process, not wall time: other load on the machine inflates it less.
const fs = require('fs');
const os = require('os');
const path = require('path');
const client = require('prom-client');
const { FileCache } = require('../../../lib/files/file-cache.js');
require('../../../lib/content-type');
require('../../../lib/content-type/v2');
require('../../../lib/argon2');
const { registerMetrics } = require('../../../lib/metrics');

const caches = Number(process.argv[2] || 3);
const scrapes = Number(process.argv[3] || 200);

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-micro-metrics-'));
  try {
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(dir, `f${i}.txt`), 'x'.repeat(1000 + i));
    const held = [];
    for (let c = 0; c < caches; c++) {
      const cache = new FileCache({ root: dir, name: `cache-${c}` });
      for (let i = 0; i < 20; i++) await cache.get(path.join(dir, `f${i}.txt`));
      held.push(cache);
    }
    const registry = new client.Registry();
    registerMetrics(client, { registry });
    let text = await registry.metrics();
    text = await registry.metrics(); // kinds found at the first scrape are complete from here
    for (let i = 0; i < 20; i++) await registry.metrics(); // warm-up
    const start = process.cpuUsage();
    for (let i = 0; i < scrapes; i++) text = await registry.metrics();
    const used = process.cpuUsage(start);
    const series = text.split('\n').filter((l) => l && !l.startsWith('#')).length;
    const baseline = new client.Registry();
    const metricsCount = text.split('\n').filter((l) => l.startsWith('# TYPE')).length;
    const perMetric = Math.max(1, Math.round(series / metricsCount));
    for (let m = 0; m < metricsCount; m++) {
      new client.Gauge({
        name: `baseline_${m}`,
        help: 'baseline',
        labelNames: ['name'],
        registers: [baseline],
        collect() {
          this.reset();
          for (let k = 0; k < perMetric; k++) this.set({ name: `cache-${k}` }, k);
        },
      });
    }
    for (let i = 0; i < 20; i++) await baseline.metrics();
    const startBase = process.cpuUsage();
    for (let i = 0; i < scrapes; i++) await baseline.metrics();
    const usedBase = process.cpuUsage(startBase);
    console.log(
      JSON.stringify({
        usPerScrape: (used.user + used.system) / scrapes,
        baselineUsPerScrape: (usedBase.user + usedBase.system) / scrapes,
        bytes: text.length,
        series,
      }),
    );
    for (const cache of held) cache.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
main();
