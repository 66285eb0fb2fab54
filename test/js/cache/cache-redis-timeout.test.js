'use strict';
// The Redis store's timeout against a real redis-server (on a free loopback port): an answer that
// arrived while the event loop was held longer than the timeout (a render, a burst of them) is
// taken, not counted a timeout, so one busy moment does not send the store into back-off and
// skip the writes after it; a Redis that really does not answer (SIGSTOP) still times out.
const test = require('node:test');
const assert = require('node:assert/strict');
const { redisMissing, freePort, startRedis, redisClient } = require('../../../bench/http/lib/redis');
const { RedisStore, UNAVAILABLE } = require('../../../lib/cache/redis-store');

function holdLoop(ms) {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

for (const kind of ['ioredis', 'node-redis']) {
  test(
    `${kind}: an answer read after the loop was held past the timeout is taken; a stalled Redis times out`,
    { skip: redisMissing() || false },
    async () => {
      const port = await freePort();
      const redis = await startRedis(port);
      const client = await redisClient(kind, port);
      try {
        const store = new RedisStore(client, { prefix: `t${process.pid}:`, timeout: 100 });
        await store.call(() => client.set(`t${process.pid}:k`, 'v'));
        for (let i = 0; i < 5; i++) {
          const pending = store.call(() => client.get(`t${process.pid}:k`));
          // the next turn of the loop is held three timeouts long (another request's render), and
          // Redis answers meanwhile (node-redis writes its commands at the end of a turn)
          await new Promise((resolve) => setImmediate(resolve));
          holdLoop(300);
          assert.equal(await pending, 'v', `call ${i}`);
        }
        assert.equal(store.counters.sharedTimeouts, 0);
        assert.equal(store.failures, 0);

        redis.kill('SIGSTOP');
        const started = Date.now();
        assert.equal(await store.call(() => client.get(`t${process.pid}:k`)), UNAVAILABLE);
        assert.ok(Date.now() - started < 1000, 'a stalled Redis times out');
        assert.equal(store.counters.sharedTimeouts, 1);
        redis.kill('SIGCONT');
      } finally {
        if (kind === 'ioredis') client.disconnect();
        else await client.disconnect().catch(() => {});
        redis.kill('SIGKILL');
      }
    },
  );
}
