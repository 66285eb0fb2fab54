'use strict';
// fastifyCompress: a drop-in for @fastify/compress 9.2 on Fastify 4 and 5, on the compression
// engine of ssr-native/compression. The same options, route-level `compress` / `decompress`
// settings, `reply.compress(payload)`, negotiation (@fastify/accept-negotiator's answers, zstd
// first where the runtime has it, Brotli at quality 4), headers and errors; request payloads
// are decompressed as the peer does (decompress.js).
//
// What changes is a payload known whole: a string, a Buffer, or what Fastify serialized. It goes
// through the shared content cache: a body seen before is answered with its stored compressed
// bytes and their Content-Length, with no compression at all; a new one is compressed once, in
// one shot, with the window sized to it. Up to `syncThreshold` bytes that happens in the hook,
// as the peer compresses such bodies at once; a larger new body is compressed off the hook (one
// per turn of the event loop, or on libuv's pool) and its bytes stream out in one chunk, so
// Fastify's hooks are answered in the same turn (a handler that calls reply.send without
// returning the reply, which Fastify tolerates, would otherwise be answered twice). Streams go
// through a zlib stream as in the peer (compress-streams.js).
const zlib = require('zlib');
const os = require('os');
const { Readable, pipeline } = require('stream');
const mimeDb = require('mime-db');
const { createNegotiator } = require('../compression/negotiate');
const { createEncoder } = require('../compression/encoders');
const { cacheFrom } = require('../compression/content-cache');
const { encodeWhole, encodeWholeNow, textBytes } = require('../compression/whole-body');
const { alreadyEncoded, isStream, zipStream, unzipStream, inflatable } = require('./compress-streams');
const { decompressParams, addDecompressHook, byOrderOf, SUPPORTED } = require('./decompress');
const { fastifyCompressVary, varyWith } = require('../http/vary');
const { isHtmlOrXhtml: isHtml } = require('../http/html');
const { asPlugin } = require('./plugin-meta');
const { DictionaryTransport } = require('../compression/dictionary-transport');
const { linkWith } = require('../compression/dictionary-headers');
const { whenHeadSent } = require('../http/sent-head');

// @fastify/compress's default compressible types (text but event streams, JSON, text, XML and
// octet-stream), besides mime-db's compressible flag.
const DEFAULT_TYPES =
  /^text\/(?!event-stream)|(?:\+|\/)json(?:;|$)|(?:\+|\/)text(?:;|$)|(?:\+|\/)xml(?:;|$)|octet-stream(?:;|$)/u;
// The order in which the dcz choice sees a session's cookie (the late-mark warning:
// lib/compression/dictionary-transport.js): onSend hooks run in the order they were added
const LATE_MARK_ADVICE =
  'Register @fastify/session (and any plugin whose onSend hook sets a cookie) before ' +
  'fastifyCompress({ dictionary: true }): an onSend hook added after it runs after the dcz choice';
const BROTLI_DEFAULTS = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };

// The peer's default for `syncThreshold`: 64 KiB on one CPU, an eighth of it for each CPU more
// (up to four: libuv's default pool), never under 4 KiB. Below it the peer compresses at once
// and answers with a Content-Length; so do we for a body not seen before.
const DEFAULT_SYNC_THRESHOLD = (() => {
  const cpus = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return Math.min(65536, Math.max(4096, 65536 / 8 ** (Math.min(Math.max(cpus, 1), 4) - 1)));
})();

function compressibleBy(customTypes) {
  const custom =
    customTypes instanceof RegExp
      ? (type) => customTypes.test(type)
      : typeof customTypes === 'function'
        ? customTypes
        : (type) => DEFAULT_TYPES.test(type);
  return function compressible(type) {
    if (custom(type)) return true;
    const entry = mimeDb[type.split(';', 1)[0].trim().toLowerCase()];
    return entry !== undefined && entry.compressible === true;
  };
}

/**
 * The compression settings of the plugin or of one route. As in the peer, a route's `compress`
 * object replaces the plugin's options entirely (its own defaults, not the plugin's values);
 * only our `cache` is inherited.
 */
function compressParams(opts, inheritedCache, inheritedDictionaries = null) {
  const impl = opts.zlib || zlib;
  const brotliOptions = { ...BROTLI_DEFAULTS, ...opts.brotliOptions };
  const zlibOptions = opts.zlibOptions || {};
  const encodings = Array.isArray(opts.encodings) ? byOrderOf(SUPPORTED, opts.encodings) : SUPPORTED;
  const encoders = {};
  for (const coding of encodings) {
    if (coding !== 'identity')
      encoders[coding] = createEncoder(coding, coding === 'br' ? brotliOptions : zlibOptions, impl);
  }
  const inflaters = {
    gzip: () => (impl.createGunzip || zlib.createGunzip)(opts.zlibOptions),
    deflate: () => (impl.createInflate || zlib.createInflate)(opts.zlibOptions),
  };
  return {
    global:
      typeof opts.globalCompression === 'boolean'
        ? opts.globalCompression
        : typeof opts.global === 'boolean'
          ? opts.global
          : true,
    removeContentLengthHeader:
      typeof opts.removeContentLengthHeader === 'boolean' ? opts.removeContentLengthHeader : true,
    onUnsupportedEncoding: opts.onUnsupportedEncoding,
    inflateIfDeflated: opts.inflateIfDeflated === true,
    threshold: typeof opts.threshold === 'number' ? opts.threshold : 1024,
    syncThreshold: typeof opts.syncThreshold === 'number' ? opts.syncThreshold : DEFAULT_SYNC_THRESHOLD,
    compressible: compressibleBy(opts.customTypes),
    encodings,
    negotiate: createNegotiator(encodings, encodings, 'fastify-compress'),
    encoders,
    inflaters,
    cache: opts.cache !== undefined || inheritedCache === undefined ? cacheFrom(opts.cache) : inheritedCache,
    // Compression Dictionary Transport (RFC 9842, `dcz`), opt-in; a route's own settings keep the plugin's
    dictionaries:
      opts.dictionary !== undefined
        ? DictionaryTransport.from(opts.dictionary, 'fastify-compress')
        : inheritedDictionaries,
  };
}

// The coding for this request: undefined without Accept-Encoding, null when none is acceptable.
function codingFor(params, request) {
  const header = request.headers['accept-encoding'];
  if (header == null) return undefined;
  const coding = params.negotiate(header);
  return coding === undefined ? null : coding;
}

// Accept-Encoding added to Vary as the peer adds it (lib/http/vary.js).
function varyOnEncoding(reply) {
  const vary = fastifyCompressVary(reply.hasHeader('Vary') ? reply.getHeader('Vary') : null);
  if (vary !== undefined) reply.header('Vary', vary);
}

function isFetchResponse(value) {
  return typeof Response === 'function' && value instanceof Response;
}

function isWebStream(value) {
  return typeof ReadableStream === 'function' && value instanceof ReadableStream;
}

// A Fetch API Response as payload: its status and headers go to the reply, its body is the payload.
function unwrapResponse(reply, response) {
  reply.code(response.status);
  for (const [name, value] of response.headers) reply.header(name, value);
  return response.body;
}

function toBuffer(payload) {
  if (Buffer.isBuffer(payload)) return payload;
  if (typeof payload === 'string') return Buffer.from(payload);
  return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
}

// The peer logs a failed stream, except a client that left (a premature close).
function logStreamError(reply) {
  return (err) => {
    if (err && err.code !== 'ERR_STREAM_PREMATURE_CLOSE' && err.message !== 'premature close') reply.log.error(err);
  };
}

// With `inflateIfDeflated`, for a client that takes no coding: a compressed payload inflated.
function inflateFor(params, reply, payload, coding, serialize) {
  const source = inflatable(payload, serialize);
  if (source === undefined) return payload;
  if (coding === undefined) reply.removeHeader('Content-Encoding');
  else reply.header('Content-Encoding', 'identity');
  const inflated = unzipStream(params.inflaters);
  pipeline(source, inflated, logStreamError(reply));
  return inflated;
}

// A stream compressed as the peer compresses it; `send` gets the stream to answer with.
function sendStream(params, reply, source, coding, send) {
  varyOnEncoding(reply);
  reply.header('Content-Encoding', coding);
  if (params.removeContentLengthHeader) reply.removeHeader('content-length');
  const out = zipStream(params.encoders[coding]);
  pipeline(source, out, logStreamError(reply));
  return send(out);
}

// `asStream`: the bytes handed over as a stream of one chunk, with their Content-Length: for
// reply.compress where the peer hands Fastify a stream, so that Fastify adds no Content-Type of
// its own (a Buffer sent without one becomes application/octet-stream).
function sendCompressed(reply, coding, bytes, send, asStream) {
  varyOnEncoding(reply);
  reply.header('Content-Encoding', coding);
  reply.header('Content-Length', bytes.length);
  return send(asStream ? Readable.from([bytes]) : bytes);
}

/**
 * A whole body compressed through the content cache; `send(payload)` answers with the result,
 * `fail(err)` with an error (a compression that throws at once). `viaSend`: reply.compress,
 * whose payload goes to reply.send rather than back to Fastify's hook.
 */
function sendWhole(params, reply, payload, coding, send, fail, viaSend, dictionary = null) {
  const encoder = dictionary !== null ? dictionary.encoder : params.encoders[coding];
  const tag = reply.getHeader('etag');
  // a string seen before: its bytes and CRC from the text memo, no encoding (whole-body.js)
  const text = typeof payload === 'string' ? textBytes(params.cache, encoder, payload, tag) : undefined;
  const bytes = text !== undefined ? text.bytes : toBuffer(payload);
  const crc = text !== undefined ? text.crc : undefined;
  if (dictionary !== null) send = recordingDictionary(params.dictionaries, bytes, send);
  // where the peer compresses at once (else it streams)
  const now = bytes.length <= params.syncThreshold && encoder.canCompressNow;
  if (reply.statusCode === 204 || reply.statusCode === 304) {
    // no body goes out with these: the peer's headers, nothing compressed (and no Content-Length
    // of bytes never sent). reply.send gives a Buffer without a type application/octet-stream.
    varyOnEncoding(reply);
    reply.header('Content-Encoding', coding);
    if (params.removeContentLengthHeader) reply.removeHeader('content-length');
    if (viaSend && now && !reply.hasHeader('content-type')) reply.type('application/octet-stream');
    return send(Readable.from([]));
  }
  // data of this coding already goes out as it is (compress-streams.js: where the peer differs)
  if (alreadyEncoded(bytes, coding)) return sendCompressed(reply, coding, bytes, send, viaSend && !now);
  if (now) {
    let encoded;
    try {
      encoded = encodeWholeNow(params.cache, encoder, bytes, tag, crc);
    } catch (err) {
      return fail(err);
    }
    return sendCompressed(reply, coding, encoded, send);
  }
  let out = null;
  const hit = encodeWhole(
    params.cache,
    encoder,
    bytes,
    tag,
    (err, encoded) => {
      if (out.destroyed) return;
      if (err) {
        reply.log.error(err);
        // nothing has gone out yet: the body goes out as it came rather than not at all
        if (reply.raw.headersSent) return void out.destroy(err);
        reply.raw.removeHeader('Content-Encoding');
        encoded = bytes;
      }
      out.push(encoded);
      out.push(null);
    },
    crc,
  );
  if (hit !== undefined) return sendCompressed(reply, coding, hit, send, viaSend);
  // a body not seen before, larger than syncThreshold: streamed once compressed, as the peer streams it
  out = new Readable({ read() {} });
  varyOnEncoding(reply);
  reply.header('Content-Encoding', coding);
  reply.removeHeader('content-length');
  return send(out);
}

// Counts a dcz answer once its bytes are known (a stream of them: when it ends).
function recordingDictionary(dictionaries, bytes, send) {
  return (result) => {
    if (Buffer.isBuffer(result)) dictionaries.record(bytes.length, result.length);
    return send(result);
  };
}

// With a dictionary: Vary on Available-Dictionary and the Link on HTML. Once the response has
// ended, on the head it went out with (every onSend hook's headers: Fastify hands them to
// res.writeHead), a whole HTML body is offered to the learner and a dcz answer checked for a late
// mark. Returns that record, whose `answeredWith` the dcz choice sets.
function dictionaryOnSend(dictionaries, request, reply, payload) {
  const sent = { body: undefined, answeredWith: null };
  const res = reply.raw;
  const req = request.raw;
  whenHeadSent(res, () => dictionaries.ended(req, res, sent.body, sent.answeredWith, LATE_MARK_ADVICE));
  const type = reply.getHeader('Content-Type');
  reply.header('Vary', varyWith(reply.getHeader('Vary'), 'Available-Dictionary'));
  if (!isHtml(type)) return sent;
  const link = dictionaries.link();
  if (link !== undefined) reply.header('Link', linkWith(reply.getHeader('Link'), link));
  if (typeof payload === 'string' || Buffer.isBuffer(payload)) sent.body = payload;
  return sent;
}

// The dictionary a whole body is answered with in dcz, or null.
function dictionaryFor(params, request, reply, payload) {
  if (params.dictionaries === null || isStream(payload) || isWebStream(payload)) return null;
  return params.dictionaries.choose(request.headers['accept-encoding'], request.headers['available-dictionary'], {
    req: request.raw,
    status: reply.statusCode,
    getHeader: (name) => reply.getHeader(name),
  });
}

function onSendHook(params) {
  return function compressOnSend(request, reply, payload, next) {
    if (isFetchResponse(payload)) payload = unwrapResponse(reply, payload);
    if (payload == null) return next(null, payload);
    const current = reply.getHeader('Content-Encoding');
    if (current && current !== 'identity') return next(null, payload);
    if (params.dictionaries !== null && params.compressible(reply.getHeader('Content-Type') || 'application/json')) {
      const sent = dictionaryOnSend(params.dictionaries, request, reply, payload);
      const dictionary = reply.statusCode === 206 ? null : dictionaryFor(params, request, reply, payload);
      if (dictionary !== null && Buffer.byteLength(payload) >= params.threshold) {
        sent.answeredWith = dictionary;
        return sendWhole(params, reply, payload, 'dcz', (result) => next(null, result), next, false, dictionary);
      }
    }

    let coding;
    const leave =
      request.headers['x-no-compression'] !== undefined ||
      // Content-Range counts unencoded bytes: partial content is left alone
      reply.statusCode === 206 ||
      reply.getHeader('Content-Range') !== undefined ||
      !params.compressible(reply.getHeader('Content-Type') || 'application/json') ||
      (coding = codingFor(params, request)) == null ||
      coding === 'identity';
    // as the peer: also reached when a rule above left `coding` unread
    if (coding == null && params.onUnsupportedEncoding != null) {
      let answer;
      try {
        answer = params.onUnsupportedEncoding(request.headers['accept-encoding'], reply.request, reply);
      } catch (err) {
        return next(err);
      }
      return next(null, answer);
    }
    if (leave) return next(null, params.inflateIfDeflated ? inflateFor(params, reply, payload, coding) : payload);

    const send = (result) => next(null, result);
    if (!isStream(payload)) {
      if (isWebStream(payload)) return sendStream(params, reply, Readable.fromWeb(payload), coding, send);
      if (Buffer.byteLength(payload) < params.threshold) return next();
      return sendWhole(params, reply, payload, coding, send, next);
    }
    return sendStream(params, reply, payload, coding, send);
  };
}

// reply.compress(payload): the same decision for a payload handed over directly.
function compressMethod(params) {
  return function compress(payload) {
    if (payload == null) {
      this.send(new Error('Internal server error'));
      return undefined;
    }
    if (isFetchResponse(payload)) {
      if (payload.body === null) return this.send(payload);
      payload = unwrapResponse(this, payload);
    }
    let coding;
    const leave =
      this.request.headers['x-no-compression'] !== undefined ||
      !params.compressible(this.getHeader('Content-Type') || 'application/json') ||
      (coding = codingFor(params, this.request)) == null ||
      coding === 'identity';
    if (coding == null && params.onUnsupportedEncoding != null) {
      let answer;
      try {
        answer = params.onUnsupportedEncoding(this.request.headers['accept-encoding'], this.request, this);
      } catch (err) {
        answer = err;
      }
      return this.send(answer);
    }
    if (leave) {
      if (params.inflateIfDeflated) payload = inflateFor(params, this, payload, coding, (p) => this.serialize(p));
      return this.send(payload);
    }

    const send = (result) => this.send(result);
    if (isWebStream(payload)) return sendStream(params, this, Readable.fromWeb(payload), coding, send);
    if (isStream(payload)) return sendStream(params, this, payload, coding, send);
    // other values are serialized as the route would (typed arrays included, as in the peer)
    if (!Buffer.isBuffer(payload) && typeof payload !== 'string') payload = this.serialize(payload);
    if (Buffer.byteLength(payload) < params.threshold) return this.send(payload);
    return sendWhole(params, this, payload, coding, send, send, true);
  };
}

function appendHook(routeOptions, name, hook) {
  const hooks = routeOptions[name];
  if (Array.isArray(hooks)) hooks.push(hook);
  else if (typeof hooks === 'function') routeOptions[name] = [hooks, hook];
  else routeOptions[name] = [hook];
}

function addCompressHooks(params, routeOptions, decorateOnly) {
  const method = compressMethod(params);
  appendHook(routeOptions, 'onRequest', function compressDecorate(request, reply, next) {
    reply.compress = method;
    next();
  });
  if (!decorateOnly) appendHook(routeOptions, 'onSend', onSendHook(params));
}

async function fastifyCompress(fastify, opts) {
  const options = opts || {};
  const global = compressParams(options);
  const decompress = decompressParams(options);
  if (options.encodings && options.encodings.length < 1)
    throw new Error('The `encodings` option array must have at least 1 item.');
  if (options.requestEncodings && options.requestEncodings.length < 1)
    throw new Error('The `requestEncodings` option array must have at least 1 item.');
  if (global.encodings.length < 1)
    throw new Error('None of the passed `encodings` were supported — compression not possible.');
  if (decompress.encodings.length < 1)
    throw new Error('None of the passed `requestEncodings` were supported — request decompression not possible.');
  if (decompress.forced && !decompress.encodings.includes(decompress.forced))
    throw new Error(`Unsupported decompression encoding ${options.forceRequestEncoding}.`);

  fastify.decorateReply('compress', null);
  if (global.dictionaries !== null) {
    const dictionaries = global.dictionaries;
    fastify.get(`${dictionaries.prefix}*`, { compress: false }, (request, reply) => {
      const answer = dictionaries.serve(request.method, request.url);
      reply.code(answer.status).headers(answer.headers).send(answer.body);
    });
  }
  fastify.addHook('onRoute', (routeOptions) => {
    // As the peer: an object replaces the plugin's settings for this route (null keeps them, and
    // compresses even where `global` is false), false leaves the route alone.
    const compress = routeOptions.compress;
    if (compress === undefined) addCompressHooks(global, routeOptions, !global.global);
    else if (compress === null) addCompressHooks(global, routeOptions, false);
    else if (typeof compress === 'object')
      addCompressHooks(compressParams(compress, global.cache, global.dictionaries), routeOptions, false);
    else if (compress !== false) throw new Error('Unknown value for route compress configuration');

    const own = routeOptions.decompress;
    if (own === undefined) {
      if (decompress.global) addDecompressHook(decompress, routeOptions);
    } else if (own === null) addDecompressHook(decompress, routeOptions);
    else if (typeof own === 'object') addDecompressHook(decompressParams(own), routeOptions);
    else if (own !== false) throw new Error('Unknown value for route decompress configuration');
  });
}

module.exports = asPlugin(fastifyCompress, '@fastify/compress', 'fastifyCompress');
module.exports.DEFAULT_SYNC_THRESHOLD = DEFAULT_SYNC_THRESHOLD;
