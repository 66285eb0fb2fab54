'use strict';
// sharedMemoryStore copies a body read from the segment into a slab (one allocation for many
// hits) and hands it out as a view there: a region is written once, so every body handed out
// stays the write it was read from while later hits fill the slab and the next ones; a hot copy
// gets a Buffer of its own, so the pages a process keeps hold no slab.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { CacheEngine } = require('../../../lib/cache/engine');
const { sharedMemoryStore } = require('../../../lib/express/cache');
const { mulberry32 } = require('../helpers/seeded-random');
const { segmentDir, leftovers } = require('../helpers/shm-segments');

const PREFIX = `slab-${process.pid}`;
const dir = segmentDir(PREFIX);
let seq = 0;
const fresh = () => `${PREFIX}-${++seq}`;

test.after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(leftovers(PREFIX), [], 'every segment made here is removed');
});

const HEADERS = { 'cache-control': 'public, max-age=600', 'content-type': 'text/html' };
const request = (i) => ({ method: 'GET', url: `/p/${i}`, headers: { host: 'shop.example' } });
const segmentOf = (store) => store[Symbol.for('ssr-native.cache.layers')].memory.segment;

// Asks page i: the body of a hit, or undefined (a fill, stored with `body`).
function ask(engine, i, body) {
  const d = engine.begin(request(i));
  if (d.action === 'hit') return d.entry.body;
  assert.equal(d.action, 'fill', `page ${i}: ${d.action}`);
  engine.store(d.fill, engine.admit(d.fill, 200, HEADERS), HEADERS, body);
  return undefined;
}

function bytes(random, n) {
  const out = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) out[i] = (random() * 256) | 0;
  return out;
}

test('every body handed out stays the write it was read from while later hits fill slabs: seeded rewrites by another process', (t) => {
  const seed = Number(process.env.SEED || 0x51ab);
  const random = mulberry32(seed);
  const name = fresh();
  // hotBytes 0: every hit is copied out of the segment
  const reader = sharedMemoryStore({ name, dir, maxBytes: 64 << 20, hotBytes: 0 });
  const writer = sharedMemoryStore({ name, dir, maxBytes: 64 << 20 }); // another process's view
  t.after(() => fs.rmSync(reader.file, { force: true }));
  const a = new CacheEngine({ store: reader });
  const b = new CacheEngine({ store: writer });
  const pages = 30;
  const stored = new Map(); // page -> the body stored now
  const handed = []; // [body handed out, a copy of what it was then, step]
  for (let n = 0; n < 1500; n++) {
    const i = Math.floor(random() * pages);
    // mostly small pages (many to a slab), some of a quarter slab and more (a Buffer of their own)
    const size = random() < 0.03 ? 200_000 + Math.floor(random() * 200_000) : 1 + Math.floor(random() * 24_000);
    const what = `seed ${seed}, step ${n}, page ${i}`;
    if (random() < 0.15 || !stored.has(i)) {
      b.memory.delete(b.primaryOf(request(i)));
      const body = bytes(random, size);
      assert.equal(ask(b, i, body), undefined, what);
      stored.set(i, body);
      continue;
    }
    const got = ask(a, i, Buffer.from('not stored'));
    assert.ok(got !== undefined, `${what}: a hit`);
    assert.ok(got.equals(stored.get(i)), `${what}: the body stored now`);
    handed.push([got, Buffer.from(got), n]);
  }
  for (const [body, then, n] of handed)
    assert.ok(body.equals(then), `seed ${seed}: the body handed out at step ${n} was written over later`);
  const slabs = new Set(handed.map(([body]) => body.buffer).filter((ab) => ab.byteLength === 1 << 20));
  const onSlabs = handed.filter(([body]) => slabs.has(body.buffer)).length;
  assert.ok(slabs.size > 3, `seed ${seed}: ${slabs.size} slabs filled`);
  assert.ok(onSlabs > handed.length / 2, `seed ${seed}: ${onSlabs} of ${handed.length} bodies on slabs`);
  assert.ok(handed.length > 1000, `seed ${seed}: ${handed.length} hits`);
});

test('a hot copy holds a Buffer of its own, not a slab', (t) => {
  const name = fresh();
  const store = sharedMemoryStore({ name, dir, maxBytes: 8 << 20 });
  t.after(() => fs.rmSync(store.file, { force: true }));
  const a = new CacheEngine({ store });
  const body = Buffer.alloc(30_000, 'h');
  assert.equal(ask(a, 1, body), undefined);
  const first = ask(a, 1); // copied into the slab
  const slab = first.buffer;
  assert.equal(slab.byteLength, 1 << 20, 'a hit not kept is a view on the slab');
  for (let n = 0; n < 3; n++) assert.ok(ask(a, 1).equals(body));
  const hot = segmentOf(store).hot.peek(a.primaryOf(request(1)));
  assert.ok(hot !== undefined, 'page 1 is kept');
  assert.ok(hot.value.body.equals(body));
  assert.notEqual(hot.value.body.buffer, slab, 'the kept page holds no slab');
  assert.ok(hot.value.body.buffer.byteLength < 1 << 20, 'the kept page holds no slab');
});

test("an entry made from this process's checked metadata is the entry a first read makes", (t) => {
  const name = fresh();
  const store = sharedMemoryStore({ name, dir, maxBytes: 8 << 20, hotBytes: 0 });
  t.after(() => fs.rmSync(store.file, { force: true }));
  const segment = () => segmentOf(store);
  const a = new CacheEngine({ store });
  const headers = { ...HEADERS, etag: '"v1"', 'last-modified': new Date(0).toUTCString() };
  const d = a.begin(request(5));
  a.store(d.fill, a.admit(d.fill, 200, headers), headers, Buffer.from('page 5'));
  const key = a.primaryOf(request(5));
  segment().metas.clear();
  const first = segment().get(key); // parsed and checked
  const metaHits = store.stats().metaHits;
  const second = segment().get(key); // the checked metadata kept, with a fresh copy of the body
  assert.equal(store.stats().metaHits, metaHits + 1, 'the second read took the kept metadata');
  assert.notEqual(first.body, second.body);
  assert.deepEqual(Reflect.ownKeys(second), Reflect.ownKeys(first));
  assert.deepEqual({ ...second, body: 0 }, { ...first, body: 0 });
  assert.ok(second.body.equals(first.body));
});
