'use strict';
// FileCache: the JavaScript face of the native file cache (src/core/file_cache.cc). Bodies are
// Buffers over native memory, shared by every response; the native side bounds their total size
// (maxBytes, LRU) and drops entries whose file changed on disk (inotify, or a stat sweep).
const fs = require('fs');
const path = require('path');
const native = require('../native');
const { invalidType, outOfRange } = require('../validate');
const { ownOptions } = require('../options');
const { addSource } = require('../stat-sources');

// What a load answers once the cache is closed (see close()).
const CLOSED = Object.freeze({ status: 'error', code: 'ERR_FILE_CACHE_CLOSED', message: 'FileCache is closed' });

const DEFAULTS = {
  maxBytes: 64 * 1024 * 1024,
  maxFileSize: 4 * 1024 * 1024,
};
// every name new FileCache(options) knows (lib/options.js refuses others)
const FILE_CACHE_OPTIONS = [...Object.keys(DEFAULTS), 'root', 'sweepIntervalMs', 'watch', 'allowOutsideRoot', 'name'];

class FileCache {
  constructor(options = {}) {
    if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
    ownOptions(options, FILE_CACHE_OPTIONS, 'new FileCache(options)');
    const root = options.root === undefined ? undefined : path.resolve(String(options.root));
    const settings = { ...DEFAULTS };
    for (const name of ['maxBytes', 'maxFileSize', 'sweepIntervalMs']) {
      const value = options[name];
      if (value === undefined) continue;
      if (typeof value !== 'number' || Number.isNaN(value)) throw invalidType(`options.${name}`, 'a number', value);
      if (value < 0) throw outOfRange(`options.${name}`, '>= 0', value);
      settings[name] = value;
    }
    this._native = new native.FileCache({
      root,
      maxBytes: settings.maxBytes,
      maxFileSize: Math.min(settings.maxFileSize, settings.maxBytes),
      sweepIntervalMs: settings.sweepIntervalMs,
      watch: options.watch !== false,
      allowOutsideRoot: options.allowOutsideRoot !== false,
    });
    this.maxBytes = settings.maxBytes;
    this.maxFileSize = settings.maxFileSize;
    // id -> { gzip?, br? } once compressed variants are known (or being made: `pending`)
    this._variants = new Map();
    this._variantsGeneration = this._native.generation();
    this._closed = false;
    // ssr-native/metrics: held weakly, labelled with `name` (default: the root, else file-cache).
    if (options.name !== undefined && (typeof options.name !== 'string' || options.name === '')) {
      throw invalidType('options.name', 'a non-empty string', options.name);
    }
    this._source = addSource('file_cache', options.name || root || 'file-cache', metricsOf, { owner: this });
    this.name = this._source.name;
  }

  /** Memory only (no system call): { status: 'hit', id, body, etag, stat } or { status: 'miss' }. */
  lookup(filePath) {
    if (this._closed) return { status: 'miss' };
    return this._native.lookup(filePath);
  }

  /**
   * Loads on the libuv pool; callback(result) with status hit|loaded|directory|tooLarge|notRegular|outsideRoot|error.
   * `top` (optional): the directory filePath was resolved under (a static mount's root). A miss
   * is `settled` (safe to memoise until the generation moves) only when the directories from
   * there down are watched; a cache shared by several mounts has no root of its own to start from.
   */
  load(filePath, callback, top) {
    if (this._closed) {
      process.nextTick(callback, { ...CLOSED });
      return;
    }
    this._native.load(
      filePath,
      (err, result) => {
        callback(err ? { status: 'error', code: 'EIO', errno: -5, message: err.message } : result);
      },
      top,
    );
  }

  /** Promise form of load(). */
  get(filePath, top) {
    return new Promise((resolve) => this.load(filePath, resolve, top));
  }

  /** Marks entry `id` as used (LRU) and returns the generation (which moves on any change). */
  touch(id) {
    if (this._closed) return this._closedGeneration;
    return this._native.touch(id);
  }

  generation() {
    if (this._closed) return this._closedGeneration;
    return this._native.generation();
  }

  /** Compressed variants of entry `id`: undefined until computed. */
  variantsOf(id) {
    if (this._closed) return undefined;
    const generation = this._native.generation();
    if (generation !== this._variantsGeneration) {
      this._variants.clear();
      this._variantsGeneration = generation;
    }
    const known = this._variants.get(id);
    return known === undefined || known.pending ? undefined : known;
  }

  /** Marks the variants of `id` as being made (false: made or under way already); encoding.js. */
  startVariants(id) {
    if (this._variants.has(id)) return false;
    this._variants.set(id, { pending: true });
    return true;
  }

  /** The variants of `id` made (kept only if `id` is still marked). */
  finishVariants(id, variants) {
    if (this._variants.has(id)) this._variants.set(id, variants);
  }

  attachVariant(id, encoding, bytes) {
    if (this._closed) return null;
    return this._native.attachVariant(id, encoding, bytes);
  }

  nativeVariant(id, encoding) {
    if (this._closed) return null;
    return this._native.variant(id, encoding);
  }

  invalidate(filePath) {
    if (!this._closed) this._native.invalidate(filePath);
  }

  clear() {
    this._variants.clear();
    if (!this._closed) this._native.clear();
  }

  /** Loads every regular file under `dir` (depth first) until maxBytes is reached;
   *  `onFile(result, path)` sees each file loaded into the cache. */
  preload(dir, { dotfiles = false, onFile } = {}) {
    const walk = async (current) => {
      let entries;
      try {
        entries = await fs.promises.readdir(current, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        if (!dotfiles && entry.name[0] === '.') continue;
        const full = path.join(current, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (entry.isFile() || entry.isSymbolicLink()) {
          if (this._closed || this._native.stats().bytes >= this.maxBytes) return;
          const result = await this.get(full);
          if (onFile && result.cached) await onFile(result, full);
        }
      }
    };
    // Best effort: a file that vanishes or a close() meanwhile just ends the walk early.
    this.ready = walk(path.resolve(dir)).catch(() => {});
    return this.ready;
  }

  /** { hits, misses, entries, bytes, evictions, invalidations, watchedDirectories, rereads,
   *  unstableLoads, loads, watchFallbacks, inotify } */
  stats() {
    if (this._closed) return { ...this._closedStats };
    return this._native.stats();
  }

  /**
   * Stops the watcher thread and frees entries not referenced by a response in flight. Requests
   * already under way must still get an answer, so afterwards nothing throws: lookups miss,
   * loads call back (later, as a real load) with status 'error' and code ERR_FILE_CACHE_CLOSED,
   * loads already on the pool complete, generation() and touch() return a generation no earlier
   * call returned (memos made before close are stale), there are no variants, and stats() keeps
   * the counters with no entries and no bytes. Bodies handed out stay valid.
   */
  close() {
    if (this._closed) return;
    this._closedStats = { ...this._native.stats(), entries: 0, bytes: 0 };
    this._closedGeneration = (this._native.generation() + 1) >>> 0;
    this._closed = true;
    this._source.remove();
    this._variants.clear();
    this._native.close();
  }
}

// What ssr-native/metrics exports of a FileCache (a module-level function: the metrics
// registry must not hold the cache).
function metricsOf(cache) {
  if (cache._closed) return null;
  const s = cache._native.stats();
  return {
    bytes: s.bytes,
    maxBytes: cache.maxBytes,
    files: s.entries,
    hits: s.hits,
    misses: s.misses,
    loads: s.loads,
    evictions: s.evictions,
    invalidations: s.invalidations,
    watchFallbacks: s.watchFallbacks,
    watchedDirectories: s.watchedDirectories,
    inotify: s.inotify,
  };
}

module.exports = { FileCache };
