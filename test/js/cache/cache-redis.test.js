'use strict';
// The Redis shared layer with a real redis-server (on a free loopback port, no persistence) and
// two server processes, with an ioredis client and with a node-redis client: a page rendered in
// one process is a hit in the other; concurrent first requests spread over both render once; a
// purge in one reaches the other, even one sent while its store backs off after a failure; a
// Redis stopped, or stalled by SIGSTOP, mid-run costs no failed request.
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { request } = require('../helpers/http');
const { redisMissing, freePort, startRedis } = require('../../../bench/http/lib/redis');

const SERVER = path.join(__dirname, '..', 'helpers', 'cache-fleet-server.js');
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Resolves once every server has made its purge subscription again after Redis restarted.
async function resubscribed(servers) {
  for (let i = 0; i < 400; i++) {
    const counts = await Promise.all(servers.map(async (s) => (await json(s, '/stats')).resubscriptions));
    if (counts.every((n) => n >= 1)) return;
    await delay(25);
  }
  const stats = await Promise.all(servers.map((s) => json(s, '/stats')));
  throw new Error(
    `a process did not resubscribe to purges within 10 s: ${stats.map((x) => JSON.stringify({ resubscriptions: x.resubscriptions, sharedErrors: x.sharedErrors, sharedTimeouts: x.sharedTimeouts, purgeMessages: x.purgeMessages })).join(' ')}`,
  );
}

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

// The same Host on both processes: it is part of the key, as behind one load balancer.
const get = (server, p) => request(server.url + p, { headers: { host: 'shop.example' } });
const json = async (server, p) => JSON.parse((await get(server, p)).body.toString());

for (const client of ['ioredis', 'node-redis']) {
  test(
    `${client}: two processes share pages, coalesce renders, see each other's purges, survive Redis stopping and stalling`,
    { skip: redisMissing() || false, timeout: 60000 },
    async (t) => {
      const port = await freePort();
      let redis = await startRedis(port);
      const env = { REDIS_PORT: String(port), CACHE_CLIENT: client, CACHE_PREFIX: `t${process.pid}:` };
      const a = await startServer(env);
      const b = await startServer(env);
      try {
        // a page rendered in one process is a hit in the other
        const first = await get(a, '/page/1');
        const pidA = /from (\d+)/.exec(first.body.toString())[1];
        await delay(50); // the write to Redis is not awaited by the response
        const fromB = await get(b, '/page/1');
        assert.strictEqual(fromB.body.toString(), first.body.toString());
        assert.strictEqual((await json(b, '/stats')).sharedHits, 1);

        // 40 concurrent first requests over both processes: one render in the fleet
        const burst = await Promise.all(
          Array.from({ length: 40 }, (_, i) => get(i % 2 ? b : a, '/page/burst?slow=150')),
        );
        const bodies = new Set(burst.map((r) => r.body.toString()));
        assert.strictEqual(bodies.size, 1, [...bodies].join(' | '));

        // a purge in A reaches B
        const started = Date.now();
        assert.strictEqual((await json(a, '/purge?url=/page/1')).dropped, 1);
        let reached = -1;
        for (let i = 0; i < 200; i++) {
          if ((await json(b, '/stats')).purgeMessages >= 1) {
            reached = Date.now() - started;
            break;
          }
          await delay(5);
        }
        assert.ok(reached >= 0, 'the purge never reached B');
        t.diagnostic(`purge reached the other process after ${reached} ms`);
        const afterPurge = await get(b, '/page/1');
        assert.doesNotMatch(afterPurge.body.toString(), new RegExp(`from ${pidA} render 1$`));

        // B holds a page in memory that A then purges while Redis is down: B cannot hear it
        await get(b, '/page/kept');
        const kept = (await get(b, '/page/kept')).body.toString();

        // Redis stopped mid-run: every request still answered
        const statuses = [];
        const loop = (async () => {
          for (let i = 0; i < 60; i++) {
            const r = await get(i % 2 ? a : b, `/page/${i % 10}-down`);
            statuses.push(r.status);
          }
        })();
        await delay(30);
        const exited = new Promise((resolve) => redis.once('exit', resolve));
        redis.kill('SIGTERM');
        await loop;
        assert.deepStrictEqual([...new Set(statuses)], [200]);
        await exited; // Redis is down from here until it is started again (on the same port)

        await json(a, '/purge?url=/page/kept'); // Redis is down: only A's memory hears it
        redis = await startRedis(port);
        await resubscribed([a, b]);
        // B resubscribed after missing purges: it dropped its memory, so no stale page
        assert.notStrictEqual(
          (await get(b, '/page/kept')).body.toString(),
          kept,
          'B served a page purged while it was away',
        );

        // a stalled Redis (SIGSTOP): requests answered within the timeouts, none fails
        await delay(400); // back-off elapses
        redis.kill('SIGSTOP');
        const stalled = [];
        const t0 = Date.now();
        for (let i = 0; i < 20; i++) stalled.push((await get(i % 2 ? a : b, `/page/${i}-stalled`)).status);
        const elapsed = Date.now() - t0;
        assert.deepStrictEqual([...new Set(stalled)], [200]);
        assert.ok(elapsed < 20 * 1000, `20 requests took ${elapsed} ms against a stalled Redis`);
        t.diagnostic(`20 requests against a stalled Redis: ${elapsed} ms`);

        // A purge while A's store backs off (its last call above timed out) still goes to Redis,
        // which answers once it resumes: B hears of it, where a skipped publish would be lost.
        const before = (await get(b, '/page/1')).body.toString(); // in B's memory
        const purging = json(a, '/purge?url=/page/1');
        await delay(50);
        redis.kill('SIGCONT');
        await purging;
        // B heard it (or, its subscription lost meanwhile, dropped its memory on resubscribing)
        let after = before;
        for (let i = 0; i < 100 && after === before; i++) {
          after = (await get(b, '/page/1')).body.toString();
          if (after === before) await delay(10);
        }
        assert.notStrictEqual(after, before, 'a purge sent while the store backed off never reached the other process');
      } finally {
        a.child.kill();
        b.child.kill();
        redis.kill('SIGCONT');
        redis.kill('SIGKILL');
      }
    },
  );
}
