'use strict';
// sharedMemoryStore's hot copies are checked against the segment's index slots read straight
// from the mapping (the stamp table), without a native call: a hot copy is served only while its
// write is the one stored, never while its slot is being written, and a hit through the table
// marks the slot used as a native hit does (CLOCK's reference bit).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { CacheEngine } = require('../../../lib/cache/engine');
const { sharedMemoryStore } = require('../../../lib/express/cache');
const { mulberry32 } = require('../helpers/seeded-random');
const { testSegments } = require('../helpers/shm-segments');

const PREFIX = `stamps-${process.pid}`;
const { dir, fresh } = testSegments(PREFIX);

const HEADERS = { 'cache-control': 'public, max-age=600', 'content-type': 'text/html' };
const request = (i) => ({ method: 'GET', url: `/p/${i}`, headers: { host: 'shop.example' } });
const segmentOf = (store) => store[Symbol.for('ssr-native.cache.layers')].memory.segment;

// Asks page i: 'hit' (its body returned) or 'fill' (stored with `body`).
function ask(engine, i, body) {
  const d = engine.begin(request(i));
  if (d.action === 'hit') return d.entry.body.toString();
  assert.equal(d.action, 'fill', `page ${i}: ${d.action}`);
  engine.store(d.fill, engine.admit(d.fill, 200, HEADERS), HEADERS, Buffer.from(body));
  return 'fill';
}

// Counts the native look-ups a store makes (its addon object seen through a proxy).
function countGets(store) {
  const segment = segmentOf(store);
  const native = segment.native;
  const counter = { n: 0 };
  const get = (...args) => (counter.n++, native.get(...args));
  segment.native = new Proxy(native, {
    get: (target, name) =>
      name === 'get' ? get : typeof target[name] === 'function' ? target[name].bind(target) : target[name],
  });
  return counter;
}

function pair(t) {
  const name = fresh();
  const reader = sharedMemoryStore({ name, dir, maxBytes: 8 << 20, hotBytes: 1 << 20 });
  const writer = sharedMemoryStore({ name, dir, maxBytes: 8 << 20 }); // another process's view
  t.after(() => fs.rmSync(reader.file, { force: true }));
  return { reader, writer, a: new CacheEngine({ store: reader }), b: new CacheEngine({ store: writer }) };
}

test('a hot copy is served only while its write is stored: seeded rewrites, deletes and purges by another process', (t) => {
  const seed = Number(process.env.SEED || 0x57a4b);
  const random = mulberry32(seed);
  const { reader, a, b } = pair(t);
  const pages = 12;
  const model = new Map(); // page -> the body stored now
  let version = 0;
  let hits = 0;
  for (let n = 0; n < 3000; n++) {
    const i = Math.floor(random() * pages);
    const op = random();
    const what = `seed ${seed}, step ${n}, page ${i}`;
    if (op < 0.05) {
      // the other process writes the page anew
      b.memory.delete(b.primaryOf(request(i)));
      const body = `page ${i} v${++version} by b`;
      assert.equal(ask(b, i, body), 'fill', what);
      model.set(i, body);
    } else if (op < 0.08) {
      b.memory.delete(b.primaryOf(request(i)));
      model.delete(i);
    } else if (op < 0.09) {
      b.memory.clear(); // a purge of everything
      model.clear();
    } else {
      const body = `page ${i} v${++version} by a`;
      const got = ask(a, i, body);
      if (model.has(i)) {
        assert.equal(got, model.get(i), `${what}: the body stored now`);
        hits++;
      } else {
        assert.equal(got, 'fill', `${what}: deleted, so rendered`);
        model.set(i, body);
      }
    }
  }
  assert.ok(hits > 2000, `seed ${seed}: ${hits} hits`);
  assert.ok(reader.stats().hotEntries > 0, `seed ${seed}: the hot set was used`);
});

test('a hit on a hot copy makes no native call; one on a slot being written is not served from it', (t) => {
  const { reader, a } = pair(t);
  assert.equal(ask(a, 1, 'page 1'), 'fill');
  for (let n = 0; n < 3; n++) assert.equal(ask(a, 1, 'again'), 'page 1'); // now hot
  const gets = countGets(reader);
  for (let n = 0; n < 10; n++) assert.equal(ask(a, 1, 'again'), 'page 1');
  assert.equal(gets.n, 0, 'hot hits read the stamp table, not the segment through the addon');

  // the slot caught mid-write (its sequence odd): the copy is not served, the segment is asked
  const segment = segmentOf(reader);
  const table = segment.table;
  const slot = segment.hot.peek(a.primaryOf(request(1))).slot;
  const at = slot * table.slotWords + table.seq;
  const before = table.words[at];
  table.words[at] = before + 1;
  assert.equal(ask(a, 1, 'rendered while written'), 'fill', 'a slot being written is a miss');
  assert.ok(gets.n > 0);
  table.words[at] = before;
});

test('a hit through the stamp table marks the slot used (the reference bit eviction reads)', (t) => {
  const { reader, a } = pair(t);
  assert.equal(ask(a, 2, 'page 2'), 'fill');
  for (let n = 0; n < 3; n++) ask(a, 2, 'again');
  const segment = segmentOf(reader);
  const table = segment.table;
  const ref = segment.hot.peek(a.primaryOf(request(2))).slot * table.slotBytes + table.ref;
  table.refs[ref] = 0; // as the eviction hand leaves it
  const gets = countGets(reader);
  assert.equal(ask(a, 2, 'again'), 'page 2');
  assert.equal(gets.n, 0);
  assert.equal(table.refs[ref], 1);
});

test("varyOf()'s look-up handed to get() is used only while its write is stored, hot or not", (t) => {
  const { reader, a, b } = pair(t);
  const store = a.memory; // what begin() asks: varyOf(primary), then get(key)
  for (const [i, asks] of [
    [3, 4], // hot by then: checked through the slot's sequence word
    [4, 1], // read once: a fresh copy, checked through its stamp
  ]) {
    assert.equal(ask(a, i, `page ${i}`), 'fill');
    for (let n = 0; n < asks; n++) assert.equal(ask(a, i, 'again'), `page ${i}`);
    const key = a.primaryOf(request(i));
    assert.equal(segmentOf(reader).hot.has(key), i === 3);
    assert.equal(store.varyOf(key), undefined);
    // another process rewrites the page between the two look-ups (a request that went no further)
    b.memory.delete(key);
    assert.equal(ask(b, i, `page ${i} rewritten`), 'fill');
    assert.equal(store.get(key).body.toString(), `page ${i} rewritten`, `page ${i}: the write stored now`);
    assert.equal(store.varyOf(key), undefined);
    b.memory.delete(key);
    assert.equal(store.get(key), undefined, `page ${i}: deleted meanwhile`);
  }
});
