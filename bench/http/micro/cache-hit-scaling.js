'use strict';
// Does a cache hit cost the same in a large cache as in a small one? For the response cache's
// memory store (MemoryStore.get) and the compression content cache (ContentCache.encodeNow on a
// stored body), each filled with 100, 1,000 and 50,000 entries in one process, rounds interleaved:
//   hot   one key hit again and again (what a popular page does)
//   walk  every key hit once per lap (what a crawler does; every hit reads other memory)
// The figures asked for: hot 50,000 / 100 entries, 1.0 when a hit's cost does not grow with the
// cache; and walk 50,000 / 1,000 (a walk over 100 pages stays in the memory store's hot set of
// 128 entry objects, one over 1,000 or more reads each page's block, so 100 is no baseline for
// it; a walk over 50,000 bodies also leaves the CPU's caches). A Map kept in LRU order (a delete + set per hit) made the hot ratio grow with the cache
// (docs/cache.md).
// Usage: node bench/http/micro/cache-hit-scaling.js [--before <lib dir>]
//   --before: also measure the lib/ of another checkout (e.g. one made with `git worktree add`,
//   its build/ holding the addon), interleaved with this one: before/after in the same run.
// Pin it: taskset -c 0 node bench/http/micro/cache-hit-scaling.js
// Prints the CPU, ns per hit per variant (median of the rounds) and the ratios.
const path = require('path');
const { describeMachine, describeSimd } = require(path.join(__dirname, '..', 'lib', 'cpu'));

const SMALL = 100;
const MID = 1000;
const LARGE = 50_000;
const HITS = 20_000;
const ROUNDS = 9;
const BODY_BYTES = 1024;

function libs() {
  const out = [['after', path.join(__dirname, '..', '..', '..', 'lib')]];
  const at = process.argv.indexOf('--before');
  if (at !== -1) out.unshift(['before', path.resolve(process.argv[at + 1])]);
  return out;
}

function memoryStore(lib, pages) {
  const { MemoryStore } = require(path.join(lib, 'cache', 'memory-store'));
  const { targetOf } = require(path.join(lib, 'cache', 'key'));
  const store = new MemoryStore({ maxBytes: 2 ** 40, maxEntries: pages });
  const body = Buffer.alloc(BODY_BYTES, 'p');
  const now = Date.now();
  const keys = [];
  for (let i = 0; i < pages; i++) {
    const key = `/page/${i}\n`;
    keys.push(key);
    store.set({
      key,
      primary: key,
      target: targetOf(key),
      varyNames: [],
      tags: [],
      status: 200,
      headers: {
        'x-powered-by': 'Express',
        'cache-control': 'public, s-maxage=60',
        'content-type': 'text/html; charset=utf-8',
        etag: 'W/"400-1a2b3c4d"',
      },
      body,
      length: String(body.length),
      etag: 'W/"400-1a2b3c4d"',
      storedAt: now,
      freshUntil: now + 60_000,
      swrUntil: now + 660_000,
      sieUntil: now,
      expiresAt: now + 660_000,
      size: body.length + 300,
    });
  }
  return { keys, hit: (key) => store.get(key).body.length };
}

function contentCache(lib, bodies) {
  const { ContentCache } = require(path.join(lib, 'compression', 'content-cache'));
  const { createEncoder } = require(path.join(lib, 'compression', 'encoders'));
  const { crc32 } = require(path.join(lib, 'etag'));
  const cache = new ContentCache({ maxBytes: 2 ** 40, maxEntries: bodies, maxEntryBytes: 2 ** 20, minUses: 1 });
  const encoder = createEncoder('gzip', { level: 1 });
  const keys = [];
  for (let i = 0; i < bodies; i++) {
    const body = Buffer.alloc(BODY_BYTES, 'b');
    body.write(`<p>page ${i}</p>`);
    const crc = crc32(body);
    cache.encodeNow(body, crc, encoder);
    keys.push({ body, crc });
  }
  if (cache.stats().entries !== bodies) throw new Error('not every body was stored');
  return { keys, hit: ({ body, crc }) => cache.encodeNow(body, crc, encoder).length };
}

let sink = 0;
const variants = {};
for (const [name, lib] of libs()) {
  for (const [cacheName, make] of [
    ['memory store', memoryStore],
    ['content cache', contentCache],
  ]) {
    for (const size of [SMALL, MID, LARGE]) {
      const { keys, hit } = make(lib, size);
      variants[`${name} ${cacheName} ${size} hot`] = () => {
        const key = keys[0];
        for (let i = 0; i < HITS; i++) sink += hit(key);
      };
      let at = 0;
      variants[`${name} ${cacheName} ${size} walk`] = () => {
        for (let i = 0; i < HITS; i++) {
          sink += hit(keys[at]);
          if (++at === keys.length) at = 0;
        }
      };
    }
  }
}

const names = Object.keys(variants);
const samples = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  // interleaved, the order turned each round
  const order = round % 2 ? [...names].reverse() : names;
  for (const name of order) {
    const t0 = process.hrtime.bigint();
    variants[name]();
    samples[name].push(Number(process.hrtime.bigint() - t0) / HITS);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const machine = describeMachine();
console.log(`${machine.cpu} (${machine.cpus} CPUs), Node ${process.version}; ${describeSimd(machine)}`);
for (const name of names)
  console.log(`${name.padEnd(36)} ns/hit median ${median(samples[name]).toFixed(0).padStart(6)}`);
for (const [name] of libs())
  for (const cacheName of ['memory store', 'content cache'])
    for (const [kind, base] of [
      ['hot', SMALL],
      ['walk', MID],
    ]) {
      const at = (size) => median(samples[`${name} ${cacheName} ${size} ${kind}`]);
      console.log(`${name} ${cacheName} ${kind}: ${LARGE} / ${base} entries = ${(at(LARGE) / at(base)).toFixed(2)}x`);
    }
if (sink === 0) throw new Error('no bytes read');
