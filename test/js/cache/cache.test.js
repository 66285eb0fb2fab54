'use strict';
// ssr-native/cache responseCache() on node:http, Express 4 and Express 5 (real servers): each
// RFC 9111 / 5861 storage rule (what is stored, what never is, s-maxage over max-age, Vary, Age,
// HEAD from GET, 304s from the stored ETag), request coalescing with its timeout and a client
// leaving while it waits, hit-for-pass, stale-while-revalidate with a background refresh,
// stale-if-error, purges by URL / prefix / tag, invalidation by unsafe methods, the size bound,
// and composition with compression 1.8.2 mounted in front and Angular-style streamed responses.
const test = require('node:test');
const assert = require('node:assert');
const http = require('node:http');
const zlib = require('node:zlib');
const { listen, request } = require('../helpers/http');
const { responseCache } = require('../../../lib/express/cache');

const FLAVORS = {
  'node:http': (cache, handler) => (req, res) => cache(req, res, () => handler(req, res)),
  'express 4': (cache, handler) => {
    const app = require('express4')();
    app.use(cache);
    app.use(handler);
    return app;
  },
  'express 5': (cache, handler) => {
    const app = require('express')();
    app.use(cache);
    app.use(handler);
    return app;
  },
};

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A server whose pages are described per path: route(req, n) -> { status, headers, body, wait }
// (n counts renders of that path). Returns { url, renders(path), cache, clock, close }.
async function site(flavor, routes, options = {}) {
  const clock = { now: 1_700_000_000_000 };
  const cache = responseCache({ now: () => clock.now, ...options });
  const counts = new Map();
  let inFlight = 0;
  const state = { maxInFlight: 0 };
  const handler = async (req, res) => {
    const path = req.url.split('?')[0];
    const route = routes[path];
    if (!route) {
      res.statusCode = 404;
      res.end('no route');
      return;
    }
    const n = (counts.get(path) || 0) + 1;
    counts.set(path, n);
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    const page = route(req, n);
    if (page.wait) await delay(page.wait);
    inFlight--; // before the response ends: its end may start the next render at once
    if (page.throws) {
      res.statusCode = 500;
      res.end('error: render failed');
      return;
    }
    res.statusCode = page.status || 200;
    for (const [k, v] of Object.entries(page.headers || {})) res.setHeader(k, v);
    res.end(page.body === undefined ? `page ${path} render ${n}` : page.body);
  };
  const server = await listen(FLAVORS[flavor](cache, handler));
  return { ...server, cache, clock, state, renders: (path) => counts.get(path) || 0 };
}

const get = (s, path, headers = {}) => request(s.url + path, { headers });
const PUBLIC_60 = { 'Cache-Control': 'public, max-age=60', 'Content-Type': 'text/html; charset=utf-8' };

for (const flavor of Object.keys(FLAVORS)) {
  test(`${flavor}: a cacheable page is rendered once and served with Age, which grows with time`, async () => {
    const s = await site(flavor, { '/a': () => ({ headers: PUBLIC_60 }) });
    try {
      const first = await get(s, '/a');
      assert.strictEqual(first.body.toString(), 'page /a render 1');
      assert.strictEqual(first.headers.age, undefined);
      s.clock.now += 7000;
      const second = await get(s, '/a');
      assert.strictEqual(second.body.toString(), 'page /a render 1');
      assert.strictEqual(second.headers.age, '7');
      assert.strictEqual(second.headers['content-type'], 'text/html; charset=utf-8');
      assert.strictEqual(second.headers['content-length'], String(second.body.length));
      assert.match(second.headers.etag, /^W\/"[0-9a-f]+-[0-9a-f]{8}"$/);
      assert.strictEqual(s.renders('/a'), 1);
      s.clock.now += 54_000; // 61 s: past max-age, no stale window
      assert.strictEqual((await get(s, '/a')).body.toString(), 'page /a render 2');
      const st = s.cache.stats();
      assert.strictEqual(st.hits, 1);
      assert.strictEqual(st.entries, 1);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: s-maxage wins over max-age (RFC 9111 5.2.2.10)`, async () => {
    const s = await site(flavor, {
      '/shared': () => ({ headers: { 'Cache-Control': 'max-age=0, s-maxage=60' } }),
      '/browser-only': () => ({ headers: { 'Cache-Control': 'max-age=60, s-maxage=0' } }),
    });
    try {
      for (let i = 0; i < 2; i++) await get(s, '/shared');
      for (let i = 0; i < 2; i++) await get(s, '/browser-only');
      assert.strictEqual(s.renders('/shared'), 1);
      assert.strictEqual(s.renders('/browser-only'), 2);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: private, no-store, no-cache, Set-Cookie, 5xx and pages without a lifetime are never stored`, async () => {
    const s = await site(flavor, {
      '/private': () => ({ headers: { 'Cache-Control': 'private, max-age=60' } }),
      '/no-store': () => ({ headers: { 'Cache-Control': 'public, max-age=60, no-store' } }),
      '/no-cache': () => ({ headers: { 'Cache-Control': 'public, s-maxage=60, no-cache' } }),
      '/cookie': (req, n) => ({ headers: { ...PUBLIC_60, 'Set-Cookie': `session=user${n}` } }),
      '/error': () => ({ status: 500, headers: PUBLIC_60 }),
      '/no-lifetime': () => ({}),
      '/bad-max-age': () => ({ headers: { 'Cache-Control': 'max-age=abc' } }),
    });
    try {
      for (const path of ['/private', '/no-store', '/no-cache', '/cookie', '/error', '/no-lifetime', '/bad-max-age']) {
        const a = await get(s, path);
        const b = await get(s, path);
        assert.strictEqual(s.renders(path), 2, `${path} was rendered once for two requests`);
        assert.notStrictEqual(a.body.toString(), b.body.toString(), path);
        if (path === '/cookie') assert.deepStrictEqual(b.headers['set-cookie'], ['session=user2']); // never user1's
      }
      assert.strictEqual(s.cache.stats().entries, 0);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: a 404 with a lifetime is stored, a 206 / an unknown status is not`, async () => {
    const s = await site(flavor, {
      '/gone': () => ({ status: 404, headers: PUBLIC_60 }),
      '/teapot': () => ({ status: 418, headers: PUBLIC_60 }),
    });
    try {
      await get(s, '/gone');
      const b = await get(s, '/gone');
      assert.strictEqual(b.status, 404);
      assert.strictEqual(s.renders('/gone'), 1);
      await get(s, '/teapot');
      await get(s, '/teapot');
      assert.strictEqual(s.renders('/teapot'), 2);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: requests with Authorization a route lets in are rendered; their pages are shared only with public / s-maxage / must-revalidate (RFC 9111 3.5)`, async () => {
    // without `authorization`, such requests pass (cache-security.test.js)
    const options = { authorization: true };
    const s = await site(
      flavor,
      {
        '/mine': (req) => ({
          headers: { 'Cache-Control': 'max-age=60' },
          body: `for ${req.headers.authorization || 'anyone'}`,
        }),
        '/shared': (req) => ({
          headers: { 'Cache-Control': 's-maxage=60' },
          body: `for ${req.headers.authorization || 'anyone'}`,
        }),
      },
      options,
    );
    try {
      await get(s, '/mine', { authorization: 'Bearer alice' });
      const anon = await get(s, '/mine');
      assert.strictEqual(anon.body.toString(), 'for anyone');
      // another user with credentials is never answered from the cache
      await get(s, '/mine');
      const bob = await get(s, '/mine', { authorization: 'Bearer bob' });
      assert.strictEqual(bob.body.toString(), 'for Bearer bob');
      await get(s, '/shared', { authorization: 'Bearer alice' });
      assert.strictEqual((await get(s, '/shared')).body.toString(), 'for Bearer alice');
      assert.strictEqual(s.renders('/shared'), 1);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: requests with a Cookie pass unless the route opts in`, async () => {
    const routes = { '/c': (req) => ({ headers: PUBLIC_60, body: `cookie ${req.headers.cookie || 'none'}` }) };
    const s = await site(flavor, routes);
    try {
      await get(s, '/c', { cookie: 'a=1' });
      await get(s, '/c', { cookie: 'a=1' });
      assert.strictEqual(s.renders('/c'), 2);
      assert.strictEqual(s.cache.stats().entries, 0);
    } finally {
      await s.close();
    }
    const t = await site(flavor, routes, { cookies: (req) => req.url.startsWith('/c') });
    try {
      await get(t, '/c', { cookie: 'a=1' });
      assert.strictEqual((await get(t, '/c', { cookie: 'b=2' })).body.toString(), 'cookie a=1');
      assert.strictEqual(t.renders('/c'), 1);
    } finally {
      await t.close();
    }
  });

  test(`${flavor}: Vary keeps one entry per value of the named request headers; Vary: * is never stored`, async () => {
    const s = await site(flavor, {
      '/lang': (req) => ({
        headers: { ...PUBLIC_60, Vary: 'Accept-Language' },
        body: `lang ${req.headers['accept-language']}`,
      }),
      '/star': () => ({ headers: { ...PUBLIC_60, Vary: '*' } }),
    });
    try {
      assert.strictEqual((await get(s, '/lang', { 'accept-language': 'fr' })).body.toString(), 'lang fr');
      assert.strictEqual((await get(s, '/lang', { 'accept-language': 'de' })).body.toString(), 'lang de');
      assert.strictEqual((await get(s, '/lang', { 'accept-language': 'fr' })).body.toString(), 'lang fr');
      assert.strictEqual((await get(s, '/lang', { 'accept-language': 'de' })).body.toString(), 'lang de');
      assert.strictEqual(s.renders('/lang'), 2);
      await get(s, '/star');
      await get(s, '/star');
      assert.strictEqual(s.renders('/star'), 2);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: query normalisation: 'sort' and ignoreParams share one entry, the default keeps them apart`, async () => {
    const routes = { '/q': (req, n) => ({ headers: PUBLIC_60, body: `q ${n}` }) };
    const s = await site(flavor, routes, { query: 'sort', ignoreParams: ['utm_source'] });
    try {
      await get(s, '/q?b=2&a=1');
      assert.strictEqual((await get(s, '/q?a=1&b=2&utm_source=x')).body.toString(), 'q 1');
      assert.strictEqual((await get(s, '/q?a=1')).body.toString(), 'q 2');
    } finally {
      await s.close();
    }
    const t = await site(flavor, routes);
    try {
      await get(t, '/q?b=2&a=1');
      assert.strictEqual((await get(t, '/q?a=1&b=2')).body.toString(), 'q 2');
    } finally {
      await t.close();
    }
  });

  test(`${flavor}: a client's Cache-Control: no-cache does not bypass the cache unless honorRequestNoCache`, async () => {
    const routes = { '/n': () => ({ headers: PUBLIC_60 }) };
    const s = await site(flavor, routes);
    try {
      await get(s, '/n');
      assert.strictEqual((await get(s, '/n', { 'cache-control': 'no-cache' })).body.toString(), 'page /n render 1');
    } finally {
      await s.close();
    }
    const t = await site(flavor, routes, { honorRequestNoCache: true });
    try {
      await get(t, '/n');
      assert.strictEqual((await get(t, '/n', { 'cache-control': 'no-cache' })).body.toString(), 'page /n render 2');
      assert.strictEqual((await get(t, '/n')).body.toString(), 'page /n render 2'); // and it was stored
    } finally {
      await t.close();
    }
  });

  test(`${flavor}: HEAD is answered from the GET entry; a HEAD miss whose route sends no body stores nothing`, async () => {
    // the route sees the client's HEAD (the cache does not rewrite it) and sends no body to it;
    // a route that sends one anyway fills the entry (cache-whole-body.test.js)
    const s = await site(flavor, {
      '/h': (req) => ({ headers: PUBLIC_60, body: req.method === 'HEAD' ? '' : undefined }),
    });
    try {
      const head = await request(`${s.url}/h`, { method: 'HEAD' });
      assert.strictEqual(head.status, 200);
      assert.strictEqual(head.body.length, 0);
      const page = await get(s, '/h');
      assert.strictEqual(page.body.toString(), 'page /h render 2');
      const head2 = await request(`${s.url}/h`, { method: 'HEAD' });
      assert.strictEqual(head2.headers['content-length'], String(page.body.length));
      assert.strictEqual(head2.body.length, 0);
      assert.strictEqual((await get(s, '/h')).body.toString(), 'page /h render 2');
      assert.strictEqual(s.renders('/h'), 2);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: If-None-Match / If-Modified-Since get a 304 from the stored entry`, async () => {
    const lastModified = new Date(1_600_000_000_000).toUTCString();
    const s = await site(flavor, { '/e': () => ({ headers: { ...PUBLIC_60, 'Last-Modified': lastModified } }) });
    try {
      const first = await get(s, '/e', { 'if-none-match': '"stale"' });
      assert.strictEqual(first.status, 200);
      const tag = (await get(s, '/e')).headers.etag;
      const nm = await get(s, '/e', { 'if-none-match': tag });
      assert.strictEqual(nm.status, 304);
      assert.strictEqual(nm.body.length, 0);
      assert.strictEqual(nm.headers.etag, tag);
      assert.strictEqual(nm.headers['cache-control'], 'public, max-age=60');
      assert.strictEqual((await get(s, '/e', { 'if-none-match': tag.slice(2) })).status, 304); // weak comparison
      assert.strictEqual((await get(s, '/e', { 'if-none-match': 'W/"0-00000000"' })).status, 200);
      assert.strictEqual((await get(s, '/e', { 'if-modified-since': lastModified })).status, 304);
      assert.strictEqual(
        (await get(s, '/e', { 'if-modified-since': new Date(1_500_000_000_000).toUTCString() })).status,
        200,
      );
      assert.strictEqual(s.renders('/e'), 1);
      assert.strictEqual(s.cache.stats().notModified, 3);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: concurrent misses of one URL wait for a single render`, async () => {
    const s = await site(flavor, { '/slow': () => ({ headers: PUBLIC_60, wait: 80 }) });
    try {
      const all = await Promise.all(Array.from({ length: 40 }, () => get(s, '/slow')));
      assert.strictEqual(s.renders('/slow'), 1);
      for (const r of all) assert.strictEqual(r.body.toString(), 'page /slow render 1');
      // The other 39 were all answered from the cache (a waiter counts as a hit too): they
      // waited for that render or, on a busy machine arriving after it was stored, hit it; at
      // least one must have waited.
      const { coalesced, hits } = s.cache.stats();
      assert.strictEqual(hits, 39, JSON.stringify({ coalesced, hits }));
      assert.ok(coalesced >= 1, `coalesced ${coalesced}`);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: waiters past lockTimeout render themselves`, async () => {
    const s = await site(flavor, { '/stuck': () => ({ headers: PUBLIC_60, wait: 400 }) }, { lockTimeout: 50 });
    try {
      const all = await Promise.all(Array.from({ length: 5 }, () => get(s, '/stuck')));
      assert.strictEqual(s.renders('/stuck'), 5);
      for (const r of all) assert.strictEqual(r.status, 200);
      assert.strictEqual(s.cache.stats().coalesceTimeouts, 4);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: a client that leaves while waiting is dropped; the others get the page`, async () => {
    const s = await site(flavor, { '/w': () => ({ headers: PUBLIC_60, wait: 150 }) });
    try {
      const first = get(s, '/w');
      await delay(20);
      const leaver = http.get(`${s.url}/w`, { agent: false });
      leaver.on('error', () => {});
      await delay(30);
      leaver.destroy();
      const others = await Promise.all([first, get(s, '/w')]);
      for (const r of others) assert.strictEqual(r.body.toString(), 'page /w render 1');
      assert.strictEqual(s.cache.stats().waitersGone, 1);
      assert.strictEqual(s.cache.stats().pending, 0);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: an uncacheable URL passes straight through afterwards (hit-for-pass), so its requests run concurrently`, async () => {
    const routes = { '/u': () => ({ headers: { 'Cache-Control': 'private' }, wait: 60 }) };
    for (const [options, expected] of [
      [{}, 10],
      [{ hitForPass: 0 }, 1],
    ]) {
      const s = await site(flavor, routes, options);
      try {
        await get(s, '/u'); // learns that /u is uncacheable
        s.state.maxInFlight = 0;
        await Promise.all(Array.from({ length: 10 }, () => get(s, '/u')));
        assert.strictEqual(s.state.maxInFlight, expected, `hitForPass ${JSON.stringify(options)}`);
        assert.strictEqual(s.renders('/u'), 11);
      } finally {
        await s.close();
      }
    }
  });

  test(`${flavor}: stale-while-revalidate serves the stale page at once and renders it again in the background`, async () => {
    const s = await site(flavor, {
      '/swr': () => ({ headers: { 'Cache-Control': 'public, max-age=10, stale-while-revalidate=60' } }),
    });
    try {
      await get(s, '/swr');
      s.clock.now += 20_000;
      const stale = await get(s, '/swr');
      assert.strictEqual(stale.body.toString(), 'page /swr render 1');
      assert.strictEqual(stale.headers.age, '20');
      for (let i = 0; i < 100 && s.renders('/swr') < 2; i++) await delay(10);
      for (let i = 0; i < 100 && s.cache.stats().refreshing > 0; i++) await delay(10);
      const fresh = await get(s, '/swr');
      assert.strictEqual(fresh.body.toString(), 'page /swr render 2');
      assert.strictEqual(s.renders('/swr'), 2);
      s.clock.now += 100_000; // past both windows: a plain miss
      assert.strictEqual((await get(s, '/swr')).body.toString(), 'page /swr render 3');
      assert.strictEqual(s.cache.stats().staleServed, 1);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: must-revalidate forbids serving stale (RFC 9111 5.2.2.2)`, async () => {
    const s = await site(flavor, {
      '/mr': () => ({ headers: { 'Cache-Control': 'public, max-age=10, stale-while-revalidate=60, must-revalidate' } }),
    });
    try {
      await get(s, '/mr');
      s.clock.now += 20_000;
      assert.strictEqual((await get(s, '/mr')).body.toString(), 'page /mr render 2');
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: stale-if-error serves the stale page when the render fails or answers 5xx`, async () => {
    let broken = false;
    const s = await site(flavor, {
      '/sie': () =>
        broken ? { throws: true } : { headers: { 'Cache-Control': 'public, max-age=10, stale-if-error=60' } },
      '/sie503': () =>
        broken
          ? { status: 503, headers: { 'Content-Security-Policy': "default-src 'none'" } }
          : { headers: { 'Cache-Control': 'public, max-age=10, stale-if-error=60' } },
    });
    try {
      await get(s, '/sie');
      await get(s, '/sie503');
      broken = true;
      s.clock.now += 20_000;
      const r = await get(s, '/sie');
      assert.strictEqual(r.status, 200);
      assert.strictEqual(r.body.toString(), 'page /sie render 1');
      const r2 = await get(s, '/sie503');
      assert.strictEqual(r2.status, 200);
      assert.strictEqual(r2.body.toString(), 'page /sie503 render 1');
      assert.strictEqual(r2.headers['content-security-policy'], undefined);
      assert.strictEqual(s.cache.stats().staleIfError, 2);
      s.clock.now += 60_000; // past the window: the failure shows
      assert.strictEqual((await get(s, '/sie')).status, 500);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: purge(url), purgePrefix(prefix) and purgeTag(tag) (from Cache-Tag, which clients never see)`, async () => {
    const tagged = (tags) => () => ({ headers: { ...PUBLIC_60, 'Cache-Tag': tags } });
    const s = await site(flavor, {
      '/p/1': tagged('product-1, catalog'),
      '/p/2': tagged('product-2, catalog'),
      '/about': tagged('static'),
    });
    try {
      const first = await get(s, '/p/1');
      assert.strictEqual(first.headers['cache-tag'], undefined);
      await get(s, '/p/1?x=1');
      await get(s, '/p/2');
      await get(s, '/about');
      assert.strictEqual((await get(s, '/p/1')).headers['cache-tag'], undefined);
      assert.strictEqual(s.cache.purge('/p/1'), 1);
      await get(s, '/p/1');
      assert.strictEqual(s.renders('/p/1'), 3);
      assert.strictEqual(s.cache.purgeTag('product-2'), 1);
      await get(s, '/p/2');
      assert.strictEqual(s.renders('/p/2'), 2);
      assert.strictEqual(s.cache.purgeTag('catalog'), 3);
      assert.strictEqual(s.cache.purgePrefix('/p/'), 0);
      await get(s, '/p/1?x=1');
      assert.strictEqual(s.cache.purgePrefix('/p/'), 1);
      await get(s, '/about');
      assert.strictEqual(s.renders('/about'), 1);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: a successful POST invalidates the stored page (RFC 9111 4.4); POST is never stored`, async () => {
    const s = await site(flavor, { '/doc': () => ({ headers: PUBLIC_60 }) });
    try {
      await get(s, '/doc');
      await request(`${s.url}/doc`, { method: 'POST', body: 'x' });
      assert.strictEqual((await get(s, '/doc')).body.toString(), 'page /doc render 3');
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: a body past maxEntrySize goes out whole and is not stored`, async () => {
    const big = 'x'.repeat(50_000);
    const s = await site(flavor, { '/big': () => ({ headers: PUBLIC_60, body: big }) }, { maxEntrySize: 10_000 });
    try {
      assert.strictEqual((await get(s, '/big')).body.length, 50_000);
      assert.strictEqual((await get(s, '/big')).body.length, 50_000);
      assert.strictEqual(s.renders('/big'), 2);
      assert.strictEqual(s.cache.stats().tooLarge, 1);
    } finally {
      await s.close();
    }
  });
}

test('distinct query strings stay within maxEntries and maxBytes (100k URLs through the engine, 3k over HTTP)', async () => {
  const maxEntries = 500;
  const maxBytes = 256 * 1024;
  const cache = responseCache({ maxEntries, maxBytes });
  const engine = cache.engine;
  const body = Buffer.alloc(1000, 'a');
  const headers = { 'cache-control': 'public, max-age=600', 'content-type': 'text/html' };
  let peakEntries = 0;
  let peakBytes = 0;
  for (let i = 0; i < 100_000; i++) {
    const d = engine.begin({ method: 'GET', url: `/search?q=${i}`, headers: { host: 'example.test' } });
    assert.strictEqual(d.action, 'fill');
    const policy = engine.admit(d.fill, 200, headers);
    engine.store(d.fill, policy, headers, body);
    peakEntries = Math.max(peakEntries, engine.memory.entries.size);
    peakBytes = Math.max(peakBytes, engine.memory.bytes);
  }
  assert.ok(peakEntries <= maxEntries, `peak entries ${peakEntries}`);
  assert.ok(peakBytes <= maxBytes, `peak bytes ${peakBytes}`);
  assert.ok(engine.memory.byTarget.size <= maxEntries && engine.memory.vary.size <= maxEntries);
  assert.ok(cache.stats().evictions > 99_000);

  const app = require('express')();
  const small = responseCache({ maxEntries: 100, maxBytes: 64 * 1024 });
  app.use(small);
  app.use((req, res) => res.set('Cache-Control', 'public, max-age=60').send(`r ${req.url}`));
  const s = await listen(app);
  try {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const one = (i) =>
      new Promise((resolve, reject) => {
        http.get(`${s.url}/s?q=${i}`, { agent }, (res) => res.resume().on('end', resolve)).on('error', reject);
      });
    for (let i = 0; i < 3000; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => one(i + j)));
    agent.destroy();
    const st = small.stats();
    assert.ok(st.entries <= 100 && st.bytes <= 64 * 1024, JSON.stringify(st));
    assert.strictEqual(st.stored, 3000);
  } finally {
    await s.close();
  }
});

test('compression 1.8.2 mounted in front compresses hits of the stored identity body', async () => {
  const compression = require('compression');
  const app = require('express')();
  const cache = responseCache();
  app.use(compression());
  app.use(cache);
  const page = `<!doctype html>${'<p>hello world</p>'.repeat(500)}`;
  let renders = 0;
  app.get('/z', (req, res) => {
    renders++;
    res.set('Cache-Control', 'public, max-age=60').type('html').send(page);
  });
  const s = await listen(app);
  try {
    for (const enc of ['gzip', 'br', 'gzip', 'identity']) {
      const r = await get(s, '/z', { 'accept-encoding': enc });
      const plain =
        enc === 'gzip' ? zlib.gunzipSync(r.body) : enc === 'br' ? zlib.brotliDecompressSync(r.body) : r.body;
      assert.strictEqual(plain.toString(), page);
      assert.strictEqual(r.headers['content-encoding'], enc === 'identity' ? undefined : enc);
      assert.strictEqual(r.headers.vary, 'Accept-Encoding');
    }
    assert.strictEqual(renders, 1);
    const entry = cache.engine.memory.get([...cache.engine.memory.entries.keys()][0]);
    assert.strictEqual(entry.body.toString(), page); // identity bytes stored, not a compressed copy
    assert.strictEqual(entry.headers['content-encoding'], undefined);
  } finally {
    await s.close();
  }
});

test("Angular's writeResponseToNodeResponse shape (setHeader, flushHeaders, streamed writes) and ssr-native/angular writeResponse are stored", async () => {
  const { writeResponse } = require('../../../lib/angular');
  const app = require('express')();
  const cache = responseCache();
  app.use(cache);
  let renders = 0;
  app.get('/streamed', (req, res) => {
    renders++;
    res.statusCode = 200;
    res.setHeader('content-type', 'text/html');
    res.setHeader('cache-control', 'public, s-maxage=60, stale-while-revalidate=600');
    res.flushHeaders();
    res.write('<html>');
    setTimeout(() => {
      res.write(Buffer.from('<body>streamed</body>'));
      res.end('</html>');
    }, 10);
  });
  app.get('/web', (req, res) => {
    renders++;
    const response = new Response('<html>web response</html>', {
      headers: { 'content-type': 'text/html', 'cache-control': 'public, s-maxage=60' },
    });
    writeResponse(response, req, res);
  });
  const s = await listen(app);
  try {
    await get(s, '/streamed');
    const hit = await get(s, '/streamed');
    assert.strictEqual(hit.body.toString(), '<html><body>streamed</body></html>');
    assert.strictEqual(hit.headers.age, '0');
    await get(s, '/web');
    const webHit = await get(s, '/web');
    assert.strictEqual(webHit.body.toString(), '<html>web response</html>');
    assert.strictEqual(renders, 2);
  } finally {
    await s.close();
  }
});

test('Express res.send keeps its own ETag, res.json is stored, options are validated', async () => {
  const app = require('express4')();
  const cache = responseCache();
  app.use(cache);
  app.get('/j', (req, res) => res.set('Cache-Control', 'public, max-age=60').json({ ok: true }));
  const s = await listen(app);
  try {
    const a = await get(s, '/j');
    const b = await get(s, '/j');
    assert.strictEqual(b.body.toString(), '{"ok":true}');
    assert.strictEqual(b.headers.etag, a.headers.etag); // Express's SHA-1 tag, stored as sent
    assert.strictEqual(b.headers['content-type'], 'application/json; charset=utf-8');
    assert.strictEqual(cache.stats().hits, 1);
  } finally {
    await s.close();
  }
  assert.throws(() => responseCache({ maxBytes: -1 }), RangeError);
  assert.throws(() => responseCache({ query: 'shuffle' }), TypeError);
  assert.throws(() => responseCache({ cookies: 'yes' }), TypeError);
  assert.throws(() => responseCache(null), TypeError);
});
