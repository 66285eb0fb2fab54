'use strict';
// The compressed forms of bodies already seen, found by content: the key is the encoder's
// settings, the body's length and its CRC-32, and a hit is served only when the stored original
// bytes equal the body (CRC-32 is linear, so anyone who can shape a body can forge a collision;
// the compare makes a collision cost a miss, never a wrong body). Compressions in flight are
// shared: a body that arrives while the same body is compressing waits for that result.
//
// Bounded by bytes (originals and compressed forms both count), by entries and by the size of
// one entry, least recently used first out. The bodies are Buffers, so they live outside V8's
// heap (external memory) and a large cache adds nothing for the garbage collector to trace.
const { invalidType, outOfRange } = require('../validate');
const { addSource } = require('../metrics/sources');

const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;
const DEFAULT_MAX_ENTRIES = 4096;

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
    this.maxBytes = readLimit(options, 'maxBytes', DEFAULT_MAX_BYTES);
    this.maxEntries = readLimit(options, 'maxEntries', DEFAULT_MAX_ENTRIES);
    // One body may take at most an eighth of the budget, so one large page cannot flush the rest.
    this.maxEntryBytes = readLimit(options, 'maxEntryBytes', Math.floor(this.maxBytes / 8));
    this.entries = new Map(); // key -> { original, encoded, size }, least recently used first
    this.inFlight = new Map(); // key -> { original, waiters: [callback] }
    this.bytes = 0;
    this.counts = { hits: 0, misses: 0, coalesced: 0, compressions: 0, evictions: 0, errors: 0, uncached: 0 };
    // ssr-native/metrics reads stats() at scrape time (held weakly: a dropped cache leaves).
    addSource('compression_cache', options.name || 'compression', (cache) => cache.stats(), {
      owner: this,
      counters: ['coalesced', 'compressions', 'uncached'],
    });
  }

  /**
   * The encoded form of `body` under `key` (settings + length + CRC), or undefined and then
   * callback(err, encoded) once it is compressed by `encoder` (never synchronously). The body
   * is copied before compressing: the caller's buffer may be reused once end() returns.
   */
  encode(key, body, encoder, callback) {
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      if (entry.original.equals(body)) {
        this.counts.hits++;
        // most recently used last: re-insert
        this.entries.delete(key);
        this.entries.set(key, entry);
        return entry.encoded;
      }
    }
    const flight = this.inFlight.get(key);
    if (flight !== undefined && flight.original.equals(body)) {
      this.counts.coalesced++;
      flight.waiters.push(callback);
      return undefined;
    }
    this.counts.misses++;
    this.counts.compressions++;
    const original = Buffer.allocUnsafeSlow(body.length);
    body.copy(original);
    const own = { original, waiters: [callback] };
    // A collision in flight (same key, other bytes) compresses on its own and is not shared.
    const shared = flight === undefined;
    if (shared) this.inFlight.set(key, own);
    encoder.compress(original, (err, encoded) => {
      if (shared) this.inFlight.delete(key);
      if (err) this.counts.errors++;
      else this.store(key, original, encoded);
      for (const waiter of own.waiters) waiter(err, encoded);
    });
    return undefined;
  }

  /**
   * The encoded form of `body` under `key`, compressed here and now by `encoder.compressNow`
   * when it is not stored (for callers that cannot wait: Fastify answers a hook's payload in
   * the same turn for its handlers' sake). A compression of the same body in flight is not
   * waited for. Throws what the encoder throws.
   */
  encodeNow(key, body, encoder) {
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.original.equals(body)) {
      this.counts.hits++;
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry.encoded;
    }
    this.counts.misses++;
    this.counts.compressions++;
    const original = Buffer.allocUnsafeSlow(body.length);
    body.copy(original);
    let encoded;
    try {
      encoded = encoder.compressNow(original);
    } catch (err) {
      this.counts.errors++;
      throw err;
    }
    this.store(key, original, encoded);
    return encoded;
  }

  store(key, original, encoded) {
    const size = original.length + encoded.length;
    if (size > this.maxEntryBytes || size > this.maxBytes || this.maxEntries === 0) {
      this.counts.uncached++;
      return;
    }
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.bytes -= old.size;
    }
    while (this.entries.size > 0 && (this.bytes + size > this.maxBytes || this.entries.size >= this.maxEntries)) {
      const [oldestKey, oldest] = this.entries.entries().next().value;
      this.entries.delete(oldestKey);
      this.bytes -= oldest.size;
      this.counts.evictions++;
    }
    this.entries.set(key, { original, encoded, size });
    this.bytes += size;
  }

  /** Drops every entry (compressions in flight still complete and answer their waiters). */
  clear() {
    this.entries.clear();
    this.bytes = 0;
  }

  stats() {
    return {
      ...this.counts,
      bytes: this.bytes,
      entries: this.entries.size,
      inFlight: this.inFlight.size,
      maxBytes: this.maxBytes,
      maxEntries: this.maxEntries,
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
