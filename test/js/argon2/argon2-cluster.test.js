'use strict';
// The machine-wide budget: the workers of a real node:cluster share one limit on concurrent
// hashes with no configuration, and a worker killed with SIGKILL mid-hash gives its permit
// back (the kernel drops its lock).
const test = require('node:test');
const assert = require('node:assert/strict');
const cluster = require('node:cluster');
const path = require('node:path');
const argon2 = require('../../../lib/argon2/index.js');

const linux = process.platform === 'linux';
const SLOTS = 2;

function startWorkers(count) {
  cluster.setupPrimary({ exec: path.join(__dirname, '..', 'helpers', 'argon2-cluster-worker.js'), silent: false });
  const workers = [];
  for (let i = 0; i < count; i++) {
    const worker = cluster.fork({ ARGON2_SHARED_SLOTS: String(SLOTS) });
    worker.latest = null;
    worker.on('message', (m) => (worker.latest = m));
    workers.push(worker);
  }
  return workers;
}

function stopWorkers(workers) {
  return Promise.all(
    workers.map(
      (w) =>
        new Promise((resolve) => {
          if (w.isDead()) return resolve();
          w.once('exit', resolve);
          w.process.kill('SIGKILL');
        }),
    ),
  );
}

// Polls every 5 ms (up to 20 s) until pred() holds; meanwhile checks the machine-wide count.
async function until(pred, what, watch) {
  for (let i = 0; i < 4000; i++) {
    watch();
    if (pred()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test(
  'cluster workers share one budget and a SIGKILLed worker gives its permit back',
  { skip: !linux && 'needs Linux (open file description locks)', timeout: 60000 },
  async () => {
    // The primary joins the workers' budget (named after it) to watch it; it never hashes.
    argon2.configure({ shared: `cluster-${process.pid}`, sharedSlots: SLOTS });
    const workers = startWorkers(3);
    let maxHeld = 0;
    const watch = () => {
      const { held } = argon2.stats().shared;
      maxHeld = Math.max(maxHeld, held);
      assert.ok(held <= SLOTS, `${held} permits held machine-wide`);
    };
    try {
      // Every worker joined the cluster's budget by itself, and together they use all of it.
      await until(
        () => workers.every((w) => w.latest && w.latest.name === `cluster-${process.pid}`),
        'workers to join',
        watch,
      );
      await until(() => argon2.stats().shared.held === SLOTS, 'the budget to be used up', watch);
      // Six hashes wanted at once (three workers, two each): never more than SLOTS running.
      const live = () => workers.filter((w) => !w.isDead());
      const liveHere = () => live().reduce((sum, w) => sum + Math.max(0, (w.latest && w.latest.here) || 0), 0);
      await until(() => liveHere() >= 1, 'a worker to hold a permit', watch);

      // Kill a worker while it holds a permit (mid-hash: the permit is held only around a hash).
      const victim = workers.find((w) => w.latest && w.latest.here > 0);
      const exited = new Promise((r) => victim.once('exit', r));
      victim.process.kill('SIGKILL');
      await exited;
      // The two live workers get both permits: the dead one's was recovered.
      for (const w of live()) w.latest = null;
      await until(
        () => live().every((w) => w.latest) && liveHere() === SLOTS,
        'the live workers to hold every permit',
        watch,
      );
      assert.ok(maxHeld <= SLOTS);
    } finally {
      await stopWorkers(workers);
      argon2.configure({ shared: false });
    }
    // Every worker is gone: every permit with them.
    argon2.configure({ shared: `cluster-${process.pid}`, sharedSlots: SLOTS });
    assert.equal(argon2.stats().shared.held, 0);
    argon2.configure({ shared: false });
  },
);
