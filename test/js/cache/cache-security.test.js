'use strict';
// The response cache attacked as issue 35 did, on node:http, Express 4 and Express 5 (real servers
// over loopback): request inputs that are not in the key (forwarding and rewrite headers), a
// request with Authorization replacing a fresh entry, stale-while-revalidate refreshes that carry
// the triggering client's headers and borrow the server's own (trusted) address, Set-Cookie and
// Cache-Control added after the cache's hook (express-session, cookie-session, ssr-native's
// compression holding the head back), hit-for-pass switching a whole URL off, and the smaller
// items: query 'sort', Cache-Tag bytes, invalidation per Host, a reflected ignored parameter,
// allowedHosts, host: false and the key hook. Every test asks what the next plain visitor gets.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { listen } = require('../helpers/http');
const { localPortNeverShared, refusedAfterAllowedWarns } = require('../helpers/host-port-attack');
const { responseCache } = require('../../../lib/express/cache');

const EXPRESSES = { 'express 4': () => require('express4')(), 'express 5': () => require('express53')() };
const FLAVORS = ['node:http', ...Object.keys(EXPRESSES)];
const PUBLIC_60 = 'public, max-age=60';
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A request from a chosen loopback address (127.0.0.2 stands for a client that is not the proxy). */
function request(url, { method = 'GET', headers = {}, from } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false, localAddress: from }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString() }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * A server with the cache, for one flavor: `routes(req, res, n)` answers every request (n counts
 * renders); `before` middleware is mounted in front of the cache, `after` between it and the
 * routes; `trustProxy` is Express's setting.
 */
async function site(flavor, routes, { options = {}, before = [], after = [], trustProxy } = {}) {
  const clock = { now: 1_700_000_000_000 };
  const cache = responseCache({ now: () => clock.now, ...options });
  let renders = 0;
  const handler = (req, res) => routes(req, res, ++renders);
  let app;
  if (flavor === 'node:http') {
    const chain = [...before, cache, ...after];
    app = (req, res) => {
      let i = 0;
      const next = (err) => {
        if (err) {
          res.statusCode = 500;
          return res.end(String(err));
        }
        const mw = chain[i++];
        if (mw === undefined) return handler(req, res);
        mw(req, res, next);
      };
      next();
    };
  } else {
    app = EXPRESSES[flavor]();
    if (trustProxy !== undefined) app.set('trust proxy', trustProxy);
    for (const mw of before) app.use(mw);
    app.use(cache);
    for (const mw of after) app.use(mw);
    app.use(handler);
  }
  const server = await listen(app);
  return { ...server, cache, clock, renders: () => renders, get: (path, o) => request(server.url + path, o) };
}

function send(res, status, headers, body) {
  res.statusCode = status;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.end(body);
}

async function until(predicate, what) {
  for (let i = 0; i < 300; i++) {
    if (predicate()) return;
    await delay(10);
  }
  assert.fail(`timed out waiting for ${what}`);
}

// Pages built from a forwarding header as apps do (Angular reads x-forwarded-host itself).
const REFLECTED = {
  'x-forwarded-host': 'evil.example',
  'x-forwarded-proto': 'javascript',
  'x-forwarded-scheme': 'evilscheme',
  'x-forwarded-port': '6666',
  'x-forwarded-prefix': '/evil',
  forwarded: 'host=evil.example;proto=http',
  'x-host': 'evil.example',
};

for (const flavor of FLAVORS) {
  for (const trust of flavor === 'node:http' ? [undefined] : [false, true]) {
    test(`${flavor}${trust === undefined ? '' : ` (trust proxy ${trust})`}: a forwarding header reflected in the page never reaches the plain visitor`, async () => {
      const s = await site(
        flavor,
        (req, res, n) => {
          const parts = Object.keys(REFLECTED).map((name) => `${name}=${req.headers[name] || ''}`);
          send(
            res,
            200,
            { 'Cache-Control': PUBLIC_60 },
            `render ${n}: <a href="//${req.headers.host}/x">${parts.join(' ')}</a>`,
          );
        },
        { trustProxy: trust },
      );
      try {
        for (const [name, value] of Object.entries(REFLECTED)) {
          const attack = await s.get(`/page-${name}`, { headers: { [name]: value } });
          assert.match(attack.text, new RegExp(`${name}=${value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
          const plain = await s.get(`/page-${name}`);
          assert.doesNotMatch(plain.text, /evil|6666|javascript/, `${name}: the plain visitor got ${plain.text}`);
        }
        // untrusted: each attack passed (keyed under trust proxy)
        assert.equal(s.cache.stats().unkeyedPasses, trust ? 0 : Object.keys(REFLECTED).length);
        // the plain pages themselves are cached
        const before = s.renders();
        const again = await s.get('/page-x-host');
        assert.equal(s.renders(), before);
        assert.ok(again.headers.age !== undefined);
      } finally {
        await s.close();
      }
    });
  }

  test(`${flavor}: X-Original-URL, X-Rewrite-URL and X-HTTP-Method-Override honoured by the app never fill the target's entry`, async () => {
    // an IIS-style rewrite and a method override mounted between the cache and the routes
    const rewrite = (req, res, next) => {
      const to = req.headers['x-original-url'] || req.headers['x-rewrite-url'];
      if (to) req.url = to;
      const override = req.headers['x-http-method-override'];
      if (override) req.method = String(override).toUpperCase();
      next();
    };
    const s = await site(
      flavor,
      (req, res, n) =>
        send(res, 200, { 'Cache-Control': PUBLIC_60 }, `${req.method} ${req.url.split('?')[0]} render ${n}`),
      { after: [rewrite] },
    );
    try {
      for (const [header, value] of [
        ['x-original-url', '/evil'],
        ['x-rewrite-url', '/evil'],
        ['x-http-method-override', 'DELETE'],
      ]) {
        const path = `/home-${header}`;
        await s.get(path, { headers: { [header]: value } });
        const plain = await s.get(path);
        assert.equal(
          plain.text.replace(/ render \d+$/, ''),
          `GET ${path}`,
          `${header}: the plain visitor got ${plain.text}`,
        );
      }
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: a request with Authorization neither replaces a fresh entry nor fills one for anonymous visitors`, async () => {
    const s = await site(flavor, (req, res, n) =>
      send(
        res,
        200,
        { 'Cache-Control': 'public, s-maxage=60' },
        `for ${req.headers.authorization || 'anyone'} render ${n}`,
      ),
    );
    try {
      assert.equal((await s.get('/fresh')).text, 'for anyone render 1');
      const junk = await s.get('/fresh', { headers: { authorization: 'Bearer junk' } });
      assert.equal(junk.text, 'for Bearer junk render 2', 'the authorized request goes to the origin');
      assert.equal((await s.get('/fresh')).text, 'for anyone render 1', 'the fresh entry was replaced');
      await s.get('/first', { headers: { authorization: 'Bearer alice' } });
      const anon = await s.get('/first');
      assert.match(anon.text, /^for anyone/, 'an authorized answer was served to an anonymous visitor');
    } finally {
      await s.close();
    }
    // a route opts in: then RFC 9111 3.5 applies (public / s-maxage / must-revalidate is shared)
    const t = await site(
      flavor,
      (req, res, n) =>
        send(
          res,
          200,
          { 'Cache-Control': 'public, s-maxage=60' },
          `for ${req.headers.authorization || 'anyone'} render ${n}`,
        ),
      { options: { authorization: (req) => req.url.startsWith('/open') } },
    );
    try {
      await t.get('/open', { headers: { authorization: 'Bearer alice' } });
      assert.equal((await t.get('/open')).text, 'for Bearer alice render 1');
      await t.get('/closed', { headers: { authorization: 'Bearer alice' } });
      assert.equal((await t.get('/closed')).text, 'for anyone render 3');
    } finally {
      await t.close();
    }
  });

  test(`${flavor}: hit-for-pass is per variant and never follows a 206, 304, 412 or redirect that one request caused`, async () => {
    const s = await site(flavor, (req, res, n) => {
      const lang = req.headers['accept-language'] || 'en';
      const vary = { Vary: 'Accept-Language', 'Cache-Control': PUBLIC_60 };
      if (req.headers['if-match']) return send(res, 412, vary, 'precondition failed');
      if (lang === 'zz') return send(res, 302, { ...vary, Location: '/en' }, 'unsupported');
      if (req.headers.range) return send(res, 206, { ...vary, 'Content-Range': 'bytes 0-0/100' }, 'p');
      if (lang === 'private')
        return send(res, 200, { Vary: 'Accept-Language', 'Cache-Control': 'private' }, `mine ${n}`);
      send(res, 200, vary, `${lang} render ${n}`);
    });
    try {
      assert.equal((await s.get('/l', { headers: { 'accept-language': 'en' } })).text, 'en render 1');
      await s.get('/l', { headers: { 'accept-language': 'zz', range: 'bytes=0-0' } });
      await s.get('/l', { headers: { 'accept-language': 'zz' } });
      await s.get('/l', { headers: { 'accept-language': 'en', range: 'bytes=0-0' } });
      await s.get('/l', { headers: { 'accept-language': 'en', 'if-match': '"x"' } });
      await s.get('/l', { headers: { 'accept-language': 'private' } });
      const en = await s.get('/l', { headers: { 'accept-language': 'en' } });
      assert.equal(en.text, 'en render 1', 'the fresh en entry was passed over');
      // past its freshness, the en variant renders and is stored again: nothing above made it pass
      s.clock.now += 61_000;
      const rendered = await s.get('/l', { headers: { 'accept-language': 'en' } });
      assert.match(rendered.text, /^en render \d+$/);
      assert.equal(
        (await s.get('/l', { headers: { 'accept-language': 'en' } })).text,
        rendered.text,
        'en no longer stored',
      );
      // while the variant whose answer is private for everyone passes straight through
      assert.equal(s.cache.stats().hitForPassKeys, 1);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: stale-while-revalidate refreshes carry the key's headers only, never the trigger's others`, async () => {
    const s = await site(flavor, (req, res, n) => {
      const seen = ['x-forwarded-for', 'x-forwarded-host', 'user-agent', 'x-debug', 'accept-language']
        .map((name) => `${name}=${req.headers[name] || ''}`)
        .join(' ');
      send(
        res,
        200,
        { 'Cache-Control': 'public, max-age=10, stale-while-revalidate=60', Vary: 'Accept-Language' },
        `render ${n}: ${seen}`,
      );
    });
    try {
      await s.get('/swr', { headers: { 'accept-language': 'fr' } });
      s.clock.now += 20_000;
      const stale = await s.get('/swr', {
        headers: { 'accept-language': 'fr', 'x-forwarded-for': '10.6.6.6', 'user-agent': 'attacker', 'x-debug': 'on' },
      });
      assert.match(stale.text, /^render 1/);
      await until(() => s.renders() === 2 && s.cache.stats().refreshing === 0, 'the refresh');
      const fresh = await s.get('/swr', { headers: { 'accept-language': 'fr' } });
      assert.equal(fresh.text, 'render 2: x-forwarded-for= x-forwarded-host= user-agent= x-debug= accept-language=fr');
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: an unsafe method's 2xx invalidates its target for its own Host only (RFC 9111 4.4)`, async () => {
    const s = await site(flavor, (req, res, n) =>
      send(res, 200, { 'Cache-Control': PUBLIC_60 }, `${req.method} ${req.headers.host} render ${n}`),
    );
    try {
      await s.get('/p', { headers: { host: 'a.example' } });
      await s.get('/p', { headers: { host: 'b.example' } });
      await s.get('/p', { method: 'POST', headers: { host: 'a.example' } });
      assert.equal((await s.get('/p', { headers: { host: 'b.example' } })).text, 'GET b.example render 2');
      assert.equal((await s.get('/p', { headers: { host: 'a.example' } })).text, 'GET a.example render 4');
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: a page reflecting an ignored parameter's value is not stored under the URL without it`, async () => {
    const s = await site(
      flavor,
      (req, res, n) => {
        const source = new URL(req.url, 'http://x').searchParams.get('utm_source') || 'none';
        send(
          res,
          200,
          { 'Cache-Control': PUBLIC_60 },
          req.url.startsWith('/r') ? `render ${n} from ${source}` : `render ${n}`,
        );
      },
      { options: { ignoreParams: ['utm_source'] } },
    );
    try {
      await s.get('/r?utm_source=%3Cscript%3Ealert(1)%3C%2Fscript%3E');
      const plain = await s.get('/r');
      assert.doesNotMatch(plain.text, /script/, `the plain visitor got ${plain.text}`);
      // a parameter the page does not show still shares the entry
      const t = await s.get('/q?utm_source=newsletter');
      assert.equal((await s.get('/q?utm_source=other')).text, t.text);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: allowedHosts: a request for another Host is neither stored nor served; host: false needs it`, async () => {
    const s = await site(
      flavor,
      (req, res, n) => send(res, 200, { 'Cache-Control': PUBLIC_60 }, `${req.headers.host} ${n}`),
      {
        options: { allowedHosts: ['shop.example', '*.shop.example'] },
      },
    );
    try {
      await s.get('/', { headers: { host: 'evil.example' } });
      await s.get('/', { headers: { host: 'evil.example' } });
      assert.equal(s.renders(), 2);
      await s.get('/', { headers: { host: 'shop.example:8080' } });
      assert.equal((await s.get('/', { headers: { host: 'shop.example:8080' } })).text, 'shop.example:8080 3');
      await s.get('/', { headers: { host: 'eu.shop.example' } });
      assert.equal((await s.get('/', { headers: { host: 'eu.shop.example' } })).text, 'eu.shop.example 4');
      assert.equal(s.cache.stats().entries, 2);
    } finally {
      await s.close();
    }
    assert.throws(() => responseCache({ host: false }), /allowedHosts/);
    const t = await site(flavor, (req, res, n) => send(res, 200, { 'Cache-Control': PUBLIC_60 }, `page ${n}`), {
      options: { host: false, allowedHosts: ['a.example', 'b.example'] },
    });
    try {
      await t.get('/', { headers: { host: 'a.example' } });
      assert.equal((await t.get('/', { headers: { host: 'b.example' } })).text, 'page 1');
      assert.equal((await t.get('/', { headers: { host: 'evil.example' } })).text, 'page 2');
    } finally {
      await t.close();
    }
  });

  test(`${flavor}: a refresh stores only what renders the key it was sent for (key hook inputs carried with keyHeaders)`, async () => {
    const route = (req, res, n) =>
      send(
        res,
        200,
        { 'Cache-Control': 'public, max-age=10, stale-while-revalidate=60' },
        `${req.headers['x-tenant'] || 'no tenant'} ${n}`,
      );
    const key = (req) => req.headers['x-tenant'];
    for (const [options, expected] of [
      [{ key }, 'a 1'], // the refresh lacks x-tenant: its render is not stored under tenant a's key
      [{ key, keyHeaders: ['x-tenant'] }, 'a 2'],
    ]) {
      const s = await site(flavor, route, { options });
      try {
        await s.get('/', { headers: { 'x-tenant': 'a' } });
        s.clock.now += 20_000;
        await s.get('/', { headers: { 'x-tenant': 'a' } });
        await until(() => s.renders() === 2 && s.cache.stats().refreshing === 0, 'the refresh');
        await delay(20);
        s.clock.now -= 20_000; // fresh again, whichever page the entry holds
        assert.equal(
          (await s.get('/', { headers: { 'x-tenant': 'a' } })).text,
          expected,
          JSON.stringify(Object.keys(options)),
        );
      } finally {
        await s.close();
      }
    }
  });

  test(`${flavor}: the key hook adds what else the page reads; false passes`, async () => {
    const s = await site(
      flavor,
      (req, res, n) => send(res, 200, { 'Cache-Control': PUBLIC_60 }, `${req.headers['x-tenant']} ${n}`),
      {
        options: { key: (req) => (req.headers['x-tenant'] === 'none' ? false : req.headers['x-tenant']) },
      },
    );
    try {
      await s.get('/', { headers: { 'x-tenant': 'a' } });
      assert.equal((await s.get('/', { headers: { 'x-tenant': 'b' } })).text, 'b 2');
      assert.equal((await s.get('/', { headers: { 'x-tenant': 'a' } })).text, 'a 1');
      await s.get('/', { headers: { 'x-tenant': 'none' } });
      await s.get('/', { headers: { 'x-tenant': 'none' } });
      assert.equal(s.renders(), 4);
    } finally {
      await s.close();
    }
  });
}

for (const flavor of Object.keys(EXPRESSES)) {
  test(`${flavor}: X-Forwarded-Proto honoured through trust proxy is keyed: the https visitor never gets the http page`, async () => {
    const s = await site(
      flavor,
      (req, res, n) =>
        send(
          res,
          200,
          { 'Cache-Control': PUBLIC_60 },
          `<script src="${req.protocol}://${req.get('host')}/main.js"></script> ${n}`,
        ),
      { trustProxy: true },
    );
    try {
      await s.get('/', { headers: { 'x-forwarded-proto': 'http', host: 'victim.example' } });
      const visitor = await s.get('/', { headers: { 'x-forwarded-proto': 'https', host: 'victim.example' } });
      assert.match(visitor.text, /^<script src="https:\/\/victim\.example\/main\.js">/);
      const again = await s.get('/', { headers: { 'x-forwarded-proto': 'https', host: 'victim.example' } });
      assert.equal(again.text, visitor.text, 'the keyed page is cached');
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: a refresh never borrows the server's trusted address (trust proxy 127.0.0.1, clients from 127.0.0.2)`, async () => {
    const s = await site(
      flavor,
      (req, res, n) =>
        send(
          res,
          200,
          { 'Cache-Control': 'public, max-age=10, stale-while-revalidate=60' },
          `render ${n}: ${req.protocol}://${req.hostname} ip ${req.ip}`,
        ),
      { trustProxy: '127.0.0.1' },
    );
    try {
      const first = await s.get('/t', { from: '127.0.0.2' });
      assert.equal(first.text, 'render 1: http://127.0.0.1 ip 127.0.0.2');
      s.clock.now += 20_000;
      const attack = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http', 'x-forwarded-for': '10.6.6.6' };
      await s.get('/t', { from: '127.0.0.2', headers: attack });
      await s.get('/t', { from: '127.0.0.2', headers: { 'x-forwarded-for': '10.6.6.6' } });
      await until(() => s.cache.stats().refreshing === 0 && s.cache.stats().staleServed > 0, 'the refresh');
      await delay(20);
      const plain = await s.get('/t', { from: '127.0.0.2' });
      assert.doesNotMatch(plain.text, /evil|10\.6\.6\.6/, `the plain visitor got ${plain.text}`);
      assert.match(plain.text, /^render \d+: http:\/\/127\.0\.0\.1 ip 127\.0\.0\.2$/);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: with trust proxy loopback, a trusted X-Forwarded-Host on a stale hit has its own entry; a refresh of the plain page comes as its client, not as the server`, async () => {
    const s = await site(
      flavor,
      (req, res, n) =>
        send(
          res,
          200,
          { 'Cache-Control': 'public, max-age=10, stale-while-revalidate=60' },
          `render ${n}: ${req.hostname} peer ${req.socket.remoteAddress}`,
        ),
      { trustProxy: 'loopback' },
    );
    try {
      const client = { from: '127.0.0.2' };
      await s.get('/h', client);
      s.clock.now += 20_000;
      await s.get('/h', { ...client, headers: { 'x-forwarded-host': 'evil.example' } });
      await delay(50);
      await until(() => s.cache.stats().refreshing === 0, 'refreshes');
      const plain = await s.get('/h', client);
      assert.doesNotMatch(plain.text, /evil/, `the plain visitor got ${plain.text}`);
      await until(() => s.renders() === 3 && s.cache.stats().refreshing === 0, 'the refresh of the plain page');
      await delay(20);
      // the refresh connected from 127.0.0.1 (the server's own address, which 'loopback' trusts)
      // and reached the app as the client it was made for
      assert.equal((await s.get('/h', client)).text, 'render 3: 127.0.0.1 peer 127.0.0.2');
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: a refresh of a page keyed by a trusted proxy's headers reaches the app as that proxy (trust proxy 127.0.0.2)`, async () => {
    const s = await site(
      flavor,
      (req, res, n) =>
        send(
          res,
          200,
          { 'Cache-Control': 'public, max-age=10, stale-while-revalidate=60' },
          `render ${n}: ${req.protocol}`,
        ),
      { trustProxy: '127.0.0.2' },
    );
    try {
      const proxied = { from: '127.0.0.2', headers: { 'x-forwarded-proto': 'https' } };
      assert.equal((await s.get('/k', proxied)).text, 'render 1: https');
      s.clock.now += 20_000;
      assert.equal((await s.get('/k', proxied)).text, 'render 1: https');
      await until(() => s.renders() === 2 && s.cache.stats().refreshing === 0, 'the refresh');
      assert.equal((await s.get('/k', proxied)).text, 'render 2: https');
    } finally {
      await s.close();
    }
  });

  for (const [name, make] of [
    [
      'express-session',
      () => require('express-session')({ secret: 'test secret', resave: false, saveUninitialized: false }),
    ],
    ['cookie-session', () => require('cookie-session')({ secret: 'test secret' })],
  ]) {
    test(`${flavor}: ${name} mounted before the cache: a page whose head gets Set-Cookie at writeHead is never stored`, async () => {
      let csrf = 0;
      const s = await site(
        flavor,
        (req, res) => {
          if (req.session.csrf === undefined) req.session.csrf = `token-${++csrf}`;
          res.set('Cache-Control', PUBLIC_60);
          res.send(`<form><input name="csrf" value="${req.session.csrf}"></form>`);
        },
        { before: [make()] },
      );
      try {
        const alice = await s.get('/form');
        assert.ok(alice.headers['set-cookie'], 'the session sets its cookie');
        assert.match(alice.text, /token-1/);
        const bob = await s.get('/form');
        assert.doesNotMatch(bob.text, /token-1/, "bob got alice's CSRF token");
        assert.equal(s.cache.stats().entries, 0);
      } finally {
        await s.close();
      }
    });
  }

  test(`${flavor}: with ssr-native's compression in front, private and Set-Cookie set after res.send (head held back) are seen`, async () => {
    const compression = require('../../../lib/express/compression');
    const nonce = Math.random().toString(36).slice(2);
    const s = await site(
      flavor,
      (req, res) => {
        const user = req.headers['x-user'];
        res.set('Cache-Control', PUBLIC_60);
        // unique per run: a body compression's shared content cache knows would go out at once
        res.type('html').send(`<main>${`<p>account page of ${user} (${flavor}, ${nonce})</p>`.repeat(200)}</main>`);
        if (!res.headersSent) {
          res.setHeader('Cache-Control', 'private');
          res.setHeader('Set-Cookie', `sid=${user}`);
        }
      },
      { before: [compression()] },
    );
    try {
      const alice = await s.get('/account', { headers: { 'accept-encoding': 'gzip', 'x-user': 'alice' } });
      assert.equal(alice.headers['cache-control'], 'private', 'the late header reached the client');
      const bob = await s.get('/account', { headers: { 'x-user': 'bob' } });
      assert.doesNotMatch(bob.text, /alice/, "bob got alice's page");
    } finally {
      await s.close();
    }
  });
}

test("query: 'sort' orders parameters by name and keeps the order of one name's values", async () => {
  const s = await site(
    'node:http',
    (req, res, n) => send(res, 200, { 'Cache-Control': PUBLIC_60 }, `${req.url} ${n}`),
    {
      options: { query: 'sort' },
    },
  );
  try {
    await s.get('/s?lang=fr&lang=en');
    assert.equal((await s.get('/s?lang=en&lang=fr')).text, '/s?lang=en&lang=fr 2');
    await s.get('/s?b=1&a=2&a=1');
    assert.equal((await s.get('/s?a=2&b=1&a=1')).text, '/s?b=1&a=2&a=1 3');
    assert.equal((await s.get('/s?a=2&a=1&b=1')).text, '/s?b=1&a=2&a=1 3');
  } finally {
    await s.close();
  }
});

test('Cache-Tag values count in maxBytes', async () => {
  const tags = Array.from({ length: 60 }, (_, i) => `tag-${i}-${'x'.repeat(200)}`).join(', ');
  const s = await site(
    'node:http',
    (req, res) => send(res, 200, { 'Cache-Control': PUBLIC_60, 'Cache-Tag': tags }, 'tiny'),
    {
      options: { maxBytes: 200_000 },
    },
  );
  try {
    for (let i = 0; i < 30; i++) await s.get(`/t${i}`);
    const stats = s.cache.stats();
    assert.ok(stats.bytes <= 200_000, `bytes ${stats.bytes}`);
    assert.ok(stats.entries * 60 * 200 <= stats.bytes, `${stats.entries} entries in ${stats.bytes} bytes`);
    assert.ok(stats.evictions > 0);
  } finally {
    await s.close();
  }
});

test("forwarded: 'key' keys forwarding headers on node:http (a proxy in front sets them); 'pass' passes them even where trusted", async () => {
  const route = (req, res, n) =>
    send(res, 200, { 'Cache-Control': PUBLIC_60 }, `${req.headers['x-forwarded-proto'] || 'none'} ${n}`);
  const s = await site('node:http', route, { options: { forwarded: 'key' } });
  try {
    await s.get('/', { headers: { 'x-forwarded-proto': 'https' } });
    assert.equal((await s.get('/', { headers: { 'x-forwarded-proto': 'https' } })).text, 'https 1');
    assert.equal((await s.get('/', { headers: { 'x-forwarded-proto': 'http' } })).text, 'http 2');
    assert.equal((await s.get('/')).text, 'none 3');
  } finally {
    await s.close();
  }
  const t = await site('express 5', route, { options: { forwarded: 'pass' }, trustProxy: true });
  try {
    await t.get('/', { headers: { 'x-forwarded-proto': 'https' } });
    await t.get('/', { headers: { 'x-forwarded-proto': 'https' } });
    assert.equal(t.renders(), 2);
    assert.equal(t.cache.stats().entries, 0);
  } finally {
    await t.close();
  }
});

test('the security options are validated', () => {
  assert.throws(() => responseCache({ forwarded: 'yes' }), TypeError);
  assert.throws(() => responseCache({ allowedHosts: 'shop.example' }), TypeError);
  assert.throws(() => responseCache({ authorization: 'yes' }), TypeError);
  assert.throws(() => responseCache({ key: 'x-tenant' }), TypeError);
  assert.throws(() => responseCache({ keyHeaders: 'x-tenant' }), TypeError);
  assert.throws(() => responseCache({ host: false }), TypeError);
  assert.doesNotThrow(() => responseCache({ host: false, allowedHosts: ['shop.example'] }));
});

test('an unstorable answer to a Range or precondition request does not start hit-for-pass for the variant', async () => {
  const s = await site('node:http', (req, res, n) => {
    const oneRequest = req.headers.range !== undefined || req.headers['if-match'] !== undefined;
    send(res, 200, { 'Cache-Control': oneRequest ? 'no-store' : PUBLIC_60 }, `page ${n}`);
  });
  try {
    await s.get('/r', { headers: { range: 'bytes=0-0' } });
    await s.get('/m', { headers: { 'if-match': '"v1"' } });
    assert.equal(s.cache.stats().hitForPassKeys, 0);
    await s.get('/r');
    assert.equal((await s.get('/r')).text, 'page 3', 'the plain request passed instead of being stored');
  } finally {
    await s.close();
  }
});

test('a client that does not read its response does not hold the entry back from the others', async () => {
  const big = Buffer.alloc(32 * 1024 * 1024, 'a'); // more than the loopback socket buffers take
  const s = await site('node:http', (req, res) => send(res, 200, { 'Cache-Control': PUBLIC_60 }, big), {
    options: { maxEntrySize: 64 * 1024 * 1024, maxBytes: 128 * 1024 * 1024, lockTimeout: 4000 },
  });
  const stuck = await new Promise((resolve, reject) => {
    const req = http.request(`${s.url}/big`, { agent: false }, (res) => {
      res.pause(); // never read
      resolve(req);
    });
    req.on('error', reject);
    req.end();
  });
  try {
    const other = await new Promise((resolve, reject) => {
      http
        .get(`${s.url}/big`, { agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res));
        })
        .on('error', reject);
    });
    // a wait up to lockTimeout would end in a render of its own, without Age
    assert.ok(other.headers.age !== undefined, 'the second request is a hit');
    assert.equal(s.renders(), 1);
  } finally {
    stuck.destroy();
    await s.close();
  }
});

// Issue 42: authorities parsed, not split (attack 2), and the Host keyed as sent (attack 8).
// A page that builds its script URL from the Host, as an app without its own origin setting does.
const HOST_SPELLINGS_THAT_PASS = [
  'victim.example:1@evil.example', // userinfo: a browser goes to evil.example
  'victim.example@evil.example',
  'victim.example:1@evil.example@x',
  'victim.example:31337', // a port allowedHosts does not name, with host: false
  'victim.example:99999',
  'victim.example:8o',
  'victim.example:',
  'victim.example, evil.example',
  'victim.example evil.example',
  'victim.example%2fevil',
];
for (const flavor of FLAVORS) {
  test(`${flavor}: a Host that is not host[:port], or names a port allowedHosts does not, never reaches the plain visitor (host: false)`, async () => {
    const warnings = [];
    const onWarning = (w) => warnings.push(w);
    process.on('warning', onWarning);
    const s = await site(
      flavor,
      (req, res, n) =>
        send(res, 200, { 'Cache-Control': PUBLIC_60 }, `<script src="//${req.headers.host}/app.js"></script> ${n}`),
      { options: { host: false, allowedHosts: ['victim.example', 'victim.example:8443'] } },
    );
    try {
      for (const host of HOST_SPELLINGS_THAT_PASS) {
        await s.get('/', { headers: { host } });
        await s.get('/', { headers: { host } });
      }
      assert.equal(s.renders(), 2 * HOST_SPELLINGS_THAT_PASS.length, 'each spelling passed');
      const plain = await s.get('/', { headers: { host: 'victim.example' } });
      assert.match(plain.text, /^<script src="\/\/victim\.example\/app\.js"><\/script> \d+$/);
      assert.equal(
        (await s.get('/', { headers: { host: 'victim.example:8443' } })).text,
        plain.text,
        'the named port shares it',
      );
      const stats = s.cache.stats();
      assert.equal(stats.badAuthority, 2 * (HOST_SPELLINGS_THAT_PASS.length - 1));
      assert.equal(stats.hostNotAllowed, 2);
      await delay(0);
      const ours = warnings.filter((w) => w.code === 'SSR_NATIVE_CACHE_HOST_NOT_ALLOWED');
      assert.equal(ours.length, 1, 'one warning');
      assert.match(ours[0].message, /victim\.example:31337.*allowedHosts|allowedHosts.*victim\.example:31337/);
    } finally {
      process.off('warning', onWarning);
      await s.close();
    }
  });

  test(`${flavor}: host: false: 'victim.example' never matches Host victim.example:<local port>, cold or refreshed`, async () => {
    const s = await site(
      flavor,
      (req, res, n) =>
        send(
          res,
          200,
          { 'Cache-Control': `${PUBLIC_60}, stale-while-revalidate=600` },
          `<script src="//${req.headers.host}/app.js"></script> ${n}`,
        ),
      { options: { host: false, allowedHosts: ['victim.example'] } },
    );
    try {
      await localPortNeverShared(s);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: a Host allowedHosts refuses is warned about after others were allowed`, async () => {
    const s = await site(flavor, (req, res, n) => send(res, 200, { 'Cache-Control': PUBLIC_60 }, `page ${n}`), {
      options: { host: false, allowedHosts: ['victim.example'] },
    });
    try {
      await refusedAfterAllowedWarns(s);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: the key holds the Host as sent: a canonical redirect for VICTIM.example is not served to victim.example`, async () => {
    const s = await site(flavor, (req, res, n) =>
      req.headers.host === 'victim.example'
        ? send(res, 200, { 'Cache-Control': PUBLIC_60 }, `home ${n}`)
        : send(res, 301, { 'Cache-Control': PUBLIC_60, Location: 'http://victim.example/' }, ''),
    );
    try {
      assert.equal((await s.get('/', { headers: { host: 'VICTIM.example' } })).status, 301);
      const plain = await s.get('/', { headers: { host: 'victim.example' } });
      assert.equal(plain.status, 200);
      assert.equal(plain.text, 'home 2');
      assert.equal((await s.get('/', { headers: { host: 'VICTIM.example' } })).status, 301);
      assert.equal(s.renders(), 2, 'both spellings stored, each its own entry');
    } finally {
      await s.close();
    }
  });
}

for (const flavor of Object.keys(EXPRESSES)) {
  test(`${flavor} (trust proxy): an X-Forwarded-Host that is not host[:port] passes; req.hostname never reaches the plain visitor`, async () => {
    const s = await site(
      flavor,
      (req, res, n) => send(res, 200, { 'Cache-Control': PUBLIC_60 }, `//${req.hostname}/app.js ${n}`),
      { options: { allowedHosts: ['victim.example'] }, trustProxy: true },
    );
    try {
      for (const forwarded of ['victim.example:1@evil.example', 'victim.example, evil.example', 'victim.example:']) {
        const headers = { host: 'victim.example', 'x-forwarded-host': forwarded };
        await s.get('/', { headers });
        await s.get('/', { headers });
      }
      assert.equal(s.renders(), 6);
      assert.equal(s.cache.stats().badAuthority, 6);
    } finally {
      await s.close();
    }
  });
}

// Issue 42, attack 6: ignored parameters never reach the app on a fill or a refresh (stripped from
// req.url, req.originalUrl and Express 4's req.query), whatever the page does with them.
function reflectEverything(flavor, req) {
  const seen = [req.url, req.originalUrl || ''];
  if (flavor !== 'node:http') seen.push(JSON.stringify(req.query));
  const text = seen.join(' ');
  // decoded twice and lower-cased, as the old guard never looked
  let decoded = text;
  for (let i = 0; i < 2; i++) {
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      /* as sent */
    }
  }
  return `${text} ${decoded.toLowerCase()}`;
}

for (const flavor of FLAVORS) {
  test(`${flavor}: an ignored parameter, decoded twice and lower-cased by the page, never reaches the stored page`, async () => {
    let unstripped;
    const s = await site(
      flavor,
      (req, res, n) => {
        unstripped = req.unstrippedUrl;
        send(res, 200, { 'Cache-Control': PUBLIC_60 }, `${reflectEverything(flavor, req)} ${n}`);
      },
      { options: { ignoreParams: ['utm_source'] } },
    );
    try {
      const attack = '/p?a=1&utm_source=%253CSCRIPT%253Eevil%253C%252FSCRIPT%253E&b=2';
      const first = await s.get(attack);
      assert.doesNotMatch(first.text, /script|evil|utm_source/i, 'the fill rendered the stripped URL');
      assert.equal(unstripped, attack, 'req.unstrippedUrl keeps the URL as received');
      const plain = await s.get('/p?a=1&b=2');
      assert.equal(plain.text, first.text);
      assert.match(plain.text, /\/p\?a=1&b=2/);
      assert.equal(s.renders(), 1);
    } finally {
      await s.close();
    }
  });

  test(`${flavor}: query 'ignore': neither a fill nor a stale-while-revalidate refresh renders the attacker's query`, async () => {
    const s = await site(
      flavor,
      (req, res, n) =>
        send(
          res,
          200,
          { 'Cache-Control': 'public, max-age=10, stale-while-revalidate=60' },
          `${reflectEverything(flavor, req)} ${n}`,
        ),
      { options: { query: 'ignore' } },
    );
    try {
      const first = await s.get('/p?q=%3Cscript%3E1');
      assert.doesNotMatch(first.text, /script|q=/i);
      s.clock.now += 20_000;
      await s.get('/p?q=%3Cscript%3E2'); // stale: served, and refreshed in the background
      await until(() => s.renders() === 2 && s.cache.stats().refreshing === 0, 'the refresh');
      const plain = await s.get('/p');
      assert.doesNotMatch(plain.text, /script|q=/i);
      assert.match(plain.text, / 2$/, 'the refreshed page');
    } finally {
      await s.close();
    }
  });
}
