'use strict';
// Precomputed gzip and brotli variants for serveStatic({ compress: true }) and Koa's serve({
// compress: true }); the Accept-Encoding reading that picks one is lib/http/accept-encoding.js.
const zlib = require('zlib');
const { compressible } = require('../http/compressible');

const { ENCODINGS } = require('../http/accept-encoding');

// The `compressible` package's rule (lib/http/compressible.js), unknown types not compressed.
function isCompressible(contentType) {
  return compressible(String(contentType)) === true;
}

// Compresses `file` once (on the libuv pool) and attaches the variants to the native entry.
// Returns a promise that settles when the variants are known.
function compressVariants(cache, file) {
  const id = file.id;
  if (!cache.startVariants(id)) return Promise.resolve();
  let settle;
  const settled = new Promise((resolve) => (settle = resolve));
  const variants = {};
  for (const encoding of ENCODINGS) {
    const known = cache.nativeVariant(id, encoding);
    if (known) variants[encoding] = { ...known, encoding };
  }
  const missing = ENCODINGS.filter((e) => !variants[e]);
  if (missing.length === 0) {
    cache.finishVariants(id, variants);
    return Promise.resolve();
  }
  const body = file.body;
  let left = missing.length;
  const done = (encoding) => (err, out) => {
    if (!err && out.length < body.length) {
      let attached = null;
      try {
        attached = cache.attachVariant(id, encoding, out);
      } catch {
        // the cache was closed meanwhile: nothing to attach to
      }
      if (attached) variants[encoding] = { ...attached, encoding };
    }
    if (--left === 0) {
      cache.finishVariants(id, variants);
      settle();
    }
  };
  for (const encoding of missing) {
    if (encoding === 'gzip') zlib.gzip(body, { level: 9 }, done('gzip'));
    else {
      zlib.brotliCompress(
        body,
        {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: body.length > 1 << 20 ? 9 : 11,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
          },
        },
        done('br'),
      );
    }
  }
  return settled;
}

module.exports = { isCompressible, compressVariants };
