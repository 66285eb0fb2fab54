'use strict';
// Stylesheets for the engine, read through a FileCache: one read per file version (inotify drops
// an edited file, and the next page reads it again), the bytes shared with everything else that
// uses the cache. The engine asks synchronously (readStylesheet(path) during process()), so a file
// not in memory yet is handled in one of two ways:
// - collecting (the middlewares): the path is noted and null answered; the caller loads the
//   noted files on libuv's pool and processes the page again (nothing blocks the event loop);
// - synchronous (inlineCriticalCss, a synchronous API): the file is read now with readFileSync,
//   once, and loaded into the cache for the next page.
// The same file version is always answered with the same Buffer object (the cache makes a new
// Buffer over its memory on every lookup): the engine knows a stylesheet it has compiled by that
// identity, without hashing its bytes again.
const fs = require('fs');
const { ClearingMap } = require('../bounded/clearing-map');

const LOADED = new Set(['hit', 'loaded']);
const MAX_VERSIONS = 256; // stylesheets remembered (a site has a handful)

class StylesheetSource {
  constructor(cache) {
    this.cache = cache;
    this.collecting = null; // paths asked for and not in memory, while collecting
    this.versions = new ClearingMap(MAX_VERSIONS); // path -> { id, etag, body }: the Buffer answered for its version
    this.counts = { stylesheetSyncReads: 0, stylesheetMisses: 0 };
    this.read = this.read.bind(this);
  }

  /** readStylesheet(absolutePath) for the engine: the file's bytes, or null. */
  read(filePath) {
    // The version answered last, while the cache's generation has not moved since: the same
    // bytes (an edit, a drop or an eviction moves it), found without a lookup, which builds a
    // new result object, Buffer and stat on every call. touch() keeps the entry's LRU place.
    const known = this.versions.get(filePath);
    if (known !== undefined && this.cache.touch(known.id) === known.generation) return known.body;
    const generation = this.cache.generation();
    const found = this.cache.lookup(filePath);
    if (found.status === 'hit') {
      if (known !== undefined && known.id === found.id && known.etag === found.etag) {
        known.generation = generation;
        return known.body;
      }
      this.versions.set(filePath, { id: found.id, etag: found.etag, body: found.body, generation });
      return found.body;
    }
    if (this.collecting !== null) {
      this.collecting.push(filePath);
      return null;
    }
    let bytes;
    try {
      bytes = fs.readFileSync(filePath);
    } catch {
      this.counts.stylesheetMisses++;
      return null;
    }
    this.counts.stylesheetSyncReads++;
    this.cache.load(filePath, noop);
    return bytes;
  }

  /** Runs fn() noting the stylesheets it asked for that were not in memory. */
  collect(fn) {
    const previous = this.collecting;
    this.collecting = [];
    try {
      const result = fn();
      return { result, missing: this.collecting };
    } finally {
      this.collecting = previous;
    }
  }

  /** Loads `paths` into the cache (libuv's pool); resolves true when every one is in memory. */
  async load(paths) {
    const results = await Promise.all([...new Set(paths)].map((p) => this.cache.get(p)));
    return results.every((r) => LOADED.has(r.status));
  }
}

function noop() {}

module.exports = { StylesheetSource };
