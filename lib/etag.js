'use strict';
// CRC-32 entity tags: a drop-in "etag fn" for Express and the hashing behind the Koa middleware.
//
// The hot path is one native call: the addon reads the Buffer (or encodes a UTF-8 string) in
// place, computes the CRC-32 with the fastest instructions this CPU has and returns the
// finished tag string.
const fs = require('fs');
const native = require('./native');
const { invalidType, outOfRange } = require('./validate');

const { entityTag } = native;
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

const UTF8_NAMES = new Set([undefined, 'utf8', 'utf-8', 'UTF8', 'UTF-8']);

function stringBytes(body, encoding) {
  if (!Buffer.isEncoding(encoding)) throw invalidType('encoding', 'a Buffer encoding', encoding);
  return Buffer.from(body, encoding);
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
  if (typeof body === 'string') {
    const bytes = UTF8_NAMES.has(encoding) ? body : stringBytes(body, encoding);
    return entityTag(bytes, weak !== false);
  }
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

module.exports = { etag, crc32, isStats, statTag };
