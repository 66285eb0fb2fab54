'use strict';
// A lock file that is not ours cannot starve the pool: with the budget's predictable file in
// /dev/shm created first by someone else (as root: owned by nobody, mode 0666; otherwise: mode
// 0666) and every byte of it locked by another process, an explicit configure({ shared }) throws
// an error naming the file, a cluster worker's automatic budget warns and stays per process, and
// both still hash and verify instead of waiting for permits that never come.
const test = require('node:test');
const assert = require('node:assert/strict');
const cluster = require('node:cluster');
const { createHash } = require('node:crypto');
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const argon2 = require('../../../lib/argon2/index.js');

const linux = process.platform === 'linux';
// The system python3 by absolute path: the lock holder runs as `nobody` (when we are root), who
// may not reach a python3 found first on root's PATH (pyenv under /root), and Bun's spawn stops at
// the first PATH entry it may not execute.
const PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const python = linux && spawnSync(PYTHON, ['-c', 'import fcntl'], { stdio: 'ignore' }).status === 0;
const skip = !linux ? 'needs Linux (open file description locks)' : !python && 'needs python3 to hold the byte locks';
const root = typeof process.getuid === 'function' && process.getuid() === 0;
const NOBODY = 65534;
// A starving hash never settles; a working one takes milliseconds. The bound only turns a hang
// into a failure with a message (the suite's timeout would also catch it).
const STARVED_AFTER_MS = 15000;

// The same name lib/argon2 derives for a budget (checked: the error below must name this file).
function lockFileOf(name) {
  const dir = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const digest = createHash('sha256').update(name).digest('hex').slice(0, 24);
  return path.join(dir, `ssr-native-argon2-${process.getuid()}-${digest}.lock`);
}

// Plants the file as another user would, and has another process (as nobody when we are root)
// hold write locks on its first 4096 bytes: every slot of any budget size.
async function plantForeignLock(file) {
  fs.rmSync(file, { force: true });
  const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  if (root) fs.fchownSync(fd, NOBODY, NOBODY);
  fs.fchmodSync(fd, 0o666);
  fs.closeSync(fd);
  const script = [
    'import fcntl, os, sys',
    'fd = os.open(sys.argv[1], os.O_RDWR)',
    'fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 4096, 0)',
    'print("locked", flush=True)',
    'sys.stdin.read()',
  ].join('\n');
  const holder = spawn(PYTHON, ['-c', script, file], {
    stdio: ['pipe', 'pipe', 'inherit'],
    ...(root ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  await new Promise((resolve, reject) => {
    holder.stdout.once('data', resolve);
    holder.once('exit', (code) => reject(new Error(`lock holder exited with ${code}`)));
  });
  return {
    stop() {
      holder.kill('SIGKILL');
      fs.rmSync(file, { force: true });
    },
  };
}

function withinBound(promise, what) {
  let timer;
  const starved = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: starved (nothing after ${STARVED_AFTER_MS} ms)`)),
      STARVED_AFTER_MS,
    );
  });
  return Promise.race([promise, starved]).finally(() => clearTimeout(timer));
}

const quick = { memoryCost: 4096, timeCost: 2, parallelism: 1 };

test(
  'an explicit shared budget on a foreign, locked file throws naming it, and hashing goes on',
  { skip, timeout: 60000 },
  async () => {
    const name = `foreign-explicit-${process.pid}`;
    const file = lockFileOf(name);
    const holder = await plantForeignLock(file);
    try {
      assert.throws(
        () => argon2.configure({ shared: name, sharedSlots: 2 }),
        (err) => {
          assert.ok(err.message.includes(file), err.message);
          assert.match(err.message, root ? /refused, owned by uid 65534/ : /refused, mode 0666/);
          return true;
        },
      );
      assert.equal(argon2.stats().shared, null, 'no budget joined');
      const encoded = await withinBound(argon2.hash('correct horse', quick), 'hash');
      assert.equal(await withinBound(argon2.verify(encoded, 'correct horse'), 'verify'), true);
    } finally {
      holder.stop();
      argon2.configure({ shared: false });
    }
  },
);

test(
  'a cluster worker whose automatic budget file is foreign warns, stays per process and hashes',
  { skip, timeout: 60000 },
  async () => {
    // Workers name their budget after their primary: this process.
    const file = lockFileOf(`cluster-${process.pid}`);
    const holder = await plantForeignLock(file);
    cluster.setupPrimary({
      exec: path.join(__dirname, '..', 'helpers', 'argon2-foreign-lock-worker.js'),
      silent: false,
    });
    const worker = cluster.fork();
    try {
      const report = await withinBound(new Promise((resolve) => worker.once('message', resolve)), 'worker hash');
      assert.equal(report.error, undefined, report.error);
      assert.equal(report.verified, true);
      assert.equal(report.shared, null, 'the worker did not join the foreign budget');
      const warning = report.warnings.find((w) => w.code === 'SSR_NATIVE_ARGON2_SHARED');
      assert.ok(warning, `a SSR_NATIVE_ARGON2_SHARED warning (got ${JSON.stringify(report.warnings)})`);
      assert.ok(warning.message.includes(file), warning.message);
      assert.match(warning.message, /refused/);
      assert.match(warning.message, /hashing limits stay per process/);
    } finally {
      worker.process.kill('SIGKILL');
      holder.stop();
    }
  },
);
