'use strict';
// The cache work sharedMemoryStore shares through its segment (lib/cache/shared-memory-work.js),
// in one process: two stores of one name are two mappings of one segment, as two workers. A
// refresh ticket recorded through one is taken once through the other, and nothing else passes
// for one (seeded forgeries); a hit-for-pass decision made behind one server passes its variant,
// and only its variant, behind the other. Across real processes: cache-shared-memory-cluster.test.js.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const express = require('express');
const { responseCache, sharedMemoryStore } = require('../../../lib/express/cache');
const { mulberry32 } = require('../helpers/seeded-random');
const { segmentDir, leftovers } = require('../helpers/shm-segments');

const PREFIX = `work-${process.pid}`;
const dir = segmentDir(PREFIX);
let seq = 0;
const fresh = () => `${PREFIX}-${++seq}`;
const LAYERS = Symbol.for('ssr-native.cache.layers');
const workOf = (store) => store[LAYERS].work;

test.after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(leftovers(PREFIX), [], 'every segment made here is removed');
});

test('a ticket recorded through one store is taken once through another; forged ones never', (t) => {
  const seed = Number(process.env.SEED || Date.now() % 1e9);
  const random = mulberry32(seed);
  const name = fresh();
  const a = workOf(sharedMemoryStore({ name, dir, maxBytes: 1 << 20 }));
  const b = workOf(sharedMemoryStore({ name, dir, maxBytes: 1 << 20 }));
  const id = a.issueTicket({ key: '/p/1\nshop.example', remoteAddress: '203.0.113.7' }, 30000);
  assert.match(id, /^[A-Za-z0-9_-]{24}$/);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  for (let i = 0; i < 200; i++) {
    // a one-character change, or any other id of the same form
    const chars = [...id];
    chars[Math.floor(random() * 24)] = alphabet[Math.floor(random() * 64)];
    const forged =
      i % 2 === 0 ? chars.join('') : Array.from({ length: 24 }, () => alphabet[Math.floor(random() * 64)]).join('');
    if (forged !== id) assert.equal(b.takeTicket(forged), undefined, `seed ${seed}: ${forged} taken`);
  }
  assert.deepEqual(b.takeTicket(id), { key: '/p/1\nshop.example', remoteAddress: '203.0.113.7' });
  assert.equal(b.takeTicket(id), undefined, 'taken once');
  assert.equal(a.takeTicket(id), undefined, 'taken once, by any store');
  const late = a.issueTicket({ key: '/p/2', remoteAddress: undefined }, 1);
  const until = Date.now() + 5;
  while (Date.now() < until); // past its 1 ms
  assert.equal(b.takeTicket(late), undefined, 'expired');
  t.diagnostic(`seed ${seed}`);
});

function serve(store) {
  let renders = 0;
  const app = express();
  const cache = responseCache({ store });
  app.use(cache);
  app.get('/v/:id', (req, res) => {
    renders++;
    res.set('vary', 'accept-language');
    res.set('cache-control', 'private, max-age=600');
    res.send(`page ${req.params.id} in ${req.headers['accept-language']}`);
  });
  return new Promise((resolve) => {
    const server = http
      .createServer(app)
      .listen(0, '127.0.0.1', () => resolve({ server, cache, port: server.address().port, renders: () => renders }));
  });
}

function get(port, url, lang) {
  return new Promise((resolve, reject) => {
    const headers = { host: 'shop.example', 'accept-language': lang };
    http
      .get({ host: '127.0.0.1', port, path: url, agent: false, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      })
      .on('error', reject);
  });
}

test('a hit-for-pass decided behind one store passes its variant, and only it, behind another', async (t) => {
  const name = fresh();
  const a = await serve(sharedMemoryStore({ name, dir, maxBytes: 1 << 20 }));
  const b = await serve(sharedMemoryStore({ name, dir, maxBytes: 1 << 20 }));
  t.after(() => (a.server.close(), b.server.close()));
  assert.equal(await get(a.port, '/v/1', 'en'), 200); // private: the en variant passes from now on
  assert.equal(a.cache.stats().uncacheable, 1);
  for (let i = 0; i < 3; i++) assert.equal(await get(b.port, '/v/1', 'en'), 200);
  let s = b.cache.stats();
  assert.equal(s.hitForPassServed, 3, 'b passes the variant a found uncacheable');
  assert.equal(s.misses, 0);
  assert.equal(await get(b.port, '/v/1', 'fr'), 200); // another variant: a miss, decided anew
  s = b.cache.stats();
  assert.equal(s.hitForPassServed, 3);
  assert.equal(s.misses, 1);
  assert.equal(await get(a.port, '/v/1', 'fr'), 200);
  assert.equal(a.cache.stats().hitForPassServed, 1, 'and a passes the one b found');
  assert.equal(a.renders() + b.renders(), 6, 'each request rendered: nothing stored');
});
