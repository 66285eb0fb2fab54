'use strict';
// The streamed side of fastifyCompress (lib/fastify/compress.js), where @fastify/compress's
// behaviour is kept as it is: a payload whose first bytes already look like gzip or zlib data
// passes through uncompressed (the peer's rule, which it applies to streams and to whole bodies
// alike), and `inflateIfDeflated` inflates such payloads for clients that take no coding.
// These are not the hot path: whole bodies go through the content cache instead.
const { PassThrough, Readable, Transform, compose } = require('stream');

// How many leading bytes decide what a stream holds (as @fastify/compress peeks).
const PEEK_BYTES = 10;
// Nested layers of gzip/zlib data `inflateIfDeflated` undoes; past them the bytes pass as they
// are. The peer means to stop at three but its counter starts over, so it undoes any number;
// each layer holds an inflater (tens of KB of native state), so ours stops, far past any real use.
const MAX_INFLATE_LAYERS = 16;

// RFC 1952: ID1 ID2 and CM = 8 (deflate).
function isGzip(bytes) {
  return bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b && bytes[2] === 0x08;
}

// RFC 1950: CM = 8, CINFO <= 7, and CMF * 256 + FLG a multiple of 31. Two bytes of ordinary text
// can pass this check too (`x `, `8O`, `hb`): the peer treats such a body as compressed, and so
// does this module, so that both answer the same (docs/fastify.md).
function isZlib(bytes) {
  return (
    bytes.length > 1 && (bytes[0] & 0x0f) === 0x08 && (bytes[0] & 0x80) === 0 && ((bytes[0] << 8) + bytes[1]) % 31 === 0
  );
}

/** 'gzip', 'deflate' or undefined: what the peer takes these bytes to be already. */
function compressedAs(bytes) {
  if (isGzip(bytes)) return 'gzip';
  if (isZlib(bytes)) return 'deflate';
  return undefined;
}

function isStream(value) {
  return value !== null && typeof value === 'object' && typeof value.pipe === 'function';
}

/**
 * A transform that holds the first PEEK_BYTES bytes, asks `choose(head)` for the stream that
 * handles the whole payload, and passes everything through it.
 */
function peekStream(choose) {
  let held = [];
  let heldBytes = 0;
  let inner = null;
  let finish = null;

  const outer = new Transform({
    transform(chunk, encoding, callback) {
      if (inner !== null) return void inner.write(chunk, callback);
      held.push(chunk);
      heldBytes += chunk.length;
      if (heldBytes < PEEK_BYTES) return void callback();
      start(callback);
    },
    flush(callback) {
      finish = callback;
      if (inner !== null) return void inner.end();
      start((err) => {
        if (err) {
          finish = null;
          callback(err);
        } else {
          inner.end();
        }
      });
    },
  });
  // a client that leaves mid-response destroys the payload: the inner stream's handle goes too
  outer.on('close', () => {
    if (inner !== null && !inner.destroyed) inner.destroy();
  });

  function start(callback) {
    const head = held.length === 1 ? held[0] : Buffer.concat(held);
    held = [];
    try {
      inner = choose(head.subarray(0, PEEK_BYTES));
    } catch (err) {
      callback(err);
      return;
    }
    inner.on('data', (chunk) => outer.push(chunk));
    inner.on('error', (err) => outer.destroy(err));
    inner.on('end', () => {
      const done = finish;
      finish = null;
      if (done !== null) done();
    });
    inner.write(head, callback);
  }
  return outer;
}

/** The compressing stream of a streamed payload: `encoder.stream()`, or a pass-through for compressed bytes. */
function zipStream(encoder) {
  return peekStream((head) => (compressedAs(head) !== undefined ? new PassThrough() : encoder.stream()));
}

/** Inflates gzip/zlib data (up to MAX_INFLATE_LAYERS nested layers); other bytes pass through. */
function unzipStream(inflaters, layers = MAX_INFLATE_LAYERS) {
  return peekStream((head) => {
    const as = layers > 0 ? compressedAs(head) : undefined;
    if (as === undefined) return new PassThrough();
    return compose(inflaters[as](), unzipStream(inflaters, layers - 1));
  });
}

/**
 * The peer's `inflateIfDeflated` reading of a payload: a stream as it is; bytes that look
 * compressed as a stream of them; anything else undefined (nothing to inflate). `serialize`
 * (reply.compress) turns other values into what would be sent first.
 */
function inflatable(payload, serialize) {
  if (isStream(payload)) return payload;
  let bytes = payload;
  if (ArrayBuffer.isView(payload)) bytes = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  else if (serialize !== undefined && typeof payload !== 'string') bytes = serialize(payload);
  if (!Buffer.isBuffer(bytes) || compressedAs(bytes) === undefined) return undefined;
  return Readable.from([bytes]);
}

module.exports = { compressedAs, isStream, zipStream, unzipStream, inflatable };
