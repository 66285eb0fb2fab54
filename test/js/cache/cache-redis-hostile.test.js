'use strict';
// A Redis that holds hostile or broken data costs a render, never a crash, a 500 or a response
// clients refuse. The attack model: anyone who can write to Redis. A real redis-server (free
// loopback port), real ioredis and node-redis clients, real node:http, Express 5 and Koa 3
// servers over HTTP. Per framework two caches share one prefix, as two processes of a fleet: W
// renders a page (its entry goes to Redis), a raw client rewrites that entry's metadata, and R,
// whose memory is empty, asks Redis for it. Then garbage is published on the purge channel and
// both caches must still serve and still hear real purges.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const express = require('express');
const Koa = require('koa');
const { request } = require('../helpers/http');
const { redisMissing, freePort, startRedis, redisClient } = require('../../../bench/http/lib/redis');
const { responseCache } = require('../../../lib/express/cache');
const { cache: koaCache } = require('../../../lib/koa');
const { RedisStore } = require('../../../lib/cache/redis-store');

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const HOST = 'shop.example';

// Every unhandled rejection or uncaught exception in this process while the test runs: each one
// would have ended a real server process.
const crashes = [];
const onCrash = (err) => crashes.push(err instanceof Error ? err.stack : String(err));

let renders = 0;
function page(name) {
  renders++;
  return { body: `${name} render ${renders}`, tag: `t-${name.split('-')[0]}` };
}

function listen(handler) {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` }));
  });
}

async function nodeServer(options) {
  const cache = responseCache(options);
  const s = await listen((req, res) =>
    cache(req, res, () => {
      const p = page(req.url.slice(1));
      res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'public, s-maxage=60', 'cache-tag': p.tag });
      res.end(p.body);
    }),
  );
  return { ...s, cache };
}

async function expressServer(options) {
  const cache = responseCache(options);
  const app = express();
  app.use(cache);
  app.get('/:name', (req, res) => {
    const p = page(req.params.name);
    res.set('Cache-Control', 'public, s-maxage=60').set('Cache-Tag', p.tag).type('text').send(p.body);
  });
  const s = await listen(app);
  return { ...s, cache };
}

async function koaServer(options) {
  const cache = koaCache(options);
  const app = new Koa();
  app.silent = true;
  app.use(cache);
  app.use((ctx) => {
    const p = page(ctx.path.slice(1));
    ctx.set('Cache-Control', 'public, s-maxage=60');
    ctx.set('Cache-Tag', p.tag);
    ctx.type = 'text';
    ctx.body = p.body;
  });
  const s = await listen(app.callback());
  return { ...s, cache };
}

const FRAMEWORKS = { 'node:http': nodeServer, 'express 5': expressServer, 'koa 3': koaServer };

// The stored value's parts: what precedes the metadata (its length as 4 bytes, and whatever the
// store puts before it), the metadata, the body.
function splitStored(blob) {
  const at = blob.indexOf('{"key":');
  assert.ok(at >= 4, `no entry metadata in ${JSON.stringify(blob.subarray(0, 80).toString('latin1'))}`);
  const length = blob.readUInt32BE(at - 4);
  return {
    before: blob.subarray(0, at - 4),
    meta: JSON.parse(blob.toString('utf8', at, at + length)),
    body: blob.subarray(at + length),
  };
}

function joinStored(before, meta, body) {
  const json = Buffer.from(JSON.stringify(meta));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  return Buffer.concat([before, length, json, body]);
}

// The rewrites an attacker (or a broken writer) makes to a stored entry. `bad`: the entry must be
// refused (R renders the page itself); otherwise it is served, cleaned: `check` runs on the hit.
const CASES = [
  { name: 'novary', bad: true, edit: (m) => delete m.varyNames },
  { name: 'notags', bad: true, edit: (m) => delete m.tags },
  { name: 'varystring', bad: true, edit: (m) => (m.varyNames = 'accept') },
  { name: 'tagsobject', bad: true, edit: (m) => (m.tags = { length: 1 }) },
  { name: 'status99', bad: true, edit: (m) => (m.status = 99) },
  { name: 'status600', bad: true, edit: (m) => (m.status = 600) },
  { name: 'statusfloat', bad: true, edit: (m) => (m.status = 200.5) },
  { name: 'statusstring', bad: true, edit: (m) => (m.status = '200') },
  { name: 'crlf', bad: true, edit: (m) => (m.headers['x-evil'] = 'a\r\nSet-Cookie: sid=attacker') },
  { name: 'lf', bad: true, edit: (m) => (m.headers['x-evil'] = 'a\nb') },
  { name: 'nul', bad: true, edit: (m) => (m.headers['x-evil'] = 'a\0b') },
  { name: 'badname', bad: true, edit: (m) => (m.headers['bad name'] = 'x') },
  { name: 'emptyname', bad: true, edit: (m) => (m.headers[''] = 'x') },
  { name: 'objectvalue', bad: true, edit: (m) => (m.headers['x-evil'] = { a: 1 }) },
  { name: 'arraynumber', bad: true, edit: (m) => (m.headers['x-evil'] = ['a', 5]) },
  { name: 'headersnull', bad: true, edit: (m) => (m.headers = null) },
  { name: 'headersarray', bad: true, edit: (m) => (m.headers = ['a', 'b']) },
  { name: 'timestring', bad: true, edit: (m) => (m.freshUntil = 'soon') },
  { name: 'otherkey', bad: true, edit: (m) => (m.key = m.key.replace('otherkey', 'elsewhere')) },
  { name: 'nostatus', bad: true, edit: (m) => delete m.status },
  { name: 'garbage', bad: true, raw: () => Buffer.from('\x00\x00\x00\x05{"key"garbage') },
  { name: 'notjson', bad: true, raw: () => Buffer.from('hello') },
  {
    name: 'transferencoding',
    edit: (m) => (m.headers['transfer-encoding'] = 'chunked'),
    check: (r) => {
      assert.equal(r.headers['transfer-encoding'], undefined);
      assert.equal(r.headers['content-length'], String(r.body.length));
    },
  },
  {
    name: 'hopbyhop',
    edit: (m) => {
      Object.assign(m.headers, {
        connection: 'close, x-foo',
        'keep-alive': 'timeout=1',
        upgrade: 'h2c',
        te: 'trailers',
        trailer: 'x-t',
        'proxy-authenticate': 'Basic',
        'proxy-connection': 'keep-alive',
        age: '99999',
      });
    },
    check: (r) => {
      for (const name of ['keep-alive', 'upgrade', 'te', 'trailer', 'proxy-authenticate', 'proxy-connection'])
        assert.equal(r.headers[name], undefined, name);
      assert.notEqual(r.headers.connection, 'close, x-foo');
      assert.ok(Number(r.headers.age) < 100, `age ${r.headers.age}`);
    },
  },
  {
    name: 'setcookie',
    edit: (m) => (m.headers['set-cookie'] = ['sid=attacker; Path=/']),
    check: (r) => assert.equal(r.headers['set-cookie'], undefined),
  },
  {
    name: 'length',
    edit: (m) => {
      m.headers['content-length'] = '3';
      m.length = '99';
    },
    check: (r) => assert.equal(r.headers['content-length'], String(r.body.length)),
  },
];

for (const kind of ['ioredis', 'node-redis']) {
  test(
    `${kind}: hostile entries and purge messages in Redis cost a render on node:http, Express 5 and Koa 3, never a crash`,
    { skip: redisMissing() || false, timeout: 120000 },
    async (t) => {
      process.on('unhandledRejection', onCrash);
      process.on('uncaughtException', onCrash);
      crashes.length = 0;
      const port = await freePort();
      const redis = await startRedis(port);
      const raw = await redisClient('ioredis', port);
      const clients = [];
      const servers = [];
      const client = async (k) => {
        const c = await redisClient(k, port);
        clients.push({ c, k });
        return c;
      };
      try {
        for (const [framework, start] of Object.entries(FRAMEWORKS)) {
          const prefix = `h${process.pid}:${framework.replace(/\W/g, '')}:`;
          const w = await start({ store: await client('ioredis'), storeOptions: { prefix, timeout: 500 } });
          const r = await start({ store: await client(kind), storeOptions: { prefix, timeout: 500 } });
          servers.push(w, r);
          const failures = [];
          const keys = new RedisStore(raw, { prefix });
          await request(`${w.url}/warm`, { headers: { host: HOST } }); // W has read (or drawn) the generation
          keys.generation = await raw.get(`${prefix}gen`);
          const keyOf = (name) => keys.entryKey(`/${name}\n${HOST}`);
          const get = (s, name) => request(`${s.url}/${name}`, { headers: { host: HOST } });

          for (const c of CASES) {
            try {
              await oneCase(c);
            } catch (err) {
              failures.push(err.message.split('\n')[0]);
            }
          }
          async function oneCase(c) {
            const name = `${c.name}-${kind}`;
            const first = await get(w, name);
            assert.equal(first.status, 200);
            const key = keyOf(name);
            let blob;
            for (let i = 0; i < 100 && !blob; i++) blob = (await raw.getBuffer(key)) || (await delay(10));
            assert.ok(blob, `${framework} ${name}: the entry never reached Redis`);
            const ttl = await raw.pttl(key);
            let planted;
            if (c.raw) planted = c.raw();
            else {
              const parts = splitStored(blob);
              c.edit(parts.meta);
              planted = joinStored(parts.before, parts.meta, parts.body);
            }
            await raw.set(key, planted, 'PX', ttl);

            const got = await get(r, name);
            const where = `${framework} (${kind}) ${c.name}`;
            assert.equal(got.status, 200, `${where}: ${got.body}`);
            assert.deepEqual(crashes, [], where);
            if (c.bad) {
              // refused: R rendered the page itself, and Redis no longer holds the bad entry
              assert.notEqual(got.body.toString(), first.body.toString(), `${where}: the bad entry was served`);
              assert.match(got.body.toString(), new RegExp(`^${name} render \\d+$`));
              let now = planted;
              for (let i = 0; i < 100 && now !== null && now.equals(planted); i++) {
                await delay(10);
                now = await raw.getBuffer(key);
              }
              assert.ok(now === null || !now.equals(planted), `${where}: the bad entry is still in Redis`);
            } else {
              assert.equal(got.body.toString(), first.body.toString(), `${where}: not served from Redis`);
              c.check(got);
              // its second request is a hit from R's memory, as cleaned
              const again = await get(r, name);
              assert.equal(again.body.toString(), first.body.toString());
              c.check(again);
            }
          }

          assert.deepEqual(failures, [], `${framework} (${kind}): ${failures.length} of ${CASES.length} cases failed`);

          // garbage on the purge channel: every subscriber stays, and still hears real purges
          const channel = `${prefix}purge`;
          await get(w, `kept-${kind}`);
          await delay(50);
          const kept = await get(r, `kept-${kind}`); // from Redis into R's memory
          for (const message of [
            'null',
            '[]',
            '"x"',
            '5',
            'true',
            'garbage',
            '{',
            '{"op":"url"}',
            '{"op":"url","arg":5}',
            '{"op":"tag","arg":{"a":1}}',
            '{"op":"nope","arg":"x"}',
            '{"generation":{"toString":1}}',
            '{"generation":"x\\ny","op":"clear","arg":""}',
            '{"__proto__":{"op":"clear"}}',
            'x'.repeat(100000),
          ])
            await raw.publish(channel, message);
          await delay(100);
          assert.deepEqual(crashes, [], `${framework} (${kind}): a purge message crashed the process`);
          const still = await get(r, `kept-${kind}`);
          assert.equal(still.body.toString(), kept.body.toString(), `${framework}: garbage purged a page`);
          await w.cache.purge(`/kept-${kind}`);
          let after = still.body.toString();
          for (let i = 0; i < 100 && after === still.body.toString(); i++) {
            await delay(10);
            after = (await get(r, `kept-${kind}`)).body.toString();
          }
          assert.notEqual(after, still.body.toString(), `${framework} (${kind}): R no longer hears purges`);
          t.diagnostic(`${framework}: ${CASES.length} stored entries rewritten, 15 bad purge messages: no crash`);
        }
        assert.deepEqual(crashes, []);
      } finally {
        process.off('unhandledRejection', onCrash);
        process.off('uncaughtException', onCrash);
        for (const s of servers) {
          s.cache.close();
          s.server.closeAllConnections?.();
          s.server.close();
        }
        for (const { c, k } of clients) {
          if (k === 'ioredis') c.disconnect();
          else await c.disconnect().catch(() => {});
        }
        raw.disconnect();
        redis.kill('SIGKILL');
      }
    },
  );
}
