'use strict';
// StaticEngine: what every static adapter shares once a URL has been resolved to a file (serveStatic
// for node/Express, Koa's serve()/send(), Fastify's fastifyStatic, Hono's serveStatic): memory-
// first loads from the FileCache, the per-file record, the route memo, the precompressed variant
// a request accepts and the descriptor a large file streams from. What each peer answers with the
// file is answer.js's, one flavour per peer. URL-to-file resolution (dotfiles vs hidden, index
// lists, extensions, sibling precompression) stays in each adapter, since send, koa-send,
// @fastify/send and Hono really differ there.
const fs = require('fs');
const { compressVariants } = require('./encoding');
const { chooseEncoding } = require('../http/accept-encoding');
const { openFileForStream } = require('./file-stream');
const { streamStatus } = require('./stat-error');
const { RouteMemo, MissMemo } = require('./route-memo');
const { makeRecord, statsOf, contentTypeOf, charsetContentTypeOf, statTag } = require('./record');

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

module.exports = {
  StaticEngine,
  streamStatus,
  statsOf,
  contentTypeOf,
  charsetContentTypeOf,
  statTag,
};
