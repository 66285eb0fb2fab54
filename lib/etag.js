'use strict';
// CRC-32 entity tags: a drop-in "etag fn" for Express and the hashing behind the Koa middleware.
//
// The hot path is one native call: the addon reads the Buffer in place (or writes a string's
// bytes into a per-thread scratch block), computes the CRC-32 with the fastest instructions this CPU has and returns the
// finished tag string.
const fs = require('fs');
const v8 = require('v8');
const native = require('./native');
const { invalidType, outOfRange } = require('./validate');

const { entityTag, latin1Utf8Crc, latin1Utf8Tag, utf16Utf8Tag } = native;
const objectToString = Object.prototype.toString;

function isDate(value) {
  return objectToString.call(value) === '[object Date]';
}

// Same test as the etag package (genuine fs.Stats, or anything shaped like one); BigIntStats
// from fs.stat(path, { bigint: true }) are accepted too.
function isStats(value) {
  if (value instanceof fs.Stats) return true;
  return (
    value !== null &&
    typeof value === 'object' &&
    'ctime' in value &&
    isDate(value.ctime) &&
    'mtime' in value &&
    isDate(value.mtime) &&
    'ino' in value &&
    (typeof value.ino === 'number' || typeof value.ino === 'bigint') &&
    'size' in value &&
    (typeof value.size === 'number' || typeof value.size === 'bigint')
  );
}

// W/"<size hex>-<mtime ms hex>", exactly what the etag package (and so send/serve-static) makes.
function statTag(stats, weak) {
  const tag = `"${stats.size.toString(16)}-${stats.mtime.getTime().toString(16)}"`;
  return weak ? `W/${tag}` : tag;
}

// The encodings whose bytes the addon writes itself (codes of StringEncoding in
// src/addon/string_bytes.h), by every name Buffer accepts for them. 'ascii' is Buffer's
// alias of latin1 when encoding a string. The others (base64, base64url, hex) are decoded by
// Buffer.from first.
// A body's tag from its byte length and CRC-32: W/"<length hex>-<crc32 8 hex digits>" (or strong),
// the form the native entityTag writes; for callers that hold the CRC already (http/held-value.js).
function crcTag(length, crc, weak) {
  const tag = `"${length.toString(16)}-${crc.toString(16).padStart(8, '0')}"`;
  return weak ? `W/${tag}` : tag;
}

const NATIVE_ENCODINGS = new Map([
  [undefined, 0],
  ['utf8', 0],
  ['utf-8', 0],
  ['latin1', 1],
  ['binary', 1],
  ['ascii', 1],
  ['ucs2', 2],
  ['ucs-2', 2],
  ['utf16le', 2],
  ['utf-16le', 2],
]);

const UTF8 = 0;

// Whether a string's storage is one byte per character (Latin-1), so no code unit is above
// U+00FF: O(1) with v8.isStringOneByteRepresentation (Node 22.15+ and 23.10+, and Bun).
// Elsewhere (Node 20, early 22) a regex: V8 compiles its class to "no match" for one-byte
// strings, so those cost no scan either, but a two-byte string is scanned up to its first unit
// above U+00FF (docs/etag.md has the costs). A two-byte string whose units all happen to be
// Latin-1 takes the UTF-16 path, which is right for every string.
const BEYOND_LATIN1 = /[^\x00-\xff]/;
const isLatin1Text =
  typeof v8.isStringOneByteRepresentation === 'function'
    ? v8.isStringOneByteRepresentation
    : (text) => !BEYOND_LATIN1.test(text);

// Whether text beyond Latin-1 goes to the addon's own transcoder (a copy of the UTF-16, then
// SIMD) rather than the runtime's UTF-8 writer: faster than V8's writer on every Node measured,
// slower than Bun's (SIMD already), so Bun keeps its own (bench/http/micro/etag.js; the figures
// are in docs/etag.md).
const OWN_UTF16_TRANSCODER = typeof process.versions.bun !== 'string';

// Below this many code units a string goes straight to V8's UTF-8 writer (through the addon's
// entityTag): cheap there, and the check above would cost more than it saves.
const LATIN1_CHECK_MIN = 256;

// Longer Latin-1 text is handed over in slices of this many characters: V8 copies each into the
// addon's scratch block, where it is checked for non-ASCII and hashed while still in L1 (48 KB
// here), instead of one copy the size of the page that has left L1 before it is read
// (`npm run bench -- --full etag`, its "in one piece (ablation)" row; figures in docs/etag.md).
const LATIN1_SLICE = 16 * 1024;
const TWO_POW_32 = 4294967296;

// etag of a text with no code unit above U+00FF, hashed as its UTF-8 bytes from a Latin-1 copy
// (a memcpy for one-byte strings) instead of V8's UTF-8 encoder; slice by slice when long
// (substring makes a view of a flat string, not a copy). Each slice's CRC continues the previous
// one; latin1Utf8Crc returns the CRC plus 2^32 times the slice's characters of U+0080 or more
// (one UTF-8 byte longer each). A text of one slice is a single latin1Utf8Tag call.
function latin1Tag(body, weak) {
  let crc = 0;
  let bytes = 0;
  let start = 0;
  for (const last = body.length - LATIN1_SLICE; start < last; start += LATIN1_SLICE) {
    const digest = latin1Utf8Crc(body.substring(start, start + LATIN1_SLICE), crc);
    crc = digest >>> 0; // the low 32 bits (digest is an integer below 2^53)
    bytes += LATIN1_SLICE + (digest - crc) / TWO_POW_32;
  }
  return latin1Utf8Tag(body.substring(start), weak, crc, bytes);
}

function stringTag(body, encoding, weak) {
  let code = NATIVE_ENCODINGS.get(encoding);
  if (code === undefined && Buffer.isEncoding(encoding)) code = NATIVE_ENCODINGS.get(encoding.toLowerCase());
  if (code === UTF8) {
    if (body.length < LATIN1_CHECK_MIN) return entityTag(body, weak, code);
    if (isLatin1Text(body)) return latin1Tag(body, weak);
    // Text beyond Latin-1 (a two-byte string: one typographic quote is enough).
    return OWN_UTF16_TRANSCODER ? utf16Utf8Tag(body, weak) : entityTag(body, weak, code);
  }
  if (code !== undefined) return entityTag(body, weak, code);
  if (!Buffer.isEncoding(encoding)) throw invalidType('encoding', 'a Buffer encoding', encoding);
  return entityTag(Buffer.from(body, encoding), weak);
}

/**
 * The entity tag of a response body, or of a file from its fs.Stats.
 * etag(body) -> W/"<byte length hex>-<crc32 8 hex digits>"
 */
function etag(body, encodingOrOptions) {
  let weak;
  let encoding;
  if (typeof encodingOrOptions === 'string') {
    encoding = encodingOrOptions;
  } else if (encodingOrOptions !== undefined && encodingOrOptions !== null) {
    if (typeof encodingOrOptions !== 'object') {
      throw invalidType('the second argument', 'an encoding name or an options object', encodingOrOptions);
    }
    weak = encodingOrOptions.weak;
    if (weak !== undefined && typeof weak !== 'boolean') {
      throw invalidType('options.weak', 'a boolean', weak);
    }
    encoding = encodingOrOptions.encoding;
    if (encoding !== undefined && typeof encoding !== 'string') {
      throw invalidType('options.encoding', 'a string', encoding);
    }
  }

  if (ArrayBuffer.isView(body)) return entityTag(body, weak !== false);
  if (typeof body === 'string') return stringTag(body, encoding, weak !== false);
  if (body === null || body === undefined) throw new TypeError('argument entity is required');
  if (isStats(body)) return statTag(body, weak !== false);
  throw invalidType('argument entity', 'a string, Buffer, TypedArray, DataView or fs.Stats', body);
}

/** CRC-32 of `data`, continuing from `value`: the same result as zlib.crc32(data, value). */
function crc32(data, value = 0) {
  if (typeof data !== 'string' && !ArrayBuffer.isView(data)) {
    throw invalidType('data', 'a string, Buffer, TypedArray or DataView', data);
  }
  if (typeof value !== 'number') throw invalidType('value', 'a number', value);
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw outOfRange('value', 'an integer from 0 to 4294967295', value);
  }
  return native.crc32(data, value);
}

module.exports = { etag, crc32, isStats, statTag, crcTag };
