'use strict';
// Hashing runs on ssr-native's own pool, so libuv's pool (fs, dns, zlib, crypto.pbkdf2 ...)
// stays free: file reads complete while the hashing pool is saturated. (With the argon2
// package the same reads queue behind the hashes on libuv's four threads.)
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs/promises');
const zlib = require('node:zlib');
const { promisify } = require('node:util');
const argon2 = require('../../lib/argon2.js');

test('fs and zlib work keeps flowing while the hashing pool is saturated', async () => {
  argon2.configure({ maxConcurrency: 64, maxQueue: 64 });
  let hashesDone = 0;
  const hashes = [];
  for (let i = 0; i < 8; i++) {
    hashes.push(
      argon2.hash(`pw${i}`, { memoryCost: 65536, timeCost: 3, parallelism: 1 }).then(() => hashesDone++),
    );
  }
  // More libuv work items than libuv has threads, one after another.
  let reads = 0;
  for (let i = 0; i < 40; i++) {
    await fs.readFile(__filename);
    await promisify(zlib.gzip)(Buffer.alloc(1024, i));
    reads++;
  }
  const stillHashing = 8 - hashesDone;
  await Promise.all(hashes);
  assert.equal(reads, 40);
  // Progress, not timing: the reads finished while hashes were still queued or running.
  assert.ok(stillHashing > 0, `all 8 hashes finished before 40 reads did`);
});
