'use strict';
// BoundedLru (lib/bounded/lru.js) against models, over seeded random operations:
// - a cache of at most MAX_REPLACEMENTS entries against an exact LRU (a Map reordered on every
//   hit): the same keys after every step, the same victims in the same order (onEvict), bytes and
//   every counter exact, admission as specified;
// - a larger cache, whose victims the model takes from the cache itself: the bounds hold after
//   every step, an eviction happens only when a bound requires it (keeping any one victim would
//   break one), never of the entry being stored, and the counters are exact;
// - a walk: every key hit since the cache was filled survives as many new keys as the cache has
//   other entries, and exactly the others go.
const test = require('node:test');
const assert = require('node:assert/strict');
const { BoundedLru, MAX_REPLACEMENTS } = require('../../../lib/bounded/lru');
const { mulberry32 } = require('../helpers/seeded-random');

// The exact LRU the small cache must match: a Map in use order, least recent first.
class ExactLru {
  constructor(maxEntries, maxBytes) {
    Object.assign(this, { maxEntries, maxBytes, bytes: 0, map: new Map(), seenOnce: new Map() });
    Object.assign(this, { hits: 0, misses: 0, evictions: 0, admissions: 0, rejections: 0, evicted: [] });
  }
  get(key) {
    const e = this.map.get(key);
    if (e === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.map.delete(key);
    this.map.set(key, e);
    return e.value;
  }
  set(key, value, size) {
    if (size > this.maxBytes || this.maxEntries === 0) return false;
    this.delete(key);
    this.seenOnce.delete(key);
    while (this.map.size > 0 && (this.bytes + size > this.maxBytes || this.map.size >= this.maxEntries)) {
      const [oldest, e] = this.map.entries().next().value;
      this.delete(oldest);
      this.evictions++;
      this.evicted.push([oldest, e.value]);
    }
    this.map.set(key, { value, size });
    this.bytes += size;
    this.admissions++;
    return true;
  }
  delete(key) {
    const e = this.map.get(key);
    if (e === undefined) return false;
    this.map.delete(key);
    this.bytes -= e.size;
    return true;
  }
  sighted(key) {
    if (this.seenOnce.delete(key)) return true;
    if (this.seenOnce.size >= this.maxEntries) {
      if (this.maxEntries === 0) return false;
      this.seenOnce.delete(this.seenOnce.keys().next().value);
    }
    this.seenOnce.set(key, true);
    return false;
  }
  admits(key, size, seenBefore) {
    if (seenBefore) return true;
    const old = this.map.get(key);
    const bytes = this.bytes - (old ? old.size : 0);
    const entries = this.map.size - (old ? 1 : 0);
    if (bytes + size <= this.maxBytes && entries < this.maxEntries) return true;
    this.rejections++;
    return false;
  }
  clear() {
    this.map.clear();
    this.seenOnce.clear();
    this.bytes = 0;
  }
}

function counters(c) {
  const { hits, misses, evictions, admissions, rejections } = c;
  return { hits, misses, evictions, admissions, rejections };
}

for (const seed of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) {
  test(`a cache of at most ${MAX_REPLACEMENTS} entries is an exact LRU (seed ${seed})`, () => {
    const random = mulberry32(seed);
    const int = (n) => Math.floor(random() * n);
    const maxEntries = 1 + int(MAX_REPLACEMENTS);
    const maxBytes = 50 + int(2000);
    const evicted = [];
    const lru = new BoundedLru({ maxEntries, maxBytes, onEvict: (key, value) => evicted.push([key, value]) });
    const model = new ExactLru(maxEntries, maxBytes);
    const keys = Array.from({ length: 2 * maxEntries + 3 }, (_, i) => `k${i}`);
    const log = [];
    for (let step = 0; step < 3000; step++) {
      const key = keys[int(keys.length)];
      const r = random();
      let op;
      if (r < 0.45) {
        op = `get ${key}`;
        assert.equal(lru.get(key), model.get(key), op);
      } else if (r < 0.5) {
        op = `peek ${key}`;
        assert.equal(lru.peek(key), model.map.get(key)?.value, op);
      } else if (r < 0.75) {
        const size = random() < 0.05 ? maxBytes + 1 + int(10) : int(Math.ceil(maxBytes / 4));
        op = `set ${key} ${size}`;
        assert.equal(lru.set(key, `${key}@${step}`, size), model.set(key, `${key}@${step}`, size), op);
      } else if (r < 0.87) {
        const size = int(Math.ceil(maxBytes / 3));
        const [seen, seenModel] = [lru.sighted(key), model.sighted(key)];
        op = `sighted ${key} ${size} (${seen})`;
        assert.equal(seen, seenModel, op);
        const admitted = lru.admits(key, size, seen);
        assert.equal(admitted, model.admits(key, size, seenModel), op);
        if (admitted) assert.equal(lru.set(key, `${key}@${step}`, size), model.set(key, `${key}@${step}`, size), op);
      } else if (r < 0.99) {
        op = `delete ${key}`;
        assert.equal(lru.delete(key), model.delete(key), op);
      } else {
        op = 'clear';
        lru.clear();
        model.clear();
      }
      log.push(op);
      const where = `seed ${seed} (maxEntries ${maxEntries}, maxBytes ${maxBytes}), step ${step}:\n${log.slice(-6).join('\n')}`;
      assert.deepEqual([...lru.keys()].sort(), [...model.map.keys()].sort(), where);
      assert.deepEqual(evicted, model.evicted, `${where}\nvictims`);
      assert.equal(lru.size, model.map.size, where);
      assert.equal(lru.bytes, model.bytes, where);
      assert.deepEqual(counters(lru), counters(model), where);
      assert.deepEqual(lru.stats(), { ...counters(model), entries: model.map.size, bytes: model.bytes }, where);
    }
  });
}

for (const seed of [11, 12, 13, 14]) {
  test(`a large cache keeps its bounds, evicts only when due and counts exactly (seed ${seed})`, () => {
    const random = mulberry32(seed);
    const int = (n) => Math.floor(random() * n);
    const maxEntries = 300 + int(300);
    const maxBytes = 20_000 + int(20_000);
    const evicted = [];
    const lru = new BoundedLru({ maxEntries, maxBytes, onEvict: (key, value) => evicted.push([key, value]) });
    const model = new Map(); // key -> { value, size }
    const count = { hits: 0, misses: 0, evictions: 0, admissions: 0, rejections: 0 };
    const keys = Array.from({ length: 3 * maxEntries }, (_, i) => `k${i}`);
    for (let step = 0; step < 20_000; step++) {
      const key = keys[int(keys.length)];
      const where = `seed ${seed} (maxEntries ${maxEntries}, maxBytes ${maxBytes}), step ${step}, key ${key}`;
      const r = random();
      if (r < 0.6) {
        const want = model.get(key)?.value;
        assert.equal(lru.get(key), want, where);
        if (want === undefined) count.misses++;
        else count.hits++;
      } else if (r < 0.95) {
        const size = int(400);
        const value = `${key}@${step}`;
        assert.equal(lru.set(key, value, size), true, where);
        count.admissions++;
        model.delete(key);
        const victims = evicted.splice(0);
        const victimSizes = [];
        for (const [victim, value] of victims) {
          assert.equal(model.get(victim)?.value, value, `${where}: evicted ${victim} with its value`);
          victimSizes.push(model.get(victim).size);
          model.delete(victim);
          count.evictions++;
        }
        assert.ok(!victims.some(([victim]) => victim === key), `${where}: the entry stored was evicted`);
        assert.ok(
          [...model.keys()].every((k) => lru.has(k)),
          `${where}: evicted without onEvict`,
        );
        model.set(key, { value, size });
        const bytes = [...model.values()].reduce((n, e) => n + e.size, 0);
        assert.ok(bytes <= maxBytes && model.size <= maxEntries, `${where}: bounds`);
        if (victims.length > 0)
          assert.ok(
            bytes + Math.max(...victimSizes) > maxBytes || model.size + 1 > maxEntries,
            `${where}: evicted early`,
          );
      } else {
        assert.equal(lru.delete(key), model.delete(key), where);
      }
      assert.equal(evicted.length, 0, `${where}: onEvict outside set`);
      assert.equal(lru.size, model.size, where);
      assert.deepEqual(counters(lru), count, where);
      assert.equal(
        lru.bytes,
        [...model.values()].reduce((n, e) => n + e.size, 0),
        where,
      );
    }
  });
}

test('every victim of a store was due: keeping any one of them would break a bound', () => {
  const random = mulberry32(21);
  for (let round = 0; round < 300; round++) {
    const maxEntries = 40 + Math.floor(random() * 40);
    const maxBytes = 2000 + Math.floor(random() * 2000);
    const victims = [];
    const lru = new BoundedLru({ maxEntries, maxBytes, onEvict: (key, value) => victims.push(value) });
    for (let i = 0; i < 3 * maxEntries; i++) {
      victims.length = 0;
      const size = Math.floor(random() * 300);
      lru.set(`k${i}`, size, size);
      if (random() < 0.5) lru.get(`k${Math.floor(random() * i)}`);
      const where = `round ${round}, store ${i}: victims ${victims}, bytes ${lru.bytes}/${maxBytes}, entries ${lru.size}/${maxEntries}`;
      assert.ok(lru.bytes <= maxBytes && lru.size <= maxEntries, where);
      if (victims.length > 0)
        assert.ok(lru.bytes + Math.max(...victims) > maxBytes || lru.size + 1 > maxEntries, where);
    }
  }
});

for (const seed of [31, 32, 33]) {
  test(`keys hit since the cache filled survive a walk of new keys; exactly the others go (seed ${seed})`, () => {
    const random = mulberry32(seed);
    const n = 5000;
    const lru = new BoundedLru({ maxEntries: n });
    for (let i = 0; i < n; i++) lru.set(`old${i}`, i);
    const hit = new Set();
    while (hit.size < MAX_REPLACEMENTS) hit.add(`old${Math.floor(random() * n)}`);
    for (const key of hit) assert.equal(lru.get(key), Number(key.slice(3)));
    for (let i = 0; i < n - hit.size; i++) lru.set(`new${i}`, i);
    const survivors = [...lru.keys()].filter((key) => key.startsWith('old'));
    assert.deepEqual(survivors.sort(), [...hit].sort(), `seed ${seed}`);
    assert.equal(lru.evictions, n - hit.size);
    // and the next new key evicts the least recently used: the first key hit
    lru.set('one-more', 0);
    assert.equal(lru.has([...hit][0]), false, `seed ${seed}`);
  });
}

test('a hit on a key stored long ago keeps it ahead of keys stored since', () => {
  const lru = new BoundedLru({ maxEntries: 3 });
  lru.set('a', 1);
  lru.set('b', 2);
  lru.set('c', 3);
  lru.get('a');
  lru.set('d', 4); // b is the least recently used
  assert.deepEqual([...lru.keys()].sort(), ['a', 'c', 'd']);
});

test('sizes: an entry larger than maxBytes is refused and changes nothing; maxEntries 0 stores nothing', () => {
  const lru = new BoundedLru({ maxEntries: 10, maxBytes: 100 });
  assert.equal(lru.set('a', 1, 60), true);
  assert.equal(lru.set('a', 2, 101), false);
  assert.equal(lru.peek('a'), 1);
  assert.equal(lru.bytes, 60);
  assert.equal(lru.set('b', 3, 50), true); // evicts a: 110 > 100
  assert.deepEqual([...lru.keys()], ['b']);
  assert.deepEqual(counters(lru), { hits: 0, misses: 0, evictions: 1, admissions: 2, rejections: 0 });
  const none = new BoundedLru({ maxEntries: 0 });
  assert.equal(none.set('a', 1), false);
  assert.equal(none.sighted('a'), false);
  assert.equal(none.sighted('a'), false, 'remembers nothing either');
  assert.equal(none.size, 0);
});

test(`after hits on every entry of a full cache of ${MAX_REPLACEMENTS}, stores evict in the order of the hits`, () => {
  const random = mulberry32(41);
  const lru = new BoundedLru({ maxEntries: MAX_REPLACEMENTS });
  const keys = Array.from({ length: MAX_REPLACEMENTS }, (_, i) => `k${i}`);
  for (const key of keys) lru.set(key, key);
  const order = [...keys].sort(() => random() - 0.5);
  for (const key of order) lru.get(key);
  const victims = [];
  lru.onEvict = (key) => victims.push(key);
  for (let i = 0; i < MAX_REPLACEMENTS; i++) lru.set(`new${i}`, i);
  assert.deepEqual(victims, order);
});

test('looked up with peek only, it is first in first out: the same keys and victims as a Map in insertion order', () => {
  for (const seed of [1, 2, 3]) {
    const random = mulberry32(seed);
    const maxEntries = 3 * MAX_REPLACEMENTS;
    const maxBytes = 40 * maxEntries;
    const evicted = [];
    const lru = new BoundedLru({ maxEntries, maxBytes, onEvict: (key) => evicted.push(key) });
    const model = new Map(); // key -> size, oldest set first
    const modelEvicted = [];
    let modelBytes = 0;
    for (let step = 0; step < 5000; step++) {
      const key = Math.floor(random() * 4 * maxEntries);
      const where = `seed ${seed}, step ${step}, key ${key}`;
      if (random() < 0.5) {
        assert.equal(lru.peek(key), model.has(key) ? `v${key}` : undefined, where);
        continue;
      }
      const size = Math.floor(random() * 100);
      if (model.has(key)) modelBytes -= model.get(key);
      model.delete(key);
      for (const [oldest, bytes] of model) {
        if (model.size < maxEntries && modelBytes + size <= maxBytes) break;
        model.delete(oldest);
        modelBytes -= bytes;
        modelEvicted.push(oldest);
      }
      model.set(key, size);
      modelBytes += size;
      lru.set(key, `v${key}`, size);
      assert.deepEqual([...lru.keys()], [...model.keys()], where);
      assert.deepEqual(evicted, modelEvicted, where);
      assert.equal(lru.bytes, modelBytes, where);
    }
    assert.deepEqual(
      [...lru.values()],
      [...model.keys()].map((key) => `v${key}`),
      `seed ${seed}`,
    );
  }
});
