'use strict';
// Hashing runs on ssr-native's own pool, so libuv's pool (fs, dns, zlib, crypto.pbkdf2 ...)
// stays free: file reads complete while the hashing pool is saturated. With the argon2
// package the same hashes occupy libuv's threads and the reads queue behind them.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs/promises');
const os = require('node:os');
const zlib = require('node:zlib');
const { promisify } = require('node:util');
const argon2 = require('../../../lib/argon2/index.js');
const native = require('../../../lib/native.js');

test('fs and zlib work completes while every hashing thread is busy and no hash has finished', async () => {
  // Enough hashes to keep every pool thread busy (one per CPU this process may use) and, were
  // they on libuv's pool, every libuv thread too.
  const cpus = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  const libuvThreads = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  const count = Math.max(cpus, libuvThreads);
  argon2.configure({ maxConcurrency: count, maxQueue: 0 });
  // Long hashes (~0.6-2 s each): 10 small reads and gzips take a few ms on a free libuv pool.
  // The margin is wide on purpose: a JS thread starved by other load (seen once in a loop at
  // nice 19 beside a benchmark) still finishes its 20 round trips long before one hash.
  const long = { memoryCost: 65536, timeCost: 48, parallelism: 1 };
  let hashesDone = 0;
  const hashes = [];
  for (let i = 0; i < count; i++) hashes.push(argon2.hash(`pw${i}`, long).then(() => hashesDone++));
  assert.equal(argon2.stats().active, count, 'every hash admitted');

  let reads = 0;
  for (let i = 0; i < 10; i++) {
    await fs.readFile(__filename);
    await promisify(zlib.gzip)(Buffer.alloc(1024, i));
    reads++;
  }
  const done = hashesDone;
  // A woken pool thread may not have been scheduled yet on a loaded 2-core machine (seen once:
  // 1 of 2 running, 3 queued): sampled until every thread runs a hash or one hash has finished.
  let pool = native.argon2PoolStats();
  while (pool.running < pool.threads && hashesDone === 0) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    pool = native.argon2PoolStats();
  }
  const finishedBeforeFull = hashesDone;
  await Promise.all(hashes);

  assert.equal(reads, 10);
  // Progress, not timing: the libuv work did not wait for a single hash...
  assert.equal(done, 0, `${done} of ${count} hashes finished before 10 reads and gzips did`);
  // ... while our pool was saturated: every one of its threads running a hash.
  assert.equal(pool.running, pool.threads, `pool: ${JSON.stringify(pool)}`);
  assert.equal(finishedBeforeFull, 0, 'every pool thread was busy before any hash finished');
  assert.equal(pool.threads, cpus);
});
