'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const zlib = require('node:zlib');
const referenceEtag = require('etag');
const { etag, crc32 } = require('../../..');
const native = require('../../../lib/native');

const hex8 = (n) => n.toString(16).padStart(8, '0');

// Seeded, so a failure can be replayed (test/js/helpers/seeded-random.js).
const { mulberry32: random } = require('../helpers/seeded-random');

function randomBytes(rand, length) {
  const buf = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) buf[i] = Math.floor(rand() * 256);
  return buf;
}

// Enough of an input to reproduce a failure: its length and its bytes (short) or a prefix.
function describeBytes(buf) {
  const hex = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString('hex');
  return `length ${buf.byteLength} hex ${hex.length > 512 ? `${hex.slice(0, 512)}...` : hex}`;
}
const expected = (buf, weak = true) => `${weak ? 'W/' : ''}"${buf.length.toString(16)}-${hex8(zlib.crc32(buf))}"`;

test('known vectors', () => {
  assert.equal(etag('123456789'), 'W/"9-cbf43926"');
  assert.equal(etag(Buffer.from('123456789')), 'W/"9-cbf43926"');
  assert.equal(etag(''), 'W/"0-00000000"');
  assert.equal(etag(Buffer.alloc(0)), 'W/"0-00000000"');
  assert.equal(etag('123456789', { weak: false }), '"9-cbf43926"');
  assert.equal(etag('123456789', { weak: true }), 'W/"9-cbf43926"');
});

test('random Buffers match zlib.crc32 with lowercase hex length', () => {
  const rand = random(0x5eed0002);
  for (let i = 0; i < 300; i++) {
    const buf = randomBytes(rand, Math.floor(rand() * 20000));
    assert.equal(etag(buf), expected(buf), describeBytes(buf));
  }
  const big = crypto.randomBytes(5 * 1024 * 1024 + 3);
  assert.equal(etag(big, { weak: false }), expected(big, false));
});

test('TypedArrays and DataViews are hashed over their own bytes only', () => {
  const backing = crypto.randomBytes(4096);
  for (const [offset, length] of [
    [0, 0],
    [1, 7],
    [3, 100],
    [17, 2048],
    [64, 4000],
  ]) {
    const bytes = backing.subarray(offset, offset + length);
    const want = expected(bytes);
    assert.equal(etag(bytes), want, 'Buffer.subarray');
    assert.equal(etag(new Uint8Array(backing.buffer, backing.byteOffset + offset, length)), want, 'Uint8Array');
    assert.equal(etag(new DataView(backing.buffer, backing.byteOffset + offset, length)), want, 'DataView');
    assert.equal(etag(new Uint8ClampedArray(backing.buffer, backing.byteOffset + offset, length)), want);
    assert.equal(etag(new Int8Array(backing.buffer, backing.byteOffset + offset, length)), want);
  }
  // Wider element types: the tag covers byteLength, not element count.
  const words = new Uint32Array([1, 2, 3, 0xffffffff]);
  assert.equal(etag(words), expected(Buffer.from(words.buffer)));
  const floats = new Float64Array([Math.PI, -0, Infinity]);
  assert.equal(etag(floats), expected(Buffer.from(floats.buffer)));
  const aligned = new ArrayBuffer(64);
  new Uint8Array(aligned).set(crypto.randomBytes(64));
  const view = new Uint16Array(aligned, 8, 12);
  assert.equal(etag(view), expected(Buffer.from(aligned, 8, 24)));
  assert.equal(etag(new BigUint64Array(aligned, 16, 3)), expected(Buffer.from(aligned, 16, 24)));
});

// Node 24.22's headers add napi_float16_array; an addon built against older headers meets it at
// run time all the same. A typed-array kind the addon does not name takes its size from byteLength.
test(
  'a Float16Array (a kind newer than the addon headers) is hashed over every byte',
  { skip: typeof Float16Array === 'undefined' && `no Float16Array in Node ${process.version} (Node 24+ has one)` },
  () => {
    const { Float16Array } = globalThis;
    const aligned = new ArrayBuffer(4096);
    new Uint8Array(aligned).set(crypto.randomBytes(4096));
    for (const [offset, length] of [
      [0, 0],
      [2, 1],
      [6, 51],
      [64, 2000],
    ]) {
      const halves = new Float16Array(aligned, offset, length);
      const bytes = Buffer.from(aligned, offset, length * 2);
      assert.equal(etag(halves), expected(bytes), `offset ${offset}, ${length} elements`);
      assert.equal(crc32(halves), zlib.crc32(bytes), `offset ${offset}, ${length} elements`);
    }
    // A byteLength redefined to lie (past the buffer, not whole elements, a throwing getter)
    // never moves the read outside the view's buffer: a TypeError instead.
    for (const property of [
      { value: 1 << 20 },
      { value: 3 },
      {
        get: () => {
          throw new Error('getter');
        },
      },
    ]) {
      const liar = new Float16Array(aligned, 0, 4);
      Object.defineProperty(liar, 'byteLength', property);
      assert.throws(() => etag(liar), TypeError);
      assert.throws(() => crc32(liar), TypeError);
    }
  },
);

test('strings give the tag of Buffer.from(string, encoding)', () => {
  const samples = [
    '',
    'plain ascii',
    'héllo wörld',
    '日本語テキスト',
    '😀 emoji',
    '\u0000\u00ff',
    'a'.repeat(70000),
    '\ud800 lone',
    'x\udc00',
  ];
  for (const s of samples) {
    assert.equal(etag(s), expected(Buffer.from(s)), `utf8 ${JSON.stringify(s.slice(0, 20))}`);
    for (const encoding of [
      'utf8',
      'utf-8',
      'UTF8',
      'utf16le',
      'ucs2',
      'latin1',
      'binary',
      'ascii',
      'base64',
      'base64url',
      'hex',
    ]) {
      assert.equal(
        etag(s, encoding),
        expected(Buffer.from(s, encoding)),
        `${encoding} ${JSON.stringify(s.slice(0, 20))}`,
      );
      assert.equal(etag(s, { encoding, weak: false }), expected(Buffer.from(s, encoding), false));
    }
  }
});

test('pages beyond Latin-1 (mostly ASCII, mostly CJK, emoji) give the tag of their UTF-8 bytes', () => {
  // Long enough for the addon's own UTF-16 transcoder: mostly ASCII (it transcodes: SIMD steps),
  // mostly CJK (without AVX-512 VBMI2, e.g. arm64, V8's writer instead), emoji pairs in both.
  // Each runs on the path this CPU and runtime take; etag-strings.test.js aims at the step and
  // chunk edges of each transcoding step.
  const row = '<li class="item"><a href="/p/42">Product name</a> 19.99</li>\n';
  const english = row.repeat(1300).replace(/name/g, (m, i) => (i % 7 === 0 ? 'name\u2019s' : m));
  const cjk = english.replace(/[a-z]/g, (c) => String.fromCharCode(0x4e00 + c.charCodeAt(0)));
  const emoji = english.replace(/19\.99/g, '\ud83d\ude00\ud800');
  for (const [name, page] of Object.entries({ english, cjk, emoji, cjkEmoji: cjk + emoji })) {
    assert.equal(etag(page), expected(Buffer.from(page)), name);
    assert.equal(etag(page, { weak: false }), expected(Buffer.from(page), false), name);
  }
});

test('fs.Stats give the etag package tag (weak by default)', () => {
  const stats = fs.statSync(__filename);
  assert.equal(etag(stats), referenceEtag(stats));
  assert.equal(etag(stats, { weak: false }), referenceEtag(stats, { weak: false }));
  const fake = { ctime: new Date(0), mtime: new Date(1700000000123), ino: 7, size: 75 * 1024 };
  assert.equal(etag(fake), referenceEtag(fake));
  assert.equal(etag(fake), `W/"12c00-${(1700000000123).toString(16)}"`);
  const big = fs.statSync(__filename, { bigint: true });
  // BigIntStats truncate mtime to whole ms where fs.Stats round, so compare with its own Date.
  assert.equal(etag(big), `W/"${big.size.toString(16)}-${big.mtime.getTime().toString(16)}"`);
});

test('anything else is a TypeError, never a crash', () => {
  assert.throws(() => etag(), { name: 'TypeError', message: 'argument entity is required' });
  assert.throws(() => etag(null), { name: 'TypeError', message: 'argument entity is required' });
  for (const bad of [
    42,
    true,
    {},
    [],
    () => {},
    Symbol('s'),
    10n,
    new ArrayBuffer(4),
    { mtime: new Date() },
    new Date(),
  ]) {
    assert.throws(() => etag(bad), {
      name: 'TypeError',
      message: /argument entity must be a string, Buffer, TypedArray, DataView or fs\.Stats/,
    });
  }
  assert.throws(() => etag('x', 'no-such-encoding'), {
    name: 'TypeError',
    message: /encoding must be a Buffer encoding/,
  });
  assert.throws(() => etag('x', { weak: 'yes' }), { name: 'TypeError', message: /options\.weak must be a boolean/ });
  assert.throws(() => etag('x', { encoding: 5 }), { name: 'TypeError', message: /options\.encoding must be a string/ });
  assert.throws(() => etag('x', 5), { name: 'TypeError', message: /an encoding name or an options object/ });
});

test('the native binding rejects bad arguments with TypeErrors', () => {
  assert.throws(() => native.entityTag(), TypeError);
  assert.throws(() => native.entityTag(42, true), TypeError);
  assert.throws(() => native.entityTag({}, true), TypeError);
  assert.throws(() => native.crc32(), TypeError);
  assert.throws(() => native.crc32(Buffer.alloc(1), 'x'), TypeError);
  assert.throws(() => native.crc32WithPath('nope', Buffer.alloc(1)), TypeError);
  // The sliced Latin-1 path's two calls (lib/etag.js passes them strings of 16 Ki units).
  for (const bad of [undefined, 42, {}, Buffer.alloc(1)]) {
    assert.throws(() => native.latin1Utf8Crc(bad, 0), {
      name: 'TypeError',
      message: /^text must be a string \(received/,
    });
    assert.throws(() => native.latin1Utf8Tag(bad, true, 0, 0), {
      name: 'TypeError',
      message: /^text must be a string \(received/,
    });
  }
  assert.throws(() => native.latin1Utf8Crc('a'.repeat(2 ** 20 + 1), 0), {
    name: 'RangeError',
    message: /at most 1 MiB/,
  });
  assert.equal(native.latin1Utf8Crc('', 123), 123);
  assert.equal(native.latin1Utf8Crc('\u00e9', 0), 2 ** 32 + crc32(Buffer.from('\u00e9')));
  assert.equal(native.latin1Utf8Tag('b', false, crc32('a'), 1), etag('ab', { weak: false }));
  for (const bad of [undefined, 1, {}, Buffer.from('a')]) {
    assert.throws(() => native.utf16Utf8Tag(bad, true), {
      name: 'TypeError',
      message: /^text must be a string \(received/,
    });
  }
  assert.throws(() => native.utf16Utf8Tag(), {
    name: 'TypeError',
    message: /^text must be a string \(received/,
  });
  assert.equal(native.utf16Utf8Tag('', true), 'W/"0-00000000"');
  assert.equal(
    native.utf16Utf8Tag('a\u2019\ud83d\ude00\udc00', false),
    etag(Buffer.from('a\u2019\ud83d\ude00\udc00'), { weak: false }),
  );
  // A detached buffer has no bytes: an empty tag, not a crash.
  const ab = new ArrayBuffer(16);
  const view = new Uint8Array(ab);
  structuredClone(ab, { transfer: [ab] });
  assert.equal(native.entityTag(view, true), 'W/"0-00000000"');
});

test('crc32() equals zlib.crc32, chained or not (seeded random inputs)', () => {
  const rand = random(0x5eed0001);
  for (let i = 0; i < 200; i++) {
    // Length 0 is included on purpose (about 1 in 10): Node 20's zlib.crc32 returns 0 for an
    // empty input whatever the seed, so the empty case is checked against the definition.
    const length = rand() < 0.1 ? 0 : Math.floor(rand() * 5000);
    const buf = randomBytes(rand, length);
    const seed = Math.floor(rand() * 0x100000000);
    const what = () => `input ${describeBytes(buf)}, seed ${seed}`;
    assert.equal(crc32(buf), zlib.crc32(buf), what());
    if (length === 0) {
      assert.equal(crc32(buf, seed), seed, `crc32(empty, seed) must be seed: ${what()}`);
    } else {
      assert.equal(crc32(buf, seed), zlib.crc32(buf, seed), what());
    }
  }
  assert.equal(crc32('123456789'), 0xcbf43926);
  assert.equal(crc32('héllo'), zlib.crc32('héllo'));
  assert.equal(crc32(Buffer.from('56789'), crc32('1234')), 0xcbf43926);
  assert.throws(() => crc32(1), TypeError);
  assert.throws(() => crc32('x', '1'), TypeError);
  assert.throws(() => crc32('x', -1), RangeError);
  assert.throws(() => crc32('x', 2 ** 32), RangeError);
  assert.throws(() => crc32('x', 1.5), RangeError);
});

test('crc32() of empty input is the seed it continues from (the definition, not a zlib quirk)', () => {
  for (const seed of [0, 1, 0xcbf43926, 0xffffffff, 1217337137]) {
    for (const empty of ['', Buffer.alloc(0), new Uint8Array(0), new DataView(new ArrayBuffer(0))]) {
      assert.equal(crc32(empty, seed), seed, `seed ${seed}, ${Object.prototype.toString.call(empty)}`);
    }
  }
  // Chaining through an empty piece changes nothing.
  assert.equal(crc32('56789', crc32('', crc32('1234'))), 0xcbf43926);
});

test('every CRC-32 path this CPU supports matches zlib at every alignment', () => {
  const { active, available } = native.crc32Paths();
  assert.ok(available.includes('portable'));
  assert.ok(available.includes(active));
  const next = random(24);
  const backing = Buffer.from(Array.from({ length: 8192 + 64 }, () => Math.floor(next() * 256)));
  for (const path of available) {
    for (let offset = 0; offset < 64; offset++) {
      for (const length of [0, 1, 15, 16, 31, 32, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 4096, 8192]) {
        const view = backing.subarray(offset, offset + length);
        assert.equal(
          native.crc32WithPath(path, view, 0),
          zlib.crc32(view),
          `${path} offset ${offset} length ${length}`,
        );
      }
    }
    assert.equal(native.crc32WithPath(path, backing, 12345), zlib.crc32(backing, 12345));
  }
  for (const path of ['portable', 'pclmul', 'vpclmul256', 'vpclmul512', 'armv8_crc32', 'armv8_pmull']) {
    if (!available.includes(path)) assert.throws(() => native.crc32WithPath(path, backing), RangeError);
  }
});

test('one tag format: crcTag (held bodies) and the files statTag write what etag() writes', () => {
  const { crcTag } = require('../../../lib/etag');
  const { statTag: fileStatTag } = require('../../../lib/files/record');
  const next = random(53);
  for (let i = 0; i < 200; i++) {
    const body = Buffer.alloc(Math.floor(next() * 5000));
    for (let j = 0; j < body.length; j++) body[j] = Math.floor(next() * 256);
    const crc = crc32(body);
    for (const weak of [true, false]) {
      assert.strictEqual(crcTag(body.length, crc, weak), etag(body, { weak }), `seed 53, body ${i}, weak ${weak}`);
    }
  }
  const stats = fs.statSync(__filename);
  assert.strictEqual(fileStatTag(stats), etag(stats));
});
