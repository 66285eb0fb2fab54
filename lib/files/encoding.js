'use strict';
// Precomputed gzip and brotli variants for serveStatic({ compress: true }), and the
// Accept-Encoding negotiation that picks one.
const zlib = require('zlib');
const mimeDb = require('mime-db');

const COMPRESSIBLE_TYPE_REGEXP = /^text\/|\+(?:json|text|xml)$/i;
const ENCODINGS = ['br', 'gzip']; // preference on equal q

// Same rule as the `compressible` package: mime-db's flag, else text/* and +json/+text/+xml.
function isCompressible(contentType) {
  const type = String(contentType).split(';')[0].trim().toLowerCase();
  const entry = mimeDb[type];
  if (entry && entry.compressible !== undefined) return entry.compressible;
  return COMPRESSIBLE_TYPE_REGEXP.test(type);
}

// q-value of each coding named in an Accept-Encoding header (RFC 9110 12.5.3).
function parseAcceptEncoding(header) {
  const q = new Map();
  for (const item of String(header).split(',')) {
    const parts = item.split(';');
    const coding = parts[0].trim().toLowerCase();
    if (!coding) continue;
    let value = 1;
    for (let i = 1; i < parts.length; i++) {
      const param = parts[i].trim();
      if (param[0] === 'q' || param[0] === 'Q') {
        const eq = param.indexOf('=');
        const parsed = eq === -1 ? NaN : Number(param.slice(eq + 1).trim());
        value = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 0;
      }
    }
    // the highest q wins if a coding is listed twice
    if (!q.has(coding) || q.get(coding) < value) q.set(coding, value);
  }
  return q;
}

// The encoding to send ('br', 'gzip') or undefined for identity. Ties: br, gzip, identity.
function chooseEncoding(header, variants) {
  if (!header) return undefined;
  const q = parseAcceptEncoding(header);
  const star = q.has('*') ? q.get('*') : 0;
  const identity = q.has('identity') ? q.get('identity') : q.has('*') ? star : 1;
  let best;
  let bestQ = 0;
  for (const encoding of ENCODINGS) {
    if (!variants[encoding]) continue;
    const value = q.has(encoding) ? q.get(encoding) : star;
    if (value > bestQ) {
      best = encoding;
      bestQ = value;
    }
  }
  if (best === undefined) return undefined;
  return bestQ >= identity || identity === 0 ? best : undefined;
}

// Compresses `file` once (on the libuv pool) and attaches the variants to the native entry.
// Returns a promise that settles when the variants are known.
function compressVariants(cache, file) {
  const id = file.id;
  if (!cache._startVariants(id)) return Promise.resolve();
  let settle;
  const settled = new Promise((resolve) => (settle = resolve));
  const variants = {};
  for (const encoding of ENCODINGS) {
    const known = cache.nativeVariant(id, encoding);
    if (known) variants[encoding] = { ...known, encoding };
  }
  const missing = ENCODINGS.filter((e) => !variants[e]);
  if (missing.length === 0) {
    cache._finishVariants(id, variants);
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
      cache._finishVariants(id, variants);
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

module.exports = { isCompressible, parseAcceptEncoding, chooseEncoding, compressVariants };
