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
