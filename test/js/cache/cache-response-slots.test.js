'use strict';
// The response cache's native entry blocks (ResponseSlots) from JavaScript: what goes in comes
// back, a body Buffer keeps its block alive until collected, reads that must not keep a dropped
// block alive do not, and hostile arguments get TypeError / RangeError.
const test = require('node:test');
const assert = require('node:assert/strict');
const v8 = require('node:v8');
const vm = require('node:vm');
const { ResponseSlots } = require('../../../lib/native');
const { MemoryStore } = require('../../../lib/cache/memory-store');

// a full collection on demand: Bun's own call, or V8's gc() exposed at run time
const gc =
  process.versions.bun !== undefined
    ? () => globalThis.Bun.gc(true)
    : (v8.setFlagsFromString('--expose-gc'), vm.runInNewContext('gc'));
const settle = () => new Promise((resolve) => setImmediate(resolve)); // napi finalizers run after the GC

test('a slot gives back its metadata string and body bytes; an empty slot gives undefined', () => {
  const slots = new ResponseSlots();
  const meta = JSON.stringify({ key: '/é\n', status: 200, headers: { 'x-a': 'ü' } });
  const body = Buffer.from('<p>hello</p>');
  const id = slots.put(meta, body);
  assert.equal(slots.metadata(id), meta);
  assert.deepEqual(slots.body(id), body);
  assert.equal(slots.count(), 1);
  assert.equal(slots.bytes(), 4 + Buffer.byteLength(meta) + body.length);
  body.fill(0); // the slot holds a copy
  assert.equal(slots.body(id).toString(), '<p>hello</p>');
  assert.equal(slots.remove(id), true);
  assert.equal(slots.remove(id), false);
  assert.equal(slots.metadata(id), undefined);
  assert.equal(slots.body(id), undefined);
  assert.equal(slots.body(12345), undefined);
  const empty = slots.put('', Buffer.alloc(0));
  assert.equal(slots.metadata(empty), '');
  assert.equal(slots.body(empty).length, 0);
});

test('hostile arguments get TypeError or RangeError, never an abort', () => {
  const slots = new ResponseSlots();
  for (const id of [-1, 1.5, NaN, Infinity, 2 ** 32, -0.5]) assert.throws(() => slots.body(id), RangeError, String(id));
  for (const id of ['1', undefined, null, {}, 1n]) assert.throws(() => slots.metadata(id), TypeError, String(id));
  assert.throws(() => slots.put(Buffer.from('{}'), Buffer.alloc(1)), TypeError);
  assert.throws(() => slots.put('{}', 42), TypeError);
  assert.throws(() => slots.put('{}'), TypeError);
  assert.throws(() => slots.remove(-1), RangeError);
});

async function collect() {
  for (let i = 0; i < 3; i++) {
    gc();
    await settle();
  }
}

test('a body Buffer keeps its block alive after the slot is removed, and releases it once collected', async () => {
  await collect(); // earlier tests' garbage
  const slots = new ResponseSlots();
  const id = slots.put('{}', Buffer.alloc(100_000, 'x'));
  const held = { body: slots.body(id) };
  slots.remove(id);
  slots.put('{}', Buffer.alloc(100_000, 'y')); // reuses the id
  assert.equal(held.body.length, 100_000);
  assert.equal(held.body[0], 'x'.charCodeAt(0));
  assert.equal(held.body[99_999], 'x'.charCodeAt(0));
  // Bun's collector scans the stack conservatively, so when it collects one given Buffer is not
  // for a test to decide: the release is checked under V8 only
  if (process.versions.bun !== undefined) return;
  const alive = ResponseSlots.blocksAlive();
  delete held.body;
  await collect();
  assert.equal(ResponseSlots.blocksAlive(), alive - 1);
});

test('evictions and purges read metadata without making Buffers: dropped blocks do not wait for a GC', async () => {
  await collect();
  // 2,000 stores into a cache of 10 entries: each store evicts one, reading its metadata
  const store = new MemoryStore({ maxBytes: 1 << 30, maxEntries: 10 });
  const alive = ResponseSlots.blocksAlive();
  const body = Buffer.alloc(20_000, 'p');
  for (let i = 0; i < 2000; i++) {
    const key = `/p/${i}\n`;
    store.set({
      key,
      primary: key,
      target: `/p/${i}`,
      varyNames: [],
      status: 200,
      headers: {},
      body,
      length: String(body.length),
      tags: ['t'],
      storedAt: 0,
      freshUntil: 1,
      swrUntil: 1,
      sieUntil: 1,
      expiresAt: 1,
      size: 20_100,
    });
  }
  assert.equal(store.purgeTag('t'), 10);
  assert.equal(store.entries.size, 0);
  assert.equal(ResponseSlots.blocksAlive(), alive, 'every evicted or purged block freed at once');
});

test('hot entries (the store keeps the last ones hit, with their body Buffers) let go of their blocks once evicted, replaced, purged or cleared', async () => {
  // the store's own references are what is checked: Bun's conservative stack scan may keep any
  if (process.versions.bun !== undefined) return;
  await collect();
  const alive = ResponseSlots.blocksAlive();
  const store = new MemoryStore({ maxBytes: 1 << 30, maxEntries: 4 });
  const entry = (i, fill) => {
    const key = `/h/${i}\n`;
    const body = Buffer.alloc(10_000, fill);
    return {
      ...{ key, primary: key, target: `/h/${i}`, varyNames: [], status: 200, headers: {}, body },
      ...{ length: String(body.length), tags: [`t${i % 2}`], storedAt: 0, freshUntil: 1 },
      ...{ swrUntil: 1, sieUntil: 1, expiresAt: 1, size: 10_100 },
    };
  };
  const hitAll = () => {
    // each hit twice (the second hit keeps it): all hot now
    for (const key of [...store.entries.keys()]) {
      store.get(key);
      const kept = store.get(key);
      assert.ok(store.get(key) === kept);
    }
  };
  for (let i = 0; i < 4; i++) store.set(entry(i, 'a'));
  hitAll();
  store.set(entry(4, 'b')); // evicts /h/0
  store.set(entry(1, 'c')); // replaces /h/1
  assert.equal(store.get('/h/1\n').body[0], 'c'.charCodeAt(0), 'a replaced entry is not served from the hot set');
  hitAll();
  assert.equal(store.purgeTag('t0'), 2); // /h/2, /h/4
  await collect();
  assert.equal(ResponseSlots.blocksAlive(), alive + 2, 'only the two stored entries hold blocks');
  hitAll();
  store.clear();
  await collect();
  assert.equal(ResponseSlots.blocksAlive(), alive, 'every block freed');
});
