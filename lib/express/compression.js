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
//
// This file holds the factory and its options; the one decision both paths make (the peer's
// onHeaders step) is compression-decision.js, the whole-body stage compression-stage.js, the
// streaming path compression-stream.js.
const zlib = require('zlib');
const { peerOptions } = require('../options');
const { COMPRESSION_OPTIONS } = require('../compression/option-names');
const { createNegotiator } = require('../compression/negotiate');
const { createEncoder, hasZstd, poolStats } = require('../compression/encoders');
const { ContentCache, sharedCache, cacheFrom } = require('../compression/content-cache');
const { parseBytes } = require('../http/bytes');
const { DictionaryTransport } = require('../compression/dictionary-transport');
const { sendDictionary } = require('../compression/dictionary-headers');
const { beforeOwnMethods } = require('../response-shape');
const { HeldResponse } = require('../http/held-response');
const { CompressionDecision, shouldCompress } = require('./compression-decision');
const { CompressionStage } = require('./compression-stage');
const { watchResponse } = require('./compression-stream');

function mountOnly() {}

function compression(options) {
  peerOptions(options, COMPRESSION_OPTIONS, 'compression(options)');
  const opts = options || {};
  const brotli = { ...opts.brotli };
  brotli.params = { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, ...brotli.params };
  let threshold = parseBytes(opts.threshold);
  if (threshold == null) threshold = 1024;
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
  const shared = {
    decision: new CompressionDecision({
      filter: opts.filter || shouldCompress,
      threshold,
      enforceEncoding: opts.enforceEncoding || 'identity',
      negotiate,
      encoders,
      dictionaries,
    }),
    cache,
    mount: mountStage,
  };

  function middleware(req, res, next) {
    if (next !== mountOnly && dictionaries !== null && dictionaries.owns(req.originalUrl || req.url)) {
      sendDictionary(dictionaries, req, res);
      return;
    }
    beforeOwnMethods(res); // own methods follow (response-shape.js: why)
    // The response's one CompressionStage: it joins the held response as its last stage, and
    // puts the streaming path below it once a body streams (compression-stream.js).
    const held = HeldResponse.of(req, res);
    const stage = new CompressionStage(shared, req, res, held.below());
    watchResponse(stage); // res.flush, res.on for 'drain', the close listener
    // The body started before this middleware ran (another's held response holds a head or a
    // body the route gave first): the peer, mounted here, finds that head sent and leaves the
    // response alone (its onHeaders never fires), and so does this; 'drain' listeners go to the
    // response (the peer would keep them for a stream that never comes, and a pipe would stall).
    if (!held.use(stage)) stage.leaveAlone();
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
