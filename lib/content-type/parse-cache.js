'use strict';
// The parse cache both drop-ins keep (index.js for content-type 1.0.5, v2.js for 2.x): the
// HeaderCache of parsed headers, the first-sighting table of its admission rule (a header is
// cached on its second sighting: see index.js), and the counters cacheStats() reports and
// ssr-native/metrics reads. The admission decision itself stays with each drop-in (their
// entries differ); this holds the state and its bookkeeping.
const { HeaderCache } = require('../bounded/header-cache');
const { addSource } = require('../stat-sources');

// A power of two, about twice the capacity: the table is indexed by the low bits of the sampled
// hash the cache lookup just computed (HeaderCache.lastHash).
const sightingTable = (capacity) => new Array(2 ** Math.ceil(Math.log2(Math.max(2, 2 * capacity)))).fill(undefined);

class ParseCache {
  /** `capacity` in entries; `source`: the metrics label (the entry point). */
  constructor(capacity, source) {
    this.cache = new HeaderCache(capacity);
    this.seenOnce = sightingTable(capacity);
    this.hits = 0; // answered from the cache
    this.misses = 0; // scanned: not cached (yet)
    this.stores = 0; // cached
    this.bypasses = 0; // too long or too many parameters to cache
    addSource('content_type_cache', source, () => {
      const { size, ...counts } = this.stats();
      return { entries: size, ...counts };
    });
  }

  resize(capacity) {
    this.cache.resize(capacity);
    this.seenOnce = sightingTable(capacity);
  }

  stats() {
    const { cache, hits, misses, stores, bypasses } = this;
    return { size: cache.size, capacity: cache.capacity, hits, misses, stores, bypasses };
  }

  /** Empties the cache and the sightings, and zeroes the counters. */
  clear() {
    this.cache.clear();
    this.seenOnce.fill(undefined);
    this.hits = 0;
    this.misses = 0;
    this.stores = 0;
    this.bypasses = 0;
  }
}

module.exports = { ParseCache };
