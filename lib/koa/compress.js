'use strict';
// compress(options): a drop-in for koa-compress 5.2 (Koa 2 and 3) on the compression engine of
// ssr-native/compression. Same options (filter, threshold as a number, string or function,
// defaultEncoding, wildcardAcceptEncoding, encodingPreference, per-coding options that may be
// objects, functions, false or null), the same `ctx.compress` override (true, false, or options
// for this response), the same negotiation (zstd, br, gzip, deflate where the runtime has them;
// Brotli at quality 4).
//
// A body that is a string, a Buffer or JSON is known whole: it is compressed in one shot through
// the content cache and becomes a Buffer body, so Koa sends it with a Content-Length (where
// koa-compress makes every compressed body a stream sent chunked). A stream body is piped
// through a zlib stream, as koa-compress does.
const Stream = require('stream');
const zlib = require('zlib');
const { compressible } = require('../http/compressible');
const { createNegotiator } = require('../compression/negotiate');
const { createEncoder } = require('../compression/encoders');
const { cacheFrom } = require('../compression/content-cache');
const { encodeWhole } = require('../compression/whole-body');
const { parseBytes } = require('../http/bytes');

const STREAMS = {
  zstd: zlib.createZstdCompress,
  br: zlib.createBrotliCompress,
  gzip: zlib.createGzip,
  deflate: zlib.createDeflate,
};
const DEFAULT_PREFERENCE = ['zstd', 'br', 'gzip', 'deflate', 'identity'];
const AVAILABLE = DEFAULT_PREFERENCE.filter((coding) => STREAMS[coding] || coding === 'identity');
const CODING_DEFAULTS = {
  gzip: {},
  deflate: {},
  br: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } },
  zstd: {},
};
const NO_TRANSFORM_REGEXP = /(?:^|,)\s*?no-transform\s*?(?:,|$)/;
const EMPTY_BODY_STATUSES = new Set([204, 205, 304]);
const MULTIPART_BYTERANGES_REGEXP = /^multipart\/byteranges\b/i;

function isJSON(body) {
  return Boolean(body) && typeof body !== 'string' && typeof body.pipe !== 'function' && !Buffer.isBuffer(body);
}

function compress(options = {}) {
  let {
    filter = compressible,
    defaultEncoding,
    wildcardAcceptEncoding,
    encodingPreference = DEFAULT_PREFERENCE,
  } = options;
  if (!wildcardAcceptEncoding || wildcardAcceptEncoding === '*') wildcardAcceptEncoding = 'gzip';
  defaultEncoding = defaultEncoding === '*' ? wildcardAcceptEncoding : !defaultEncoding ? 'identity' : defaultEncoding;
  const cache = cacheFrom(options.cache);

  const encodingOptions = {};
  for (const coding of AVAILABLE) encodingOptions[coding] = { ...CODING_DEFAULTS[coding], ...options[coding] };

  // Negotiators by the list of codings allowed for a response (most responses: all of them).
  const negotiators = new Map();
  function negotiatorFor(codings) {
    const key = codings.join(',');
    let negotiate = negotiators.get(key);
    if (negotiate === undefined) {
      negotiate = createNegotiator(codings, encodingPreference, 'negotiator1');
      if (negotiators.size < 64) negotiators.set(key, negotiate);
    }
    return negotiate;
  }

  // Encoders by coding for the middleware's own options; per-response options get their own.
  const encoders = new Map();
  function encoderFor(coding, responseOption) {
    const own = responseOption === options[coding];
    if (own && encoders.has(coding)) return encoders.get(coding);
    const encoder = createEncoder(coding, { ...CODING_DEFAULTS[coding], ...responseOption });
    if (own) encoders.set(coding, encoder);
    return encoder;
  }

  async function compressMiddleware(ctx, next) {
    ctx.vary('Accept-Encoding');
    await next();

    let { body } = ctx;
    const { type, length: size } = ctx.response;
    if (
      !body ||
      ctx.res.headersSent ||
      !ctx.writable ||
      ctx.compress === false ||
      ctx.request.method === 'HEAD' ||
      EMPTY_BODY_STATUSES.has(ctx.status) ||
      ctx.status === 206 ||
      ctx.response.get('Content-Range') ||
      MULTIPART_BYTERANGES_REGEXP.test(ctx.response.get('Content-Type') || '') ||
      ctx.response.get('Content-Encoding') ||
      !(ctx.compress === true || filter(type)) ||
      NO_TRANSFORM_REGEXP.test(ctx.response.get('Cache-Control'))
    ) {
      return;
    }

    const responseOptions = { ...options, ...ctx.compress };
    let { threshold = 1024 } = responseOptions;
    while (typeof threshold === 'function') threshold = threshold(type, size, ctx);
    if (typeof threshold === 'string') threshold = parseBytes(threshold);
    if (threshold && size < threshold) return;

    for (const coding of AVAILABLE) {
      if (!(coding in responseOptions)) continue;
      let option = responseOptions[coding];
      while (typeof option === 'function') option = option(type, size, ctx);
      responseOptions[coding] = option;
    }
    const allowed = AVAILABLE.filter((coding) => responseOptions[coding] !== false && responseOptions[coding] !== null);

    let header = ctx.request.headers['accept-encoding'];
    if (header === '*') header = wildcardAcceptEncoding;
    else if (!header) header = defaultEncoding;
    // negotiator answers identity when nothing else is acceptable
    const coding = negotiatorFor(allowed)(header) || 'identity';
    if (coding === 'identity') return;

    if (isJSON(body)) body = ctx.body = JSON.stringify(body);

    ctx.set('Content-Encoding', coding);
    ctx.res.removeHeader('Content-Length');
    const option = responseOptions[coding];

    if (body instanceof Stream) {
      const stream = encoderFor(coding, option).stream();
      ctx.body = stream;
      body.pipe(stream);
      return;
    }
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    let settle;
    const hit = encodeWhole(cache, encoderFor(coding, option), bytes, ctx.response.get('ETag'), (err, result) =>
      settle(err, result),
    );
    try {
      // the callback never runs synchronously, so `settle` is set before it is called
      ctx.body =
        hit !== undefined
          ? hit
          : await new Promise((resolve, reject) => {
              settle = (err, result) => (err ? reject(err) : resolve(result));
            });
    } catch {
      // the body goes out as it came rather than not at all
      ctx.remove('Content-Encoding');
      ctx.body = bytes;
    }
  }

  Object.assign(compressMiddleware, { preferredEncodings: AVAILABLE, encodingOptions, cache });
  return compressMiddleware;
}

module.exports = { compress };
