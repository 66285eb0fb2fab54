'use strict';
// A GET with a body passes the response cache (issue 42, attacks 4 and 5), on node:http, Express 4,
// Express 5 and Koa 3, and across two caches sharing a real redis-server: the body is input the key
// cannot see, so such a request is never stored for the next visitor, never leads a coalesced fill
// and never takes the Redis lease. The stalled request (Content-Length: 100 and nothing after) runs
// with lockTimeout at 60 s: were it holding the lock, the plain visitor would wait past the test's
// timeout; it is answered while the stalled request is still open.
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { listen, request } = require('../helpers/http');
const { responseCache } = require('../../../lib/express/cache');
const koaCache = require('../../../lib/koa').cache;
const { redisMissing, freePort, startRedis, redisClient } = require('../../../bench/http/lib/redis');

const CC = 'public, max-age=60';
const ATTACK_BODY = 'q=<script>alert(1)</script>';

// The page reflects `q` from the body when there is one (apps that merge body and query).
function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString()));
  });
}
function pageFor(url, body) {
  const fromBody = new URLSearchParams(body).get('q');
  const q = fromBody !== null ? fromBody : new URL(url, 'http://x').searchParams.get('q');
  return `<p>results for ${q}</p>`;
}

function nodeApp(cache) {
  return (req, res) =>
    cache(req, res, async () => {
      const body = await readBody(req);
      res.setHeader('cache-control', CC);
      res.setHeader('content-type', 'text/html');
      res.end(pageFor(req.url, body));
    });
}
function expressApp(express, cache) {
  const app = express();
  app.use(cache);
  app.get('/search', async (req, res) => {
    const body = await readBody(req);
    res.set('Cache-Control', CC).type('html').send(pageFor(req.url, body));
  });
  return app;
}
function koaApp(options) {
  const Koa = require('koa');
  const app = new Koa();
  app.silent = true;
  app.use(koaCache(options));
  app.use(async (ctx) => {
    const body = await readBody(ctx.req);
    ctx.set('Cache-Control', CC);
    ctx.type = 'html';
    ctx.body = pageFor(ctx.url, body);
  });
  return app.callback();
}

const FLAVORS = {
  'node:http': (options) => nodeApp(responseCache(options)),
  'express 4': (options) => expressApp(require('express4'), responseCache(options)),
  'express 5': (options) => expressApp(require('express53'), responseCache(options)),
  'koa 3': (options) => koaApp(options),
};

/** Sends a GET announcing a 100-byte body and nothing after; resolves once the server has it. */
function stalledRequest(url, path) {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 100\r\n\r\n`);
      setTimeout(() => resolve(socket), 50);
    });
    socket.on('error', () => {});
  });
}

for (const [flavor, make] of Object.entries(FLAVORS)) {
  test(`${flavor}: GET with a body is never stored for the next visitor (attack 4)`, async () => {
    const { url, close } = await listen(make({}));
    try {
      const attack = await request(`${url}/search?q=shoes`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(ATTACK_BODY.length) },
        body: ATTACK_BODY,
      });
      assert.match(attack.body.toString(), /<script>/, 'the app read the body');
      const visitor = await request(`${url}/search?q=shoes`);
      assert.equal(visitor.body.toString(), '<p>results for shoes</p>');
    } finally {
      await close();
    }
  });

  test(`${flavor}: a body that never comes does not hold the render lock (attack 5)`, { timeout: 20000 }, async () => {
    const { url, close } = await listen(make({ lockTimeout: 60000 }));
    const socket = await stalledRequest(url, '/search?q=shoes');
    try {
      const visitor = await request(`${url}/search?q=shoes`);
      assert.equal(visitor.body.toString(), '<p>results for shoes</p>');
      assert.ok(!socket.destroyed, 'the stalled request is still open');
    } finally {
      socket.destroy();
      await close();
    }
  });
}

for (const kind of ['ioredis', 'node-redis']) {
  test(
    `${kind}: a body that never comes does not take the Redis lease from another process's visitors`,
    { skip: redisMissing() || false, timeout: 30000 },
    async () => {
      const port = await freePort();
      const redis = await startRedis(port);
      const clients = [await redisClient(kind, port), await redisClient(kind, port)];
      const servers = [];
      const caches = [];
      try {
        for (const store of clients) {
          const cache = responseCache({ store, lockTimeout: 60000, storeOptions: { prefix: `b${process.pid}:` } });
          caches.push(cache);
          servers.push(await listen(expressApp(require('express53'), cache)));
        }
        const host = { host: 'shop.example' };
        const { port: p0 } = new URL(servers[0].url);
        const socket = await new Promise((resolve) => {
          const s = net.connect(Number(p0), '127.0.0.1', () => {
            s.write(`GET /search?q=shoes HTTP/1.1\r\nHost: shop.example\r\nContent-Length: 100\r\n\r\n`);
            setTimeout(() => resolve(s), 100);
          });
          s.on('error', () => {});
        });
        try {
          const visitor = await request(`${servers[1].url}/search?q=shoes`, { headers: host });
          assert.equal(visitor.body.toString(), '<p>results for shoes</p>');
          assert.ok(!socket.destroyed, 'the stalled request is still open');
        } finally {
          socket.destroy();
        }
      } finally {
        for (const s of servers) await s.close();
        // the caches' own subscriber connections (else they keep reconnecting to a killed Redis)
        for (const cache of caches) cache.close();
        for (const c of clients) {
          if (kind === 'ioredis') c.disconnect();
          else await c.disconnect().catch(() => {});
        }
        redis.kill('SIGKILL');
      }
    },
  );
}
