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
    message: 'Expected an object for the argon2 options but received undefined',
  });
  assert.throws(() => native.argon2Hash({ ...hashOptions(), timeCost: -1 }), {
    name: 'RangeError',
    message: 'Expected an integer from 0 to 4294967295 for options.timeCost but received number -1',
  });
  assert.throws(() => native.argon2Hash({ ...hashOptions(), memoryCost: '64' }), {
    name: 'TypeError',
    message: /^Expected an integer from 0 to 4294967295 for options\.memoryCost but received string/,
  });
  const { hashLength, ...withoutLength } = hashOptions();
  assert.equal(hashLength, 32);
  assert.throws(() => native.argon2Hash(withoutLength), {
    name: 'TypeError',
    message: 'Expected an integer for options.hashLength but received undefined',
  });
  // the argon2 package's message for a salt that is not a Buffer
  assert.throws(() => native.argon2Hash({ ...hashOptions(), salt: 'salt' }), { message: 'Invalid argument' });
});

test('FileCache options, paths and ids are checked', () => {
  assert.throws(() => new native.FileCache({ maxBytes: 'big' }), {
    name: 'TypeError',
    message: /^Expected a number for options\.maxBytes but received string/,
  });
  assert.throws(() => new native.FileCache({ maxBytes: -1 }), { name: 'RangeError', message: /options\.maxBytes/ });
  assert.throws(() => new native.FileCache({ watch: 1 }), {
    name: 'TypeError',
    message: /a boolean for options\.watch/,
  });
  const cache = new native.FileCache({ maxBytes: Infinity, watch: false });
  try {
    assert.throws(() => cache.lookup(42), { name: 'TypeError', message: /a string for path but received number 42/ });
    assert.throws(() => cache.touch(-1), { name: 'RangeError', message: /for id but received number -1/ });
    assert.throws(() => cache.touch('1'), { name: 'TypeError', message: /for id but received string/ });
    assert.throws(() => cache.load('/x'), { name: 'TypeError', message: /a function for callback/ });
    assert.equal(typeof cache.touch(1), 'number');
  } finally {
    cache.close();
  }
});

test('the entity tag hot paths check their numbers and flags', () => {
  assert.throws(() => native.latin1Utf8Crc('a', -1), { name: 'RangeError', message: /for crc but received number -1/ });
  assert.throws(() => native.latin1Utf8Crc('a', 'x'), { name: 'TypeError', message: /for crc/ });
  assert.throws(() => native.latin1Utf8Tag('a', 'yes'), { name: 'TypeError', message: /a boolean for weak/ });
  assert.throws(() => native.latin1Utf8Tag('a', true, 0, 1.5), { name: 'RangeError', message: /for bytesBefore/ });
  assert.throws(() => native.entityTag('a', true, 99), { name: 'RangeError', message: /for encoding/ });
  assert.throws(() => native.crc32(Buffer.alloc(1), 2 ** 32), { name: 'RangeError', message: /for value/ });
  assert.equal(native.entityTag('a', undefined), native.entityTag('a', true));
});

test('readers of their own kind word their errors the same way', () => {
  assert.throws(() => native.scanMediaType('text/html', new Uint8Array(8)), {
    name: 'TypeError',
    message: 'Expected a Uint32Array of at least 3 elements for out but received an object',
  });
  assert.throws(() => native.scanMediaType(42, new Uint32Array(8)), {
    name: 'TypeError',
    message: 'Expected a string for header but received number 42',
  });
  assert.throws(() => native.entityTag(), {
    name: 'TypeError',
    message: 'Expected a string, Buffer, TypedArray or DataView for body but received undefined',
  });
  assert.throws(() => native.crc32(null), {
    name: 'TypeError',
    message: 'Expected a string, Buffer, TypedArray or DataView for data but received null',
  });
});

test('the critical CSS bindings read their arguments through args.h', () => {
  assert.throws(() => native.criticalCssCompileAsync('a{}', () => {}), {
    name: 'TypeError',
    message: 'Expected a Buffer, TypedArray or DataView for css but received string of length 3',
  });
  assert.throws(() => native.criticalCssCompileAsync(Buffer.from('a{}')), {
    name: 'TypeError',
    message: 'Expected a function for callback but received undefined',
  });
  assert.throws(() => native.criticalCssCompile(42), {
    name: 'TypeError',
    message: 'Expected a string, Buffer, TypedArray or DataView for css but received number 42',
  });
  assert.throws(() => native.criticalCssInline('<p></p>', 5), {
    name: 'TypeError',
    message: 'Expected an array or a function for plans but received number 5',
  });
  assert.throws(() => native.criticalCssInline('<p></p>', [], -1), {
    name: 'RangeError',
    message: /for flags but received number -1$/,
  });
  // flags absent: the defaults (noscript fallback, inline fonts)
  assert.equal(typeof native.criticalCssInline('<p></p>', []), typeof native.criticalCssInline('<p></p>', [], 6));
});

test('the zstd dictionary bindings read their arguments through args.h', () => {
  const callback = () => assert.fail('no work is queued for bad arguments');
  assert.throws(() => native.zstdTrainDictionary('x', 1024, callback), {
    name: 'TypeError',
    message: 'Expected an array of Buffers, TypedArrays or DataViews for samples but received string of length 1',
  });
  assert.throws(() => native.zstdTrainDictionary([Buffer.alloc(1), 3], 1024, callback), {
    name: 'TypeError',
    message: 'Expected a Buffer, TypedArray or DataView for samples[1] but received number 3',
  });
  assert.throws(() => native.zstdTrainDictionary([], '1024', callback), {
    name: 'TypeError',
    message: /^Expected a number for capacity but received string/,
  });
  for (const capacity of [255, 8 * 1024 * 1024 + 1, NaN]) {
    assert.throws(() => native.zstdTrainDictionary([], capacity, callback), {
      name: 'RangeError',
      message: /^Expected a number from 256 to 8388608 for capacity but received number/,
    });
  }
  assert.throws(() => native.zstdTrainDictionary([], 1024), { name: 'TypeError', message: /a function for callback/ });
  assert.throws(() => native.zstdChooseDictionary([], 1024, 20, null, 0.9, callback), {
    name: 'RangeError',
    message: 'Expected an integer from 1 to 19 for level but received number 20',
  });
  assert.throws(() => native.zstdChooseDictionary([], 1024, 3, 'x', 0.9, callback), {
    name: 'TypeError',
    message: /for current but received string/,
  });
  assert.throws(() => native.zstdChooseDictionary([], 1024, 3, null, '0.9', callback), {
    name: 'TypeError',
    message: /^Expected a number for improvement/,
  });
  assert.throws(() => native.zstdChooseDictionary([], 1024, 3, undefined, 0.9), {
    name: 'TypeError',
    message: /a function for callback/,
  });
  assert.throws(() => native.zstdDictionaryEncoder(Buffer.alloc(0), 3), {
    name: 'RangeError',
    message: /^Expected a Buffer, TypedArray or DataView of 1 to 8388608 bytes for dictionary/,
  });
  assert.throws(() => native.zstdDictionaryEncoder(Buffer.alloc(16), '3'), {
    name: 'TypeError',
    message: /^Expected an integer from 1 to 19 for level but received string/,
  });
  assert.throws(() => native.zstdDictionaryEncoderAsync(Buffer.alloc(16), 0, callback), {
    name: 'RangeError',
    message: /for level but received number 0$/,
  });
  const hash = Buffer.alloc(32);
  assert.throws(() => native.dczEncode({}, hash, Buffer.alloc(1)), {
    name: 'TypeError',
    message: 'Expected a zstd dictionary encoder for encoder but received an object',
  });
  assert.throws(() => native.dczEncodeAsync(undefined, hash, Buffer.alloc(1), callback), {
    name: 'TypeError',
    message: /for encoder but received undefined$/,
  });
  assert.throws(() => native.dczDecode(Buffer.alloc(1), Buffer.alloc(31), Buffer.alloc(1), 10), {
    name: 'RangeError',
    message: /^Expected a Buffer, TypedArray or DataView of 32 bytes for hash/,
  });
  assert.throws(() => native.dczDecode(Buffer.alloc(1), 'hash', Buffer.alloc(1), 10), {
    name: 'TypeError',
    message: /for hash but received string/,
  });
  assert.throws(() => native.dczDecode(Buffer.alloc(1), hash, 'body', 10), { name: 'TypeError', message: /for input/ });
  assert.throws(() => native.dczDecode(Buffer.alloc(1), hash, Buffer.alloc(1), 2 ** 30 + 1), {
    name: 'RangeError',
    message: /^Expected a number from 0 to 1073741824 for maxOutput but received number/,
  });
  assert.throws(() => native.dczDecode(Buffer.alloc(1), hash, Buffer.alloc(1), '1'), {
    name: 'TypeError',
    message: /^Expected a number for maxOutput/,
  });
  // the accepted values are unchanged: a DataView body, a fractional capacity or maxOutput
  assert.throws(() => native.dczDecode(Buffer.alloc(1), hash, new DataView(new ArrayBuffer(4)), 0.5), /^Error: dcz:/);
});
