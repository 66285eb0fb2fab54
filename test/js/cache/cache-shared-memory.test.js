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
const { responseCache, sharedMemoryStore } = require('../../../lib/cache');
const { SharedCache } = require('../../../lib/native');
const { segmentDir, leftovers } = require('../helpers/shm-segments');

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

test('hostile options are TypeErrors and RangeErrors', () => {
  assert.throws(() => sharedMemoryStore({ name: '../etc/x' }), TypeError);
  assert.throws(() => sharedMemoryStore({ name: 'a', dir: 'relative' }), TypeError);
  assert.throws(() => sharedMemoryStore({ name: 'a', maxBytes: 1 }), RangeError);
  assert.throws(() => sharedMemoryStore({ name: 'a', maxEntries: 0 }), RangeError);
  assert.throws(() => sharedMemoryStore({ name: 'a', persist: 'yes' }), TypeError);
});
