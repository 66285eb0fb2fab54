'use strict';
// Admission control: maxConcurrency running, maxQueue waiting, the rest rejected at once with
// SemaphoreFullError; queued calls time out; stats(); configure() validation; the Express and
// Koa helpers answer 429 with Retry-After.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const argon2 = require('../../../lib/argon2/index.js');

const slow = { memoryCost: 65536, timeCost: 3, parallelism: 1 }; // tens of ms at least
const fast = { memoryCost: 64, timeCost: 1, parallelism: 1 };

function settleOrder(promises) {
  const order = [];
  return Promise.all(
    promises.map((p, i) =>
      p.then(
        (value) => order.push({ i, value }),
        (error) => order.push({ i, error }),
      ),
    ),
  ).then(() => order);
}

test('configure validates its options and returns the settings', () => {
  assert.throws(() => argon2.configure({ maxConcurrency: 0 }), RangeError);
  assert.throws(() => argon2.configure({ maxConcurrency: 1.5 }), RangeError);
  assert.throws(() => argon2.configure({ maxQueue: '3' }), TypeError);
  assert.throws(() => argon2.configure({ priority: 20 }), RangeError);
  assert.throws(() => argon2.configure({ threads: 0 }), RangeError);
  assert.throws(() => argon2.configure({ nope: 1 }), TypeError);
  assert.throws(() => argon2.configure(5), TypeError);
  assert.throws(() => argon2.configure({ rejectDelayMs: 'soon' }), TypeError);
  assert.throws(() => argon2.configure({ rejectDelayMs: -1 }), RangeError);
  assert.throws(() => argon2.configure({ rejectDelayMs: 60001 }), RangeError);
  assert.throws(() => argon2.configure({ policy: 'fifo' }), TypeError);
  assert.equal(argon2.configure({}).rejectDelayMs, 'auto'); // the default
  assert.equal(argon2.configure({}).policy, 'normal');
  const settings = argon2.configure({ threads: 2, priority: 12 });
  assert.equal(settings.threads, 2);
  assert.equal(settings.priority, 12);
  assert.equal(settings.maxConcurrency, 2); // follows threads until set itself
  assert.equal(settings.maxQueue, 16);
  assert.equal(argon2.configure({ maxQueue: Infinity }).maxQueue, Infinity);
});

// The hashing pool's threads as the kernel sees them: { nice, policy } of every thread named
// ssr-hash-pool, from /proc/self/task/<tid>/stat (fields 19 and 41). null off Linux.
function poolThreads() {
  let tids;
  try {
    tids = fs.readdirSync('/proc/self/task');
  } catch {
    return null;
  }
  const out = [];
  for (const tid of tids) {
    try {
      if (fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() !== 'ssr-hash-pool') continue;
      const fields = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      out.push({ nice: Number(fields[16]), policy: Number(fields[38]) });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

// Polls (up to 10 s) until pred(poolThreads()) holds; returns the last sample.
async function waitForPool(pred) {
  let threads = poolThreads();
  for (let i = 0; i < 500 && !pred(threads); i++) {
    await new Promise((r) => setTimeout(r, 20));
    threads = poolThreads();
  }
  return threads;
}

test(
  'threads, priority and policy reach the real pool threads',
  { skip: poolThreads() === null && 'no /proc/self/task (not Linux)' },
  async () => {
    await argon2.hash('start the pool', fast);
    const all = (nice, policy) => (threads) => threads.every((t) => t.nice === nice && t.policy === policy);
    // Grow to 3 threads at nice 12: the kernel reports 3 threads, each at nice 12, SCHED_OTHER.
    argon2.configure({ threads: 3, priority: 12 });
    let threads = await waitForPool((t) => t.length === 3 && all(12, 0)(t));
    assert.deepEqual(threads, Array(3).fill({ nice: 12, policy: 0 }));
    // SCHED_BATCH (3) with nice 14.
    argon2.configure({ priority: 14, policy: 'batch' });
    threads = await waitForPool(all(14, 3));
    assert.deepEqual(threads, Array(3).fill({ nice: 14, policy: 3 }));
    // Shrink: surplus threads really exit.
    argon2.configure({ threads: 1 });
    threads = await waitForPool((t) => t.length === 1);
    assert.equal(threads.length, 1, 'threads left after shrinking to 1');
    // Still hashing after all that.
    assert.equal(typeof (await argon2.hash('x', fast)), 'string');
    argon2.configure({ threads: 2, policy: 'normal' });
  },
);

test('full: calls beyond maxConcurrency + maxQueue reject at once with SemaphoreFullError', async () => {
  argon2.configure({ maxConcurrency: 4, maxQueue: 4, queueTimeoutMs: 0 });
  const digest = await argon2.hash('c', fast);
  argon2.configure({ maxConcurrency: 1, maxQueue: 1, queueTimeoutMs: 0, rejectDelayMs: 0 });
  const before = argon2.stats();
  const running = argon2.hash('a', slow);
  const queued = argon2.hash('b', slow);
  assert.deepEqual({ active: argon2.stats().active, queued: argon2.stats().queued }, { active: 1, queued: 1 });
  const rejectedHash = argon2.hash('c', fast);
  const rejectedVerify = argon2.verify(digest, 'c');
  const order = await settleOrder([running, queued, rejectedHash, rejectedVerify]);
  // The rejected calls settle first: they never waited for a hash.
  assert.deepEqual(
    order
      .slice(0, 2)
      .map((o) => o.i)
      .sort(),
    [2, 3],
  );
  for (const { error: err } of order.slice(0, 2)) {
    assert.ok(err instanceof argon2.SemaphoreFullError);
    assert.ok(err instanceof Error);
    assert.equal(err.name, 'SemaphoreFullError');
    assert.equal(err.code, 'ERR_ARGON2_BUSY');
    assert.equal(err.status, 429);
    assert.ok(Number.isInteger(err.retryAfter) && err.retryAfter >= 1);
  }
  assert.equal(typeof order.find((o) => o.i === 0).value, 'string');
  assert.equal(typeof order.find((o) => o.i === 1).value, 'string');
  const after = argon2.stats();
  assert.equal(after.rejected, before.rejected + 2);
  assert.equal(after.completed, before.completed + 2);
  assert.deepEqual({ active: after.active, queued: after.queued }, { active: 0, queued: 0 });
});

test('rejectDelayMs holds a rejection for a full queue before it settles', async () => {
  // The storm defence: a client that retries the moment it gets a 429 is paced by the server.
  // Ordering, not timing: a 64 KiB hash admitted before the rejection settles well within
  // 400 ms, so with the delay it settles first; with rejectDelayMs 0 the rejection is first.
  const busy = { memoryCost: 64, timeCost: 1, parallelism: 1 };
  for (const [delay, firstSettled] of [
    [400, 'admitted'],
    [0, 'rejected'],
  ]) {
    argon2.configure({ maxConcurrency: 1, maxQueue: 0, queueTimeoutMs: 0, rejectDelayMs: delay });
    const rejectedBefore = argon2.stats().rejected;
    const order = [];
    const admitted = argon2.hash('a', busy).then(() => order.push('admitted'));
    const rejected = argon2.hash('b', busy).catch((err) => {
      assert.ok(err instanceof argon2.SemaphoreFullError);
      order.push('rejected');
    });
    // Counted at once, whatever the delay.
    assert.equal(argon2.stats().rejected, rejectedBefore + 1);
    await Promise.all([admitted, rejected]);
    assert.equal(order[0], firstSettled, `rejectDelayMs ${delay}: ${order}`);
  }
  argon2.configure({ rejectDelayMs: 'auto' });
});

test('queued calls run in order once a slot frees up', async () => {
  argon2.configure({ maxConcurrency: 1, maxQueue: 10, queueTimeoutMs: 0 });
  const started = [];
  const calls = [0, 1, 2, 3].map((i) => argon2.hash(`p${i}`, fast).then(() => started.push(i)));
  assert.equal(argon2.stats().queued, 3);
  await Promise.all(calls);
  assert.deepEqual(started, [0, 1, 2, 3]);
});

test('a queued call that waits longer than queueTimeoutMs rejects', async () => {
  argon2.configure({ maxConcurrency: 1, maxQueue: 5, queueTimeoutMs: 1 });
  const running = argon2.hash('a', slow);
  const waiting = argon2.hash('b', slow);
  await assert.rejects(waiting, (err) => err instanceof argon2.SemaphoreFullError && /waited/.test(err.message));
  assert.equal(typeof (await running), 'string');
  assert.equal(argon2.stats().queued, 0);
});

test('errors inside a hash release the permit', async () => {
  argon2.configure({ maxConcurrency: 1, maxQueue: 0, queueTimeoutMs: 0 });
  await assert.rejects(argon2.hash('x', { ...fast, salt: Buffer.alloc(4) }), /Salt is too short/);
  await assert.rejects(argon2.hash('x', { ...fast, timeCost: 0 }), /Time cost is too small/);
  assert.equal(typeof (await argon2.hash('x', fast)), 'string');
  assert.equal(argon2.stats().active, 0);
});

function request(server, path) {
  return new Promise((resolve, reject) => {
    http
      .get({ port: server.address().port, path }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
      })
      .on('error', reject);
  });
}

function listen(handler) {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

test('Express: expressErrorHandler answers 429 with Retry-After', async () => {
  const express = require('express');
  argon2.configure({ maxConcurrency: 1, maxQueue: 0, queueTimeoutMs: 0 });
  const app = express();
  app.get('/register', async (req, res, next) => {
    try {
      res.json({ digest: await argon2.hash('pw', slow) });
    } catch (err) {
      next(err);
    }
  });
  app.get('/boom', (req, res, next) => next(new Error('other')));
  app.use(argon2.expressErrorHandler());
  const server = await listen(app);
  try {
    const [first, second] = await Promise.all([request(server, '/register'), request(server, '/register')]);
    const statuses = [first.status, second.status].sort();
    assert.deepEqual(statuses, [200, 429]);
    const busy = first.status === 429 ? first : second;
    assert.ok(Number(busy.headers['retry-after']) >= 1);
    assert.equal(JSON.parse(busy.body).code, 'ERR_ARGON2_BUSY');
    assert.equal((await request(server, '/boom')).status, 500);
  } finally {
    server.close();
  }
});

test('Koa: koaMiddleware answers 429 with Retry-After', async () => {
  const Koa = require('koa');
  argon2.configure({ maxConcurrency: 1, maxQueue: 0, queueTimeoutMs: 0 });
  const app = new Koa();
  app.silent = true;
  app.use(argon2.koaMiddleware());
  app.use(async (ctx) => {
    if (ctx.path === '/boom') throw new Error('other');
    ctx.body = { digest: await argon2.hash('pw', slow) };
  });
  const server = await listen(app.callback());
  try {
    const [first, second] = await Promise.all([request(server, '/r'), request(server, '/r')]);
    assert.deepEqual([first.status, second.status].sort(), [200, 429]);
    const busy = first.status === 429 ? first : second;
    assert.ok(Number(busy.headers['retry-after']) >= 1);
    assert.equal(JSON.parse(busy.body).code, 'ERR_ARGON2_BUSY');
    assert.equal((await request(server, '/boom')).status, 500);
  } finally {
    server.close();
  }
});
