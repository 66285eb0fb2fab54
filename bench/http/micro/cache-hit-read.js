'use strict';
// What the memory store's get() costs for a hit, in one process, rounds interleaved:
//   hot      one page hit again and again: served from the hot set (its entry object kept)
//   cold     a walk over every page, each hit once per lap: every hit reads its native block
//            (JSON.parse of the metadata, a Buffer over the body), as every hit did before the
//            hot set existed
// Usage: node bench/http/micro/cache-hit-read.js [pages]  (1,000 by default; pin it: taskset -c 0)
// Whether a hit's cost grows with the pages cached: cache-hit-scaling.js.
// Prints the CPU, then ns per get() for each variant per round and the medians.
const path = require('path');
const lib = path.join(__dirname, '..', '..', '..', 'lib');
const { MemoryStore } = require(path.join(lib, 'cache', 'memory-store'));
const { targetOf } = require(path.join(lib, 'cache', 'key'));
const { describeMachine, describeSimd } = require(path.join(__dirname, '..', 'lib', 'cpu'));

const PAGES = Number(process.argv[2] || 1000);
const GETS = 20_000;
const ROUNDS = 7;

const store = new MemoryStore({ maxBytes: 2 ** 31, maxEntries: PAGES });
const body = Buffer.alloc(20_480, 'p');
const now = Date.now();
const keys = [];
for (let i = 0; i < PAGES; i++) {
  const key = `/page/${i}\n`;
  keys.push(key);
  store.set({
    key,
    primary: key,
    target: targetOf(key),
    varyNames: [],
    tags: [],
    status: 200,
    // the headers an Express page sends
    headers: {
      'x-powered-by': 'Express',
      'cache-control': 'public, s-maxage=60, stale-while-revalidate=600',
      'content-type': 'text/html; charset=utf-8',
      etag: 'W/"5000-1a2b3c4d"',
    },
    body,
    length: String(body.length),
    etag: 'W/"5000-1a2b3c4d"',
    storedAt: now,
    freshUntil: now + 60_000,
    swrUntil: now + 660_000,
    sieUntil: now,
    expiresAt: now + 660_000,
    size: body.length + 400,
  });
}

let sink = 0;
const variants = {
  hot: () => {
    for (let i = 0; i < GETS; i++) sink += store.get(keys[0]).body.length;
  },
  cold: () => {
    for (let i = 0; i < GETS; i++) sink += store.get(keys[i % PAGES]).body.length;
  },
};
const samples = { hot: [], cold: [] };
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 ? ['cold', 'hot'] : ['hot', 'cold'];
  for (const name of order) {
    const t0 = process.hrtime.bigint();
    variants[name]();
    samples[name].push(Number(process.hrtime.bigint() - t0) / GETS);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const machine = describeMachine();
console.log(`${machine.cpu} (${machine.cpus} CPUs), Node ${process.version}; ${describeSimd(machine)}`);
for (const name of Object.keys(samples))
  console.log(
    `${name.padEnd(5)} ns/get: ${samples[name].map((x) => x.toFixed(0)).join(' ')}  median ${median(samples[name]).toFixed(0)}`,
  );
console.log(`cold / hot: ${(median(samples.cold) / median(samples.hot)).toFixed(1)}x`);
if (sink === 0) throw new Error('no bytes read');
