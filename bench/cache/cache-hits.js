'use strict';
// What the shared store's hit benchmarks share: a CacheEngine (of a checkout's lib) filled with
// 1,000 stored pages, and the CPU per hit of asking for some of them in turn.
const path = require('path');

const HEADERS = { 'cache-control': 'public, max-age=600', 'content-type': 'text/html' };
const requestFor = (i) => ({ method: 'GET', url: `/p/${i}`, headers: { host: 'shop.example' } });

/** An engine of `tree`'s lib over `store` (undefined: the in-process memory store) holding /p/0../p/999. */
function filledEngine(tree, store, pageBytes) {
  const { CacheEngine } = require(path.resolve(tree, 'lib', 'cache', 'engine'));
  const engine = new CacheEngine(store === undefined ? {} : { store });
  const body = Buffer.alloc(pageBytes, 'x');
  for (let i = 0; i < 1000; i++) {
    const d = engine.begin(requestFor(i));
    engine.store(d.fill, engine.admit(d.fill, 200, HEADERS), HEADERS, body);
  }
  return engine;
}

/** Nanoseconds of process CPU per hit over `n` hits on the first `pages` pages in turn. */
function timeHits(engine, pages, n) {
  const reqs = Array.from({ length: pages }, (_, i) => requestFor(i));
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const d = engine.begin(reqs[i % pages]);
    if (d.action !== 'hit') throw new Error(`not a hit: ${d.action}`);
  }
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / n;
}

module.exports = { filledEngine, timeHits };
