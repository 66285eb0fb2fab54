'use strict';
// The addon is context-aware: it loads in worker threads, in several at once, and a worker can
// be terminated in the middle of native work without harming the process.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Worker } = require('node:worker_threads');
const zlib = require('node:zlib');
const { etag } = require('../../..');

const ROOT = require.resolve('../../..');

function runWorker(source, workerData) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
  });
}

test('loads and computes the same tags in several workers at once', async () => {
  const source = `
    const { parentPort, workerData } = require('worker_threads');
    const { etag, crc32 } = require(workerData.root);
    const out = [];
    for (let i = 0; i < 200; i++) {
      const buf = Buffer.alloc(1000 + i * 37, i & 0xff);
      out.push([etag(buf), crc32(buf)]);
    }
    parentPort.postMessage(out);
  `;
  const results = await Promise.all(Array.from({ length: 4 }, () => runWorker(source, { root: ROOT })));
  for (const out of results) {
    out.forEach(([tag, crc], i) => {
      const buf = Buffer.alloc(1000 + i * 37, i & 0xff);
      assert.equal(tag, etag(buf));
      assert.equal(crc, zlib.crc32(buf));
    });
  }
});

test('terminating workers in the middle of native work leaves the process healthy', async () => {
  const source = `
    const { parentPort, workerData } = require('worker_threads');
    const { etag } = require(workerData.root);
    const big = Buffer.alloc(8 * 1024 * 1024, 7);
    parentPort.postMessage('started');
    for (;;) etag(big);
  `;
  for (let round = 0; round < 5; round++) {
    const workers = Array.from({ length: 3 }, () => new Worker(source, { eval: true, workerData: { root: ROOT } }));
    await Promise.all(workers.map((w) => new Promise((resolve) => w.once('message', resolve))));
    const codes = await Promise.all(workers.map((w) => w.terminate()));
    assert.deepEqual(codes, [1, 1, 1]);
  }
  // The main thread's copy still works after all that.
  assert.equal(etag('123456789'), 'W/"9-cbf43926"');
});
