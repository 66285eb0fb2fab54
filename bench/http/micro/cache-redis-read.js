'use strict';
// What a hit from the Redis store costs this process in CPU: RedisStore.get() of one 20 KB page
// (the read, its checks, the body copied out), against a real redis-server on a free loopback
// port, through ioredis. With OTHER=<path of another redis-store.js> (e.g. an older one taken
// out with `git show`), both are measured in the same run, rounds interleaved, and the ratio
// printed: each writes its page in its own format under its own prefix and reads it back.
// Usage: taskset -c 0 node bench/http/micro/cache-redis-read.js  (Redis is pinned to CPU 1)
// Prints the CPU, then us of CPU per get() for each store per round and the medians.
const path = require('path');
const { execFileSync } = require('child_process');
const lib = path.join(__dirname, '..', '..', '..', 'lib');
const { freePort, startRedis, redisClient } = require(path.join(__dirname, '..', 'lib', 'redis'));
const { describeMachine } = require(path.join(__dirname, '..', 'lib', 'cpu'));

const GETS = 2000;
const ROUNDS = 9;

function entry(key) {
  const now = Date.now();
  const body = Buffer.alloc(20_480, 'p');
  const headers = {
    'x-powered-by': 'Express',
    'cache-control': 'public, s-maxage=3600',
    'content-type': 'text/html; charset=utf-8',
    etag: 'W/"5000-abcdefgh"',
    vary: 'Accept-Encoding',
    date: new Date(now).toUTCString(),
  };
  return {
    key,
    primary: key,
    target: key.split('\n')[0],
    varyNames: [],
    status: 200,
    headers,
    body,
    length: String(body.length),
    etag: headers.etag,
    lastModified: undefined,
    tags: ['catalog'],
    storedAt: now,
    freshUntil: now + 3600_000,
    swrUntil: now + 3600_000,
    sieUntil: now + 3600_000,
    expiresAt: now + 3600_000,
    size: body.length + 512,
  };
}

(async () => {
  const port = await freePort();
  const redis = await startRedis(port);
  try {
    execFileSync('taskset', ['-p', '-c', '1', String(redis.pid)], { stdio: 'ignore' });
  } catch {
    // not pinned
  }
  const variants = { current: path.join(lib, 'cache', 'redis-store.js') };
  if (process.env.OTHER) variants.other = path.resolve(process.env.OTHER);
  const stores = {};
  for (const [name, file] of Object.entries(variants)) {
    const { RedisStore } = require(file);
    const store = new RedisStore(await redisClient('ioredis', port), { prefix: `b:${name}:`, timeout: 1000 });
    store.put(entry('/product/1\nshop.example'), 3600_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const got = await store.get('/product/1\nshop.example', '/product/1\nshop.example');
    if (!got || !got.entry || got.entry.body.length !== 20_480) throw new Error(`${name}: no hit from Redis`);
    stores[name] = store;
  }
  const machine = describeMachine();
  console.log(
    `${machine.cpu} (${machine.cpus} CPUs), Node ${process.version}, load ${require('os').loadavg()[0].toFixed(1)}`,
  );
  const results = Object.fromEntries(Object.keys(stores).map((n) => [n, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? Object.keys(stores).reverse() : Object.keys(stores);
    for (const name of order) {
      const store = stores[name];
      const start = process.cpuUsage();
      for (let i = 0; i < GETS; i++) await store.get('/product/1\nshop.example', '/product/1\nshop.example');
      const used = process.cpuUsage(start);
      results[name].push((used.user + used.system) / GETS);
    }
    console.log(`round ${round}: ${order.map((n) => `${n} ${results[n].at(-1).toFixed(1)} us`).join(', ')}`);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  for (const name of Object.keys(results))
    console.log(`${name}: median ${median(results[name]).toFixed(1)} us CPU per get`);
  if (results.other) {
    const ratios = results.current.map((c, i) => c / results.other[i]);
    console.log(
      `current / other: median ${median(ratios).toFixed(3)} (per round ${ratios.map((r) => r.toFixed(2)).join(' ')})`,
    );
  }
  redis.kill('SIGKILL');
  process.exit(0);
})();
