'use strict';
// ssr-native/koa against koa-etag 5 (and its successor @koa/etag 5.0.2, the one koa-etag's
// deprecation notice names) + koa-conditional-get 3 on Koa 2 and 3: the same statuses
// and headers for every kind of body; tag values differ only where the hash does (CRC-32
// instead of SHA-1), never in form (weak/strong) or for file streams (stat-based, identical).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Readable } = require('node:stream');
const koaEtag = require('koa-etag').default;
const atKoaEtag = require('@koa/etag');
const koaConditional = require('koa-conditional-get');
const ours = require('../../../lib/koa');
const { etag: entityTag } = require('../../..');
const { listen, request } = require('../helpers/http');

const koaVersions = { 'koa 2': require('koa2'), 'koa 3': require('koa') };
const FILE = path.join(__dirname, '..', '..', 'fixtures', 'hello.txt');

// koa-etag prints a deprecation notice each time it is created; keep the test output clean.
function quietly(fn) {
  const warn = console.warn;
  console.warn = () => {};
  try {
    return fn();
  } finally {
    console.warn = warn;
  }
}

const routes = {
  '/string': (ctx) => (ctx.body = 'hello world'),
  '/buffer': (ctx) => (ctx.body = Buffer.from('binary')),
  '/empty-buffer': (ctx) => (ctx.body = Buffer.alloc(0)),
  '/json': (ctx) => (ctx.body = { a: 1, b: [true, null] }),
  '/html': (ctx) => {
    ctx.type = 'html';
    ctx.body = '<p>héllo</p>'.repeat(1000);
  },
  '/file': (ctx) => {
    ctx.type = 'text';
    ctx.body = fs.createReadStream(FILE);
  },
  '/stream': (ctx) => (ctx.body = Readable.from(['no', 'path'])),
  '/not-found': (ctx) => {
    ctx.status = 404;
    ctx.body = 'missing';
  },
  '/error': (ctx) => {
    ctx.status = 500;
    ctx.body = { error: true };
  },
  '/redirect': (ctx) => ctx.redirect('/string'),
  '/preset': (ctx) => {
    ctx.set('ETag', '"preset"');
    ctx.body = 'preset body';
  },
  '/created': (ctx) => {
    ctx.status = 201;
    ctx.body = 'created';
  },
  '/no-content': (ctx) => (ctx.status = 204),
  '/empty-string': (ctx) => (ctx.body = ''),
};

function makeApp(Koa, conditional, etag, options) {
  const app = new Koa();
  app.use(conditional());
  app.use(etag(options));
  app.use(async (ctx) => {
    const route = routes[ctx.path];
    if (route) route(ctx);
  });
  return app;
}

const form = (tag) => (tag === undefined ? 'none' : tag.startsWith('W/') ? 'weak' : 'strong');
const IGNORED = new Set(['date', 'etag', 'connection', 'keep-alive']);
const comparable = (headers) => Object.fromEntries(Object.entries(headers).filter(([k]) => !IGNORED.has(k)));

const etagPeers = { 'koa-etag 5': koaEtag, '@koa/etag 5.0.2': atKoaEtag };

for (const [label, Koa] of Object.entries(koaVersions)) {
  for (const [peerName, peerEtag] of Object.entries(etagPeers)) {
    for (const options of [undefined, { weak: true }, { weak: false }]) {
      test(`${label}: same responses as ${peerName} + koa-conditional-get (options ${JSON.stringify(options)})`, async (t) => {
        const mine = await listen(makeApp(Koa, ours.conditional, ours.etag, options).callback());
        const peer = await listen(quietly(() => makeApp(Koa, koaConditional, peerEtag, options)).callback());
        t.after(() => Promise.all([mine.close(), peer.close()]));

        for (const route of Object.keys(routes)) {
          for (const method of ['GET', 'HEAD']) {
            const a = await request(mine.url + route, { method });
            const b = await request(peer.url + route, { method });
            const where = `${method} ${route}`;
            assert.equal(a.status, b.status, where);
            assert.deepEqual(comparable(a.headers), comparable(b.headers), where);
            assert.deepEqual(a.body, b.body, where);
            assert.equal(form(a.headers.etag), form(b.headers.etag), `${where} etag form`);
            if (route === '/file' || route === '/preset') assert.equal(a.headers.etag, b.headers.etag, where);
            if (a.headers.etag && route !== '/file' && route !== '/preset') {
              assert.equal(
                a.headers.etag.replace(/^W\//, ''),
                entityTag(a.body.length || method === 'HEAD' ? bodyOf(route) : a.body, { weak: false }),
                where,
              );
            }

            // Revalidation with each server's own tag: identical outcome.
            if (a.headers.etag) {
              const ra = await request(mine.url + route, { method, headers: { 'if-none-match': a.headers.etag } });
              const rb = await request(peer.url + route, { method, headers: { 'if-none-match': b.headers.etag } });
              assert.equal(ra.status, rb.status, `${where} revalidated`);
              assert.deepEqual(comparable(ra.headers), comparable(rb.headers), `${where} revalidated`);
              assert.equal(ra.body.length, rb.body.length);
            }
          }
        }
      });
    }
  }
}

// The exact bytes each route hashes (koa-etag hashes JSON.stringify for objects).
function bodyOf(route) {
  const ctx = { set() {}, redirect() {} };
  routes[route](ctx);
  if (typeof ctx.body === 'string' || Buffer.isBuffer(ctx.body)) return ctx.body;
  return JSON.stringify(ctx.body);
}

test('koa etag() validates its options', () => {
  assert.throws(() => ours.etag(5), TypeError);
  assert.throws(() => ours.etag(null), TypeError);
  assert.equal(typeof ours.etag(), 'function');
  assert.equal(typeof ours.etag({}), 'function');
});

test('koa etag(): a stream whose file vanished rejects like koa-etag (no crash)', async (t) => {
  const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'ssr-etag-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const tmp = path.join(dir, 'gone.txt');
  const stream = Object.assign(new Readable({ read() {} }), { path: tmp });
  const ctx = { body: stream, status: 200, response: { get: () => '' } };
  await assert.rejects(
    ours.etag()(ctx, async () => {}),
    { code: 'ENOENT' },
  );
  stream.destroy();
});
