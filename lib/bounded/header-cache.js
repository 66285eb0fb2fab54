'use strict';
// A bounded, set-associative string-keyed cache (the shape of a CPU cache): `capacity` entries
// in buckets of WAYS, each bucket kept in most-recently-used order, so eviction is least
// recently used within a bucket.
//
// Why not a Map: a Map lookup hashes the whole key, and a request header is a new string on
// every request, so every lookup pays a full hash of it. This cache picks the bucket from the
// length and 7 characters at fixed relative positions, then confirms with `===` (a memory compare). A key set crafted to share a
// bucket only costs misses and evictions within that bucket: correctness never depends on it.
const WAYS = 4;

// 32 bits from the key's length and 7 characters at fixed relative positions.
function sampleHash(key) {
  const n = key.length;
  let h = Math.imul(n, 0x9e3779b1);
  h = Math.imul(h ^ key.charCodeAt(n - 1), 0x01000193);
  h = Math.imul(h ^ key.charCodeAt(n - 2), 0x01000193);
  h = Math.imul(h ^ key.charCodeAt(n - 3), 0x01000193);
  h = Math.imul(h ^ key.charCodeAt(n - 4), 0x01000193);
  h = Math.imul(h ^ key.charCodeAt(n >> 1), 0x01000193);
  h = Math.imul(h ^ key.charCodeAt(n >> 2), 0x01000193);
  h = Math.imul(h ^ key.charCodeAt((3 * n) >> 2), 0x01000193);
  // charCodeAt past either end is NaN, which `^` turns into 0: short keys need no special case.
  return h ^ (h >>> 15);
}

// Multiply-shift maps the hash's high bits onto [0, buckets) without a division.
function bucketBase(hash, buckets) {
  return Math.floor(((hash >>> 0) * buckets) / 4294967296) * WAYS;
}

class HeaderCache {
  constructor(capacity) {
    this.resize(capacity);
  }

  /** Entries it can hold: the requested capacity rounded down to whole buckets of 4 (at least
   * one bucket; 0 disables the cache). */
  get capacity() {
    return this._keys.length;
  }

  get size() {
    let n = 0;
    for (const key of this._keys) if (key !== undefined) n++;
    return n;
  }

  resize(capacity) {
    /** The sampled hash of the last get()'s key (its low bits are free for a caller's table). */
    this.lastHash = 0;
    const buckets = capacity <= 0 ? 0 : Math.max(1, Math.floor(capacity / WAYS));
    this._buckets = buckets;
    this._keys = new Array(buckets * WAYS).fill(undefined);
    this._values = new Array(buckets * WAYS).fill(undefined);
  }

  clear() {
    this._keys.fill(undefined);
    this._values.fill(undefined);
  }

  get(key) {
    const keys = this._keys;
    if (keys.length === 0) return undefined;
    const hash = sampleHash(key);
    this.lastHash = hash;
    const base = bucketBase(hash, this._buckets);
    if (keys[base] === key) return this._values[base];
    for (let way = 1; way < WAYS; way++) {
      if (keys[base + way] === key) {
        // Move to the front of the bucket, shifting the more recent ones back.
        const values = this._values;
        const value = values[base + way];
        for (let i = base + way; i > base; i--) {
          keys[i] = keys[i - 1];
          values[i] = values[i - 1];
        }
        keys[base] = key;
        values[base] = value;
        return value;
      }
    }
    return undefined;
  }

  set(key, value) {
    const keys = this._keys;
    if (keys.length === 0) return;
    const values = this._values;
    const base = bucketBase(sampleHash(key), this._buckets);
    // Insert at the front; the least recently used entry of the bucket falls off the end.
    for (let i = base + WAYS - 1; i > base; i--) {
      keys[i] = keys[i - 1];
      values[i] = values[i - 1];
    }
    keys[base] = key;
    values[base] = value;
  }
}

module.exports = { HeaderCache };
