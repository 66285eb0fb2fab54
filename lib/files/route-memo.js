'use strict';
// Memos of URL-path resolutions, valid for one FileCache generation (the generation moves on any
// change in a watched directory and on every eviction, so a remembered answer is never stale).
// Attackers choose the paths: both memos are bounded in entries and in key length, and start over
// when full rather than grow.
const { ClearingMap } = require('../bounded/clearing-map');

const MAX_ROUTES = 8192;
const MAX_KEY_LENGTH = 1024;
const MAX_MISSES = 8192;
const MAX_MISS_CHARS = 1 << 20;

/**
 * The key a resolution is remembered under: the URL path (no query), followed by the request's
 * Accept-Encoding verbatim when the answer depends on it (@fastify/static's and
 * @hono/node-server's precompressed siblings). serveStatic keys by the path alone (it picks a
 * variant per request after the memo); koa-send by the path and a slot (its ACCEPTS_* outcome).
 */
function routeKey(pathname, acceptEncoding) {
  return acceptEncoding === undefined ? pathname : pathname + '\n' + acceptEncoding;
}

/**
 * URL path (and a small slot number, e.g. an Accept-Encoding outcome) -> the file record it
 * resolved to. get() answers only while the cache generation has not moved.
 */
class RouteMemo {
  constructor(cache, slots = 1) {
    this.cache = cache;
    this.slots = slots;
    this.map = new ClearingMap(MAX_ROUTES);
    this.generation = cache.generation();
  }

  get size() {
    return this.map.size;
  }

  /** The record remembered for `key` (and `slot`), if the cache has not changed since. */
  get(key, slot = 0) {
    const entry = this.map.get(key);
    if (entry === undefined) return undefined;
    const record = this.slots === 1 ? entry : entry[slot];
    if (record === undefined) return undefined;
    const generation = this.cache.touch(record.file.id);
    if (generation === this.generation) return record;
    this.map.clear();
    this.generation = generation;
    return undefined;
  }

  /** Remembers `record` if the cache is still at `generation`, the one the resolution began in. */
  set(key, slot, record, generation) {
    if (key.length > MAX_KEY_LENGTH || this.cache.generation() !== generation) return;
    if (this.generation !== generation) {
      this.map.clear();
      this.generation = generation;
    }
    if (this.slots === 1) {
      this.map.set(key, record);
      return;
    }
    let entry = this.map.get(key);
    if (entry === undefined) this.map.set(key, (entry = new Array(this.slots).fill(undefined)));
    entry[slot] = record;
  }
}

/**
 * URL paths known to resolve to nothing (a missing file, a directory without index...), kept
 * only when every load behind the answer was `settled`. Bounded in count and in characters.
 */
class MissMemo {
  constructor(cache) {
    this.cache = cache;
    this.set = new Set();
    this.chars = 0;
    this.generation = cache.generation();
  }

  get size() {
    return this.set.size;
  }

  has(key) {
    if (this.set.size === 0 || !this.set.has(key)) return false;
    if (this.cache.generation() === this.generation) return true;
    this.clear(this.cache.generation());
    return false;
  }

  add(key, generation) {
    if (key.length > MAX_KEY_LENGTH || this.cache.generation() !== generation) return;
    if (this.generation !== generation || this.set.size >= MAX_MISSES || this.chars + key.length > MAX_MISS_CHARS) {
      this.clear(generation);
    }
    if (!this.set.has(key)) {
      this.set.add(key);
      this.chars += key.length;
    }
  }

  clear(generation) {
    this.set.clear();
    this.chars = 0;
    this.generation = generation;
  }
}

module.exports = { RouteMemo, MissMemo, routeKey };
