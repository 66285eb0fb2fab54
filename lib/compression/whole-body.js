'use strict';
// A body known whole, compressed through the content cache: the key is the encoder's settings,
// the length and the CRC-32. Where the response carries ssr-native's own entity tag
// (W/"<length hex>-<crc32 hex>", from res.send with our etag, writeResponse or a response cache
// replaying one), the CRC is read from it instead of hashing the body again. A tag that only
// looks like ours costs nothing worse than a miss: the cache compares the bytes on every hit.
const { crc32 } = require('../etag');
const { textBodiesOf } = require('./text-bodies');

const OUR_TAG_REGEXP = /^(?:W\/)?"([0-9a-f]{1,13})-([0-9a-f]{8})"$/;

function crcOf(body, tag) {
  if (typeof tag === 'string' && tag.length <= 28) {
    const match = OUR_TAG_REGEXP.exec(tag);
    if (match !== null && parseInt(match[1], 16) === body.length) return parseInt(match[2], 16);
  }
  return crc32(body);
}

/**
 * The encoded body now (a cache hit), or undefined and callback(err, encoded) later.
 * `tag` is the response's ETag header value, if any.
 */
function encodeWhole(cache, encoder, body, tag, callback, crc = undefined) {
  if (cache === null) {
    // compressed from the caller's buffer, as the peers' zlib streams and Node's own res.end()
    // use it: a caller may not change a buffer it has handed to end()
    encoder.compress(body, callback);
    return undefined;
  }
  return cache.encode(body, crc !== undefined ? crc : crcOf(body, tag), encoder, callback);
}

/**
 * encodeWhole for a string body (UTF-8): a string whose compressed form was a cache hit before
 * skips its encoding to bytes and its CRC-32 (text-bodies.js).
 */
function encodeText(cache, encoder, text, tag, callback) {
  if (cache === null) return encodeWhole(null, encoder, Buffer.from(text), tag, callback);
  const texts = textBodiesOf(cache);
  const known = texts.get(text);
  if (known !== undefined) return cache.encode(known.bytes, known.crc, encoder, callback);
  const bytes = Buffer.from(text);
  const crc = crcOf(bytes, tag);
  const hit = cache.encode(bytes, crc, encoder, callback);
  // the cache's own copy of the bytes: the next hit on it is found by identity, not compared
  if (hit !== undefined) texts.remember(text, cache.originalOf(bytes, crc, encoder) || bytes, crc);
  return hit;
}

/**
 * encodeText for a string, encodeWhole for bytes, for callers that can wait (Koa, Hono): the
 * encoded body now (a cache hit), or a Promise of it.
 */
function encodeBody(cache, encoder, body, tag) {
  let settle;
  const whenDone = (err, result) => settle(err, result);
  const hit =
    typeof body === 'string'
      ? encodeText(cache, encoder, body, tag, whenDone)
      : encodeWhole(cache, encoder, body, tag, whenDone);
  if (hit !== undefined) return hit;
  // the callback never runs synchronously, so `settle` is set before it is called
  return new Promise((resolve, reject) => {
    settle = (err, result) => (err ? reject(err) : resolve(result));
  });
}

/** The encoded body, from the cache or compressed now on this thread (encoder.compressNow). */
function encodeWholeNow(cache, encoder, body, tag, crc = undefined) {
  if (cache === null) return encoder.compressNow(body);
  return cache.encodeNow(body, crc !== undefined ? crc : crcOf(body, tag), encoder);
}

/**
 * A string body's UTF-8 bytes and their CRC-32 ({ bytes, crc }), for callers that look at the
 * bytes before they ask the cache (Fastify checks a payload's leading bytes): the text memo's
 * when it knows the string, with no encoding and no CRC; else made now, and remembered (the
 * cache's own copy) when the cache already holds them, i.e. when this answer is a hit. `crc` is
 * undefined without a cache. Hand both to encodeWhole / encodeWholeNow.
 */
function textBytes(cache, encoder, text, tag) {
  if (cache === null) return { bytes: Buffer.from(text), crc: undefined };
  const texts = textBodiesOf(cache);
  const known = texts.get(text);
  if (known !== undefined) return known;
  const bytes = Buffer.from(text);
  const crc = crcOf(bytes, tag);
  const stored = cache.originalOf(bytes, crc, encoder);
  if (stored === undefined) return { bytes, crc };
  texts.remember(text, stored, crc);
  return { bytes: stored, crc };
}

module.exports = { encodeWhole, encodeText, encodeBody, encodeWholeNow, textBytes, crcOf };
