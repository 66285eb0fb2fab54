'use strict';
// The streamed side of fastifyCompress (lib/fastify/compress.js), and what is taken for data
// compressed already: a payload that already is data of the negotiated coding passes through
// uncompressed, and `inflateIfDeflated` inflates gzip/zlib payloads for clients that take no
// coding. These are not the hot path: whole bodies go through the content cache instead.
//
// Where this differs from @fastify/compress: the peer passes a payload through whenever its first
// bytes look like gzip or zlib data, labelled with whatever coding was negotiated (gzip bytes go
// out as `br`), and two bytes of ordinary text pass its zlib header check (`x `, `8O`, `hb`):
// either way the client cannot decode the body. Ours passes through only gzip data under gzip and
// zlib data under deflate, and for a whole body checks that zlib data really inflates.
const zlib = require('zlib');
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
// can pass this check too (`x `, `8O`, `hb`).
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

// How much of a whole body the zlib check inflates, and how much output it lets that make.
const ZLIB_CHECK_INPUT = 64 * 1024;
const ZLIB_CHECK_OUTPUT = 1024 * 1024;

/**
 * Whether a whole body already is `coding` data, to be sent as it is: gzip data under gzip; under
 * deflate, zlib data whose first 64 KB inflate without an error (text that only passes the
 * two-byte header check fails within a few bytes).
 */
function alreadyEncoded(bytes, coding) {
  const as = compressedAs(bytes);
  if (as !== coding) return false;
  if (as === 'gzip') return true;
  try {
    zlib.inflateSync(bytes.subarray(0, ZLIB_CHECK_INPUT), {
      finishFlush: zlib.constants.Z_SYNC_FLUSH,
      maxOutputLength: ZLIB_CHECK_OUTPUT,
    });
    return true;
  } catch (err) {
    // more output than the check allows: real deflate data, only large
    return err instanceof RangeError;
  }
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

/** The compressing stream of a streamed payload: `encoder.stream()`, or a pass-through for data of its coding. */
function zipStream(encoder) {
  return peekStream((head) => (compressedAs(head) === encoder.coding ? new PassThrough() : encoder.stream()));
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

module.exports = { compressedAs, alreadyEncoded, isStream, zipStream, unzipStream, inflatable };
