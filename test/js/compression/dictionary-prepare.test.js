'use strict';
// A dictionary is prepared (zstd's tables for it, its SHA-256) off the event loop when it is
// large: DczDictionary.prepare hashes it with WebCrypto and prepares it with the addon's
// zstdDictionaryEncoderAsync, both on libuv's pool (seen here through async_hooks: the pool's
// requests are what these resources are), and gives the same dictionary the constructor makes.
// The asset dictionaries of the static adapters go through it: a large hashed file is a
// dictionary once its hash and tables are ready, and requests until then get the usual answer.
// A small dictionary is made at once (its callback still on a later tick). A worker terminated
// while a preparation runs takes nothing down.
const test = require('node:test');
const assert = require('node:assert/strict');
const asyncHooks = require('node:async_hooks');
const crypto = require('node:crypto');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const dcz = require('../../../lib/compression/dcz');
const { AssetDictionaries } = require('../../../lib/compression/asset-dictionaries');
const { acceptsDcz } = require('../../../lib/compression/dictionary-transport');
const native = require('../../../lib/native');

const { DczDictionary, PREPARE_ON_THREAD_LIMIT, decodeDcz } = dcz;
const skip = dcz.available ? false : `libzstd is not available: ${dcz.unavailableReason}`;
const ACCEPT = 'gzip, deflate, br, zstd, dcb, dcz';
// Bun's async_hooks report no resources: there the rest of each test still runs
const seesResources = !process.versions.bun;

// Text of `bytes` bytes from a seeded generator: words over a small vocabulary, so a later
// version of it compresses well against it.
function seededText(seed, bytes) {
  const words = ['const', 'return', 'function', 'export', 'import', 'module', 'render', 'value', '{', '}', ';'];
  let state = seed >>> 0;
  const parts = [];
  let length = 0;
  while (length < bytes) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const word = `${words[state % words.length]}${state % 7 === 0 ? `_${state % 997}` : ''} `;
    parts.push(word);
    length += word.length;
  }
  return Buffer.from(parts.join('').slice(0, bytes));
}

// The async resource types created while `fn` runs and until its promise settles.
async function resourceTypes(fn) {
  const types = new Set();
  const hook = asyncHooks.createHook({ init: (id, type) => types.add(type) }).enable();
  try {
    const value = await fn();
    return { types, value };
  } finally {
    hook.disable();
  }
}

const prepare = (bytes, options) =>
  new Promise((resolve, reject) => {
    let sameTick = true;
    DczDictionary.prepare(bytes, options, (err, dictionary) => {
      if (sameTick) reject(new Error('prepare called back on its own tick'));
      else if (err) reject(err);
      else resolve(dictionary);
    });
    sameTick = false;
  });

test('a large dictionary is hashed and prepared on the pool, the same as the constructor makes', { skip }, async () => {
  const bytes = seededText(1, 2 * 1024 * 1024);
  assert.ok(bytes.length > PREPARE_ON_THREAD_LIMIT);
  const { types, value: prepared } = await resourceTypes(() => prepare(bytes, { level: 3, method: 'asset' }));
  if (seesResources) assert.ok(types.has('ssr-native:zstd-dictionary-prepare'), `resources: ${[...types]}`);
  if (seesResources) assert.ok(types.has('HASHREQUEST'), `resources: ${[...types]}`);
  const direct = new DczDictionary(bytes, { level: 3, method: 'asset' });
  assert.deepEqual(prepared.hash, crypto.createHash('sha256').update(bytes).digest());
  assert.equal(prepared.availableDictionary, direct.availableDictionary);
  assert.equal(prepared.id, direct.id);
  assert.equal(prepared.method, 'asset');
  assert.equal(prepared.encoder.id, direct.encoder.id);
  const next = Buffer.concat([bytes.subarray(0, 300000), Buffer.from('a change'), bytes.subarray(300000, 600000)]);
  const encoded = prepared.encoder.compressNow(next);
  assert.deepEqual(encoded, direct.encoder.compressNow(next));
  assert.deepEqual(decodeDcz(direct, encoded), next);
  assert.ok(encoded.length < next.length / 20, `${encoded.length} bytes for ${next.length}`);
});

test('a small dictionary is made at once, its callback on a later tick', { skip }, async () => {
  const bytes = seededText(2, 4096);
  const { types, value: prepared } = await resourceTypes(() => prepare(bytes, { level: 5 }));
  assert.ok(!types.has('ssr-native:zstd-dictionary-prepare'), `resources: ${[...types]}`);
  assert.equal(prepared.id, new DczDictionary(bytes, { level: 5 }).id);
  assert.equal(prepared.method, 'supplied');
});

test('bad arguments reach the callback, never a throw', { skip }, async () => {
  const large = seededText(3, PREPARE_ON_THREAD_LIMIT + 1);
  await assert.rejects(prepare(large, { level: 0 }), RangeError);
  await assert.rejects(prepare(seededText(3, 100), { level: 20 }), RangeError);
  await assert.rejects(prepare(Buffer.alloc(9 * 1024 * 1024, 97), {}), RangeError);
  assert.throws(() => native.zstdDictionaryEncoderAsync(large, 3), {
    name: 'TypeError',
    message: /^callback must be a function/,
  });
  assert.throws(() => native.zstdDictionaryEncoderAsync('text', 3, () => {}), {
    name: 'TypeError',
    message: /^dictionary must be .*\(received type string/,
  });
  assert.throws(() => native.zstdDictionaryEncoderAsync(Buffer.alloc(0), 3, () => {}), {
    name: 'RangeError',
    message: /^dictionary must be a Buffer, TypedArray or DataView of 1 to 8388608 bytes/,
  });
});

// Turns of the event loop until `check` holds (the pool's work done), at most `limit`.
async function eventually(check, limit = 5000) {
  for (let i = 0; i < limit; i++) {
    const value = check();
    if (value) return value;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('not ready after the pool had time');
}

test('a large hashed asset becomes a dictionary once ready; until then the usual answer', { skip }, async () => {
  const assets = new AssetDictionaries({}, 'prepare-test');
  const v1 = seededText(4, 600 * 1024);
  const small = seededText(5, 2048);
  const name = (v) => `:${crypto.createHash('sha256').update(v).digest('base64')}:`;
  const { types } = await resourceTypes(async () => {
    assert.equal(assets.offer('/assets/main-81bd0e12.js', v1), 'match="/assets/main-*.js", match-dest=("script")');
    // its hash is being computed on the pool: not a dictionary yet, no request can name it
    assert.equal(assets.stats().entries, 0);
    assert.equal(assets.choose(ACCEPT, name(v1), acceptsDcz), null);
    await eventually(() => assets.stats().entries === 1);
  });
  if (seesResources) assert.ok(types.has('HASHREQUEST'), `resources: ${[...types]}`);
  // known now; its tables are prepared on the first request that names it
  assert.equal(assets.choose(ACCEPT, name(v1), acceptsDcz), null);
  const dictionary = await eventually(() => assets.choose(ACCEPT, name(v1), acceptsDcz));
  assert.equal(dictionary.availableDictionary, name(v1));
  assert.equal(dictionary.method, 'asset');
  // not without dcz, nor for a hash of a file never offered
  assert.equal(assets.choose('gzip, br', name(v1), acceptsDcz), null);
  assert.equal(assets.choose(ACCEPT, name(small), acceptsDcz), null);
  // a small file: hashed and prepared where it is asked for
  assets.offer('/assets/chunk-3f2a9c1d.js', small);
  assert.equal(assets.choose(ACCEPT, name(small), acceptsDcz).availableDictionary, name(small));
  // offering the large file again computes nothing more
  const again = await resourceTypes(async () => assets.offer('/assets/main-81bd0e12.js', v1));
  assert.ok(!again.types.has('HASHREQUEST'), `resources: ${[...again.types]}`);
  assert.equal(assets.stats().entries, 2);
});

test('a worker terminated while a large dictionary is prepared takes nothing down', { skip }, async () => {
  const dczPath = path.join(__dirname, '..', '..', '..', 'lib', 'compression', 'dcz.js');
  for (let round = 0; round < 4; round++) {
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       const { DczDictionary } = require(${JSON.stringify(dczPath)});
       const bytes = Buffer.alloc(4 * 1024 * 1024);
       for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
       for (let k = 0; k < 4; k++) DczDictionary.prepare(bytes, { level: 3 + k }, () => {});
       parentPort.postMessage('started');`,
      { eval: true },
    );
    await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
  }
  // and this thread still prepares one
  const prepared = await prepare(seededText(6, 300 * 1024), { level: 3 });
  assert.equal(prepared.hash.length, 32);
});
