'use strict';
// compression(options): a drop-in for the `compression` 1.8 middleware (Express 4/5, node:http,
// anything with (req, res, next)). Same options, same negotiation, same rules for what is left
// alone, same headers; what differs is what happens to a body that arrives whole.
//
// A body handed to res.end() before any res.write() (res.send, res.json, writeResponse, a
// response cache replaying a stored body) is known whole when the headers are decided. It is
// compressed in one shot through the content cache (content-cache.js): a body seen before is
// answered with its stored compressed bytes and their Content-Length, with no compression at
// all; a new one is compressed once, with the window sized to it, while the response holds its
// head back: on the JavaScript thread when it is small (or mid-sized at the fast settings the
// peers default to), one per turn of the event loop, else on libuv's pool (encoders.js).
// Everything else (res.write, Server-Sent Events,
// res.flush(), an explicit res.writeHead before the body) streams through a zlib stream per
// response exactly as the peer does. A response whose body started before this middleware ran
// (another middleware's held response holding it) is left alone, as the peer leaves a response
// whose head was sent before it ran.
//
// Differences from compression 1.8.2, all visible only on the wire:
// - a whole body goes out with Content-Length instead of Transfer-Encoding: chunked;
// - its head is written when the compressed body is ready, so res.headersSent stays false
//   between res.end() and then (a late setHeader succeeds instead of throwing);
// - the compressed bytes differ from the peer's by the window recorded in their header and may
//   be a few bytes shorter; decoded, they are the same body;
// - res.end(chunk, callback) and res.write(chunk, callback) call the callback (the peer drops it);
// - `zstd` (opt-in) adds Zstandard where the runtime's zlib has it;
// - `dictionary` (opt-in) adds Compression Dictionary Transport (RFC 9842, `dcz`): see
//   dictionary-transport.js and docs/compression.md.
const zlib = require('zlib');
const { peerOptions } = require('../options');
const { COMPRESSION_OPTIONS } = require('../compression/option-names');
const { compressible } = require('../http/compressible');
const { createNegotiator } = require('../compression/negotiate');
const { createEncoder, hasZstd, poolStats } = require('../compression/encoders');
const { ContentCache, sharedCache, cacheFrom } = require('../compression/content-cache');
const { encodeWhole } = require('../compression/whole-body');
const { varyAcceptEncoding } = require('../http/vary');
const { parseBytes } = require('../http/bytes');
const { DictionaryTransport } = require('../compression/dictionary-transport');
const { dictionaryHeaders, sendDictionary } = require('../compression/dictionary-headers');
const { beforeOwnMethods } = require('../response-shape');
const { HeldResponse, COPY, toNotModified, applyWriteHead } = require('../http/held-response');
const { whenHeadSent } = require('../http/sent-head');

const NO_TRANSFORM_REGEXP = /(?:^|,)\s*?no-transform\s*?(?:,|$)/i;
const ENFORCEABLE = ['gzip', 'deflate', 'identity', 'br'];
const EMPTY = Buffer.alloc(0);
// The order in which the held response shows compression's dcz choice the cookie a session
// middleware sets at writeHead (the late-mark warning: dictionary-transport.js)
const LATE_MARK_ADVICE =
  'Mount compression({ dictionary: true }) before session middleware (express-session, ' +
  'cookie-session): headers set at writeHead by middleware mounted after it are seen before dcz is chosen';
function mountOnly() {}

/** The default filter: the response's Content-Type is compressible. */
function shouldCompress(req, res) {
  const type = res.getHeader('Content-Type');
  return type !== undefined && Boolean(compressible(type));
}

function shouldTransform(res) {
  const cacheControl = res.getHeader('Cache-Control');
  return !cacheControl || !NO_TRANSFORM_REGEXP.test(cacheControl);
}

function chunkLength(chunk, encoding) {
  if (!chunk) return 0;
  return Buffer.isBuffer(chunk) ? chunk.length : Buffer.byteLength(chunk, encoding);
}

function toBuffer(chunk, encoding) {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, encoding);
}

function headersSent(res) {
  return typeof res.headersSent !== 'boolean' ? Boolean(res._header) : res.headersSent;
}

// Releases a zlib stream's native handle, also when the client left before it finished.
function release(stream) {
  if (stream === null) return;
  stream.destroy();
  if (typeof stream.close === 'function') stream.close();
}

function compression(options) {
  peerOptions(options, COMPRESSION_OPTIONS, 'compression(options)');
  const opts = options || {};
  const brotli = { ...opts.brotli };
  brotli.params = { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, ...brotli.params };
  const filter = opts.filter || shouldCompress;
  let threshold = parseBytes(opts.threshold);
  if (threshold == null) threshold = 1024;
  const enforceEncoding = opts.enforceEncoding || 'identity';
  const cache = cacheFrom(opts.cache);

  // `dictionary` is RFC 9842's here (dictionary-transport.js), never a zlib preset dictionary,
  // which compression 1.8 would pass on and no browser can decode (docs/compression.md)
  const zlibOptions = opts.dictionary === undefined ? opts : { ...opts, dictionary: undefined };
  const encoders = {
    br: createEncoder('br', brotli),
    gzip: createEncoder('gzip', zlibOptions),
    deflate: createEncoder('deflate', zlibOptions),
  };
  const supported = ['br', 'gzip', 'deflate', 'identity'];
  const preferred = ['br', 'gzip'];
  if (opts.zstd && hasZstd) {
    encoders.zstd = createEncoder('zstd', opts.zstd === true ? {} : { ...opts.zstd });
    supported.unshift('zstd');
    preferred.unshift('zstd');
  }
  const negotiate = createNegotiator(supported, preferred, 'negotiator0');
  const dictionaries = DictionaryTransport.from(opts.dictionary, 'compression');

  function middleware(req, res, next) {
    if (next !== mountOnly && dictionaries !== null && dictionaries.owns(req.originalUrl || req.url)) {
      sendDictionary(dictionaries, req, res);
      return;
    }
    beforeOwnMethods(res); // own methods follow (response-shape.js: why)
    // Compression is the held response's last stage (held-response.js), so it sees the body
    // every other stage (critical CSS, the ETag, the response cache) made, whatever the order of
    // app.use(). A body handed whole to end() is compressed by the stage, with the CRC-32 the
    // held value took once; anything else (res.write, an explicit writeHead first, a body too
    // large to hold) streams through the response's methods below the held response, wrapped here.
    const held = HeldResponse.of(req, res);
    const below = held.below();
    let ended = false;
    let length;
    let listeners = [];
    let stream = null;
    let closed = false;
    let fired = false;
    let inEnd = false; // the stage is deciding the head with the whole body in hand
    let whole = null; // { coding, encoder }: what the stage's decision chose for the whole body
    let chosen = null; // the dictionary the stage's decision answers dcz with
    // The stage decided the head and made the body: what follows goes straight out (node:http2's
    // Http2ServerResponse.end(chunk) writes the chunk through this.write(), which must let it by).
    let staged = false;

    const _end = below.end;
    const _on = res.on;
    const _write = below.write;
    const _writeHead = below.writeHead;

    res.flush = function flush() {
      if (stream !== null) stream.flush();
    };

    below.write = function write(chunk, encoding, callback) {
      if (staged) return _write.apply(this, arguments);
      if (ended) return false;
      if (!headersSent(this)) this.writeHead(this.statusCode);
      if (stream === null) return _write.apply(this, arguments);
      if (typeof encoding === 'function') {
        callback = encoding;
        encoding = undefined;
      }
      return stream.write(toBuffer(chunk, encoding), callback);
    };

    below.end = function end(chunk, encoding, callback) {
      if (staged) return _end.apply(this, arguments);
      if (ended) return false;
      if (typeof chunk === 'function') {
        callback = chunk;
        chunk = undefined;
        encoding = undefined;
      } else if (typeof encoding === 'function') {
        callback = encoding;
        encoding = undefined;
      }
      const first = !headersSent(this);
      if (first) {
        if (!this.getHeader('Content-Length')) length = chunkLength(chunk, encoding);
        this.writeHead(this.statusCode);
      }
      if (stream === null) {
        if (dictionaries !== null && first && chunk) {
          const result = _end.call(this, chunk, encoding, callback);
          learn(typeof chunk === 'string' && !encoding ? chunk : toBuffer(chunk, encoding)); // copied only if sampled
          return result;
        }
        return _end.call(this, chunk, encoding, callback);
      }
      ended = true;
      if (callback) this.once('finish', callback);
      return chunk ? stream.end(toBuffer(chunk, encoding)) : stream.end();
    };

    res.on = function on(type, listener) {
      if (listeners === null || type !== 'drain') return _on.call(this, type, listener);
      if (stream !== null) return stream.on(type, listener);
      listeners.push([type, listener]);
      return this;
    };

    below.writeHead = function writeHead() {
      if (staged) return _writeHead.apply(this, arguments);
      // what on-headers does with writeHead's arguments, read the one way the held response reads
      // them: headers given to writeHead are set first (the decision sees them)
      const args = applyWriteHead(this, arguments);
      if (!fired) {
        fired = true;
        decide();
        if (typeof args[0] === 'number' && this.statusCode !== args[0]) {
          args[0] = this.statusCode;
          args.length = 1;
        }
      }
      return _writeHead.apply(this, args);
    };

    _on.call(res, 'close', function onResponseClose() {
      closed = true;
      release(stream);
    });

    // Hands the 'drain' listeners buffered so far to where drain will come from; a compressing
    // stream keeps receiving later ones (res.on above), the response takes them directly.
    function attachListeners(target, on) {
      for (const [type, listener] of listeners) on.call(target, type, listener);
      if (target === res) listeners = null;
    }

    // The peer's onHeaders listener, step for step (its order decides which headers are set).
    function decide() {
      if (!filter(req, res) || !shouldTransform(res)) return attachListeners(res, _on);
      varyAcceptEncoding(res);
      if (dictionaries !== null) dictionaryHeaders(dictionaries, res);
      if (Number(res.getHeader('Content-Length')) < threshold || length < threshold) return attachListeners(res, _on);
      if ((res.getHeader('Content-Encoding') || 'identity') !== 'identity') return attachListeners(res, _on);
      if (req.method === 'HEAD') return attachListeners(res, _on);
      const header = req.headers['accept-encoding'];
      let method = negotiate(header);
      if (!header && ENFORCEABLE.includes(enforceEncoding)) method = enforceEncoding;
      let encoder = encoders[method];
      if (dictionaries !== null && inEnd) {
        const dictionary = dictionaries.choose(header, req.headers['available-dictionary'], {
          req,
          status: res.statusCode,
          getHeader: (name) => res.getHeader(name),
        });
        if (dictionary !== null) {
          method = 'dcz';
          encoder = dictionary.encoder;
          chosen = dictionary;
        }
      }
      if (!method || method === 'identity') return attachListeners(res, _on);

      if (inEnd) {
        res.setHeader('Content-Encoding', method);
        res.removeHeader('Content-Length');
        whole = { coding: method, encoder };
        return attachListeners(res, _on);
      }

      stream = encoders[method].stream();
      if (closed) {
        release(stream);
        stream = null;
        return undefined;
      }
      attachListeners(stream, stream.on);
      res.setHeader('Content-Encoding', method);
      res.removeHeader('Content-Length');
      stream.on('data', (chunk) => {
        if (_write.call(res, chunk) === false) stream.pause();
      });
      stream.on('end', () => {
        _end.call(res);
      });
      _on.call(res, 'drain', () => {
        stream.resume();
      });
      return undefined;
    }

    // The stage: a body handed whole to end() (the held response's `ending`), after every
    // other stage. The peer's onHeaders step runs on the head as it now is, with the body's
    // length; a compressed body replaces the value's.
    const stage = {
      place: 'compression',
      maxBuffer: undefined,
      // the dcz choice reads the cookie a session middleware mounted after this one sets at
      // writeHead: the held response runs such listeners before the stages (held-response.js)
      headFirst: dictionaries !== null,
      propagates: true, // a filter that throws reaches the route's error handler, as in the peer
      mount: mountStage, // a cache hit answered before this middleware ran still goes through it
      // A body handed whole to end() is held as it is, whatever its size (it is in memory
      // already); one that starts with write() is compressed whole only when another stage
      // holds it (COPY), else it streams through below, and the copy is not kept.
      wantsWhole(_res, _req, ending) {
        stage.maxBuffer = ending ? Infinity : undefined;
        return ending ? true : COPY;
      },
      tap() {},
      copied() {},
      run(value) {
        if (closed) return undefined;
        // The etag stage's 304: decided on its head as sent (no Content-Type or Content-Length)
        // and an empty body, as the peer decides the 304 a route sends (toNotModified, then end())
        if (value.notModified) toNotModified(res);
        fired = true;
        if (!res.getHeader('Content-Length')) length = value.notModified ? 0 : value.body.length;
        inEnd = true;
        try {
          decide();
        } finally {
          inEnd = false;
        }
        // not compressed: end() below sends it as the peer does (its head written first)
        if (whole === null) return undefined;
        const { coding, encoder } = whole;
        whole = null;
        staged = true;
        // no body goes out with these: nothing to compress, and no Content-Length to state
        if (res.statusCode === 204 || res.statusCode === 304) return value.replace(EMPTY);
        const original = value.body;
        const done = (err, encoded) => {
          if (err) {
            // the body goes out as it came rather than not at all
            res.removeHeader('Content-Encoding');
            encoded = original;
          }
          value.replace(encoded);
          res.setHeader('Content-Length', encoded.length);
          if (dictionaries !== null) {
            const dcz = coding === 'dcz' && encoded !== original;
            if (dcz) dictionaries.record(original.length, encoded.length);
            learn(original, dcz ? chosen : null);
          }
        };
        let settle = null;
        let settled = false;
        const encoded = encodeWhole(
          cache,
          encoder,
          original,
          res.getHeader('ETag'),
          (err, result) => {
            done(err, result);
            settled = true;
            if (settle !== null) settle();
          },
          value.crc,
        );
        if (encoded !== undefined) return done(null, encoded);
        if (settled) return undefined;
        return new Promise((resolve) => {
          settle = resolve;
        });
      },
    };
    // The body started before this middleware ran (another's held response holds a head or a
    // body the route gave first): the peer, mounted here, finds that head sent and leaves the
    // response alone (its onHeaders never fires), and so does this; 'drain' listeners go to the
    // response (the peer would keep them for a stream that never comes, and a pipe would stall).
    if (!held.use(stage)) {
      fired = true;
      attachListeners(res, _on);
    }

    // A whole body: once the response has ended, the learner reads the head it was sent with, and
    // a dcz answer is checked for a mark set after the choice (dictionary-transport.js).
    function learn(body, answeredWith = null) {
      whenHeadSent(res, () => dictionaries.ended(req, res, body, answeredWith, LATE_MARK_ADVICE));
    }

    next();
  }

  // This middleware's stage joined to a response it never saw: a cache hit answered by a
  // responseCache mounted before it (http/stages-after-store.js); nothing after it is called.
  function mountStage(req, res) {
    middleware(req, res, mountOnly);
  }

  middleware.cache = cache;
  middleware.dictionary = dictionaries;
  return middleware;
}

module.exports = compression;
module.exports.filter = shouldCompress;
module.exports.compression = compression;
module.exports.ContentCache = ContentCache;
module.exports.sharedCache = sharedCache;
module.exports.poolStats = poolStats;
