'use strict';
// ssr-native/koa cache() on Koa 2 and Koa 3 (real apps): bodies as strings, Buffers, streams and
// JSON are stored and served with Age; Set-Cookie and private pages never are; Vary; HEAD from
// GET; 304 from the stored ETag; coalescing of concurrent misses; hit-for-pass; a thrown render
// answered by its stale-if-error copy; stale-while-revalidate; purgeTag; koa-compress in front.
const test = require('node:test');
const assert = require('node:assert');
const { Readable } = require('node:stream');
const zlib = require('node:zlib');
const { listen, request } = require('../helpers/http');
const { cache } = require('../../../lib/koa');

const KOAS = { 'koa 2': require('koa2'), 'koa 3': require('koa') };
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const CC = 'public, max-age=60';

async function site(Koa, routes, options = {}, front) {
  const clock = { now: 1_700_000_000_000 };
  const app = new Koa();
  app.silent = true;
  if (front) app.use(front);
  const mw = cache({ now: () => clock.now, ...options });
  app.use(mw);
  const counts = new Map();
  let inFlight = 0;
  const state = { maxInFlight: 0 };
  app.use(async (ctx) => {
    const route = routes[ctx.path];
    if (!route) return;
    const n = (counts.get(ctx.path) || 0) + 1;
    counts.set(ctx.path, n);
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    try {
      await route(ctx, n);
    } finally {
      inFlight--;
    }
  });
  const server = await listen(app.callback());
  return { ...server, cache: mw, clock, state, renders: (p) => counts.get(p) || 0 };
}

const get = (s, path, headers = {}) => request(s.url + path, { headers });

for (const [name, Koa] of Object.entries(KOAS)) {
  test(`${name}: string, Buffer, stream and JSON bodies are stored and served with Age`, async () => {
    const s = await site(Koa, {
      '/string': (ctx, n) => {
        ctx.set('Cache-Control', CC);
        ctx.body = `<p>string ${n}</p>`;
      },
      '/buffer': (ctx, n) => {
        ctx.set('Cache-Control', CC);
        ctx.type = 'text/plain';
        ctx.body = Buffer.from(`buffer ${n}`);
      },
      '/stream': (ctx, n) => {
        ctx.set('Cache-Control', CC);
        ctx.type = 'html';
        ctx.body = Readable.from([Buffer.from('<p>stream '), Buffer.from(`${n}</p>`)]);
      },
      '/json': (ctx, n) => {
        ctx.set('Cache-Control', CC);
        ctx.body = { n };
      },
    });
    try {
      const expected = {
        '/string': '<p>string 1</p>',
        '/buffer': 'buffer 1',
        '/stream': '<p>stream 1</p>',
        '/json': '{"n":1}',
      };
      for (const [path, body] of Object.entries(expected)) {
        const first = await get(s, path);
        assert.strictEqual(first.body.toString(), body, path);
        s.clock.now += 3000;
        const hit = await get(s, path);
        assert.strictEqual(hit.body.toString(), body, path);
        assert.strictEqual(hit.headers.age, '3', path);
        assert.strictEqual(hit.headers['content-type'], first.headers['content-type'], path);
        assert.strictEqual(s.renders(path), 1, path);
      }
    } finally {
      await s.close();
    }
  });

  test(`${name}: Set-Cookie and private pages are never stored; Vary keeps variants apart; HEAD and 304 from the entry`, async () => {
    const s = await site(Koa, {
      '/cookie': (ctx, n) => {
        ctx.set('Cache-Control', CC);
        ctx.cookies.set('sid', `user${n}`);
        ctx.body = `cookie ${n}`;
      },
      '/private': (ctx, n) => {
        ctx.set('Cache-Control', 'private, max-age=60');
        ctx.body = `private ${n}`;
      },
      '/lang': (ctx) => {
        ctx.set('Cache-Control', CC);
        ctx.vary('Accept-Language');
        ctx.body = `lang ${ctx.get('accept-language')}`;
      },
    });
    try {
      await get(s, '/cookie');
      const second = await get(s, '/cookie');
      assert.strictEqual(second.body.toString(), 'cookie 2');
      assert.match(second.headers['set-cookie'][0], /^sid=user2/);
      await get(s, '/private');
      assert.strictEqual((await get(s, '/private')).body.toString(), 'private 2');
      await get(s, '/lang', { 'accept-language': 'fr' });
      await get(s, '/lang', { 'accept-language': 'de' });
      assert.strictEqual((await get(s, '/lang', { 'accept-language': 'fr' })).body.toString(), 'lang fr');
      assert.strictEqual(s.renders('/lang'), 2);
      const head = await request(`${s.url}/lang`, { method: 'HEAD', headers: { 'accept-language': 'de' } });
      assert.strictEqual(head.body.length, 0);
      assert.strictEqual(head.headers['content-length'], String('lang de'.length));
      const tag = head.headers.etag;
      assert.strictEqual((await get(s, '/lang', { 'accept-language': 'de', 'if-none-match': tag })).status, 304);
      assert.strictEqual(s.renders('/lang'), 2);
    } finally {
      await s.close();
    }
  });

  test(`${name}: concurrent misses wait for one render; an uncacheable route is not serialized (hit-for-pass)`, async () => {
    const s = await site(Koa, {
      '/slow': async (ctx, n) => {
        await delay(80);
        ctx.set('Cache-Control', CC);
        ctx.body = `slow ${n}`;
      },
      '/u': async (ctx, n) => {
        await delay(60);
        ctx.set('Cache-Control', 'no-store');
        ctx.body = `u ${n}`;
      },
    });
    try {
      const all = await Promise.all(Array.from({ length: 30 }, () => get(s, '/slow')));
      assert.strictEqual(s.renders('/slow'), 1);
      for (const r of all) assert.strictEqual(r.body.toString(), 'slow 1');
      await get(s, '/u');
      s.state.maxInFlight = 0;
      await Promise.all(Array.from({ length: 8 }, () => get(s, '/u')));
      assert.strictEqual(s.state.maxInFlight, 8);
    } finally {
      await s.close();
    }
  });

  test(`${name}: a render that throws is answered by the stale-if-error copy; stale-while-revalidate refreshes in the background`, async () => {
    let broken = false;
    const s = await site(Koa, {
      '/sie': (ctx, n) => {
        if (broken) throw new Error('render failed');
        ctx.set('Cache-Control', 'public, max-age=10, stale-if-error=60');
        ctx.body = `sie ${n}`;
      },
      '/swr': (ctx, n) => {
        ctx.set('Cache-Control', 'public, max-age=10, stale-while-revalidate=60');
        ctx.body = `swr ${n}`;
      },
    });
    try {
      await get(s, '/sie');
      await get(s, '/swr');
      broken = true;
      s.clock.now += 20_000;
      const r = await get(s, '/sie');
      assert.strictEqual(r.status, 200);
      assert.strictEqual(r.body.toString(), 'sie 1');
      s.clock.now += 60_000;
      assert.strictEqual((await get(s, '/sie')).status, 500);
      s.clock.now -= 60_000;
      assert.strictEqual((await get(s, '/swr')).body.toString(), 'swr 1');
      for (let i = 0; i < 100 && (s.renders('/swr') < 2 || s.cache.stats().refreshing > 0); i++) await delay(10);
      assert.strictEqual((await get(s, '/swr')).body.toString(), 'swr 2');
    } finally {
      await s.close();
    }
  });

  test(`${name}: purgeTag drops the tagged pages; koa-compress in front compresses hits`, async () => {
    const compress = require('koa-compress');
    const page = `<html>${'<p>koa page</p>'.repeat(300)}</html>`;
    const s = await site(
      Koa,
      {
        '/t': (ctx, n) => {
          ctx.set('Cache-Control', CC);
          ctx.set('Cache-Tag', 'catalog');
          ctx.type = 'html';
          ctx.body = `${page}${n}`;
        },
      },
      {},
      compress(),
    );
    try {
      const first = await get(s, '/t', { 'accept-encoding': 'gzip' });
      assert.strictEqual(zlib.gunzipSync(first.body).toString(), `${page}1`);
      assert.strictEqual(first.headers['cache-tag'], undefined);
      const hit = await get(s, '/t', { 'accept-encoding': 'gzip' });
      assert.strictEqual(hit.headers['content-encoding'], 'gzip');
      assert.strictEqual(zlib.gunzipSync(hit.body).toString(), `${page}1`);
      assert.strictEqual(s.renders('/t'), 1);
      assert.strictEqual(s.cache.purgeTag('catalog'), 1);
      assert.strictEqual(
        zlib.gunzipSync((await get(s, '/t', { 'accept-encoding': 'gzip' })).body).toString(),
        `${page}2`,
      );
    } finally {
      await s.close();
    }
  });
}
