'use strict';
// Does a cache hit cost the same in a large cache as in a small one? For the response cache's
// memory store (MemoryStore.get) and the compression content cache (ContentCache.encodeNow on a
// stored body), one filled with 100 entries and one with 50,000, in one process.
//
// The property needs the same work asked of both sizes, so each access pattern names the same
// number of distinct keys in the same order at both sizes; only the cache around them differs:
//   one   one key hit again and again (a popular page)
//   set   100 keys hit in a fixed, seeded shuffled order (a site's popular pages): every key of
//         the 100-entry cache, every 500th of the 50,000-entry one, so both read 100 entries'
//         data and the large cache adds only what its size costs (a larger hash table, entries
//         spread over more memory, the eviction heap)
// and, for information (not the property: it reads 50 times more data at 50,000 by design),
//   walk  every key once per lap, 1,000 against 50,000 entries (a crawler)
//
// A plain Map of the same keys is measured the same way: the part of a ratio V8's Map itself
// costs at that size (its hash table and the entries spread over more memory), which no cache
// indexed by a Map can go below.
//
// Measurement: after warm-up rounds, every round takes the CPU time (not wall time: on a shared
// machine a preempted batch would count another process's turn) of hits on the small cache and
// on the large one in short ABBA cycles (small, large, large, small, then the other way round),
// and the ratio large / small of that round's totals, so what moves during a round (other load,
// the CPU's caches, V8's helper threads on the same pinned CPU) moves both sides alike.
// Reported: the median of the per-round ratios with its interquartile range and min-max, and
// the median CPU ns per hit of each variant. 1.00x when a hit's cost does not grow with the cache.
//
// Usage: taskset -c 1 node bench/http/micro/cache-hit-scaling.js [--rounds N] [--before <lib>]
//   --before: also measure the lib/ of another checkout (its build/ holding the addon), in the
//   same rounds: before/after in one run.
const path = require('path');
const { describeMachine, describeSimd } = require(path.join(__dirname, '..', 'lib', 'cpu'));

const SMALL = 100;
const MID = 1000;
const LARGE = 50_000;
const SET_KEYS = 100;
const WARM_ROUNDS = 5;
const BODY_BYTES = 1024;

function argValue(name, fallback) {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
}
const ROUNDS = Number(argValue('--rounds', 41));
if (!Number.isSafeInteger(ROUNDS) || ROUNDS < 3) throw new RangeError('--rounds takes a whole number >= 3');

function libs() {
  const out = [['after', path.join(__dirname, '..', '..', '..', 'lib')]];
  const before = argValue('--before', undefined);
  if (before !== undefined) out.unshift(['before', path.resolve(before)]);
  return out;
}

// mulberry32: the seeded order of the `set` pattern, the same at both sizes
function shuffled(n, seed) {
  let a = seed >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
const SET_ORDER = shuffled(SET_KEYS, 0x5eed);

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

// The floor any cache indexed by a Map has: V8's Map.get of the same keys, nothing else.
function plainMap(lib, size) {
  const map = new Map();
  const keys = [];
  for (let i = 0; i < size; i++) {
    const key = `/page/${i}\n`;
    keys.push(key);
    map.set(key, { length: i + 1 });
  }
  return { keys, hit: (key) => map.get(key).length };
}

const CACHES = [
  ['memory store', memoryStore],
  ['content cache', contentCache],
  ['plain Map (floor)', plainMap],
];
// A batch's CPU time: long against the CPU clock's granularity, short enough to interleave.
// Hits per batch are calibrated per pair, on its small side, before the warm-up.
const BATCH_NS = 2e7;
const SLICES = 8;

let sink = 0;
function batch(keys, hit, order) {
  return (hits) => {
    let at = 0;
    for (let i = 0; i < hits; i++) {
      sink += hit(keys[order[at]]);
      if (++at === order.length) at = 0;
    }
  };
}

// pairs: [label, small side's entries, small side, large side]
const pairs = [];
for (const [libName, lib] of libs()) {
  for (const [cacheName, make] of CACHES) {
    const small = make(lib, SMALL);
    const mid = make(lib, MID);
    const large = make(lib, LARGE);
    const stride = LARGE / SMALL;
    const all = (n) => Array.from({ length: n }, (_, i) => i);
    const label = `${libName} ${cacheName}`;
    pairs.push([`${label} one`, SMALL, batch(small.keys, small.hit, [0]), batch(large.keys, large.hit, [0])]);
    pairs.push([
      `${label} set`,
      SMALL,
      batch(small.keys, small.hit, SET_ORDER),
      batch(
        large.keys,
        large.hit,
        SET_ORDER.map((i) => i * stride),
      ),
    ]);
    pairs.push([`${label} walk`, MID, batch(mid.keys, mid.hit, all(MID)), batch(large.keys, large.hit, all(LARGE))]);
  }
}

// The process's CPU time per hit, in ns.
function timed(run, hits) {
  const t0 = process.cpuUsage();
  run(hits);
  const { user, system } = process.cpuUsage(t0);
  return ((user + system) * 1000) / hits;
}

// A full collection before each pair, outside the timing, then a short untimed run of both
// sides: the garbage a walk leaves (entries read from their blocks) would otherwise be collected
// during whichever batch comes next.
require('v8').setFlagsFromString('--expose-gc');
const gc = require('vm').runInNewContext('gc');

function calibrate(run) {
  for (let hits = 1000; ; hits *= 4) {
    const perHit = timed(run, hits);
    if (perHit * hits >= BATCH_NS / 4 || hits >= 1e7) return Math.max(100, Math.round(BATCH_NS / perHit));
  }
}

const hitsOf = pairs.map(([, , small]) => calibrate(small));
const results = pairs.map(() => ({ small: [], large: [], ratio: [] }));
for (let round = 0; round < WARM_ROUNDS + ROUNDS; round++) {
  for (let p = 0; p < pairs.length; p++) {
    const [, , small, large] = pairs[p];
    const hits = hitsOf[p];
    gc();
    // untimed: what the collection left to finish (lazy sweeping, the CPU's caches refilled) is
    // paid here, not by whichever side comes first
    small(hits >> 2);
    large(hits >> 2);
    // SLICES short ABBA cycles: preemption and other processes' use of the CPU's caches, which
    // come and go within a round, fall on both sides alike
    const slice = Math.max(1, Math.round(hits / SLICES));
    let s = 0;
    let l = 0;
    for (let k = 0; k < SLICES; k++) {
      if ((round + k) % 2 === 0) {
        s += timed(small, slice);
        l += timed(large, slice) + timed(large, slice);
        s += timed(small, slice);
      } else {
        l += timed(large, slice);
        s += timed(small, slice) + timed(small, slice);
        l += timed(large, slice);
      }
    }
    if (round < WARM_ROUNDS) continue;
    results[p].small.push(s / (2 * SLICES));
    results[p].large.push(l / (2 * SLICES));
    results[p].ratio.push(l / s);
  }
}

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const quantile = (xs, q) => {
  const s = sorted(xs);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (at - lo);
};
const ns = (x) => (x < 100 ? x.toFixed(1) : x.toFixed(0)).padStart(6);
const machine = describeMachine();
console.log(`${machine.cpu} (${machine.cpus} CPUs), Node ${process.version}; ${describeSimd(machine)}`);
console.log(`${ROUNDS} interleaved rounds after ${WARM_ROUNDS} warm-up rounds; ratio = large / small per round`);
for (let p = 0; p < pairs.length; p++) {
  const [label, smallSize] = pairs[p];
  const { small, large, ratio } = results[p];
  console.log(
    `${label.padEnd(30)} ${String(LARGE).padStart(6)} / ${String(smallSize).padEnd(5)} entries: ` +
      `median ${quantile(ratio, 0.5).toFixed(2)}x (IQR ${quantile(ratio, 0.25).toFixed(2)}-${quantile(ratio, 0.75).toFixed(2)}, ` +
      `min-max ${quantile(ratio, 0).toFixed(2)}-${quantile(ratio, 1).toFixed(2)}); ns/hit ${ns(quantile(small, 0.5))} / ${ns(quantile(large, 0.5))}`,
  );
}
if (sink === 0) throw new Error('no bytes read');
