'use strict';
// etag(string, encoding) must equal etag(Buffer.from(string, encoding)) for every encoding,
// whichever internal path the string takes (V8's UTF-8 writer, the Latin-1 copy with the
// ASCII check, the chunked Latin-1 -> UTF-8 expansion, the UTF-16 copy transcoded by the addon). Lengths are aimed at
// every internal threshold; inputs come from a seeded generator and a failure prints them.
const test = require('node:test');
const assert = require('node:assert/strict');
const { etag, crc32 } = require('../../..');

const hex8 = (n) => n.toString(16).padStart(8, '0');

// The reference: the bytes Buffer.from makes, hashed by the Buffer path (itself checked
// against zlib.crc32 in etag.test.js); the length and CRC are recomputed in JS as well.
function reference(s, encoding, weak = true) {
  const bytes = Buffer.from(s, encoding);
  return `${weak ? 'W/' : ''}"${bytes.length.toString(16)}-${hex8(crc32(bytes))}"`;
}

// Seeded, so a failure can be replayed (test/js/helpers/seeded-random.js).
const { mulberry32: random } = require('../helpers/seeded-random');

// Code-unit alphabets: each makes V8 build a different kind of string.
const ALPHABETS = {
  ascii: () => [0x20, 0x7e], // one-byte, pure ASCII: the Latin-1 copy, hashed in place
  control: () => [0x00, 0x7f], // ASCII with NUL and DEL
  latin1: () => [0x80, 0xff], // one-byte, expanded to two UTF-8 bytes each
  bmp: () => [0x100, 0xd7ff], // two-byte
  // Low bytes below 0x80 with a high byte: a Latin-1 copy would truncate them to ASCII.
  truncatesToAscii: () => [0x2000, 0x207f],
  highSurrogate: () => [0xd800, 0xdbff],
  lowSurrogate: () => [0xdc00, 0xdfff],
  aboveSurrogates: () => [0xe000, 0xffff],
};
const NAMES = Object.keys(ALPHABETS);

function randomUnit(rand, alphabet) {
  const [lo, hi] = ALPHABETS[alphabet]();
  return lo + Math.floor(rand() * (hi - lo + 1));
}

// A string of `length` code units: mostly `base`, with `spice` units of other alphabets at
// random places (surrogates may end up paired or lone), or a pair placed at the very end.
function randomString(rand, length, base, spice) {
  const units = new Array(length);
  for (let i = 0; i < length; i++) units[i] = randomUnit(rand, base);
  for (let k = 0; k < spice && length > 0; k++) {
    units[Math.floor(rand() * length)] = randomUnit(rand, NAMES[Math.floor(rand() * NAMES.length)]);
  }
  if (length >= 2 && rand() < 0.2) {
    units[length - 2] = randomUnit(rand, 'highSurrogate');
    units[length - 1] = randomUnit(rand, 'lowSurrogate');
  }
  // Build in pieces so some strings are cons strings before they are flattened.
  let s = '';
  for (let i = 0; i < length; i += 4096) s += String.fromCharCode(...units.slice(i, i + 4096));
  return s;
}

function describe(s) {
  const units = Array.from({ length: Math.min(s.length, 64) }, (_, i) => s.charCodeAt(i).toString(16));
  const nonAscii = [];
  for (let i = 0; i < s.length && nonAscii.length < 16; i++) {
    if (s.charCodeAt(i) > 0x7f) nonAscii.push(`${i}:${s.charCodeAt(i).toString(16)}`);
  }
  return `length ${s.length}, first units [${units.join(' ')}], non-ASCII (index:unit) [${nonAscii.join(' ')}]`;
}

// Lengths around every threshold: lib/etag.js's LATIN1_CHECK_MIN (256) and LATIN1_SLICE (16 Ki
// units: longer Latin-1 text goes to the addon slice by slice) and its multiples, the AVX2 check's 32-
// and 128-byte steps, the 4 KiB expansion chunk, the 16 KiB checked-then-hashed piece, the CRC
// folding blocks (16/64/256 bytes), the first scratch block (4 KiB) and its doublings.
const EDGES = [
  0,
  1,
  2,
  7,
  8,
  15,
  16,
  31,
  32,
  33,
  63,
  64,
  65,
  127,
  128,
  129,
  255,
  256,
  257,
  511,
  512,
  4095,
  4096,
  4097,
  8191,
  8192,
  8193,
  16383,
  16384,
  16385,
  32767,
  32768,
  32769,
  49151,
  49152,
  49153,
  65536 + 3,
];

const ENCODINGS = [
  'utf8',
  'utf-8',
  'UTF8',
  'latin1',
  'binary',
  'ascii',
  'ucs2',
  'utf16le',
  'UTF-16LE',
  'base64',
  'base64url',
  'hex',
  undefined,
];

test('every alphabet at every threshold length gives the tag of Buffer.from(s, encoding)', () => {
  const rand = random(0x5eed0009);
  for (const length of EDGES) {
    for (const base of NAMES) {
      for (const spice of [0, 1, 3]) {
        const s = randomString(rand, length, base, spice);
        for (const encoding of ENCODINGS) {
          assert.equal(etag(s, encoding), reference(s, encoding), `${encoding} ${base}+${spice}: ${describe(s)}`);
        }
      }
    }
  }
});

test('a single non-ASCII unit at each position of a Latin-1 string changes the path, not the tag', () => {
  // One-byte strings whose only non-ASCII byte sits in the first, a middle or the last 16 KiB
  // piece, at the piece edges, or at the very end.
  const rand = random(0x5eed000a);
  const length = 3 * 16384 + 100;
  const positions = [0, 1, 31, 32, 16383, 16384, 16385, 32767, 32768, 49151, 49152, length - 9, length - 1];
  for (const pos of positions) {
    for (const unit of [0x80, 0xe9, 0xff, 0x2014, 0xd800, 0xdfff]) {
      const base = randomString(rand, length, 'ascii', 0);
      const s = base.slice(0, pos) + String.fromCharCode(unit) + base.slice(pos + 1);
      for (const encoding of ['utf8', 'latin1', 'utf16le']) {
        assert.equal(
          etag(s, encoding),
          reference(s, encoding),
          `${encoding} unit ${unit.toString(16)} at ${pos}: ${describe(s)}`,
        );
      }
    }
  }
});

test('seeded random strings of random lengths and mixes', () => {
  const rand = random(0x5eed000b);
  for (let i = 0; i < 400; i++) {
    const length = Math.floor(rand() ** 3 * 100000);
    const s = randomString(rand, length, NAMES[Math.floor(rand() * NAMES.length)], Math.floor(rand() * 4));
    const encoding = ENCODINGS[Math.floor(rand() * ENCODINGS.length)];
    const weak = rand() < 0.5;
    assert.equal(etag(s, { encoding, weak }), reference(s, encoding, weak), `${encoding} weak=${weak}: ${describe(s)}`);
  }
});

test("two-byte text: surrogate pairs and lone halves at the transcoder's step and chunk edges", () => {
  // The addon transcodes UTF-16 in 4 Ki-unit chunks, 16 units a SIMD step: a pair cut at a chunk
  // edge would become two U+FFFD, a step that misses its last unit would drop a character.
  const rand = random(0x5eed000e);
  const positions = [0, 1, 14, 15, 16, 17, 31, 4094, 4095, 4096, 4097, 8191, 8192, 12287, 15000];
  for (const pos of positions) {
    for (const insert of ['\ud83d\ude00', '\ud801q', '\udc37\ud801', '\u2019\u00e9', '\ud800']) {
      const base = randomString(rand, 15003, 'ascii', 0);
      const s = `${base.slice(0, pos)}${insert}${base.slice(pos + insert.length)}\u2014`;
      assert.equal(etag(s), reference(s, 'utf8'), `insert at ${pos}: ${describe(s)}`);
      assert.equal(etag(s, { weak: false }), reference(s, 'utf8', false), `strong, insert at ${pos}: ${describe(s)}`);
    }
  }
});

test('strings sliced from, or concatenated with, two-byte strings', () => {
  // Two-byte storage holding only ASCII (a slice of a two-byte string), and the reverse.
  const wide = `日本${'a'.repeat(5000)}\u2014${'b'.repeat(300)}`;
  for (const s of [wide.slice(2, 5002), wide.slice(2), wide.slice(0, 1) + 'x'.repeat(400), 'é'.repeat(300) + wide]) {
    for (const encoding of ['utf8', 'latin1', 'ucs2']) {
      assert.equal(etag(s, encoding), reference(s, encoding), `${encoding}: ${describe(s)}`);
    }
  }
});

test('a string longer than the retained scratch block (1 MiB) is hashed correctly too', () => {
  const rand = random(0x5eed000c);
  for (const base of ['ascii', 'latin1', 'bmp']) {
    const s = randomString(rand, 1024 * 1024 + 17, base, 2);
    for (const encoding of ['utf8', 'latin1', 'utf16le']) {
      assert.equal(etag(s, encoding), reference(s, encoding), `${encoding} ${base}: ${describe(s)}`);
    }
  }
});

test('crc32(string) equals crc32 of its UTF-8 bytes', () => {
  const rand = random(0x5eed000d);
  for (const length of EDGES) {
    const s = randomString(rand, length, NAMES[length % NAMES.length], 2);
    assert.equal(crc32(s), crc32(Buffer.from(s)), describe(s));
  }
});
