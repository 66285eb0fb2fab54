'use strict';
// Purges reach every shared entry, however long it lives beside shorter ones, and what the store
// writes stays bounded: a real redis-server (free loopback port), real ioredis and node-redis
// clients, two Express 5 caches sharing one prefix as two processes of a fleet (A and B).
// - /long (s-maxage=3600) and /short (s-maxage=1) tagged `catalog`: once /short has expired,
//   A's purgeTag('catalog') still reaches /long in Redis: B, its memory empty, renders it.
// - A short-lived 404 variant for another Host (anyone can send one) does not shorten
//   purge(url)'s reach over the long-lived entry of the real Host.
// - The keys written: one entry key per entry, one index key per URL and per tag.
// - Redis started with a small maxmemory, under allkeys-lru, volatile-lru and noeviction, and
//   ten times more pages than fit: every request answered 200, pages still shared, a purge
//   still reaches every page B could get from Redis.
const test = require('node:test');
const assert = require('node:assert/strict');
const express = require('express');
const { listen, request } = require('../helpers/http');
const { redisMissing, freePort, startRedis, redisClient } = require('../../../bench/http/lib/redis');
const { responseCache } = require('../../../lib/express/cache');

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let renders = 0;

async function app(store, prefix) {
  const cache = responseCache({ store, storeOptions: { prefix, timeout: 500 } });
  const a = express();
  a.use(cache);
  a.get('/:name', (req, res) => {
    renders++;
    // the real site answers shop.example; another Host gets a short-lived 404
    const real = req.headers.host === 'shop.example';
    res.status(real ? 200 : 404);
    res.set('Cache-Control', `public, s-maxage=${real ? req.query.maxage || 3600 : 1}`);
    if (req.query.tag) res.set('Cache-Tag', String(req.query.tag));
    res.type('text').send(`${req.params.name} render ${renders}${req.query.pad ? '.'.repeat(20000) : ''}`);
  });
  const s = await listen(a);
  return { ...s, cache };
}

const get = (s, p, host = 'shop.example') => request(s.url + p, { headers: { host } }).then((r) => r.body.toString());

async function withFleet(kind, redisArgs, fn) {
  const port = await freePort();
  const redis = await startRedis(port, redisArgs);
  const clients = [await redisClient(kind, port), await redisClient(kind, port), await redisClient('ioredis', port)];
  const prefix = `p${process.pid}:${kind}:`;
  const a = await app(clients[0], prefix);
  const b = await app(clients[1], prefix);
  try {
    await fn({ a, b, raw: clients[2], prefix });
  } finally {
    for (const s of [a, b]) {
      s.cache.close();
      await s.close();
    }
    for (const [i, c] of clients.entries()) {
      if (i === 2 || kind === 'ioredis') c.disconnect();
      else await c.disconnect().catch(() => {});
    }
    redis.kill('SIGKILL');
  }
}

// Resolves once `p` of server `s` is a hit from the shared layer (another process's render).
async function sharedHit(s, p, expected) {
  let body;
  for (let i = 0; i < 100; i++) {
    const before = s.cache.stats().sharedHits;
    body = await get(s, p);
    if (body === expected && s.cache.stats().sharedHits > before) return;
    s.cache.engine.purgeLocally('clear', ''); // from memory: the next try asks Redis again
    await delay(10);
  }
  assert.fail(`${p}: never a hit from Redis (${body} vs ${expected})`);
}

for (const kind of ['ioredis', 'node-redis']) {
  test(
    `${kind}: purgeTag and purge reach a long-lived Redis entry after a shorter one of its tag or URL expired`,
    { skip: redisMissing() || false, timeout: 60000 },
    async () => {
      await withFleet(kind, [], async ({ a, b }) => {
        const long = await get(a, '/long?tag=catalog');
        await get(a, '/short?tag=catalog&maxage=1');
        const item = await get(a, '/item');
        await get(a, '/item', 'evil.example'); // a 404 for 1 s, stored under the same URL
        await sharedHit(b, '/long?tag=catalog', long); // B can get /long from Redis...
        await sharedHit(b, '/item', item);
        await b.cache.engine.purgeLocally('clear', ''); // ...and forgets it (B restarted)
        await delay(1500); // /short and the 404 are gone from Redis
        // /long and /item still are: their index keys outlived the shorter entries
        await sharedHit(b, '/long?tag=catalog', long);
        await sharedHit(b, '/item', item);
        b.cache.engine.purgeLocally('clear', '');

        await a.cache.purgeTag('catalog');
        await a.cache.purge('/item');
        const missed = [];
        if ((await get(b, '/long?tag=catalog')) === long) missed.push('purgeTag missed /long in Redis');
        if ((await get(b, '/item')) === item) missed.push('purge(url) missed /item in Redis');
        assert.deepEqual(missed, []);
      });
    },
  );

  test(
    `${kind}: one entry key per entry, one index key per URL and per tag`,
    { skip: redisMissing() || false, timeout: 60000 },
    async () => {
      await withFleet(kind, [], async ({ a, raw, prefix }) => {
        for (let i = 0; i < 50; i++) await get(a, `/k${i}?tag=all`);
        // a lease is let go after its response went out: wait for the last (bounded)
        let keys = await raw.keys(`${prefix}*`);
        for (let i = 0; i < 50 && keys.some((key) => key.startsWith(`${prefix}lock`)); i++) {
          await delay(100);
          keys = await raw.keys(`${prefix}*`);
        }
        const kinds = {};
        for (const key of keys) {
          const k = key.slice(prefix.length).split(':')[0];
          kinds[k] = (kinds[k] || 0) + 1;
        }
        // 50 entries, 50 URLs, 1 tag, the generation (and the locks were let go)
        assert.equal(keys.length, 102, JSON.stringify(kinds));
        for (const key of keys) {
          if (key !== `${prefix}gen`) assert.ok((await raw.pttl(key)) > 0, `${key} has no TTL`);
        }
      });
    },
  );
}

for (const policy of ['allkeys-lru', 'volatile-lru', 'noeviction']) {
  test(
    `maxmemory 2mb, ${policy}: 400 pages of 20 KB through two processes, every request answered, purges still reach`,
    { skip: redisMissing() || false, timeout: 120000 },
    async (t) => {
      await withFleet('ioredis', ['--maxmemory', '2mb', '--maxmemory-policy', policy], async ({ a, b, raw }) => {
        const bodies = [];
        for (let i = 0; i < 400; i++) bodies.push(await get(a, `/m${i}?tag=big&pad=1`));
        // every answer is the page (no error page, no failure)
        for (const [i, body] of bodies.entries()) assert.match(body, new RegExp(`^m${i} render \\d+\\.+$`));
        const info = await raw.info('memory');
        const { sharedWrites, sharedErrors } = a.cache.stats();
        t.diagnostic(
          `${policy}: ${/used_memory_human:(\S+)/.exec(info)[1]} used, ${sharedWrites} writes, ${sharedErrors} refused`,
        );
        assert.equal(a.cache.stats().sharedTimeouts, 0);
        // B gets from Redis whatever it still holds, and renders the rest: all 200s
        // (newest first: the pages B renders meanwhile push the oldest out of a full Redis)
        let shared = 0;
        for (let i = 399; i >= 0; i -= 8) {
          const body = await get(b, `/m${i}?tag=big&pad=1`);
          assert.match(body, new RegExp(`^m${i} render \\d+\\.+$`));
          if (body === bodies[i]) shared++;
        }
        t.diagnostic(`${policy}: ${shared} of 50 pages shared`);
        assert.ok(shared > 0, 'no page shared through a full Redis');
        // a store under pressure is still used: a fresh page rendered by A is a hit in B (with
        // noeviction, a full Redis refuses every write: it keeps serving what it holds)
        const fresh = await get(a, '/fresh?tag=big');
        if (policy !== 'noeviction') await sharedHit(b, '/fresh?tag=big', fresh);
        // purgeTag reaches every page in Redis, evicted index keys or not
        await b.cache.engine.purgeLocally('clear', '');
        await a.cache.purgeTag('big');
        for (let i = 399; i >= 0; i -= 8) {
          assert.notEqual(await get(b, `/m${i}?tag=big&pad=1`), bodies[i], `/m${i} served after purgeTag`);
        }
        assert.notEqual(await get(b, '/fresh?tag=big'), fresh);
      });
    },
  );
}
