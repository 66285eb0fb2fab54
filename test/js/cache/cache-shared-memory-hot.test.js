'use strict';
// sharedMemoryStore's per-process copies (the hot set: pages hit twice lately, kept beside the
// segment so a hit needs no copy) are bounded in bytes by `hotBytes`, whatever the pages' sizes,
// and reported in stats() as hotBytes and hotEntries; hotBytes 0 keeps none.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { CacheEngine } = require('../../../lib/cache/engine');
const { sharedMemoryStore } = require('../../../lib/express/cache');
const { HOT_BYTES } = require('../../../lib/cache/shared-memory-store');
const { mulberry32 } = require('../helpers/seeded-random');
const { testSegments } = require('../helpers/shm-segments');

const PREFIX = `hot-${process.pid}`;
const { dir, fresh } = testSegments(PREFIX);

const HEADERS = { 'cache-control': 'public, max-age=600', 'content-type': 'text/html' };
const request = (i) => ({ method: 'GET', url: `/p/${i}`, headers: { host: 'shop.example' } });
const page = (i, size) => Buffer.alloc(size, `page ${i} `);

// Asks for page i through the engine: a hit must carry the page's own body; a miss stores it.
function ask(engine, i, size) {
  const d = engine.begin(request(i));
  if (d.action === 'hit') {
    assert.ok(d.entry.body.equals(page(i, size)), `page ${i}: the body stored`);
    return 'hit';
  }
  assert.equal(d.action, 'fill', `page ${i}: ${d.action}`);
  const policy = engine.admit(d.fill, 200, HEADERS);
  engine.store(d.fill, policy, HEADERS, page(i, size));
  return 'fill';
}

test('the hot set never holds more than hotBytes, over a seeded mix of page sizes', (t) => {
  const seed = Number(process.env.SEED || 0x5eed54);
  const random = mulberry32(seed);
  const hotBytes = 1 << 20;
  const store = sharedMemoryStore({ name: fresh(), dir, maxBytes: 64 << 20, maxEntries: 4096, hotBytes });
  t.after(() => fs.rmSync(store.file, { force: true }));
  const engine = new CacheEngine({ store });
  const sizes = Array.from({ length: 200 }, () => 1 + Math.floor(random() ** 3 * 600000)); // 1 B to 600 KB
  let hits = 0;
  let mostEntries = 0;
  for (let n = 0; n < 3000; n++) {
    // a few pages asked often (they reach the hot set), the rest at random
    const i = random() < 0.5 ? Math.floor(random() * 8) : Math.floor(random() * sizes.length);
    if (ask(engine, i, sizes[i]) === 'hit') hits++;
    const stats = engine.stats();
    assert.ok(stats.hotBytes <= hotBytes, `seed ${seed}, step ${n}: ${stats.hotBytes} > ${hotBytes} hot bytes`);
    assert.deepEqual(store.stats().hotBytes, stats.hotBytes);
    mostEntries = Math.max(mostEntries, stats.hotEntries);
  }
  const hot = store[Symbol.for('ssr-native.cache.layers')].memory.segment.hot;
  let counted = 0;
  for (const key of hot.keys()) counted += hot.peek(key).value.size;
  assert.equal(engine.stats().hotBytes, counted, `seed ${seed}: hotBytes is the sum of the copies' sizes`);
  assert.equal(engine.stats().hotEntries, hot.size);
  assert.ok(hits > 1200, `seed ${seed}: ${hits} hits`);
  assert.ok(mostEntries >= 2, `seed ${seed}: the hot set was used (${mostEntries} entries at most)`);
});

test('a page larger than hotBytes is never copied; hotBytes 0 keeps no copy', (t) => {
  for (const hotBytes of [0, 50000]) {
    const store = sharedMemoryStore({ name: fresh(), dir, maxBytes: 8 << 20, hotBytes });
    t.after(() => fs.rmSync(store.file, { force: true }));
    const engine = new CacheEngine({ store });
    for (let n = 0; n < 6; n++) ask(engine, 1, 100000);
    for (let n = 0; n < 6; n++) ask(engine, 2, 100);
    assert.deepEqual(
      { hotBytes: store.stats().hotBytes > 0, hotEntries: store.stats().hotEntries },
      hotBytes === 0 ? { hotBytes: false, hotEntries: 0 } : { hotBytes: true, hotEntries: 1 },
      `hotBytes ${hotBytes}`,
    );
    assert.equal(engine.stats().hits, 10);
    assert.equal(engine.stats().sharedHits, 10, 'every hit served out of the segment counts');
  }
});

test('stats report hotBytes and hotEntries before the segment opens', () => {
  const store = sharedMemoryStore({ name: fresh(), dir });
  const engine = new CacheEngine({ store });
  assert.equal(store.stats().store, 'shared-memory (opens at first use)');
  assert.equal(store.stats().hotBytes, 0);
  assert.equal(store.stats().hotEntries, 0);
  assert.equal(store.stats().metaEntries, 0);
  assert.equal(store.stats().metaHits, 0);
  assert.equal(engine.stats().hotBytes, 0);
  assert.equal(engine.stats().hotEntries, 0);
  assert.equal(fs.existsSync(store.file), false);
});

test('hotBytes defaults to a 64th of the segment, at most 4 MiB', (t) => {
  assert.equal(HOT_BYTES, 4 * 1024 * 1024);
  for (const [maxBytes, expected] of [
    [64 << 20, 1 << 20],
    [1 << 30, HOT_BYTES],
    [4096, 64],
  ]) {
    const store = sharedMemoryStore({ name: fresh(), dir, maxBytes });
    t.after(() => fs.rmSync(store.file, { force: true }));
    new CacheEngine({ store }).begin(request(1)); // opens the segment
    assert.equal(store[Symbol.for('ssr-native.cache.layers')].memory.segment.hot.maxBytes, expected, `${maxBytes}`);
  }
});

test('hotBytes is validated', () => {
  for (const bad of ['1', 1.5, NaN, Infinity, null, 2 ** 60])
    assert.throws(() => sharedMemoryStore({ name: 'a', hotBytes: bad }), TypeError, String(bad));
  assert.throws(() => sharedMemoryStore({ name: 'a', hotBytes: -1 }), {
    name: 'RangeError',
    message: /options\.hotBytes/,
  });
  assert.throws(() => sharedMemoryStore({ name: 'a', hotbytes: 1 }), TypeError, 'a misspelt option');
  sharedMemoryStore({ name: 'a', hotBytes: 0 });
});

test('stats count the kept metadata and its reuse: one parse per write, again after a rewrite', (t) => {
  const seed = Number(process.env.SEED || 0x4d657461);
  const random = mulberry32(seed);
  const name = fresh();
  const store = sharedMemoryStore({ name, dir, maxBytes: 16 << 20, hotBytes: 0 }); // every hit reads the segment
  const other = sharedMemoryStore({ name, dir, maxBytes: 16 << 20, hotBytes: 0 }); // another process's view
  t.after(() => fs.rmSync(store.file, { force: true }));
  const engine = new CacheEngine({ store });
  const writer = new CacheEngine({ store: other });
  const pages = 20;
  const reads = new Array(pages).fill(0); // hits on each page since its last write
  const size = (i) => 100 + i * 37;
  let expected = 0;
  let rewrites = 0;
  for (let n = 0; n < 400; n++) {
    const i = Math.floor(random() * pages);
    if (random() < 0.05 && reads[i] > 0) {
      // another process writes the page anew (a new stamp): this one parses its metadata again
      writer.memory.delete(writer.primaryOf(request(i)));
      assert.equal(ask(writer, i, size(i)), 'fill', `seed ${seed}: page ${i} rewritten`);
      reads[i] = 0;
      rewrites++;
      continue;
    }
    if (ask(engine, i, size(i)) === 'hit') {
      if (reads[i] > 0) expected++; // the first read of a write parses, the later ones reuse it
      reads[i]++;
    }
    assert.equal(engine.stats().metaHits, expected, `seed ${seed}, step ${n}: metaHits`);
    assert.equal(store.stats().metaHits, expected, `seed ${seed}, step ${n}: the store's own stats`);
  }
  assert.ok(expected > 200 && rewrites > 3, `seed ${seed}: ${expected} reuses, ${rewrites} rewrites`);
  const stats = store.stats();
  const metas = engine.memory.segment.metas;
  let bytes = 0;
  for (const key of metas.keys()) bytes += metas._index.get(key).size;
  assert.ok(stats.metaEntries > 0 && stats.metaEntries <= pages, `seed ${seed}: ${stats.metaEntries} kept`);
  assert.equal(stats.metaEntries, metas.size);
  assert.equal(stats.metaBytes, bytes, `seed ${seed}: metaBytes is the sum of the kept sizes`);
  assert.equal(engine.stats().metaEntries, stats.metaEntries);
  assert.equal(engine.stats().metaBytes, stats.metaBytes);
});
