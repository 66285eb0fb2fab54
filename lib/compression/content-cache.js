'use strict';
// The compressed forms of bodies already seen, found by content: the key is the encoder's
// settings, the body's length and its CRC-32, and a hit is served only when the stored original
// bytes equal the body (CRC-32 is linear, so anyone who can shape a body can forge a collision;
// the compare makes a collision cost a miss, never a wrong body). Compressions in flight are
// shared: a body that arrives while the same body is compressing waits for that result.
//
// Bounded by bytes (originals and compressed forms both count), by entries and by the size of
// one entry, least recently used first out (lib/bounded/lru.js). The bodies are Buffers, so they
// live outside V8's heap (external memory) and a large cache adds nothing for the garbage
// collector to trace.
//
// Admission (after nginx's proxy_cache_min_uses): while the cache has room, every compressed
// body is stored; once storing one would push others out, a body must have been seen before
// (minUses 2, the default). A server of unique pages (a user's name, a CSRF token in every
// render) would otherwise copy every body into the cache only to evict it unread: the copies
// outlive the young generation, and the external memory they churn makes V8 run a full
// mark-compact every few hundred responses, which shows in the event loop's p99
// (CONTRIBUTING.md). A body seen once leaves only its key in a bounded set; a
// page that repeats once the cache is full pays one more compression, once.
const { invalidType, outOfRange } = require('../validate');
const { crc32 } = require('../etag');
const { addSource } = require('../stat-sources');
const { BoundedLru } = require('../bounded/lru');
const { ownOptions } = require('../options');

const CONTENT_CACHE_OPTIONS = ['maxBytes', 'maxEntries', 'maxEntryBytes', 'minUses', 'name'];

const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;
const DEFAULT_MAX_ENTRIES = 4096;
const DEFAULT_MIN_USES = 2;

function readLimit(options, name, fallback) {
  const value = options[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value)) throw invalidType(`options.${name}`, 'a number', value);
  if (value < 0 || !Number.isInteger(value)) throw outOfRange(`options.${name}`, 'an integer >= 0', value);
  return value;
}

class ContentCache {
  constructor(options = {}) {
    if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
    ownOptions(options, CONTENT_CACHE_OPTIONS, 'new ContentCache(options)');
    this.maxBytes = readLimit(options, 'maxBytes', DEFAULT_MAX_BYTES);
    this.maxEntries = readLimit(options, 'maxEntries', DEFAULT_MAX_ENTRIES);
    // One body may take at most an eighth of the budget, so one large page cannot flush the rest.
    this.maxEntryBytes = readLimit(options, 'maxEntryBytes', Math.floor(this.maxBytes / 8));
    this.minUses = readLimit(options, 'minUses', DEFAULT_MIN_USES);
    if (this.minUses !== 1 && this.minUses !== 2) throw outOfRange('options.minUses', '1 or 2', this.minUses);
    // key -> { original, encoded, size }; also remembers the keys seen once and not stored
    // (minUses 2), as many as the cache has entries
    this.entries = new BoundedLru({ maxEntries: this.maxEntries, maxBytes: this.maxBytes });
    this.inFlight = new Map(); // key -> { original, waiters: [callback] }
    this.counts = {
      hits: 0,
      misses: 0,
      coalesced: 0,
      compressions: 0,
      errors: 0,
      uncached: 0,
    };
    // ssr-native/metrics reads stats() at scrape time (held weakly: a dropped cache leaves).
    addSource('compression_cache', options.name || 'compression', (cache) => cache.stats(), {
      owner: this,
      counters: ['coalesced', 'compressions', 'uncached', 'notAdmitted'],
    });
  }

  /**
   * The encoded form of `body` (whose CRC-32 is `crc`), or undefined and then callback(err,
   * encoded) once it is compressed by `encoder` (never synchronously).
   *
   * A miss compresses the caller's buffer as it is, the way the peers' zlib streams and Node's own
   * res.end() use it (a caller may not change a buffer it has handed to end()); only a body that
   * is stored is copied, and the copy is checked against `crc` before it is kept, so a buffer
   * changed while it compressed is never stored under the old content's key.
   */
  encode(body, crc, encoder, callback) {
    const key = `${encoder.id}|${body.length}|${crc}`;
    const hit = this.hit(key, body);
    if (hit !== undefined) return hit;
    const flight = this.inFlight.get(key);
    if (flight !== undefined && flight.original.equals(body)) {
      this.counts.coalesced++;
      flight.waiters.push(callback);
      return undefined;
    }
    this.counts.misses++;
    this.counts.compressions++;
    const own = { original: body, waiters: [callback] };
    // A collision in flight (same key, other bytes) compresses on its own and is not shared.
    const shared = flight === undefined;
    if (shared) this.inFlight.set(key, own);
    const seenBefore = this.sighted(key);
    encoder.compress(body, (err, encoded) => {
      if (shared) this.inFlight.delete(key);
      if (err) this.counts.errors++;
      else this.store(key, crc, body, encoded, seenBefore);
      for (const waiter of own.waiters) waiter(err, encoded);
    });
    return undefined;
  }

  /**
   * The encoded form of `body` (whose CRC-32 is `crc`), from the cache or compressed here and now
   * by `encoder.compressNow` (for callers that cannot wait: Fastify answers a hook's payload in
   * the same turn for its handlers' sake). A compression of the same body in flight is not
   * waited for. Throws what the encoder throws.
   */
  encodeNow(body, crc, encoder) {
    const key = `${encoder.id}|${body.length}|${crc}`;
    const hit = this.hit(key, body);
    if (hit !== undefined) return hit;
    this.counts.misses++;
    this.counts.compressions++;
    const seenBefore = this.sighted(key);
    let encoded;
    try {
      encoded = encoder.compressNow(body);
    } catch (err) {
      this.counts.errors++;
      throw err;
    }
    this.store(key, crc, body, encoded, seenBefore);
    return encoded;
  }

  /**
   * The cache's own stored copy of `body` (whose CRC-32 is `crc`) under `encoder`, or undefined.
   * A memo that hands that copy back (text-bodies.js) gets its hits without the compare: the
   * copy is the cache's, never handed to a caller to write into.
   */
  originalOf(body, crc, encoder) {
    const entry = this.entries.peek(`${encoder.id}|${body.length}|${crc}`);
    if (entry === undefined || !(entry.original === body || entry.original.equals(body))) return undefined;
    return entry.original;
  }

  // The stored encoded form of `body` under `key` (most recently used from now on), or undefined.
  hit(key, body) {
    const entry = this.entries.get(key);
    if (entry === undefined || (entry.original !== body && !entry.original.equals(body))) return undefined;
    this.counts.hits++;
    return entry.encoded;
  }

  // Notes a miss under `key`: true if it was missed before and not stored then (minUses 2 only).
  sighted(key) {
    return this.minUses === 1 || this.entries.sighted(key);
  }

  store(key, crc, body, encoded, seenBefore) {
    const size = body.length + encoded.length;
    if (size > this.maxEntryBytes || size > this.maxBytes || this.maxEntries === 0) {
      this.counts.uncached++;
      return;
    }
    if (!this.entries.admits(key, size, seenBefore)) return; // counted in notAdmitted
    const original = Buffer.allocUnsafeSlow(body.length);
    body.copy(original);
    if (crc32(original) !== crc) {
      // the caller changed its buffer while it compressed: neither form is known to be right
      this.counts.uncached++;
      return;
    }
    this.entries.set(key, { original, encoded, size }, size);
  }

  /** Drops every entry (compressions in flight still complete and answer their waiters). */
  clear() {
    this.entries.clear();
  }

  get bytes() {
    return this.entries.bytes;
  }

  stats() {
    return {
      ...this.counts,
      evictions: this.entries.evictions,
      notAdmitted: this.entries.rejections,
      bytes: this.bytes,
      entries: this.entries.size,
      inFlight: this.inFlight.size,
      maxBytes: this.maxBytes,
      maxEntries: this.maxEntries,
      minUses: this.minUses,
    };
  }
}

let shared;

/** The process-wide content cache every middleware of ssr-native without its own `cache` uses. */
function sharedCache() {
  if (shared === undefined) shared = new ContentCache();
  return shared;
}

/** The `cache` option of every compression middleware: true/undefined, false/null, a cache or its options. */
function cacheFrom(option) {
  if (option === undefined || option === true) return sharedCache();
  if (option === false || option === null) return null;
  if (option instanceof ContentCache) return option;
  if (typeof option === 'object') return new ContentCache(option);
  throw invalidType('options.cache', 'a boolean, a ContentCache or cache options', option);
}

module.exports = { ContentCache, sharedCache, cacheFrom, DEFAULT_MAX_BYTES, DEFAULT_MAX_ENTRIES };
