'use strict';
// Resident memory while a bounded response cache churns: distinct 20 KB pages stored in one
// synchronous loop into a cache of --max-mb, each store past the bound evicting the oldest.
// Usage: node micro/cache-rss.js [pages=200000] [max-mb=512]
// Prints one JSON line per quarter of the pages: { stored, entries, rssMB }.
const path = require('path');
const { responseCache } = require(path.join(__dirname, '..', '..', '..', 'lib', 'express', 'cache'));

const pages = Number(process.argv[2] || 200_000);
const maxMb = Number(process.argv[3] || 512);
const cache = responseCache({ maxBytes: maxMb * 1048576, maxEntries: 1_000_000, host: false, allowedHosts: ['*'] }); // engine calls without a Host
const headers = { 'cache-control': 'public, s-maxage=600', 'content-type': 'text/html; charset=utf-8' };
const page = '<p>server-rendered</p>'.repeat(Math.ceil(20480 / 22)).slice(0, 20480);
for (let i = 0; i < pages; i++) {
  const d = cache.engine.begin({ method: 'GET', url: `/page/${i}`, headers: {} });
  cache.engine.store(d.fill, cache.engine.admit(d.fill, 200, headers), headers, Buffer.from(page + i));
  if ((i + 1) % Math.ceil(pages / 4) === 0 || i + 1 === pages) {
    const rssMB = Math.round(process.memoryUsage().rss / 1048576);
    process.stdout.write(JSON.stringify({ stored: i + 1, entries: cache.stats().entries, rssMB }) + '\n');
  }
}
