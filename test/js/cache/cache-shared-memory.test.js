'use strict';
// sharedMemoryStore in one process: two stores of one name are two mappings of one segment (as
// two workers); a segment holding garbage is rebuilt, never trusted (one planted by someone else:
// cache-shared-memory-squat.test.js); entries written into the segment by hand that are not
// valid are refused and deleted; hostile options are TypeErrors/RangeErrors.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const express = require('express');
const { responseCache, sharedMemoryStore } = require('../../../lib/express/cache');
const { SharedCache } = require('../../../lib/native');
const { segmentDir, leftovers } = require('../helpers/shm-segments');
const { mulberry32 } = require('../helpers/seeded-random');

const PREFIX = `unit-${process.pid}`;
const dir = segmentDir(PREFIX);
let seq = 0;
const fresh = () => `${PREFIX}-${++seq}`;
const file = (name) => `${dir}/ssr-native-cache-${name}`;

test.after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(leftovers(PREFIX), [], 'every segment made here is removed');
});

function serve(store) {
  let renders = 0;
  const app = express();
  const cache = responseCache({ store });
  app.use(cache);
  app.get('/p/:id', (req, res) => {
    renders++;
    res.set('cache-control', 'public, max-age=600');
    res.set('cache-tag', `t-${req.params.id}`);
    res.send(`page ${req.params.id} render ${renders}`);
  });
  return new Promise((resolve) => {
    const server = http
      .createServer(app)
      .listen(0, '127.0.0.1', () =>
        resolve({ server, cache, store, port: server.address().port, renders: () => renders }),
      );
  });
}

function get(port, url) {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: url, agent: false, headers: { host: 'shop.example' } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode, body, headers: res.headers }));
      })
      .setTimeout(10000, function () {
        this.destroy(new Error(`GET ${url}: no complete answer in 10 s`));
      })
      .on('error', reject);
  });
}

test('two stores of one name share entries, purges and the hot set stays current', async (t) => {
  const name = fresh();
  t.after(() => fs.rmSync(file(name), { force: true }));
  const a = await serve(sharedMemoryStore({ name, dir, maxBytes: 1 << 20 }));
  const b = await serve(sharedMemoryStore({ name, dir, maxBytes: 1 << 20 }));
  t.after(() => (a.server.close(), b.server.close()));
  assert.equal((await get(a.port, '/p/1')).body, 'page 1 render 1');
  for (let i = 0; i < 4; i++) assert.equal((await get(b.port, '/p/1')).body, 'page 1 render 1'); // hot in b
  assert.equal(b.renders(), 0);
  await a.cache.purgeTag('t-1');
  // hot in b, purged through a: b renders it anew on its very next request
  assert.equal((await get(b.port, '/p/1')).body, 'page 1 render 1');
  assert.equal(b.renders(), 1);
  assert.equal((await get(a.port, '/p/1')).body, 'page 1 render 1');
  assert.equal(a.renders(), 1);
  // rewritten (not purged) by a's process while hot in b: b serves the new write
  const layersOf = (store) => store[Symbol.for('ssr-native.cache.layers')].memory;
  const [key] = layersOf(a.store).segment.native.keys(0, '/p/1', false);
  for (let i = 0; i < 3; i++) assert.equal((await get(b.port, '/p/1')).body, 'page 1 render 1');
  const read = Object.fromEntries(Object.entries(layersOf(a.store).get(key))); // a new object, as stored pages are
  const entry = { ...read, body: Buffer.from('rewritten'), length: '9' };
  assert.ok(layersOf(a.store).set(entry));
  assert.equal((await get(b.port, '/p/1')).body, 'rewritten');
});

test('a segment of garbage is rebuilt; entries that are not valid are refused and deleted', async (t) => {
  const name = fresh();
  t.after(() => fs.rmSync(file(name), { force: true }));
  fs.writeFileSync(file(name), Buffer.alloc(1 << 16, 0xa5), { mode: 0o600 });
  const store = sharedMemoryStore({ name, dir, maxBytes: 1 << 20 });
  const a = await serve(store);
  t.after(() => a.server.close());
  assert.equal((await get(a.port, '/p/1')).body, 'page 1 render 1');
  // anyone of this user may write the segment: a foreign entry under the page's key
  const raw = new SharedCache(file(name), 1 << 20, 10000, true);
  const key = raw.keys(0, '/p/1', false)[0];
  const meta = JSON.parse(raw.get(key, 0, 0)[1]);
  meta.headers['x-injected'] = 'a\r\nset-cookie: session=stolen'; // not sendable: refused
  meta.key = key;
  raw.put(key, '/p/1', meta.primary, '', JSON.stringify(meta), Buffer.from('evil'), meta.expiresAt);
  const r = await get(a.port, '/p/1');
  assert.equal(r.body, 'page 1 render 2');
  assert.equal(r.headers['set-cookie'], undefined);
  assert.ok(store.stats().sharedInvalid >= 1);
});

// One byte of the segment flipped at `at` (through the file: the same pages the stores map).
function flipByte(path, at, bit) {
  const fd = fs.openSync(path, 'r+');
  try {
    const one = Buffer.alloc(1);
    fs.readSync(fd, one, 0, 1, at);
    one[0] ^= bit;
    fs.writeSync(fd, one, 0, 1, at);
  } finally {
    fs.closeSync(fd);
  }
}

test('a body changed in the segment after it was stored is a miss, never served', async (t) => {
  const seed = (Date.now() ^ process.pid) >>> 0;
  const random = mulberry32(seed);
  const name = fresh();
  t.after(() => fs.rmSync(file(name), { force: true }));
  const raw = new SharedCache(file(name), 1 << 20, 1000, false);
  for (let round = 0; round < 40; round++) {
    const body = Buffer.alloc(64 + Math.floor(random() * 30000));
    for (let i = 0; i < body.length; i++) body[i] = Math.floor(random() * 256);
    const key = `k${round}`;
    assert.ok(raw.put(key, '/t', key, '', '{}', body, 2 ** 40));
    const got = raw.get(key, 0, 0);
    assert.deepEqual(got[2], body, `seed ${seed}, round ${round}`);
    const at = fs.readFileSync(file(name)).indexOf(body);
    const offset = Math.floor(random() * body.length);
    const bit = 1 << Math.floor(random() * 8);
    const input = `seed ${seed}, round ${round}: ${body.length} bytes, bit ${bit} of byte ${offset} flipped`;
    assert.ok(at > 0, input);
    flipByte(file(name), at + offset, bit);
    assert.equal(raw.get(key, 0, 0), undefined, input);
    flipByte(file(name), at + offset, bit);
    assert.deepEqual(raw.get(key, 0, 0)[2], body, input);
  }
  // through the cache (no private copies: every hit reads the segment): rendered anew
  const store = sharedMemoryStore({ name: fresh(), dir, maxBytes: 1 << 20, hotBytes: 0 });
  t.after(() => fs.rmSync(store.file, { force: true }));
  const a = await serve(store);
  t.after(() => a.server.close());
  assert.equal((await get(a.port, '/p/7')).body, 'page 7 render 1');
  assert.equal((await get(a.port, '/p/7')).body, 'page 7 render 1');
  const at = fs.readFileSync(store.file).indexOf('page 7 render 1');
  flipByte(store.file, at + 5, 0x04); // '7' -> '3'
  assert.equal((await get(a.port, '/p/7')).body, 'page 7 render 2');
});

test('metadata checked once per write: a rewrite under the same key is checked anew', async (t) => {
  const name = fresh();
  t.after(() => fs.rmSync(file(name), { force: true }));
  const store = sharedMemoryStore({ name, dir, maxBytes: 1 << 20, hotBytes: 0 });
  const a = await serve(store);
  t.after(() => a.server.close());
  for (let i = 0; i < 3; i++) assert.equal((await get(a.port, '/p/1')).body, 'page 1 render 1');
  // another process rewrites the entry: a body of its own, then metadata that may not be sent
  const raw = new SharedCache(file(name), 1 << 20, 10000, true);
  const key = raw.keys(0, '/p/1', false)[0];
  const meta = JSON.parse(raw.get(key, 0, 0)[1]);
  raw.put(key, '/p/1', meta.primary, '', JSON.stringify(meta), Buffer.from('page 1 rewritten'), meta.expiresAt);
  for (let i = 0; i < 2; i++) assert.equal((await get(a.port, '/p/1')).body, 'page 1 rewritten');
  meta.headers['x-injected'] = 'a\r\nset-cookie: session=stolen';
  raw.put(key, '/p/1', meta.primary, '', JSON.stringify(meta), Buffer.from('evil'), meta.expiresAt);
  const r = await get(a.port, '/p/1');
  assert.equal(r.body, 'page 1 render 2');
  assert.equal(r.headers['set-cookie'], undefined);
  assert.equal(store.stats().sharedInvalid, 1);
});

test('hostile options are TypeErrors and RangeErrors', () => {
  assert.throws(() => sharedMemoryStore({ name: '../etc/x' }), TypeError);
  assert.throws(() => sharedMemoryStore({ name: 'a', dir: 'relative' }), TypeError);
  assert.throws(() => sharedMemoryStore({ name: 'a', maxBytes: 1 }), RangeError);
  assert.throws(() => sharedMemoryStore({ name: 'a', maxEntries: 0 }), RangeError);
  assert.throws(() => sharedMemoryStore({ name: 'a', persist: 'yes' }), TypeError);
});
