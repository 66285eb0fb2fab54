'use strict';
// StaticEngine: what every static adapter shares once a URL has been resolved to a file (serveStatic
// for node/Express, Koa's serve()/send(), Fastify's fastifyStatic, Hono's serveStatic): memory-
// first loads from the FileCache, the per-file record, the route memo and the precompressed
// variant a request accepts. send 1.2's answer step (setFileHeaders, respond) is written through a
// response *port*, a constant object of functions
//   { get(res, name), set(res, name, value), remove(res, name), status(res), setStatus(res, code) }
// over node's res (nodePort, serveStatic), so the engine allocates no wrapper per request. The
// other adapters answer in their peer's shape: Koa in koa/respond.js, Fastify through the pure
// plan.js, Hono in hono/serve-static.js (docs/architecture.md has the plan that folds the four
// into one answer step). URL-to-file resolution (dotfiles vs hidden, index lists, extensions,
// sibling precompression) stays in each adapter, since send, koa-send, @fastify/send and Hono
// really differ there.
const fs = require('fs');
const { compressVariants } = require('./encoding');
const { chooseEncoding } = require('../http/accept-encoding');
const { openFileForStream } = require('./file-stream');
const { isConditional, isPreconditionFailure, isFresh } = require('../http/conditional');
const { varyAppend } = require('../http/vary');
const { streamStatus } = require('./stat-error');
const { rangeOf, contentRange, unsatisfiedRange, WHOLE, UNSATISFIABLE } = require('../http/range');
const { RouteMemo, MissMemo } = require('./route-memo');
const { makeRecord, statsOf, contentTypeOf, charsetContentTypeOf, statTag } = require('./record');

// respond() outcomes besides a { start, end } span
const FULL = 1; // send the whole body
const NOT_MODIFIED = 2; // 304 set up: end the response without a body
const PRECONDITION_FAILED = 3; // answer 412
const RANGE_NOT_SATISFIABLE = 4; // Content-Range set: answer 416
const BODYLESS = 5; // HEAD: headers set, end without a body

// headers a 304 must not carry (send's removeContentHeaderFields)
const CONTENT_HEADERS = ['Content-Encoding', 'Content-Language', 'Content-Length', 'Content-Range', 'Content-Type'];

/** The port over node's http.ServerResponse (and Fastify's raw res). */
const nodePort = {
  get: (res, name) => res.getHeader(name),
  set: (res, name, value) => res.setHeader(name, value),
  remove: (res, name) => res.removeHeader(name),
  status: (res) => res.statusCode,
  setStatus: (res, code) => {
    res.statusCode = code;
  },
};

class StaticEngine {
  /**
   * `cache`: the FileCache. `top`: the directory resolutions start under (a mount's root), which
   * lets misses be `settled`; undefined for a cache shared by roots it does not know.
   * `routeSlots`: how many answers one URL path can have (e.g. per Accept-Encoding outcome).
   * `fallthroughMemo`: keep URL paths known to resolve to nothing (`misses`), for an adapter
   * that asks it (serveStatic).
   */
  constructor(cache, { top, routeSlots = 1, compress = false, fallthroughMemo = false } = {}) {
    this.cache = cache;
    this.top = top;
    this.compress = Boolean(compress);
    this.routes = new RouteMemo(cache, routeSlots);
    this.misses = fallthroughMemo ? new MissMemo(cache) : null;
  }

  generation() {
    return this.cache.generation();
  }

  /** Memory first (no system call, no thread hop), then a load on the libuv pool. */
  load(filePath, callback) {
    const hit = this.cache.lookup(filePath);
    if (hit.status === 'hit') return callback(hit);
    this.cache.load(filePath, callback, this.top);
  }

  /** load() as a value (a hit) or a promise (a load). */
  get(filePath) {
    const hit = this.cache.lookup(filePath);
    return hit.status === 'hit' ? hit : this.cache.get(filePath, this.top);
  }

  /** The per-file record of a loaded file (see record.js). */
  record(filePath, result, type, encoding, compressibleType) {
    return makeRecord(filePath, result, type, encoding, this.compress && compressibleType && encoding === undefined);
  }

  /** The in-memory compressed variant the request accepts, or undefined (identity); starts making them. */
  variant(record, acceptEncoding) {
    const variants = this.cache.variantsOf(record.file.id);
    if (variants === undefined) {
      compressVariants(this.cache, record.file);
      return undefined;
    }
    const encoding = chooseEncoding(acceptEncoding, variants);
    return encoding ? variants[encoding] : undefined;
  }

  /** send's header step (SendStream.setHeader + type), for a body tagged `etag`. */
  setFileHeaders(port, res, config, record, etag) {
    if (config.acceptRanges && !port.get(res, 'Accept-Ranges')) port.set(res, 'Accept-Ranges', 'bytes');
    if (config.cacheControl && !port.get(res, 'Cache-Control'))
      port.set(res, 'Cache-Control', config.cacheControlValue);
    if (config.lastModified && !port.get(res, 'Last-Modified')) port.set(res, 'Last-Modified', record.lastModified);
    if (config.etag && !port.get(res, 'ETag')) port.set(res, 'ETag', etag);
    if (!port.get(res, 'Content-Type')) port.set(res, 'Content-Type', record.type);
  }

  /**
   * Conditional GET/HEAD, ranges, Content-Length: the rest of SendStream.send, for a body of
   * `length` bytes. Returns FULL, a { start, end } span, or NOT_MODIFIED, PRECONDITION_FAILED,
   * RANGE_NOT_SATISFIABLE, BODYLESS (the response's status and headers are set for each).
   */
  respond(port, res, headers, method, length, acceptRanges) {
    if (isConditional(headers)) {
      const etag = port.get(res, 'ETag');
      const lastModified = port.get(res, 'Last-Modified');
      if (isPreconditionFailure(headers, etag, lastModified)) return PRECONDITION_FAILED;
      if (this.notModified(port, res, headers, etag, lastModified)) return NOT_MODIFIED;
    }
    let span = FULL;
    let len = length;
    if (acceptRanges && headers.range !== undefined) {
      const range = rangeOf(headers, length, port.get(res, 'ETag'), port.get(res, 'Last-Modified'));
      if (range === UNSATISFIABLE) {
        port.set(res, 'Content-Range', unsatisfiedRange(length));
        return RANGE_NOT_SATISFIABLE;
      }
      if (range !== WHOLE) {
        port.setStatus(res, 206);
        port.set(res, 'Content-Range', contentRange(range, length));
        len = range.end - range.start + 1;
        span = range;
      }
    }
    port.set(res, 'Content-Length', len);
    if (method === 'HEAD') return BODYLESS;
    return span;
  }

  /** A fresh conditional request on a 2xx/304: the response becomes a bodiless 304. */
  notModified(port, res, headers, etag, lastModified) {
    const status = port.status(res);
    if (!((status >= 200 && status < 300) || status === 304) || !isFresh(headers, etag, lastModified)) return false;
    for (const name of CONTENT_HEADERS) port.remove(res, name);
    port.setStatus(res, 304);
    return true;
  }

  /**
   * Opens a file too large for memory (or not regular) for streaming: callback(err, fd, stats),
   * the stats from that descriptor's fstat, so the body sent is the length announced. A path
   * that became a directory meanwhile fails as ENOENT would (send: 404).
   */
  openStream(filePath, callback) {
    openFileForStream(filePath, (err, fd, stat) => {
      if (err) return callback(err);
      if (stat.isDirectory()) {
        fs.close(fd, () => {});
        const gone = new Error(`EISDIR: illegal operation on a directory, open '${filePath}'`);
        gone.code = 'EISDIR';
        gone.directory = true;
        return callback(gone);
      }
      callback(null, fd, stat);
    });
  }

  /** openStream() as a promise of { fd, stats }; a failure rejects with the fs error (see streamStatus). */
  openStreamAsync(filePath) {
    return new Promise((resolve, reject) => {
      this.openStream(filePath, (err, fd, stats) => (err ? reject(err) : resolve({ fd, stats })));
    });
  }

  /** The cache's counters and the sizes of the memos. */
  stats() {
    return Object.assign(this.cache.stats(), {
      memoRoutes: this.routes.size,
      memoFallthroughs: this.misses === null ? 0 : this.misses.size,
    });
  }
}

/** Vary gains Accept-Encoding (unless it already names it or `*`). */
function appendVary(port, res) {
  const vary = varyAppend(port.get(res, 'Vary'));
  if (vary !== undefined) port.set(res, 'Vary', vary);
}

module.exports = {
  StaticEngine,
  nodePort,
  appendVary,
  streamStatus,
  statsOf,
  contentTypeOf,
  charsetContentTypeOf,
  statTag,
  FULL,
  NOT_MODIFIED,
  PRECONDITION_FAILED,
  RANGE_NOT_SATISFIABLE,
  BODYLESS,
};
