'use strict';
// What a full garbage collection costs with many pages cached, in a fresh process run with
// --expose-gc --single-threaded-gc (the marking on the main thread, where it pauses requests on
// a server pinned to one CPU); run by scenarios/ssr-cache.js.
// Usage: node --expose-gc --single-threaded-gc micro/cache-gc.js <variant> <pages>
//   ssr-native      the response cache holding <pages> pages of 20 KB (stored through the engine)
//   entry-objects   the same entries kept as the JavaScript objects the engine builds (each with
//                   its headers, times and body Buffer) in a Map: how the store held them before
//                   its entries moved to native memory
// Prints one JSON line: { fullGcMs (median of 7), heapUsedMB }.
const path = require('path');

const [variant, pagesText] = process.argv.slice(2);
const pages = Number(pagesText);
const { responseCache } = require(path.join(__dirname, '..', '..', '..', 'lib', 'express', 'cache'));

const cache = responseCache({ maxBytes: 2 ** 31, maxEntries: 200_000, host: false, allowedHosts: ['*'] }); // engine calls without a Host
const objects = new Map();
const headers = { 'cache-control': 'public, s-maxage=600', 'content-type': 'text/html; charset=utf-8' };
const page = '<p>server-rendered</p>'.repeat(Math.ceil(20480 / 22)).slice(0, 20480);
for (let i = 0; i < pages; i++) {
  const d = cache.engine.begin({ method: 'GET', url: `/page/${i}`, headers: {} });
  const entry = cache.engine.store(d.fill, cache.engine.admit(d.fill, 200, headers), headers, Buffer.from(page + i));
  if (variant === 'entry-objects') {
    objects.set(entry.key, entry);
    cache.engine.memory.clear(); // only the objects stay
  }
}
const ms = [];
for (let round = 0; round < 7; round++) {
  const start = process.hrtime.bigint();
  global.gc();
  ms.push(Number(process.hrtime.bigint() - start) / 1e6);
}
ms.sort((a, b) => a - b);
process.stdout.write(
  JSON.stringify({
    fullGcMs: Math.round(ms[3] * 100) / 100,
    heapUsedMB: Math.round((process.memoryUsage().heapUsed / 1048576) * 10) / 10,
    entries: variant === 'entry-objects' ? objects.size : cache.stats().entries,
  }) + '\n',
);
