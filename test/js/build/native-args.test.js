'use strict';
// The bindings' argument readers (src/addon/args.h): a wrong type is a TypeError, a value out of
// range a RangeError, and the message names the argument and what it received. No call with bad
// arguments aborts the process.
const test = require('node:test');
const assert = require('node:assert/strict');
const native = require('../../../lib/native');

const hashOptions = () => ({
  password: Buffer.from('password'),
  salt: Buffer.alloc(16, 1),
  secret: Buffer.alloc(0),
  associatedData: Buffer.alloc(0),
  hashLength: 32,
  memoryCost: 64,
  timeCost: 1,
  parallelism: 1,
  type: 2,
  version: 0x13,
});

test('argon2Hash takes one options object and names a bad field', { timeout: 60_000 }, async () => {
  const tag = await native.argon2Hash(hashOptions());
  assert.equal(tag.length, 32);
  assert.throws(() => native.argon2Hash(), {
    name: 'TypeError',
    message: 'the argon2 options must be an object (received undefined)',
  });
  assert.throws(() => native.argon2Hash({ ...hashOptions(), timeCost: -1 }), {
    name: 'RangeError',
    message: 'options.timeCost must be an integer from 0 to 4294967295 (received type number (-1))',
  });
  assert.throws(() => native.argon2Hash({ ...hashOptions(), memoryCost: '64' }), {
    name: 'TypeError',
    message: /^options\.memoryCost must be an integer from 0 to 4294967295 \(received type string/,
  });
  const { hashLength, ...withoutLength } = hashOptions();
  assert.equal(hashLength, 32);
  assert.throws(() => native.argon2Hash(withoutLength), {
    name: 'TypeError',
    message: 'options.hashLength must be an integer (received undefined)',
  });
  // the argon2 package's message for a salt that is not a Buffer
  assert.throws(() => native.argon2Hash({ ...hashOptions(), salt: 'salt' }), { message: 'Invalid argument' });
});

test('FileCache options, paths and ids are checked', () => {
  assert.throws(() => new native.FileCache({ maxBytes: 'big' }), {
    name: 'TypeError',
    message: /^options\.maxBytes must be a number \(received type string/,
  });
  assert.throws(() => new native.FileCache({ maxBytes: -1 }), { name: 'RangeError', message: /options\.maxBytes/ });
  assert.throws(() => new native.FileCache({ watch: 1 }), {
    name: 'TypeError',
    message: /options\.watch must be a boolean/,
  });
  const cache = new native.FileCache({ maxBytes: Infinity, watch: false });
  try {
    assert.throws(() => cache.lookup(42), { name: 'TypeError', message: /path must be a string \(received type number \(42\)\)/ });
    assert.throws(() => cache.touch(-1), { name: 'RangeError', message: /^id must be .*\(received type number \(-1\)\)/ });
    assert.throws(() => cache.touch('1'), { name: 'TypeError', message: /^id must be .*\(received type string/ });
    assert.throws(() => cache.load('/x'), { name: 'TypeError', message: /callback must be a function/ });
    assert.equal(typeof cache.touch(1), 'number');
  } finally {
    cache.close();
  }
});

test('the entity tag hot paths check their numbers and flags', () => {
  assert.throws(() => native.latin1Utf8Crc('a', -1), { name: 'RangeError', message: /^crc must be .*\(received type number \(-1\)\)/ });
  assert.throws(() => native.latin1Utf8Crc('a', 'x'), { name: 'TypeError', message: /^crc must be/ });
  assert.throws(() => native.latin1Utf8Tag('a', 'yes'), { name: 'TypeError', message: /^weak must be a boolean/ });
  assert.throws(() => native.latin1Utf8Tag('a', true, 0, 1.5), { name: 'RangeError', message: /^bytesBefore must be/ });
  assert.throws(() => native.entityTag('a', true, 99), { name: 'RangeError', message: /^encoding must be/ });
  assert.throws(() => native.crc32(Buffer.alloc(1), 2 ** 32), { name: 'RangeError', message: /^value must be/ });
  assert.equal(native.entityTag('a', undefined), native.entityTag('a', true));
});

test('readers of their own kind word their errors the same way', () => {
  assert.throws(() => native.scanMediaType('text/html', new Uint8Array(8)), {
    name: 'TypeError',
    message: 'out must be a Uint32Array of at least 3 elements (received an instance of Uint8Array)',
  });
  assert.throws(() => native.scanMediaType(42, new Uint32Array(8)), {
    name: 'TypeError',
    message: 'header must be a string (received type number (42))',
  });
  assert.throws(() => native.entityTag(), {
    name: 'TypeError',
    message: 'body must be a string, Buffer, TypedArray or DataView (received undefined)',
  });
  assert.throws(() => native.crc32(null), {
    name: 'TypeError',
    message: 'data must be a string, Buffer, TypedArray or DataView (received null)',
  });
});

test('the critical CSS bindings read their arguments through args.h', () => {
  assert.throws(() => native.criticalCssCompileAsync('a{}', () => {}), {
    name: 'TypeError',
    message: 'css must be a Buffer, TypedArray or DataView (received type string ("a{}"))',
  });
  assert.throws(() => native.criticalCssCompileAsync(Buffer.from('a{}')), {
    name: 'TypeError',
    message: 'callback must be a function (received undefined)',
  });
  assert.throws(() => native.criticalCssCompile(42), {
    name: 'TypeError',
    message: 'css must be a string, Buffer, TypedArray or DataView (received type number (42))',
  });
  assert.throws(() => native.criticalCssInline('<p></p>', 5), {
    name: 'TypeError',
    message: 'plans must be an array or a function (received type number (5))',
  });
  assert.throws(() => native.criticalCssInline('<p></p>', [], -1), {
    name: 'RangeError',
    message: /^flags must be .*\(received type number \(-1\)\)$/,
  });
  // flags absent: the defaults (noscript fallback, inline fonts)
  assert.equal(typeof native.criticalCssInline('<p></p>', []), typeof native.criticalCssInline('<p></p>', [], 6));
});

test('the zstd dictionary bindings read their arguments through args.h', () => {
  const callback = () => assert.fail('no work is queued for bad arguments');
  assert.throws(() => native.zstdTrainDictionary('x', 1024, callback), {
    name: 'TypeError',
    message: 'samples must be an array of Buffers, TypedArrays or DataViews (received type string ("x"))',
  });
  assert.throws(() => native.zstdTrainDictionary([Buffer.alloc(1), 3], 1024, callback), {
    name: 'TypeError',
    message: 'samples[1] must be a Buffer, TypedArray or DataView (received type number (3))',
  });
  assert.throws(() => native.zstdTrainDictionary([], '1024', callback), {
    name: 'TypeError',
    message: /^capacity must be a number .*\(received type string/,
  });
  for (const capacity of [255, 8 * 1024 * 1024 + 1, NaN]) {
    assert.throws(() => native.zstdTrainDictionary([], capacity, callback), {
      name: 'RangeError',
      message: /^capacity must be a number from 256 to 8388608 \(received type number/,
    });
  }
  assert.throws(() => native.zstdTrainDictionary([], 1024), { name: 'TypeError', message: /callback must be a function/ });
  assert.throws(() => native.zstdChooseDictionary([], 1024, 20, null, 0.9, callback), {
    name: 'RangeError',
    message: 'level must be an integer from 1 to 19 (received type number (20))',
  });
  assert.throws(() => native.zstdChooseDictionary([], 1024, 3, 'x', 0.9, callback), {
    name: 'TypeError',
    message: /^current must be .*\(received type string/,
  });
  assert.throws(() => native.zstdChooseDictionary([], 1024, 3, null, '0.9', callback), {
    name: 'TypeError',
    message: /^improvement must be a number/,
  });
  assert.throws(() => native.zstdChooseDictionary([], 1024, 3, undefined, 0.9), {
    name: 'TypeError',
    message: /callback must be a function/,
  });
  assert.throws(() => native.zstdDictionaryEncoder(Buffer.alloc(0), 3), {
    name: 'RangeError',
    message: /^dictionary must be a Buffer, TypedArray or DataView of 1 to 8388608 bytes/,
  });
  assert.throws(() => native.zstdDictionaryEncoder(Buffer.alloc(16), '3'), {
    name: 'TypeError',
    message: /^level must be an integer from 1 to 19 \(received type string/,
  });
  assert.throws(() => native.zstdDictionaryEncoderAsync(Buffer.alloc(16), 0, callback), {
    name: 'RangeError',
    message: /^level must be .*\(received type number \(0\)\)$/,
  });
  const hash = Buffer.alloc(32);
  assert.throws(() => native.dczEncode({}, hash, Buffer.alloc(1)), {
    name: 'TypeError',
    message: 'encoder must be a zstd dictionary encoder (received an instance of Object)',
  });
  assert.throws(() => native.dczEncodeAsync(undefined, hash, Buffer.alloc(1), callback), {
    name: 'TypeError',
    message: /^encoder must be .*\(received undefined\)$/,
  });
  assert.throws(() => native.dczDecode(Buffer.alloc(1), Buffer.alloc(31), Buffer.alloc(1), 10), {
    name: 'RangeError',
    message: /^hash must be a Buffer, TypedArray or DataView of 32 bytes/,
  });
  assert.throws(() => native.dczDecode(Buffer.alloc(1), 'hash', Buffer.alloc(1), 10), {
    name: 'TypeError',
    message: /^hash must be .*\(received type string/,
  });
  assert.throws(() => native.dczDecode(Buffer.alloc(1), hash, 'body', 10), { name: 'TypeError', message: /^input must be /, code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => native.dczDecode(Buffer.alloc(1), hash, Buffer.alloc(1), 2 ** 30 + 1), {
    name: 'RangeError',
    message: /^maxOutput must be a number from 0 to 1073741824 \(received type number/,
  });
  assert.throws(() => native.dczDecode(Buffer.alloc(1), hash, Buffer.alloc(1), '1'), {
    name: 'TypeError',
    message: /^maxOutput must be a number/,
  });
  // the accepted values are unchanged: a DataView body, a fractional capacity or maxOutput
  assert.throws(() => native.dczDecode(Buffer.alloc(1), hash, new DataView(new ArrayBuffer(4)), 0.5), /^Error: dcz:/);
});

test("the addon's errors carry Node's codes, and its own a code of ssr-native's", () => {
  assert.throws(() => native.crc32(null), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => native.crc32(Buffer.alloc(1), 2 ** 32), { name: 'RangeError', code: 'ERR_OUT_OF_RANGE' });
  assert.throws(() => native.latin1Utf8Crc('a', -1), { name: 'RangeError', code: 'ERR_OUT_OF_RANGE' });
  assert.throws(() => native.scanMediaType(42, new Uint32Array(8)), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => native.scanMediaType('text/html', new Map()), {
    message: /\(received an instance of Map\)$/,
  });
  assert.throws(() => native.scanMediaType('x'.repeat(40), 1), {
    message: 'out must be a Uint32Array of at least 3 elements (received type number (1))',
  });
  assert.throws(() => native.crc32('x'.repeat(40), 'y'.repeat(40)), {
    message: /\(received type string \("y{25}\.\.\."\)\)$/,
  });
  const cache = new native.FileCache({ maxBytes: 1024, watch: false });
  cache.close();
  assert.throws(() => cache.lookup('/x'), { code: 'ERR_SSR_NATIVE_CLOSED', message: 'FileCache is closed' });
});
