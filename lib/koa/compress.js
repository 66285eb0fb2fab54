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
const { peerOptions } = require('../options');
const { KOA_COMPRESS_OPTIONS } = require('../compression/option-names');
const Stream = require('stream');
const zlib = require('zlib');
const { compressible } = require('../http/compressible');
const { createNegotiator } = require('../compression/negotiate');
const { createEncoder } = require('../compression/encoders');
const { cacheFrom } = require('../compression/content-cache');
const { encodeBody } = require('../compression/whole-body');
const { parseBytes } = require('../http/bytes');
const { DictionaryTransport } = require('../compression/dictionary-transport');
const { linkWith } = require('../compression/dictionary-headers');
const { isHtmlOrXhtml: isHtml } = require('../http/html');
const { whenHeadSent } = require('../http/sent-head');
const { KoaPipeline, aroundNext } = require('./pipeline');

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
// The order in which compress's dcz choice sees a session's cookie (the late-mark warning:
// lib/compression/dictionary-transport.js)
const LATE_MARK_ADVICE =
  'Mount session middleware (koa-session) after compress({ dictionary: true }): one mounted before it ' +
  'sets its cookie after compress has answered';

// koa-compress's threshold: 1024 when unset, a string of bytes ('1kb') parsed; null or 0: none.
function thresholdOf(threshold) {
  if (threshold === undefined) return 1024;
  return typeof threshold === 'string' ? parseBytes(threshold) : threshold;
}

// The codings a response may use: those its options do not turn off.
function allowedBy(responseOptions) {
  return AVAILABLE.filter((coding) => responseOptions[coding] !== false && responseOptions[coding] !== null);
}

// Koa's ctx.response.type: the Content-Type without its parameters, '' when there is none.
function typeOf(res) {
  const type = res.getHeader('Content-Type');
  if (!type) return '';
  return type.split(';', 1)[0];
}

function isJSON(body) {
  return Boolean(body) && typeof body !== 'string' && typeof body.pipe !== 'function' && !Buffer.isBuffer(body);
}

function compress(options = {}) {
  peerOptions(options, KOA_COMPRESS_OPTIONS, 'compress(options)');
  let {
    filter = compressible,
    defaultEncoding,
    wildcardAcceptEncoding,
    encodingPreference = DEFAULT_PREFERENCE,
  } = options;
  if (!wildcardAcceptEncoding || wildcardAcceptEncoding === '*') wildcardAcceptEncoding = 'gzip';
  defaultEncoding = defaultEncoding === '*' ? wildcardAcceptEncoding : !defaultEncoding ? 'identity' : defaultEncoding;
  const cache = cacheFrom(options.cache);
  // Compression Dictionary Transport (RFC 9842, `dcz`), opt-in: lib/compression/dictionary-transport.js
  const dictionaries = DictionaryTransport.from(options.dictionary, 'koa-compress');

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

  // The middleware's own options decided once: with no function among the threshold and the
  // per-coding options, a response without its own `ctx.compress` options needs no copy of them,
  // no list of codings and no negotiator lookup of its own.
  const plainOptions =
    typeof options.threshold !== 'function' && AVAILABLE.every((c) => typeof options[c] !== 'function');
  const plainThreshold = plainOptions ? thresholdOf(options.threshold) : undefined;
  const plainNegotiate = plainOptions ? negotiatorFor(allowedBy(options)) : undefined;

  async function compressMiddleware(ctx, next) {
    if (dictionaries !== null && dictionaries.owns(ctx.url)) {
      const answer = dictionaries.serve(ctx.method, ctx.url);
      ctx.status = answer.status;
      ctx.set(answer.headers);
      ctx.body = answer.body;
      return;
    }
    varyOn(ctx);
    return aroundNext(ctx, next, stage);
  }

  function varyOn(ctx) {
    ctx.vary('Accept-Encoding');
    if (dictionaries !== null) ctx.vary('Available-Dictionary');
  }

  // The Koa pipeline's last stage (pipeline.js): after the cache's store, also on its hits. A
  // cache mounted in front answers a hit before this middleware runs: it mounts the stage then.
  const stage = {
    place: 'compression',
    run: compressBody,
    mount(ctx) {
      varyOn(ctx);
      KoaPipeline.on(ctx).use(stage);
    },
  };

  // a promise only while an encoding is on the thread pool
  function compressBody(ctx) {
    // headers read from the response itself: Koa 2's ctx.response.get() copies every header
    // (res.getHeaders()) on each call
    const res = ctx.res;
    let { body } = ctx;
    // what the response ended with, for the learner and the late-mark check
    const sent = dictionaries === null ? null : learnAndAnnounce(ctx, body);
    if (
      !body ||
      res.headersSent ||
      !ctx.writable ||
      ctx.compress === false ||
      ctx.request.method === 'HEAD' ||
      EMPTY_BODY_STATUSES.has(res.statusCode) ||
      res.statusCode === 206 ||
      res.getHeader('Content-Range') ||
      MULTIPART_BYTERANGES_REGEXP.test(res.getHeader('Content-Type') || '') ||
      res.getHeader('Content-Encoding')
    ) {
      return;
    }
    const type = typeOf(res);
    if (!(ctx.compress === true || filter(type)) || NO_TRANSFORM_REGEXP.test(res.getHeader('Cache-Control') || ''))
      return;
    const size = res.hasHeader('Content-Length')
      ? parseInt(res.getHeader('Content-Length'), 10) || 0
      : ctx.response.length;

    let responseOptions;
    let negotiate;
    if (plainOptions && (ctx.compress === undefined || ctx.compress === true)) {
      if (plainThreshold && size < plainThreshold) return;
      responseOptions = options;
      negotiate = plainNegotiate;
    } else {
      responseOptions = { ...options, ...ctx.compress };
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
      negotiate = negotiatorFor(allowedBy(responseOptions));
    }

    let header = ctx.request.headers['accept-encoding'];
    if (header === '*') header = wildcardAcceptEncoding;
    else if (!header) header = defaultEncoding;
    // negotiator answers identity when nothing else is acceptable
    let coding = negotiate(header) || 'identity';
    let dictionary = null;
    if (dictionaries !== null && !(body instanceof Stream)) {
      dictionary = dictionaries.choose(
        ctx.request.headers['accept-encoding'],
        ctx.request.headers['available-dictionary'],
        {
          req: ctx.req,
          status: res.statusCode,
          getHeader: (name) => res.getHeader(name),
        },
      );
      if (dictionary !== null) {
        coding = 'dcz';
        sent.answeredWith = dictionary;
      }
    }
    if (coding === 'identity') return;

    if (isJSON(body)) body = ctx.body = JSON.stringify(body);

    res.setHeader('Content-Encoding', coding);
    res.removeHeader('Content-Length');
    const option = responseOptions[coding];

    if (body instanceof Stream) {
      const stream = encoderFor(coding, option).stream();
      ctx.body = stream;
      body.pipe(stream);
      return;
    }
    const encoder = dictionary !== null ? dictionary.encoder : encoderFor(coding, option);
    let encoded;
    try {
      encoded = encodeBody(cache, encoder, body, res.getHeader('ETag'));
    } catch {
      return sendUnencoded(ctx, body);
    }
    if (!(encoded instanceof Promise)) return sendEncoded(ctx, body, encoded, dictionary);
    return encoded.then(
      (bytes) => sendEncoded(ctx, body, bytes, dictionary),
      () => sendUnencoded(ctx, body),
    );
  }

  function sendEncoded(ctx, body, encoded, dictionary) {
    ctx.body = encoded;
    if (dictionary !== null)
      dictionaries.record(typeof body === 'string' ? Buffer.byteLength(body) : body.length, encoded.length);
  }

  // the body goes out as it came rather than not at all
  function sendUnencoded(ctx, body) {
    ctx.remove('Content-Encoding');
    ctx.body = typeof body === 'string' ? Buffer.from(body) : body;
  }

  // A whole HTML body: announce the dictionary (Link). Once the response has ended, on the head
  // it went out with (a session middleware mounted outside this one sets its cookie after us), a
  // whole HTML body is offered to the learner and a dcz answer checked for a late mark.
  function learnAndAnnounce(ctx, body) {
    const sent = { body: undefined, answeredWith: null };
    const { res, req } = ctx;
    whenHeadSent(res, () => dictionaries.ended(req, res, sent.body, sent.answeredWith, LATE_MARK_ADVICE));
    if (!isHtml(ctx.response.get('Content-Type'))) return sent;
    const link = dictionaries.link();
    if (link !== undefined) ctx.set('Link', linkWith(ctx.response.get('Link') || undefined, link));
    if (typeof body === 'string' || Buffer.isBuffer(body)) sent.body = body;
    return sent;
  }

  Object.assign(compressMiddleware, {
    preferredEncodings: AVAILABLE,
    encodingOptions,
    cache,
    dictionary: dictionaries,
  });
  return compressMiddleware;
}

module.exports = { compress };
