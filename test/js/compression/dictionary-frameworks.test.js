'use strict';
// Compression Dictionary Transport with `dictionary: true` in the other compression drop-ins:
// Koa `compress`, Fastify `fastifyCompress` and Hono `compress` (on @hono/node-server). Each
// learns its dictionary from public pages only (per-user pages with a secret requested beside
// them never reach it: even ones with Cache-Control private, odd ones public with a Set-Cookie
// that a middleware mounted outside compression adds after it, as koa-session does), serves it with Use-As-Dictionary, announces
// it with Link, answers dcz to a request naming it (decoded against the served bytes), keeps the
// usual coding for a wrong hash, and varies on Available-Dictionary. The Express middleware's
// suite is compression-dictionary.test.js.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const zlib = require('node:zlib');
const Koa = require('koa');
const Fastify = require('fastify');
const { Hono } = require('hono');
const { createAdaptorServer } = require('@hono/node-server');
const { compress: koaCompress } = require('../../../lib/koa');
const { fastifyCompress } = require('../../../lib/fastify');
const { compress: honoCompress } = require('../../../lib/hono');
const { available, unavailableReason } = require('../../../lib/compression/dcz');
const native = require('../../../lib/native');
const { request } = require('../helpers/http');
const { createSite } = require('../helpers/dictionary-site');

const skip = available ? false : `libzstd is not available: ${unavailableReason}`;
const SECRET = 'SECRET-user-0b5e77';
const ACCEPT = 'gzip, deflate, br, zstd, dcb, dcz';
const OPTIONS = { dictionary: { minPages: 32, sampleEvery: 1 } };

function sha256(bytes) {
  return crypto.createHash('sha256').update(bytes).digest();
}

function decode(coding, body) {
  if (coding === 'br') return zlib.brotliDecompressSync(body);
  if (coding === 'gzip') return zlib.gunzipSync(body);
  if (coding === 'deflate') return zlib.inflateSync(body);
  if (coding === 'zstd') return zlib.zstdDecompressSync(body); // Node 22.15+: koa and fastify offer it
  return body;
}

const site = createSite({ seed: 21 });
const privatePage = (n) => site.page(500 + n, `<div class="alert">Signed in as ${SECRET}</div>`);

const frameworks = {
  async koa() {
    const app = new Koa();
    app.use(async (ctx, next) => {
      await next();
      if (ctx.path.startsWith('/me/')) ctx.set('Set-Cookie', 'sid=1');
    });
    app.use(koaCompress(OPTIONS));
    app.use((ctx) => {
      const m = /^\/(page|me)\/(\d+)$/.exec(ctx.path);
      if (!m) return;
      const n = Number(m[2]);
      ctx.type = 'html';
      ctx.set('Cache-Control', m[1] === 'page' || n % 2 === 1 ? 'public, max-age=60' : 'private, max-age=60');
      ctx.body = m[1] === 'page' ? site.page(n) : privatePage(n);
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    return { port: server.address().port, close: () => new Promise((r) => server.close(r)) };
  },
  async fastify() {
    const app = Fastify();
    await app.register(fastifyCompress, OPTIONS);
    app.get('/page/:n', (req, reply) => {
      reply.type('text/html').header('Cache-Control', 'public, max-age=60');
      reply.send(site.page(Number(req.params.n)));
    });
    app.get('/me/:n', (req, reply) => {
      const n = Number(req.params.n);
      if (n % 2 === 1) reply.header('Cache-Control', 'public, max-age=60').header('Set-Cookie', 'sid=1');
      else reply.header('Cache-Control', 'private, max-age=60');
      reply.type('text/html').send(privatePage(n));
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { port: app.server.address().port, close: () => app.close() };
  },
  async hono() {
    const app = new Hono();
    app.use(async (c, next) => {
      await next();
      if (c.req.path.startsWith('/me/')) c.header('Set-Cookie', 'sid=1');
    });
    app.use(honoCompress(OPTIONS));
    app.get('/page/:n', (c) => {
      c.header('Cache-Control', 'public, max-age=60');
      return c.html(site.page(Number(c.req.param('n'))));
    });
    app.get('/me/:n', (c) => {
      const n = Number(c.req.param('n'));
      c.header('Cache-Control', n % 2 === 1 ? 'public, max-age=60' : 'private, max-age=60');
      return c.html(privatePage(n));
    });
    const server = createAdaptorServer({ fetch: app.fetch });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: server.address().port, close: () => new Promise((r) => server.close(r)) };
  },
};

for (const [name, start] of Object.entries(frameworks)) {
  test(
    `${name}: dictionary: true learns from public pages, answers dcz, falls back for a wrong hash`,
    { skip },
    async () => {
      const { port, close } = await start();
      const url = `http://127.0.0.1:${port}`;
      try {
        let link;
        const until = Date.now() + 60000;
        for (let n = 0; ; n++) {
          // four per-user pages (two private, two with the late cookie) before every public one,
          // on distinct URLs: admitted, the secret would be common to most samples
          for (let i = 0; i < 4; i++) await request(`${url}/me/${(4 * n + i) % 400}`);
          const page = await request(`${url}/page/${n % 40}`, { headers: { 'accept-encoding': 'br' } });
          assert.match(page.headers.vary, /Available-Dictionary/i);
          link = page.headers.link;
          if (link !== undefined) break;
          assert.ok(Date.now() < until, `no dictionary announced after ${n} rounds`);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        const dictionaryPath = /^<([^>]+)>; rel="compression-dictionary"$/.exec(link)[1];
        const served = await request(`${url}${dictionaryPath}`);
        assert.equal(served.status, 200);
        assert.match(served.headers['use-as-dictionary'], /^match="\/\*", match-dest=\("document"\), id="/);
        const bytes = served.body;
        assert.ok(bytes.includes('navbar-toggler-icon'), 'the layout is learned');
        assert.ok(!bytes.includes(SECRET), 'a private page reached the dictionary');
        assert.ok(!bytes.includes('Signed in as'), 'a private page reached the dictionary');

        const identity = Buffer.from(site.page(77));
        const answer = await request(`${url}/page/77`, {
          headers: { 'accept-encoding': ACCEPT, 'available-dictionary': `:${sha256(bytes).toString('base64')}:` },
        });
        assert.equal(answer.headers['content-encoding'], 'dcz');
        assert.match(answer.headers.vary, /accept-encoding/i);
        assert.match(answer.headers.vary, /available-dictionary/i);
        assert.deepEqual(answer.body.subarray(8, 40), sha256(bytes));
        assert.deepEqual(native.dczDecode(bytes, sha256(bytes), answer.body, 1 << 24), identity);

        const wrong = await request(`${url}/page/77`, {
          headers: { 'accept-encoding': ACCEPT, 'available-dictionary': `:${sha256(identity).toString('base64')}:` },
        });
        assert.notEqual(wrong.headers['content-encoding'], 'dcz');
        assert.deepEqual(decode(wrong.headers['content-encoding'], wrong.body), identity);
        assert.equal((await request(`${url}${dictionaryPath.replace(/[0-9a-f]{16}/, '0'.repeat(16))}`)).status, 404);

        // a private page (its secret on it) is never compressed against the learned dictionary
        const hash = `:${sha256(bytes).toString('base64')}:`;
        for (const [path, headers] of [
          ['/me/2', {}],
          ['/page/78', { cookie: 'sid=1' }],
          ['/page/79', { authorization: 'Bearer t' }],
        ]) {
          const secret = await request(`${url}${path}`, {
            headers: { ...headers, 'accept-encoding': ACCEPT, 'available-dictionary': hash },
          });
          assert.notEqual(secret.headers['content-encoding'], 'dcz', path);
          assert.match(secret.headers['content-encoding'], /^(br|zstd|gzip)$/, path);
          const n = Number(path.slice(path.lastIndexOf('/') + 1));
          assert.deepEqual(
            decode(secret.headers['content-encoding'], secret.body),
            Buffer.from(path.startsWith('/me/') ? privatePage(n) : site.page(n)),
          );
        }
      } finally {
        await close();
      }
    },
  );
}
