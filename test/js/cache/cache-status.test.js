'use strict';
// The response cache's cacheStatus option (RFC 9211 Cache-Status) on node:http, Express 4/5 and
// Koa 2/3 (real servers): off by default; a miss, a fresh hit with its ttl, a 304 from storage, a
// stale-while-revalidate hit (negative ttl), a render past freshness, a stale-if-error copy, a
// bypass with its rule and an unsafe method each say so; the header is never stored (the entry
// holds none, each hit writes its own); { worker: true } names the process, and in a node:cluster
// worker its worker id.
const test = require('node:test');
const assert = require('node:assert');
const cluster = require('node:cluster');
const path = require('node:path');
const { listen, request } = require('../helpers/http');
const { responseCache } = require('../../../lib/express/cache');
const { cache: koaCache } = require('../../../lib/koa');

const CC = 'public, max-age=60, stale-while-revalidate=30, stale-if-error=600';

// Each app: GET /page (cacheable, CC above; answers 500 once `broken`), /private (Cookie-less
// but the client sends one), POST /page. Returns { url, mw, clock, state, close }.
const APPS = {
  'node:http': (mw, state) => (req, res) => mw(req, res, () => nodeRoute(req, res, state)),
  'express 4': (mw, state) =>
    require('express4')()
      .use(mw)
      .use((req, res) => nodeRoute(req, res, state)),
  'express 5': (mw, state) =>
    require('express')()
      .use(mw)
      .use((req, res) => nodeRoute(req, res, state)),
  'koa 2': (mw, state) => koaApp(require('koa2'), mw, state),
  'koa 3': (mw, state) => koaApp(require('koa'), mw, state),
};

function nodeRoute(req, res, state) {
  state.renders++;
  if (state.broken) {
    res.statusCode = 500;
    res.end('render failed');
    return;
  }
  res.setHeader('cache-control', CC);
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.end(`page ${state.renders}`);
}

function koaApp(Koa, mw, state) {
  const app = new Koa();
  app.silent = true;
  app.use(mw);
  app.use((ctx) => {
    state.renders++;
    if (state.broken) {
      ctx.status = 500;
      ctx.body = 'render failed';
      return;
    }
    ctx.set('cache-control', CC);
    ctx.type = 'html';
    ctx.body = `page ${state.renders}`;
  });
  return app.callback();
}

async function site(flavor, cacheStatus, extra = {}) {
  const clock = { now: 1_700_000_000_000 };
  const options = { now: () => clock.now, staleWhileRevalidate: false, ...extra };
  if (cacheStatus !== undefined) options.cacheStatus = cacheStatus;
  const mw = flavor.startsWith('koa') ? koaCache(options) : responseCache(options);
  const state = { renders: 0, broken: false };
  const server = await listen(APPS[flavor](mw, state));
  return { ...server, mw, clock, state };
}

const get = (s, headers = {}, method = 'GET') => request(`${s.url}/page`, { method, headers });

// the entry stored for GET /page (the engine's own memory, as a hit reads it)
function storedEntry(s) {
  const engine = s.mw.engine;
  return engine.memory.get(engine.keys.primary('/page', new URL(s.url).host));
}

for (const flavor of Object.keys(APPS)) {
  test(`${flavor}: no Cache-Status unless asked`, async () => {
    const s = await site(flavor);
    try {
      assert.strictEqual((await get(s)).headers['cache-status'], undefined);
      const hit = await get(s);
      assert.strictEqual(hit.body.toString(), 'page 1');
      assert.strictEqual(hit.headers['cache-status'], undefined);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: cacheStatus: miss, hit with ttl, 304, stale hit, bypass, method; never stored`, async () => {
    const s = await site(flavor, true);
    try {
      const miss = await get(s);
      assert.strictEqual(miss.headers['cache-status'], 'ssr-native; fwd=miss');
      const entry = storedEntry(s);
      assert.ok(entry !== undefined, 'the page was stored');
      assert.strictEqual(entry.headers['cache-status'], undefined, 'the stored entry carries no Cache-Status');

      s.clock.now += 7_000;
      const hit = await get(s);
      assert.strictEqual(hit.body.toString(), 'page 1');
      assert.strictEqual(hit.headers['cache-status'], 'ssr-native; hit; ttl=53');

      const notModified = await get(s, { 'if-none-match': hit.headers.etag });
      assert.strictEqual(notModified.status, 304);
      assert.strictEqual(notModified.headers['cache-status'], 'ssr-native; hit; ttl=53');

      s.clock.now += 60_000; // 7 s into stale-while-revalidate (background refresh off here)
      const staleHit = await get(s);
      assert.strictEqual(staleHit.body.toString(), 'page 1');
      assert.strictEqual(staleHit.headers['cache-status'], 'ssr-native; hit; ttl=-7');

      const cookie = await get(s, { cookie: 'sid=1' });
      assert.strictEqual(cookie.headers['cache-status'], 'ssr-native; fwd=bypass; detail=cookie');

      const post = await get(s, {}, 'POST');
      assert.strictEqual(post.headers['cache-status'], 'ssr-native; fwd=method');
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: cacheStatus: past freshness a render says fwd=stale, a failed one its stale-if-error copy`, async () => {
    const s = await site(flavor, true);
    try {
      await get(s);
      s.clock.now += 100_000; // 40 s stale: past stale-while-revalidate, inside stale-if-error
      const again = await get(s);
      assert.strictEqual(again.body.toString(), 'page 2');
      assert.strictEqual(again.headers['cache-status'], 'ssr-native; fwd=stale');

      s.clock.now += 100_000; // the second entry 40 s stale
      s.state.broken = true;
      const failed = await get(s);
      assert.strictEqual(failed.status, 200);
      assert.strictEqual(failed.body.toString(), 'page 2');
      assert.strictEqual(failed.headers['cache-status'], 'ssr-native; fwd=stale; fwd-status=500; ttl=-40');
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: cacheStatus: a client's no-cache that the options honour says fwd=request`, async () => {
    const s = await site(flavor, true, { honorRequestNoCache: true });
    try {
      await get(s);
      assert.equal((await get(s)).headers['cache-status'], 'ssr-native; hit; ttl=60');
      const again = await get(s, { 'cache-control': 'no-cache' });
      assert.equal(again.body.toString(), 'page 2');
      assert.equal(again.headers['cache-status'], 'ssr-native; fwd=request');
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: cacheStatus { worker: true } names the process in detail`, async () => {
    const s = await site(flavor, { worker: true });
    try {
      assert.strictEqual((await get(s)).headers['cache-status'], `ssr-native; fwd=miss; detail="pid=${process.pid}"`);
      assert.strictEqual(
        (await get(s, { cookie: 'a=b' })).headers['cache-status'],
        `ssr-native; fwd=bypass; detail="cookie pid=${process.pid}"`,
      );
    } finally {
      await s.close();
    }
  });
}

test('cacheStatus { worker: true } in a node:cluster worker names the worker id and pid', async () => {
  cluster.setupPrimary({ exec: path.join(__dirname, '../helpers/cache-status-worker.js'), silent: true });
  const worker = cluster.fork();
  try {
    const port = await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('exit', (code) => reject(new Error(`the worker exited (${code}) before listening`)));
    });
    const url = `http://127.0.0.1:${port}/`;
    const miss = await request(url);
    assert.strictEqual(
      miss.headers['cache-status'],
      `ssr-native; fwd=miss; detail="pid=${worker.process.pid} worker=${worker.id}"`,
    );
    const hit = await request(url);
    assert.match(
      hit.headers['cache-status'],
      new RegExp(`^ssr-native; hit; ttl=\\d+; detail="pid=${worker.process.pid} worker=${worker.id}"$`),
    );
  } finally {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill();
    await exited;
  }
});

test('koa: a render that throws is answered by its stale-if-error copy, fwd-status from the error', async () => {
  const Koa = require('koa');
  const clock = { now: 1_700_000_000_000 };
  const app = new Koa();
  app.silent = true;
  app.use(koaCache({ now: () => clock.now, cacheStatus: true }));
  let renders = 0;
  app.use((ctx) => {
    if (++renders > 1) ctx.throw(503, 'the database is down');
    ctx.set('cache-control', 'public, max-age=10, stale-if-error=600');
    ctx.body = 'page';
  });
  const s = await listen(app.callback());
  try {
    await request(`${s.url}/`);
    clock.now += 12_000;
    const failed = await request(`${s.url}/`);
    assert.equal(failed.body.toString(), 'page');
    assert.equal(failed.headers['cache-status'], 'ssr-native; fwd=stale; fwd-status=503; ttl=-2');
  } finally {
    await s.close();
  }
});

test('cacheStatus is validated: a boolean or { worker: boolean }', () => {
  assert.throws(() => responseCache({ cacheStatus: 'yes' }), { name: 'TypeError', message: /options\.cacheStatus/ });
  assert.throws(() => koaCache({ cacheStatus: { workers: true } }), {
    name: 'TypeError',
    message: /has no option "workers" \(did you mean "worker"\?\)/,
  });
  assert.throws(() => responseCache({ cacheStatus: { worker: 1 } }), { name: 'TypeError', message: /worker/ });
  assert.strictEqual(responseCache({ cacheStatus: false }).engine.cacheStatus, undefined);
});
