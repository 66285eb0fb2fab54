'use strict';
// serveStatic(root, options): a drop-in for serve-static 2.x (express.static in Express 5) that
// serves files from native memory (lib/files/file-cache.js over the C++ FileCache). The request flow,
// options, headers, statuses and errors follow serve-static 2.2.1 + send 1.2.1 step by step:
// send's URL resolution is send-lookup.js, answering with the file found is the shared
// engine's (lib/files/engine.js, and lib/files/answer.js's 'send' flavour). What differs is where the bytes come from and the ETag (a CRC-32 of
// the content, the same on every machine, instead of size + mtime). Files over maxFileSize are
// streamed from disk.
const fs = require('fs');
const path = require('path');
const createError = require('http-errors');
const parseUrl = require('parseurl');
const { FileCache } = require('../files/file-cache');
const { warnIfRootMissing } = require('../files/root-check');
const { sendFileStream } = require('../files/file-stream');
const { isCompressible, compressVariants } = require('../files/encoding');
const { sendConfig, cacheOptions } = require('../files/send-config');
const { callNext } = require('./send-html');
const { SendLookup } = require('./send-lookup');
const { StaticEngine, streamStatus, contentTypeOf, statTag } = require('../files/engine');
const { errorOf, WHOLE } = require('../files/answer');
const { respond, prepareSend } = require('../files/respond');
const { peerOptions } = require('../options');
const { AssetDictionaries } = require('../compression/asset-dictionaries');
const { assetDelta, encodeDelta } = require('../compression/asset-delta');
const { varyWith } = require('../http/vary');

// serve-static 1.x/2.x's options (and send's it passes on), then ssr-native's; serve-static
// ignores other names, so they draw one warning (lib/options.js)
const SERVE_STATIC_OPTIONS = [
  ...['acceptRanges', 'cacheControl', 'dotfiles', 'etag', 'extensions', 'fallthrough', 'immutable', 'index'],
  ...['lastModified', 'maxAge', 'maxage', 'redirect', 'setHeaders', 'root', 'start', 'end', 'hidden'],
  ...['cache', 'dictionary', 'preload', 'maxBytes', 'maxFileSize', 'watch', 'allowSymlinksOutsideRoot', 'compress'],
];

function serveStatic(root, options) {
  peerOptions(options, SERVE_STATIC_OPTIONS, 'serveStatic(root, options)');
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
  warnIfRootMissing(config.root, 'serveStatic');
  const cache = opts.cache instanceof FileCache ? opts.cache : new FileCache(cacheOptions(opts, config.root));
  // misses under our root can be settled, shared cache or not
  const engine = new StaticEngine(cache, { top: config.root, compress: config.compress, fallthroughMemo: true });
  const { routes, misses } = engine;
  const mount = { config, engine, fallthrough, redirect, found };
  // send reads the response so far: Vary and setHeaders go first
  const how = { options: config, engine, prepare: prepareSend(setHeaders) };
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

  // SendStream.send for a file held in memory (or its in-memory compressed variant)
  function sendRecord(req, res, next, record) {
    if (res.headersSent) return headersAlreadySent(req, res, next);
    if (assets !== null && sendAsset(req, res, next, record)) return;
    const a = respond('send', req, res, record, how);
    if (!answered(req, res, next, a)) res.end(a.body);
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
      const { lastModified, type } = record;
      const file = {
        body: encoded,
        size: encoded.length,
        etag: delta.etag,
        lastModified,
        type,
        encoding: delta.contentEncoding,
      };
      // no Range here (a Range request gets no delta), so the answer is the whole delta or none
      const a = respond('send', req, res, record, how, file);
      if (!answered(req, res, next, a)) {
        assets.record(identity.length, encoded.length);
        res.end(a.body);
      }
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

  // the record itself: no compressed variant, no Vary
  function sendRecordPlain(req, res, next, record) {
    const a = respond('send', req, res, record, how, record);
    if (!answered(req, res, next, a)) res.end(a.body);
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
      const lastModified = stat.mtime.toUTCString();
      const type = contentTypeOf(filePath);
      // no record: setHeaders gets the file's path and the descriptor's own stats
      const file = { path: filePath, stats: stat, size: stat.size, etag: statTag(stat), lastModified, type };
      const a = respond('send', req, res, null, how, file);
      if (answered(req, res, next, a)) return fs.close(fd, () => {});
      if (stat.size === 0) {
        fs.close(fd, () => {});
        return res.end();
      }
      sendFileStream(fd, stat, a.span === WHOLE ? { start: 0, end: stat.size - 1 } : a.span, res);
    });
  }

  // Copies an answer's headers and status onto res and finishes the answers without a body
  // (304, 412, 416, HEAD): true when the response is done, else the caller writes a.span.
  function answered(req, res, next, a) {
    const headers = a.headers;
    for (const name in headers) {
      const value = headers[name];
      if (value === undefined) res.removeHeader(name);
      else res.setHeader(name, value);
    }
    switch (a.status) {
      case 200:
        break;
      case 206:
        res.statusCode = 206;
        break;
      case 304:
        res.statusCode = 304;
        res.end();
        return true;
      default: // 412, 416
        callNext(req, res, next, errorOf(a));
        return true;
    }
    if (req.method !== 'HEAD') return false;
    res.end();
    return true;
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
