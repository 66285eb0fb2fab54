'use strict';
// Issue 35's attacks on the Koa 2 / Koa 3 cache (real apps over loopback): forwarding headers
// that ctx.host / ctx.protocol honour with app.proxy, a request with Authorization replacing a
// fresh entry, middleware that adds Set-Cookie (koa-session) or Cache-Control: private after
// `await next()`, a stale-while-revalidate refresh carrying the trigger's headers, and
// hit-for-pass per variant. Every test asks what the next plain visitor gets.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { listen } = require('../helpers/http');
const { localPortNeverShared, refusedAfterAllowedWarns } = require('../helpers/host-port-attack');
const { cache } = require('../../../lib/koa');

const KOAS = { 'koa 2': require('koa2'), 'koa 3': require('koa') };
const PUBLIC_60 = 'public, max-age=60';
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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

async function site(Koa, route, { options = {}, before = [], proxy = false, setup } = {}) {
  const clock = { now: 1_700_000_000_000 };
  const app = new Koa();
  app.silent = true;
  app.proxy = proxy;
  if (setup) setup(app);
  for (const mw of before) app.use(typeof mw === 'function' && mw.length === 1 ? mw(app) : mw);
  const mw = cache({ now: () => clock.now, ...options });
  app.use(mw);
  let renders = 0;
  app.use(async (ctx) => route(ctx, ++renders));
  const server = await listen(app.callback());
  return { ...server, cache: mw, clock, renders: () => renders, get: (path, o) => request(server.url + path, o) };
}

async function until(predicate, what) {
  for (let i = 0; i < 300; i++) {
    if (predicate()) return;
    await delay(10);
  }
  assert.fail(`timed out waiting for ${what}`);
}

for (const [name, Koa] of Object.entries(KOAS)) {
  for (const proxy of [false, true]) {
    test(`${name} (app.proxy ${proxy}): ctx.host / ctx.protocol from forwarding headers never reach the plain visitor`, async () => {
      const s = await site(
        Koa,
        (ctx, n) => {
          ctx.set('Cache-Control', PUBLIC_60);
          ctx.body = `<script src="${ctx.protocol}://${ctx.host}/main.js"></script> ${n} ${ctx.get('x-forwarded-host')}`;
        },
        { proxy },
      );
      try {
        await s.get('/', { headers: { 'x-forwarded-host': 'evil.example', host: 'victim.example' } });
        await s.get('/p', { headers: { 'x-forwarded-proto': 'http', host: 'victim.example' } });
        const visitor = await s.get('/', { headers: { host: 'victim.example' } });
        assert.doesNotMatch(visitor.text, /evil/, `the visitor got ${visitor.text}`);
        if (proxy) {
          // behind the proxy every request has X-Forwarded-Proto: https, and the keyed page is cached
          const https = { headers: { 'x-forwarded-proto': 'https', host: 'victim.example' } };
          const page = await s.get('/p', https);
          assert.match(page.text, /^<script src="https:\/\/victim\.example/);
          assert.equal((await s.get('/p', https)).text, page.text);
        }
      } finally {
        await s.close();
      }
    });
  }

  test(`${name}: a request with Authorization neither replaces a fresh entry nor fills one for anonymous visitors`, async () => {
    const s = await site(Koa, (ctx, n) => {
      ctx.set('Cache-Control', 'public, s-maxage=60');
      ctx.body = `for ${ctx.get('authorization') || 'anyone'} render ${n}`;
    });
    try {
      assert.equal((await s.get('/fresh')).text, 'for anyone render 1');
      await s.get('/fresh', { headers: { authorization: 'Bearer junk' } });
      assert.equal((await s.get('/fresh')).text, 'for anyone render 1');
      await s.get('/first', { headers: { authorization: 'Bearer alice' } });
      assert.match((await s.get('/first')).text, /^for anyone/);
    } finally {
      await s.close();
    }
  });

  test(`${name}: koa-session mounted before the cache sets its cookie after next(): that page is never stored`, async () => {
    const { createSession: session } = require('koa-session');
    let csrf = 0;
    const s = await site(
      Koa,
      (ctx) => {
        if (ctx.session.csrf === undefined) ctx.session.csrf = `token-${++csrf}`;
        ctx.set('Cache-Control', PUBLIC_60);
        ctx.body = `<form><input name="csrf" value="${ctx.session.csrf}"></form>`;
      },
      {
        setup: (app) => {
          app.keys = ['test secret'];
        },
        before: [(app) => session({}, app)],
      },
    );
    try {
      const alice = await s.get('/form');
      assert.ok(alice.headers['set-cookie'], 'koa-session sets its cookie');
      const bob = await s.get('/form');
      assert.doesNotMatch(bob.text, /token-1/, "bob got alice's CSRF token");
      assert.equal(s.cache.stats().entries, 0);
    } finally {
      await s.close();
    }
  });

  test(`${name}: Cache-Control: private set after next() by middleware in front is seen before storing`, async () => {
    const s = await site(
      Koa,
      (ctx) => {
        ctx.set('Cache-Control', PUBLIC_60);
        ctx.body = `account of ${ctx.get('x-user')}`;
      },
      {
        before: [
          async (ctx, next) => {
            await next();
            if (ctx.get('x-user')) ctx.set('Cache-Control', 'private');
          },
        ],
      },
    );
    try {
      await s.get('/account', { headers: { 'x-user': 'alice' } });
      const anon = await s.get('/account');
      assert.doesNotMatch(anon.text, /alice/, "the anonymous visitor got alice's page");
    } finally {
      await s.close();
    }
  });

  test(`${name}: stale-while-revalidate refreshes carry the key's headers only (app.proxy true)`, async () => {
    const s = await site(
      Koa,
      (ctx, n) => {
        ctx.set('Cache-Control', 'public, max-age=10, stale-while-revalidate=60');
        ctx.body = `render ${n}: ${ctx.protocol}://${ctx.host} ip ${ctx.ip} debug=${ctx.get('x-debug')}`;
      },
      { proxy: true },
    );
    try {
      await s.get('/swr', { from: '127.0.0.2' });
      s.clock.now += 20_000;
      await s.get('/swr', { from: '127.0.0.2', headers: { 'x-forwarded-for': '10.6.6.6', 'x-debug': 'on' } });
      await until(() => s.renders() === 2 && s.cache.stats().refreshing === 0, 'the refresh');
      await delay(20);
      const fresh = await s.get('/swr', { from: '127.0.0.2' });
      assert.match(fresh.text, /^render 2: http:\/\/127\.0\.0\.1:\d+ ip 127\.0\.0\.2 debug=$/);
    } finally {
      await s.close();
    }
  });

  test(`${name}: hit-for-pass is per variant: a 206 or a private variant does not pass the fresh one`, async () => {
    const s = await site(Koa, (ctx, n) => {
      const lang = ctx.get('accept-language') || 'en';
      ctx.set('Vary', 'Accept-Language');
      if (ctx.get('range')) {
        ctx.status = 206;
        ctx.set('Content-Range', 'bytes 0-0/100');
        ctx.body = 'p';
        return;
      }
      ctx.set('Cache-Control', lang === 'private' ? 'private' : PUBLIC_60);
      ctx.body = `${lang} render ${n}`;
    });
    try {
      await s.get('/l', { headers: { 'accept-language': 'en' } });
      await s.get('/l', { headers: { 'accept-language': 'zz', range: 'bytes=0-0' } });
      await s.get('/l', { headers: { 'accept-language': 'private' } });
      assert.equal((await s.get('/l', { headers: { 'accept-language': 'en' } })).text, 'en render 1');
      s.clock.now += 61_000;
      const rendered = await s.get('/l', { headers: { 'accept-language': 'en' } });
      assert.equal((await s.get('/l', { headers: { 'accept-language': 'en' } })).text, rendered.text);
    } finally {
      await s.close();
    }
  });
}

// Issue 42 (attacks 2 and 8): ctx.host read as an authority, from Host or, with app.proxy, from
// X-Forwarded-Host; the key holds it as sent.
for (const [name, Koa] of Object.entries(KOAS)) {
  for (const proxy of [false, true]) {
    test(`${name} (app.proxy ${proxy}): a ctx.host that is not host[:port] never reaches the plain visitor (host: false)`, async () => {
      const s = await site(
        Koa,
        (ctx, n) => {
          ctx.set('Cache-Control', PUBLIC_60);
          ctx.body = `<script src="//${ctx.host}/app.js"></script> ${n}`;
        },
        { options: { host: false, allowedHosts: ['victim.example'] }, proxy },
      );
      try {
        const attacks = ['victim.example:1@evil.example', 'victim.example:31337', 'victim.example, evil.example'];
        for (const value of attacks) {
          const headers = proxy ? { host: 'victim.example', 'x-forwarded-host': value } : { host: value };
          await s.get('/', { headers });
          await s.get('/', { headers });
        }
        assert.equal(s.renders(), 2 * attacks.length);
        const plain = await s.get('/', { headers: { host: 'victim.example' } });
        assert.match(plain.text, /^<script src="\/\/victim\.example\/app\.js"><\/script> \d+$/);
        assert.equal(s.cache.stats().badAuthority, 4);
      } finally {
        await s.close();
      }
    });
  }

  test(`${name}: host: false: 'victim.example' never matches Host victim.example:<local port>, cold or refreshed`, async () => {
    const s = await site(
      Koa,
      (ctx, n) => {
        ctx.set('Cache-Control', `${PUBLIC_60}, stale-while-revalidate=600`);
        ctx.body = `<script src="//${ctx.host}/app.js"></script> ${n}`;
      },
      { options: { host: false, allowedHosts: ['victim.example'] } },
    );
    try {
      await localPortNeverShared(s);
    } finally {
      await s.close();
    }
  });

  test(`${name}: a Host allowedHosts refuses is warned about after others were allowed`, async () => {
    const s = await site(
      Koa,
      (ctx, n) => {
        ctx.set('Cache-Control', PUBLIC_60);
        ctx.body = `page ${n}`;
      },
      { options: { host: false, allowedHosts: ['victim.example'] } },
    );
    try {
      await refusedAfterAllowedWarns(s);
    } finally {
      await s.close();
    }
  });

  test(`${name}: the key holds ctx.host as sent: VICTIM.example's canonical redirect is not served to victim.example`, async () => {
    const s = await site(Koa, (ctx, n) => {
      ctx.set('Cache-Control', PUBLIC_60);
      if (ctx.host === 'victim.example') ctx.body = `home ${n}`;
      else {
        ctx.status = 301;
        ctx.redirect('http://victim.example/');
      }
    });
    try {
      assert.equal((await s.get('/', { headers: { host: 'VICTIM.example' } })).status, 301);
      const plain = await s.get('/', { headers: { host: 'victim.example' } });
      assert.equal(plain.status, 200);
      assert.equal(plain.text, 'home 2');
    } finally {
      await s.close();
    }
  });
}

// Issue 42, attack 6: ignored parameters stripped from ctx.url, ctx.querystring, ctx.query and
// ctx.originalUrl on a fill and a refresh; the URL as received stays in ctx.req.unstrippedUrl.
for (const [name, Koa] of Object.entries(KOAS)) {
  test(`${name}: an ignored parameter never reaches ctx on a fill; query 'ignore' neither on a refresh`, async () => {
    let unstripped;
    const page = (ctx, n) => {
      unstripped = ctx.req.unstrippedUrl;
      ctx.set('Cache-Control', 'public, max-age=10, stale-while-revalidate=60');
      const seen = `${ctx.url} ${ctx.originalUrl} ${ctx.querystring} ${JSON.stringify(ctx.query)}`;
      ctx.body = `${seen} ${decodeURIComponent(decodeURIComponent(seen)).toLowerCase()} ${n}`;
    };
    const s = await site(Koa, page, { options: { ignoreParams: ['utm_source'] } });
    try {
      const attack = '/p?a=1&utm_source=%253CSCRIPT%253E';
      const first = await s.get(attack);
      assert.doesNotMatch(first.text, /script|utm_source/i);
      assert.equal(unstripped, attack);
      assert.equal((await s.get('/p?a=1')).text, first.text);
    } finally {
      await s.close();
    }
    const t = await site(Koa, page, { options: { query: 'ignore' } });
    try {
      assert.doesNotMatch((await t.get('/p?q=%3Cscript%3E1')).text, /script|q=/i);
      t.clock.now += 20_000;
      await t.get('/p?q=%3Cscript%3E2');
      await until(() => t.renders() === 2 && t.cache.stats().refreshing === 0, 'the refresh');
      const plain = await t.get('/p');
      assert.doesNotMatch(plain.text, /script|q=/i);
      assert.match(plain.text, / 2$/);
    } finally {
      await t.close();
    }
  });
}
