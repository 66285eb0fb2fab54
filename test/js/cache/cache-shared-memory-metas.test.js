'use strict';
// sharedMemoryStore keeps the checked metadata of the writes it read (no bodies); a later read of
// the same write joins it to a fresh copy of the body: the entry it makes is the one a first read
// (parsed and checked) makes, field for field.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { CacheEngine } = require('../../../lib/cache/engine');
const { sharedMemoryStore } = require('../../../lib/express/cache');
const { testSegments } = require('../helpers/shm-segments');

const PREFIX = `metas-${process.pid}`;
const { dir, fresh } = testSegments(PREFIX);

const HEADERS = { 'cache-control': 'public, max-age=600', 'content-type': 'text/html' };
const request = (i) => ({ method: 'GET', url: `/p/${i}`, headers: { host: 'shop.example' } });
const segmentOf = (store) => store[Symbol.for('ssr-native.cache.layers')].memory.segment;

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
