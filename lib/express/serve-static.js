'use strict';
// serveStatic(root, options): a drop-in for serve-static 2.x (express.static in Express 5) that
// serves files from native memory (lib/files/file-cache.js over the C++ FileCache). The request flow,
// options, headers, statuses and errors follow serve-static 2.2.1 + send 1.2.1 step by step:
// send's URL resolution is send-lookup.js, answering with the file found is the shared
// engine's (lib/files/engine.js). What differs is where the bytes come from and the ETag (a CRC-32 of
// the content, the same on every machine, instead of size + mtime). Files over maxFileSize are
// streamed from disk.
const fs = require('fs');
const path = require('path');
const createError = require('http-errors');
const parseUrl = require('parseurl');
const { FileCache } = require('../files/file-cache');
const { sendFileStream } = require('../files/file-stream');
const { isCompressible, compressVariants } = require('../files/encoding');
const { sendConfig, cacheOptions } = require('../files/send-config');
const { callNext } = require('./send-html');
const { SendLookup } = require('./send-lookup');
const engineModule = require('../files/engine');
const { AssetDictionaries } = require('../compression/asset-dictionaries');
const { assetDelta, encodeDelta, varyWith } = require('../compression/asset-delta');

const { StaticEngine, nodePort, appendVary, streamStatus, statsOf, contentTypeOf, statTag } = engineModule;
const { FULL, NOT_MODIFIED, PRECONDITION_FAILED, RANGE_NOT_SATISFIABLE, BODYLESS } = engineModule;

function serveStatic(root, options) {
  if (!root) throw new TypeError('root path required');
  if (typeof root !== 'string') throw new TypeError('root path must be a string');

  // Read options through a prototype link, as serve-static does (inherited options count).
  const opts = Object.create(options || null);
  const fallthrough = opts.fallthrough !== false;
  const redirect = opts.redirect !== false;
  const setHeaders = opts.setHeaders;
  if (setHeaders && typeof setHeaders !== 'function') {
    throw new TypeError('option setHeaders must be function');
  }
  opts.maxage = opts.maxage || opts.maxAge || 0;
  const config = sendConfig(opts, path.resolve(root));
  const cache = opts.cache instanceof FileCache ? opts.cache : new FileCache(cacheOptions(opts, config.root));
  // misses under our root can be settled, shared cache or not
  const engine = new StaticEngine(cache, { top: config.root, compress: config.compress, fallthroughMemo: true });
  const { routes, misses } = engine;
  const mount = { config, engine, fallthrough, redirect, found };
  // Opt-in: files with a content hash in their name offered as dictionaries for their next
  // versions, and dcz deltas against them (lib/compression/asset-dictionaries.js).
  const assets = AssetDictionaries.from(opts.dictionary, 'serveStatic');

  function middleware(req, res, next) {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      if (fallthrough) return callNext(req, res, next);
      res.statusCode = 405;
      res.setHeader('Allow', 'GET, HEAD');
      res.setHeader('Content-Length', '0');
      res.end();
      return;
    }
    // send validates some options per request; so do we, at the same moment.
    if (config.error) throw config.error;

    // Memo keys are pathnames as parseurl produces them; one never contains '?', '#' or raw
    // whitespace, so a raw URL equal to a key parses to that key: look it up before parsing.
    const rawUrl = req.url;
    let record = rawUrl !== '/' ? routes.get(rawUrl) : undefined;
    if (record !== undefined) return sendRecord(req, res, next, record);
    if (rawUrl !== '/' && misses.has(rawUrl)) return callNext(req, res, next);
    let pathname = parseUrl(req).pathname;
    // make sure the redirect happens at the mount point
    if (pathname === '/' && parseUrl.original(req).pathname.substr(-1) !== '/') pathname = '';
    record = routes.get(pathname);
    if (record !== undefined) return sendRecord(req, res, next, record);
    if (misses.has(pathname)) return callNext(req, res, next);
    new SendLookup(mount, req, res, next, pathname).start();
  }

  // the file a SendLookup resolved to: from memory (remembered for its URL path), or streamed
  function found(transfer, filePath, result) {
    if (result.body === undefined) return streamFile(transfer.req, transfer.res, transfer.next, filePath);
    const type = contentTypeOf(filePath);
    const record = engine.record(filePath, result, type, undefined, isCompressible(type));
    if (result.cached) routes.set(transfer.path, 0, record, transfer.generation);
    sendRecord(transfer.req, transfer.res, transfer.next, record);
  }

  // SendStream.send for a file held in memory
  function sendRecord(req, res, next, record) {
    if (res.headersSent) return headersAlreadySent(req, res, next);
    if (assets !== null && sendAsset(req, res, next, record)) return;
    let variant;
    if (record.compressible) {
      variant = engine.variant(record, req.headers['accept-encoding']);
      appendVary(nodePort, res);
    }
    if (setHeaders) setHeaders(res, record.path, statsOf(record));
    const chosen = variant === undefined ? record : variant;
    engine.setFileHeaders(nodePort, res, config, record, chosen.etag);
    if (variant !== undefined) res.setHeader('Content-Encoding', variant.encoding);
    const body = chosen.body;
    const span = engine.respond(nodePort, res, req.headers, req.method, body.length, config.acceptRanges);
    if (span === FULL) res.end(body);
    else if (!answered(req, res, next, span)) res.end(body.subarray(span.start, span.end + 1));
  }

  // With `dictionary`: Use-As-Dictionary on a hashed file, and a dcz delta when the request names
  // one of the files offered before (lib/compression/asset-delta.js). True when the response is
  // taken care of here.
  function sendAsset(req, res, next, record) {
    const decision = assetDelta(assets, parseUrl.original(req).pathname, record, req.headers);
    if (decision === null) return false;
    res.setHeader('Vary', varyWith(res.getHeader('Vary'), decision.vary));
    res.setHeader('Use-As-Dictionary', decision.useAsDictionary);
    const delta = decision.delta;
    if (delta === null) return false;
    const identity = record.body;
    const deliver = (encoded) => {
      if (res.headersSent) return;
      if (setHeaders) setHeaders(res, record.path, statsOf(record));
      engine.setFileHeaders(nodePort, res, config, record, delta.etag);
      res.setHeader('Content-Encoding', delta.contentEncoding);
      const span = engine.respond(nodePort, res, req.headers, req.method, encoded.length, false);
      if (span === FULL) {
        assets.record(identity.length, encoded.length);
        res.end(encoded);
      } else answered(req, res, next, span);
    };
    const hit = encodeDelta(delta, identity, (err, encoded) => {
      if (res.destroyed) return;
      if (err) {
        // the file goes out as it is rather than not at all
        res.removeHeader('Use-As-Dictionary');
        return sendRecordPlain(req, res, next, record);
      }
      deliver(encoded);
    });
    if (hit !== undefined) deliver(hit);
    return true;
  }

  function sendRecordPlain(req, res, next, record) {
    if (setHeaders) setHeaders(res, record.path, statsOf(record));
    engine.setFileHeaders(nodePort, res, config, record, record.etag);
    const span = engine.respond(nodePort, res, req.headers, req.method, record.body.length, config.acceptRanges);
    if (span === FULL) res.end(record.body);
    else if (!answered(req, res, next, span)) res.end(record.body.subarray(span.start, span.end + 1));
  }

  // send's streaming path for files over maxFileSize (and FIFOs and the like). The file is opened
  // first and the headers come from that descriptor's fstat, so the body sent is always the
  // length announced (lib/files/file-stream.js): a rename-replace keeps sending the old
  // version whole, a file that shrinks mid-stream ends the connection at once.
  function streamFile(req, res, next, filePath) {
    if (res.headersSent) return headersAlreadySent(req, res, next);
    engine.openStream(filePath, (err, fd, stat) => {
      if (err) {
        // replaced by a directory since it was found: as if it had vanished
        const httpError = err.directory ? createError(404) : createError(streamStatus(err), err, { expose: false });
        return callNext(req, res, next, httpError);
      }
      if (res.headersSent) {
        fs.close(fd, () => {});
        return headersAlreadySent(req, res, next);
      }
      const record = {
        path: filePath,
        stats: stat,
        type: contentTypeOf(filePath),
        lastModified: stat.mtime.toUTCString(),
      };
      if (setHeaders) setHeaders(res, filePath, stat);
      engine.setFileHeaders(nodePort, res, config, record, statTag(stat));
      const span = engine.respond(nodePort, res, req.headers, req.method, stat.size, config.acceptRanges);
      if (span !== FULL && answered(req, res, next, span)) return fs.close(fd, () => {});
      if (stat.size === 0) {
        fs.close(fd, () => {});
        return res.end();
      }
      sendFileStream(fd, stat, span === FULL ? { start: 0, end: stat.size - 1 } : span, res);
    });
  }

  // The answers respond() leaves to the adapter: true when the response is done.
  function answered(req, res, next, span) {
    switch (span) {
      case NOT_MODIFIED:
      case BODYLESS:
        res.end();
        return true;
      case PRECONDITION_FAILED:
        callNext(req, res, next, createError(412));
        return true;
      case RANGE_NOT_SATISFIABLE:
        callNext(req, res, next, createError(416, { headers: { 'Content-Range': res.getHeader('Content-Range') } }));
        return true;
      default:
        return false;
    }
  }

  middleware.cache = cache;
  middleware.dictionary = assets;
  // the cache's counters, plus the sizes of this middleware's memos
  middleware.stats = () => engine.stats();
  middleware.close = () => cache.close();
  if (opts.preload) {
    // With compress, the variants are made during preload too (one file at a time).
    const onFile = config.compress
      ? (result, filePath) => (isCompressible(contentTypeOf(filePath)) ? compressVariants(cache, result) : undefined)
      : undefined;
    cache.preload(config.root, { dotfiles: config.dotfiles === 'allow', onFile });
  }
  return middleware;
}

// SendStream.headersAlreadySent: an error once the file is known is always forwarded
function headersAlreadySent(req, res, next) {
  callNext(req, res, next, createError(500, new Error("Can't set headers after they are sent."), { expose: false }));
}

module.exports = serveStatic;
module.exports.serveStatic = serveStatic;
module.exports.default = serveStatic;
module.exports.FileCache = FileCache;
