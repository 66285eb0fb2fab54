'use strict';
// A Redis restarted under steady traffic: once it is back, two processes (real Express 5 servers
// with a real redis-server on a free loopback port, clients with no offline queue, as
// docs/cache.md recommends) share pages again at once. A client still reconnecting is waited
// for within the call's timeout, and the back-off its failures built while Redis was away ends
// once it is connected again (it had doubled to seconds: no page was shared for ~8 s).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { request } = require('../helpers/http');
const { redisMissing, freePort, startRedis } = require('../../../bench/http/lib/redis');

const SERVER = path.join(__dirname, '..', 'helpers', 'cache-fleet-server.js');
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function startServer(env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /READY (\d+)/.exec(out);
      if (m) resolve({ child, url: `http://127.0.0.1:${m[1]}` });
    });
    child.once('exit', (code) => reject(new Error(`fleet server exited with ${code}`)));
  });
}

const get = (server, p) => request(server.url + p, { headers: { host: 'shop.example' } });
const text = async (server, p) => (await get(server, p)).body.toString();

for (const client of ['ioredis', 'node-redis']) {
  test(
    `${client}: after Redis restarts under steady traffic, two processes share pages again within a few requests`,
    { skip: redisMissing() || false, timeout: 60000 },
    async (t) => {
      const port = await freePort();
      let redis = await startRedis(port);
      // the documented default back-off (retryAfter 1000 ms, doubled on each failure in a row)
      const env = {
        REDIS_PORT: String(port),
        CACHE_CLIENT: client,
        CACHE_PREFIX: `r${process.pid}:`,
        CACHE_RETRY_AFTER: '1000',
      };
      const a = await startServer(env);
      const b = await startServer(env);
      try {
        const first = await text(a, '/page/before');
        await delay(50);
        assert.equal(await text(b, '/page/before'), first, 'pages are shared before the restart');

        // steady traffic on both while Redis is down for a while, then started again
        let traffic = true;
        const statuses = new Set();
        const loop = (async () => {
          for (let i = 0; traffic; i++) {
            statuses.add((await get(i % 2 ? a : b, `/page/steady-${i}`)).status);
            await delay(20);
          }
        })();
        await delay(200);
        const exited = new Promise((resolve) => redis.once('exit', resolve));
        redis.kill('SIGKILL');
        await exited;
        await delay(3500);
        redis = await startRedis(port);

        // A renders a new page, B asks for it: within 20 such pairs B gets A's render from Redis
        let shared = -1;
        for (let i = 0; i < 20 && shared === -1; i++) {
          const fromA = await text(a, `/page/after-${i}`);
          await delay(50); // the write to Redis is not awaited by A's response
          if ((await text(b, `/page/after-${i}`)) === fromA) shared = i;
        }
        traffic = false;
        await loop;
        assert.deepEqual([...statuses], [200], 'a request failed while Redis restarted');
        assert.ok(shared >= 0, 'no page was shared within 20 requests after Redis was back');
        t.diagnostic(`shared again at the pair ${shared} after the restart`);
      } finally {
        a.child.kill();
        b.child.kill();
        redis.kill('SIGKILL');
      }
    },
  );
}
