'use strict';
// Worker threads: hashing works inside workers, and terminating a worker mid-hash never
// crashes the process (the argon2 package aborts the process in that case).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { Worker } = require('node:worker_threads');

test('terminating workers mid-hash leaves the process alive and hashing', async () => {
  const fixture = path.join(__dirname, '..', '..', 'fixtures', 'argon2-terminate.js');
  const { code, signal, stdout, stderr } = await new Promise((resolve) => {
    execFile(process.execPath, [fixture], { timeout: 60000 }, (err, stdout, stderr) => {
      resolve({ code: err ? err.code : 0, signal: err ? err.signal : null, stdout, stderr });
    });
  });
  assert.equal(signal, null, stderr);
  assert.equal(code, 0, stderr);
  const result = JSON.parse(stdout.trim());
  assert.equal(result.terminated, 12);
  assert.equal(result.ok, true);
  assert.equal(result.again, true);
});

test('hashes from several workers at once verify on the main thread', async () => {
  const argon2 = require('../../../lib/argon2/index.js');
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const argon2 = require(${JSON.stringify(path.join(__dirname, '..', '..', '..', 'lib', 'argon2', 'index.js'))});
    Promise.all([0, 1, 2].map((i) => argon2.hash(workerData + i, { memoryCost: 256, timeCost: 2, parallelism: 2 })))
      .then((digests) => parentPort.postMessage(digests));
  `;
  const results = await Promise.all(
    ['a', 'b', 'c'].map(
      (name) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(source, { eval: true, workerData: name });
          worker.once('message', (digests) => {
            resolve({ name, digests });
            worker.terminate();
          });
          worker.once('error', reject);
        }),
    ),
  );
  for (const { name, digests } of results) {
    for (let i = 0; i < 3; i++) assert.equal(await argon2.verify(digests[i], name + i), true);
  }
});
