'use strict';
// Request-payload decompression for fastifyCompress: @fastify/compress 9.2's preParsing hook,
// with its options, its answers (415 for a Content-Encoding it does not take, 400 for a payload
// that does not decode) and its error objects. Node's zlib streams do the work, as in the peer:
// a request body is read once, so there is nothing to cache. Fastify's own limits still apply
// to the decoded bytes (bodyLimit: 413), and the Content-Length check counts the encoded bytes.
const zlib = require('zlib');
const { finished } = require('stream');
const { format } = require('util');

// @fastify/compress's errors: own enumerable name, code, message and statusCode (the peer copies
// them onto zlib's error with Object.assign, so they must be own enumerable properties).
function compressError(code, message, statusCode) {
  class FastifyCompressError extends Error {
    constructor(detail) {
      super();
      this.name = 'FastifyCompressError';
      this.code = code;
      this.message = detail ? format(message, detail) : message;
      this.statusCode = statusCode;
    }

    toString() {
      return `${this.name} [${this.code}]: ${this.message}`;
    }
  }
  return FastifyCompressError;
}

const InvalidRequestEncodingError = compressError(
  'FST_CP_ERR_INVALID_CONTENT_ENCODING',
  'Unsupported Content-Encoding: %s',
  415,
);
const InvalidRequestCompressedPayloadError = compressError(
  'FST_CP_ERR_INVALID_CONTENT',
  'Could not decompress the request payload using the provided encoding',
  400,
);

// The codings of @fastify/compress in its preference order, zstd where the runtime's zlib has it;
// both directions (compress.js) take their `encodings` lists from it.
const SUPPORTED = [
  ...(typeof zlib.createZstdCompress === 'function' ? ['zstd'] : []),
  'br',
  'gzip',
  'deflate',
  'identity',
];

/** The decompression settings of the plugin or of one route, from its options alone (as the peer merges them). */
function decompressParams(opts) {
  const impl = opts.zlib || zlib;
  const inflaters = {
    br: impl.createBrotliDecompress || zlib.createBrotliDecompress,
    gzip: impl.createGunzip || zlib.createGunzip,
    deflate: impl.createInflate || zlib.createInflate,
  };
  const zstd = impl.createZstdDecompress || zlib.createZstdDecompress;
  if (typeof zstd === 'function') inflaters.zstd = zstd;
  let encodings = Array.isArray(opts.requestEncodings) ? byOrderOf(SUPPORTED, opts.requestEncodings) : SUPPORTED;
  let forced = null;
  if (opts.forceRequestEncoding) {
    forced = opts.forceRequestEncoding;
    if (encodings.includes(forced)) encodings = [forced];
  }
  return {
    global: typeof opts.globalDecompression === 'boolean' ? opts.globalDecompression : opts.global !== false,
    onUnsupportedRequestEncoding: opts.onUnsupportedRequestEncoding,
    onInvalidRequestPayload: opts.onInvalidRequestPayload,
    inflaters,
    encodings,
    forced,
  };
}

/** `supported` codings that `wanted` names, in the order `wanted` names them. */
function byOrderOf(supported, wanted) {
  return supported.filter((c) => wanted.includes(c)).sort((a, b) => wanted.indexOf(a) - wanted.indexOf(b));
}

/** Puts the decompressing preParsing hook first on the route. */
function addDecompressHook(params, routeOptions) {
  const hooks = routeOptions.preParsing;
  if (Array.isArray(hooks)) hooks.unshift(preParsing);
  else if (typeof hooks === 'function') routeOptions.preParsing = [preParsing, hooks];
  else routeOptions.preParsing = [preParsing];

  function preParsing(request, reply, raw, next) {
    const encoding = params.forced || request.headers['content-encoding'];
    if (!encoding) return next(null, raw);
    if (!params.encodings.includes(encoding)) {
      let error;
      if (params.onUnsupportedRequestEncoding) {
        try {
          error = params.onUnsupportedRequestEncoding(encoding, request);
        } catch {
          error = undefined;
        }
      }
      return next(error || new InvalidRequestEncodingError(encoding));
    }
    if (encoding === 'identity') return next(null, raw);

    const inflater = params.inflaters[encoding]();
    // Fastify compares the request's Content-Length with this count of encoded bytes
    inflater.receivedEncodedLength = 0;
    // first listener: the error Fastify's body reader sees is already the 400 (or the user's)
    inflater.on('error', (error) => invalidPayload(request, params, encoding, error));
    inflater.pause();
    const count = (chunk) => {
      inflater.receivedEncodedLength += chunk.length;
    };
    raw.on('data', count);
    raw.once('end', () => raw.removeListener('data', count));
    stopAtBodyLimit(raw, inflater, bodyLimitOf(request));
    // errors reach Fastify through the inflater's 'error' (above); as a pipeline would, a
    // request that fails destroys the inflater, and a payload that does not decode the request
    raw.pipe(inflater);
    finished(raw, (error) => {
      if (error && !inflater.destroyed) inflater.destroy(error);
    });
    inflater.once('error', () => raw.destroy());
    next(null, inflater);
  }
}

// Fastify answers 413 once the decoded bytes pass bodyLimit, but only stops listening: the
// inflater would go on decoding a bomb to its end (zlib keeps decoding a written chunk whatever
// the reader wants). Past the limit, the encoded bytes left are drained unread and the inflater is
// destroyed, on the next tick, once Fastify's own listener has answered for this chunk (and so
// stopped listening).
function stopAtBodyLimit(raw, inflater, limit) {
  let inflated = 0;
  const onData = (chunk) => {
    inflated += chunk.length;
    if (inflated <= limit) return;
    inflater.removeListener('data', onData);
    process.nextTick(() => {
      // a reader still listening (a later preParsing hook that shrinks the stream) keeps it
      if (inflater.listenerCount('data') > 0) return;
      raw.unpipe(inflater);
      raw.resume();
      inflater.destroy();
    });
  };
  // the inflater is paused: this listener does not start the flow, Fastify's reader does
  inflater.on('data', onData);
  inflater.once('end', () => inflater.removeListener('data', onData));
}

/** The route's bodyLimit (Fastify 4.10+ and 5), else the server's. */
function bodyLimitOf(request) {
  const route = request.routeOptions;
  if (route && Number.isFinite(route.bodyLimit)) return route.bodyLimit;
  const config = request.server && request.server.initialConfig;
  return config && Number.isFinite(config.bodyLimit) ? config.bodyLimit : 1024 * 1024;
}

function invalidPayload(request, params, encoding, error) {
  request.log.debug(`compress: invalid request payload - ${error}`);
  let answer;
  if (params.onInvalidRequestPayload) {
    try {
      answer = params.onInvalidRequestPayload(encoding, request, error);
    } catch {
      answer = undefined;
    }
  }
  if (!answer) answer = new InvalidRequestCompressedPayloadError();
  error.decompressError = error;
  Object.assign(error, answer);
}

module.exports = {
  SUPPORTED,
  decompressParams,
  addDecompressHook,
  byOrderOf,
  InvalidRequestEncodingError,
  InvalidRequestCompressedPayloadError,
};
