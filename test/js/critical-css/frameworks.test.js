'use strict';
// criticalCss in ssr-native/koa, /fastify and /hono: the same engine output as the node:http
// middleware for an HTML body, the ETag (set by the framework's etag middleware, mounted in
// front) of the inlined bytes, compression in front compressing the inlined page, and non-HTML
// left alone. Plus the package surface (CommonJS and ESM) and the metrics source.
const test = require('node:test');
const assert = require('node:assert/strict');
const zlib = require('node:zlib');
const Koa = require('koa');
const Fastify = require('fastify');
const { Hono } = require('hono');
const { serve } = require('@hono/node-server');
const client = require('prom-client');
const koaPack = require('../../../lib/koa/index.js');
const fastifyPack = require('../../../lib/fastify/index.js');
const honoPack = require('../../../lib/hono/index.js');
const { CriticalCss } = require('../../../lib/express/critical-css');
const { registerMetrics } = require('../../../lib/metrics/index.js');
const { etag } = require('../../../lib/index.js');
const { request } = require('../helpers/http');
const { makeDistFolder, bootstrapPage } = require('../helpers/critical-css-pages');

const dist = makeDistFolder();
const reference = new CriticalCss({ browserDistFolder: dist.dir, memoPages: 0, name: 'reference' });
test.after(() => {
  reference.close();
  dist.remove();
});
const inlined = (page) => reference.processSync(Buffer.from(page));

async function check(url, user) {
  const expected = inlined(bootstrapPage(user));
  assert.notDeepEqual(expected, Buffer.from(bootstrapPage(user)), 'the engine changes the page');
  const plain = await request(`${url}/orders/${user}`);
  assert.equal(plain.status, 200);
  assert.deepEqual(plain.body, expected, `${url} ${user}`);
  assert.equal(Number(plain.headers['content-length']), plain.body.length);
  assert.equal(plain.headers.etag.replace(/^W\//, ''), etag(expected, { weak: false }), 'the tag of the bytes sent');
  const fresh = await request(`${url}/orders/${user}`, { headers: { 'if-none-match': plain.headers.etag } });
  assert.equal(fresh.status, 304);
  const gz = await request(`${url}/orders/${user}`, { headers: { 'accept-encoding': 'gzip' } });
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.deepEqual(zlib.gunzipSync(gz.body), expected);
  const text = await request(`${url}/text`);
  assert.equal(text.body.toString(), bootstrapPage('text'), 'non-HTML untouched');
}

test('Koa: compress(), conditional(), etag() in front of criticalCss()', async () => {
  const app = new Koa();
  const middleware = koaPack.criticalCss({ browserDistFolder: dist.dir });
  app.use(koaPack.compress({ threshold: 0 }));
  app.use(koaPack.conditional());
  app.use(koaPack.etag());
  app.use(middleware);
  app.use((ctx) => {
    if (ctx.path === '/text') {
      ctx.type = 'text/plain';
      ctx.body = bootstrapPage('text');
    } else {
      ctx.type = 'html';
      ctx.body = bootstrapPage(ctx.path.split('/').pop());
    }
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    await check(`http://127.0.0.1:${server.address().port}`, 'koa-user');
    assert.ok(middleware.stats().inlined >= 1);
  } finally {
    server.close();
    middleware.close();
  }
});

test('Fastify: criticalCss registered before fastifyCompress and fastifyEtag', async () => {
  const app = Fastify();
  await app.register(fastifyPack.criticalCss, { browserDistFolder: dist.dir });
  await app.register(fastifyPack.fastifyCompress, { threshold: 0 });
  await app.register(fastifyPack.fastifyEtag);
  app.get('/orders/:user', async (req, reply) => reply.type('text/html').send(bootstrapPage(req.params.user)));
  app.get('/text', async (req, reply) => reply.type('text/plain').send(bootstrapPage('text')));
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    await check(`http://127.0.0.1:${app.server.address().port}`, 'fastify-user');
    assert.ok(app.criticalCss.stats().inlined >= 1);
    assert.equal(fastifyPack.fastifyCriticalCss, fastifyPack.criticalCss);
  } finally {
    await app.close();
  }
});

test('Hono: compress() and etag() in front of criticalCss()', async () => {
  const app = new Hono();
  const middleware = honoPack.criticalCss({ browserDistFolder: dist.dir });
  app.use('*', honoPack.compress({ threshold: 0 }));
  app.use('*', honoPack.etag());
  app.use('*', middleware);
  app.get('/orders/:user', (c) => c.html(bootstrapPage(c.req.param('user'))));
  app.get('/text', (c) => c.text(bootstrapPage('text')));
  const server = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  try {
    await check(`http://127.0.0.1:${server.address().port}`, 'hono-user');
    assert.ok(middleware.stats().inlined >= 1);
  } finally {
    server.close();
    middleware.close();
  }
});

// The route's own strong ETag, a page and a JSON answer: every adapter runs the one stage
// (lib/critical-css/stage.js), so the head sent and the counters are the same in all four.
test('the same stage in Express, Koa, Fastify and Hono: the same head and the same counters', async () => {
  const express = require('express');
  const { criticalCss: expressCriticalCss } = require('../../../lib/express/critical-css');
  const page = bootstrapPage('same-stage');
  const json = JSON.stringify({ a: 1 });
  const servers = [];
  const engines = {};
  const listening = (server) => new Promise((resolve) => server.once('listening', () => resolve(server)));
  {
    const app = express();
    const middleware = expressCriticalCss({ browserDistFolder: dist.dir });
    engines.express = middleware;
    app.set('etag', false);
    app.use(middleware);
    app.get('/page', (req, res) => res.set('ETag', '"v1"').type('html').send(page));
    app.get('/json', (req, res) => res.json(JSON.parse(json)));
    servers.push(['express', await listening(app.listen(0, '127.0.0.1'))]);
  }
  {
    const app = new Koa();
    const middleware = koaPack.criticalCss({ browserDistFolder: dist.dir });
    engines.koa = middleware;
    app.use(middleware);
    app.use((ctx) => {
      if (ctx.path === '/json') ctx.body = JSON.parse(json);
      else {
        ctx.set('ETag', '"v1"');
        ctx.type = 'html';
        ctx.body = page;
      }
    });
    servers.push(['koa', await listening(app.listen(0, '127.0.0.1'))]);
  }
  const fastify = Fastify();
  await fastify.register(fastifyPack.criticalCss, { browserDistFolder: dist.dir });
  fastify.get('/page', async (req, reply) => reply.header('etag', '"v1"').type('text/html').send(page));
  fastify.get('/json', async () => JSON.parse(json));
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  engines.fastify = fastify.criticalCss;
  servers.push(['fastify', fastify.server]);
  {
    const app = new Hono();
    const middleware = honoPack.criticalCss({ browserDistFolder: dist.dir });
    engines.hono = middleware;
    app.use('*', middleware);
    app.get('/page', (c) => {
      c.header('ETag', '"v1"');
      return c.html(page);
    });
    app.get('/json', (c) => c.json(JSON.parse(json)));
    servers.push([
      'hono',
      await new Promise((resolve) => {
        const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
      }),
    ]);
  }
  try {
    const expected = inlined(page);
    const strongTag = etag(expected, { weak: false });
    for (const [name, server] of servers) {
      const url = `http://127.0.0.1:${server.address().port}`;
      const got = await request(`${url}/page`);
      assert.deepEqual(got.body, expected, name);
      assert.equal(got.headers.etag, strongTag, `${name}: the route's strong tag, retagged strong`);
      assert.equal(Number(got.headers['content-length']), expected.length, name);
      assert.equal((await request(`${url}/json`)).body.toString(), json, name);
      const stats = engines[name].stats();
      assert.deepEqual(
        { inlined: stats.inlined, passedThrough: stats.passedThrough },
        { inlined: 1, passedThrough: 1 },
        `${name}: ${JSON.stringify(stats)}`,
      );
    }
  } finally {
    for (const [name, server] of servers) {
      if (name === 'fastify') await fastify.close();
      else server.close();
    }
    for (const name of ['express', 'koa', 'hono']) engines[name].close();
  }
});

// @hono/node-server holds a body as given until something reads res.body; criticalCss reads the
// held page (no clone read back through a web stream) and a streamed page through its clone.
test('Hono: criticalCss reads the page node-server holds, and a streamed page through a clone', async () => {
  const held = require('../../../lib/hono/held-body');
  const app = new Hono();
  const middleware = honoPack.criticalCss({ browserDistFolder: dist.dir });
  app.use('*', middleware);
  const page = bootstrapPage('held');
  app.get('/held', (c) => c.html(page));
  app.get('/stream', (c) => c.body(new Blob([page]).stream(), 200, { 'content-type': 'text/html' }));
  const server = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  try {
    const url = `http://127.0.0.1:${server.address().port}`;
    for (const [path, route] of [
      ['/held', { held: 1, notHeld: 0 }],
      ['/stream', { held: 0, notHeld: 1 }],
    ]) {
      const before = held.stats();
      const got = await request(url + path);
      const after = held.stats();
      assert.deepEqual(got.body, inlined(page), path);
      assert.deepEqual({ held: after.held - before.held, notHeld: after.notHeld - before.notHeld }, route, path);
    }
  } finally {
    server.close();
    middleware.close();
  }
});

// A page the stage leaves as it was goes out with the route's own headers: they are copied only
// once the stage sets one (an inlined page's ETag and Content-Length), not for every page.
test('Hono: a page left as it was costs no copy of its headers', async () => {
  const app = new Hono();
  const middleware = honoPack.criticalCss({ browserDistFolder: dist.dir });
  app.use('*', middleware);
  // two data-beasties-container (beasties 0.5 searches both): the engine leaves it as it is
  const page = bootstrapPage('done').replace(
    /<body[^>]*>/,
    '$&<div data-beasties-container></div><div data-beasties-container></div>',
  );
  assert.notEqual(page, bootstrapPage('done'));
  let routeHeaders;
  app.get('/', (c) => {
    const res = c.html(page, 200, { etag: '"route-tag"' });
    routeHeaders = res.headers;
    return res;
  });
  const RealHeaders = globalThis.Headers;
  let copies = 0;
  globalThis.Headers = class extends RealHeaders {
    constructor(init) {
      super(init);
      if (init !== undefined && init === routeHeaders) copies++;
    }
  };
  const server = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  try {
    const got = await request(`http://127.0.0.1:${server.address().port}/`);
    assert.equal(got.body.toString(), page);
    assert.equal(got.headers.etag, '"route-tag"');
    assert.equal(copies, 0, "the route's headers were copied for a page left as it was");
    assert.equal(middleware.stats().inlined, 0);
  } finally {
    globalThis.Headers = RealHeaders;
    server.close();
    middleware.close();
  }
});

test('package surface: ssr-native/critical-css (CommonJS, ESM), criticalCss in /angular, /koa, /hono, /fastify', async () => {
  const cjs = require('ssr-native/critical-css');
  const esm = await import('ssr-native/critical-css');
  for (const name of ['inlineCriticalCss', 'criticalCss', 'CriticalCss']) assert.equal(esm[name], cjs[name], name);
  assert.equal(require('ssr-native/angular').criticalCss, cjs.criticalCss);
  assert.equal((await import('ssr-native/angular')).criticalCss, cjs.criticalCss);
  for (const pkg of ['koa', 'hono', 'fastify']) {
    const c = require(`ssr-native/${pkg}`);
    assert.equal(typeof c.criticalCss, 'function', pkg);
    assert.equal((await import(`ssr-native/${pkg}`)).criticalCss, c.criticalCss, pkg);
  }
});

test('metrics: the critical_css source counts pages, inlined pages and plans', async () => {
  const registry = new client.Registry();
  const cc = new CriticalCss({ browserDistFolder: dist.dir, name: 'metrics-test' });
  try {
    registerMetrics(client, { registry });
    cc.processSync(bootstrapPage('m1'));
    cc.processSync(bootstrapPage('m2'));
    const text = await registry.metrics();
    const value = (name) => {
      const line = text.split('\n').find((l) => l.startsWith(`${name}{name="metrics-test"}`));
      assert.ok(line, `${name} in ${text.slice(0, 400)}`);
      return Number(line.split(' ').pop());
    };
    assert.equal(value('ssr_native_critical_css_pages_total'), 2);
    assert.equal(value('ssr_native_critical_css_inlined_total'), 2);
    assert.ok(value('ssr_native_critical_css_plans') >= 1);
  } finally {
    cc.close();
  }
});
