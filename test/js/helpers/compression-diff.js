'use strict';
// What the compression differential tests share (compression, koa-compress, @fastify/compress,
// hono/compress): seeded text bodies, decoding a body by its Content-Encoding, and the headers
// that are compared with the peer's.
const zlib = require('zlib');

function pick(random, list) {
  return list[Math.floor(random() * list.length)];
}

/**
 * `size` bytes of HTML-like text drawn from `random`: `prefix`, then parts from `words(random)`
 * (the vocabulary, made once per body) with one part in ten a number.
 */
function makeText(random, size, { words, prefix = '' }) {
  const vocabulary = words(random);
  const parts = [prefix];
  let bytes = Buffer.byteLength(prefix);
  while (bytes < size) {
    const part = random() < 0.1 ? String(Math.floor(random() * 1e6)) : pick(random, vocabulary);
    parts.push(part);
    bytes += Buffer.byteLength(part);
  }
  return Buffer.from(parts.join('')).subarray(0, size);
}

const DECODERS = {
  gzip: (body) => zlib.gunzipSync(body),
  deflate: (body) => zlib.inflateSync(body),
  br: (body) => zlib.brotliDecompressSync(body),
  zstd: (body) => zlib.zstdDecompressSync(body),
};
// Labels the tests' handlers set themselves: the body is sent as it is.
const AS_IS = new Set([undefined, 'identity', 'x-custom']);

/** The body a client decodes from `body` sent with this Content-Encoding (throws on bad data). */
function decode(encoding, body) {
  if (body.length === 0 || AS_IS.has(encoding)) return body;
  const decoder = DECODERS[encoding];
  if (!decoder) throw new Error(`unexpected Content-Encoding ${encoding}`);
  return decoder(body);
}

// Differ by run or by framing (a Content-Length where the peer streams is a documented difference).
const IGNORED = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** The response headers compared with the peer's. */
function comparable(headers) {
  const out = {};
  for (const [name, value] of Object.entries(headers)) if (!IGNORED.has(name)) out[name] = value;
  return out;
}

module.exports = { pick, makeText, decode, comparable };
