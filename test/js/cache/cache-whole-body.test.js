'use strict';
// The response cache asks the route for the whole body without changing the request: on a miss,
// the route and the middleware after the cache see the client's method and validators, and the
// answers are still right: a conditional GET on a miss gets its 304 (the one 304 decision, on the
// route's ETag or Last-Modified) after the whole body was stored, and a HEAD miss stores the GET
// body when the route sends it (Express's res.send does, for the cache; a plain route's res.end
// body is dropped by node for HEAD). Over node:http, Express 4 and Express 5, on every runtime.
const test = require('node:test');
const assert = require('node:assert/strict');
const { listen, request } = require('../helpers/http');
const { mulberry32 } = require('../helpers/seeded-random');
const { responseCache } = require('../../../lib/express/cache');

const SEED = Number(process.env.WHOLE_BODY_SEED || 53);
const LAST_MODIFIED = new Date(1_600_000_000_000).toUTCString();

// what the route and the middleware between the cache and it saw of each request
function recorder() {
  const seen = [];
  const record = (where, req) =>
    seen.push({
      where,
      method: req.method,
      inm: req.headers['if-none-match'],
      ims: req.headers['if-modified-since'],
    });
  return { seen, record };
}

function page(random, path) {
  return `<p>${path} ${Math.floor(random() * 1e9).toString(36)}</p>`;
}

const FLAVORS = {
  'node:http': (cache, rec, pages) => (req, res) =>
    cache(req, res, () => {
      rec.record('middleware', req);
      rec.record('route', req);
      res.setHeader('Cache-Control', 'public, max-age=60');
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.setHeader('ETag', '"v1"');
      res.setHeader('Last-Modified', LAST_MODIFIED);
      const body = pages.get(req.url);
      res.setHeader('Content-Length', Buffer.byteLength(body));
      res.end(body); // node sends no body to a HEAD
    }),
  'express 4': (cache, rec, pages) => expressApp(require('express4')(), cache, rec, pages),
  'express 5': (cache, rec, pages) => expressApp(require('express')(), cache, rec, pages),
};

function expressApp(app, cache, rec, pages) {
  app.use(cache);
  app.use((req, res, next) => {
    rec.record('middleware', req);
    next();
  });
  app.get(/.*/, (req, res) => {
    rec.record('route', req);
    res.set('Cache-Control', 'public, max-age=60');
    res.set('ETag', '"v1"');
    res.set('Last-Modified', LAST_MODIFIED);
    res.type('html').send(pages.get(req.url));
    // the response's own request is given back after res.send
    if (res.req !== req) throw new Error('res.req was not given back');
  });
  return app;
}

async function site(flavor, seedOffset) {
  const random = mulberry32(SEED + seedOffset);
  const pages = new Map();
  for (const path of ['/inm', '/ims', '/head', '/other']) pages.set(path, page(random, path));
  const rec = recorder();
  const cache = responseCache({});
  const server = await listen(FLAVORS[flavor](cache, rec, pages));
  return { ...server, cache, rec, pages };
}

let offset = 0;
for (const flavor of Object.keys(FLAVORS)) {
  const seedOffset = offset++;
  test(`${flavor}: on a miss the route sees the client's request, and a conditional GET gets a 304 after the whole body was stored (seed ${SEED + seedOffset})`, async () => {
    const s = await site(flavor, seedOffset);
    try {
      for (const [path, validators] of [
        ['/inm', { 'if-none-match': '"v1"' }],
        ['/ims', { 'if-modified-since': LAST_MODIFIED }],
      ]) {
        s.rec.seen.length = 0;
        const miss = await request(s.url + path, { headers: validators });
        assert.equal(miss.status, 304, `${path}: the miss is answered 304`);
        assert.equal(miss.body.length, 0);
        assert.equal(miss.headers.etag, '"v1"');
        const inm = validators['if-none-match'];
        const ims = validators['if-modified-since'];
        assert.deepEqual(s.rec.seen, [
          { where: 'middleware', method: 'GET', inm, ims },
          { where: 'route', method: 'GET', inm, ims },
        ]);
        const hit = await request(s.url + path);
        assert.equal(hit.status, 200);
        assert.equal(hit.body.toString(), s.pages.get(path), `${path}: the whole body was stored`);
        assert.notEqual(hit.headers.age, undefined, `${path}: answered by the cache`);
        assert.equal(s.rec.seen.length, 2, `${path}: rendered once`);
      }
      // a validator that does not match: the whole page, stored
      const other = await request(s.url + '/other', { headers: { 'if-none-match': '"v0"' } });
      assert.equal(other.status, 200);
      assert.equal(other.body.toString(), s.pages.get('/other'));
      assert.equal(s.rec.seen.at(-1).inm, '"v0"');
      assert.equal((await request(s.url + '/other')).headers.age, '0');
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: a HEAD miss reaches the route as HEAD and stores the GET body (seed ${SEED + seedOffset})`, async () => {
    const s = await site(flavor, seedOffset);
    try {
      const head = await request(s.url + '/head', { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.body.length, 0);
      assert.equal(head.headers['content-length'], String(Buffer.byteLength(s.pages.get('/head'))));
      assert.deepEqual(
        s.rec.seen.map((r) => r.method),
        ['HEAD', 'HEAD'],
      );
      const hit = await request(s.url + '/head');
      assert.equal(hit.body.toString(), s.pages.get('/head'));
      assert.notEqual(hit.headers.age, undefined, 'answered by the cache');
      assert.equal(s.rec.seen.length, 2, 'rendered once');
    } finally {
      await s.close();
    }
  });
}

// What reaches the response's own methods, below the held response (a middleware mounted before
// the cache wraps them, as the runtime sits there): a fill's res.send reads a view of the request,
// but every call below it sees the client's request as `res.req` (Bun's ServerResponse reads
// `res.req` in its end: a view there resets the connection). Misses of every kind, in a seeded
// order, each followed by a GET that must be a hit.
const KINDS = {
  'if-none-match': { headers: { 'if-none-match': '"v1"' }, status: 304 },
  'if-modified-since': { headers: { 'if-modified-since': LAST_MODIFIED }, status: 304 },
  HEAD: { method: 'HEAD', status: 200 },
  GET: { status: 200 },
  'if-none-match, no match': { headers: { 'if-none-match': '"v0"' }, status: 200 },
};

function belowApp(app, cache, pages, calls) {
  app.use((req, res, next) => {
    for (const name of ['writeHead', 'write', 'end']) {
      const own = res[name];
      res[name] = function () {
        calls.push({ name, url: req.url, ownRequest: this.req === req });
        return own.apply(this, arguments);
      };
    }
    next();
  });
  app.use(cache);
  app.get(/.*/, (req, res) => {
    res.set('Cache-Control', 'public, max-age=60');
    res.set('ETag', '"v1"');
    res.set('Last-Modified', LAST_MODIFIED);
    const body = pages.get(req.url);
    if (req.url.endsWith('/json'))
      res.json(body); // res.json calls res.send
    else res.type('html').send(body);
  });
  return app;
}

for (const [flavor, make] of [
  ['express 4', () => require('express4')()],
  ['express 5', () => require('express')()],
]) {
  const seed = SEED + offset++;
  test(`${flavor}: below the held response a fill's calls see the client's request, and every miss fills (seed ${seed})`, async () => {
    const random = mulberry32(seed);
    const names = Object.keys(KINDS);
    const order = [];
    for (let i = 0; i < 12; i++) {
      const kind = names[Math.floor(random() * names.length)];
      const path = `/${i}${random() < 0.3 ? '/json' : ''}`;
      order.push({ kind, path });
    }
    const pages = new Map(order.map(({ path }) => [path, page(random, path)]));
    const calls = [];
    const server = await listen(belowApp(make(), responseCache({}), pages, calls));
    try {
      for (const { kind, path } of order) {
        const input = `seed ${seed}, ${kind} ${path}`;
        const { method, headers, status } = KINDS[kind];
        calls.length = 0;
        const miss = await request(server.url + path, { method, headers });
        assert.equal(miss.status, status, input);
        assert.ok(calls.length > 0, `${input}: the response's methods were called`);
        for (const call of calls) assert.ok(call.ownRequest, `${input}: ${call.name} saw a view as res.req`);
        const expected = path.endsWith('/json') ? JSON.stringify(pages.get(path)) : pages.get(path);
        const hit = await request(server.url + path);
        assert.equal(hit.status, 200, input);
        assert.equal(hit.body.toString(), expected, `${input}: the whole body was stored`);
        assert.notEqual(hit.headers.age, undefined, `${input}: the miss filled the cache`);
      }
    } finally {
      await server.close();
    }
  });
}

// A fill whose page is not stored (private, no-store, Set-Cookie: decided on the head as sent)
// still answers a conditional GET as Express alone would, 304 on the route's validators, though
// res.send was asked for the whole body; a HEAD gets the head without a body. Seeded pages.
for (const [flavor, make] of [
  ['express 4', () => require('express4')()],
  ['express 5', () => require('express')()],
]) {
  const seed = SEED + offset++;
  test(`${flavor}: a conditional miss on a page that is not stored is answered 304 as without the cache (seed ${seed})`, async () => {
    const random = mulberry32(seed);
    const heads = {
      private: { 'Cache-Control': 'private, max-age=60' },
      'no-store': { 'Cache-Control': 'no-store' },
      cookie: { 'Cache-Control': 'public, max-age=60', 'Set-Cookie': 'a=1' },
    };
    const pages = new Map(Object.keys(heads).map((name) => [`/${name}`, page(random, name)]));
    const answer = (app) => {
      app.get(/.*/, (req, res) => {
        res.set(heads[req.url.slice(1)]);
        res.set('ETag', '"v1"');
        res.set('Last-Modified', LAST_MODIFIED);
        res.type('html').send(pages.get(req.url));
      });
      return app;
    };
    const bare = await listen(answer(make()));
    const cached = make();
    cached.use(responseCache({}));
    const withCache = await listen(answer(cached));
    try {
      for (const path of pages.keys()) {
        for (const [kind, options] of [
          ['if-none-match', { headers: { 'if-none-match': '"v1"' } }],
          ['if-modified-since', { headers: { 'if-modified-since': LAST_MODIFIED } }],
          ['HEAD', { method: 'HEAD' }],
        ]) {
          const input = `seed ${seed}, ${kind} ${path}`;
          const peer = await request(bare.url + path, options);
          const ours = await request(withCache.url + path, options);
          assert.equal(ours.status, peer.status, input);
          assert.equal(ours.body.length, 0, input);
          assert.equal(ours.headers['content-length'], peer.headers['content-length'], input);
          assert.equal(ours.headers['content-type'], peer.headers['content-type'], input);
          assert.equal(ours.headers.etag, '"v1"', input);
        }
        // not stored: a GET renders again
        const again = await request(withCache.url + path);
        assert.equal(again.body.toString(), pages.get(path));
        assert.equal(again.headers.age, undefined, `seed ${seed}, ${path}: not stored`);
      }
    } finally {
      await bare.close();
      await withCache.close();
    }
  });
}
