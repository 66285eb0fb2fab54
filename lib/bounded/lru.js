'use strict';
// BoundedLru: a map bounded by entries and by bytes (each entry's size as its owner counts it),
// evicting the least recently used entry first, with counters and optional admission. Every
// bounded map that used to be a Map kept in LRU or insertion order sits on it.
//
// Why not a Map in LRU order: moving a key to the end on a hit is a delete plus a set, and V8
// keeps a deleted Map entry in its hash bucket's chain until the table is rebuilt, so one key hit
// again and again walks a chain that grows with every hit; in a large table the rebuild comes
// rarely and a hit's cost grows with the cache (docs/cache.md).
//
// Here a hit is one Map lookup and one store: the entry's `usedAt` takes the next tick. Nothing
// is reordered and nothing allocated. The entries sit in a binary min-heap by `rank`, the tick at
// which the heap last placed them (never later than `usedAt`). To evict, the root is looked at:
// when it was used since it was placed (`usedAt` > `rank`) it is placed again at its `usedAt` and
// the heap re-sifted; otherwise it is the least recently used entry (every other entry's
// `usedAt` >= its `rank` >= the root's) and goes. Each re-placement answers one earlier hit, so an
// eviction costs O(log n) amortized. So that one eviction after hits on every entry does not
// re-place them all at once (a pause that grows with the cache), at most MAX_REPLACEMENTS happen
// per eviction; past that the root goes even though it was used, and the order is approximate
// until the backlog is worked off. A cache of at most MAX_REPLACEMENTS entries is exactly LRU.
//
// First in, first out: an owner that looks entries up with peek() (never get()) marks none used,
// so every entry keeps the rank of its set() and the root is always the oldest set: eviction is
// in insertion order, a set() of a present key counting as new.
//
// Admission (after nginx's proxy_cache_min_uses 2), for owners whose inserts are costly or mostly
// one-offs: sighted(key) notes a miss and says whether the key was missed before, remembering
// at most `maxEntries` once-seen keys (oldest forgotten first); admits(key, size, seenBefore)
// lets an entry in when it fits without evicting anything, or when it was seen before.

const MAX_REPLACEMENTS = 32;

class Entry {
  constructor(key, value, size, tick) {
    this.key = key;
    this.value = value;
    this.size = size;
    this.usedAt = tick; // the tick of its last set or hit
    this.rank = tick; // where the heap has it: a tick no later than usedAt
    this.at = 0; // its index in the heap
  }
}

class BoundedLru {
  /**
   * @param {object} options
   * @param {number} [options.maxEntries=Infinity]
   * @param {number} [options.maxBytes=Infinity] bound on the sum of the entries' sizes
   * @param {(key, value) => void} [options.onEvict] called after an entry is evicted to make room
   *   (not for delete, replace or clear); it must not call back into this cache's set().
   */
  constructor({ maxEntries = Infinity, maxBytes = Infinity, onEvict } = {}) {
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
    this.onEvict = onEvict;
    this.bytes = 0;
    this.hits = 0;
    this.misses = 0;
    this.evictions = 0;
    this.admissions = 0;
    this.rejections = 0;
    this._index = new Map(); // key -> Entry
    this._heap = []; // Entries, a min-heap by rank
    this._tick = 0;
    this._seenOnce = new Map(); // key -> true: missed once, not stored (oldest first)
  }

  get size() {
    return this._index.size;
  }

  /** The value under `key` (marked used: a hit), or undefined (a miss). */
  get(key) {
    const entry = this._index.get(key);
    if (entry === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    entry.usedAt = ++this._tick;
    return entry.value;
  }

  /** The value under `key` without counting or marking it. */
  peek(key) {
    const entry = this._index.get(key);
    return entry === undefined ? undefined : entry.value;
  }

  has(key) {
    return this._index.has(key);
  }

  /** Whether an entry of `size` bytes fits the bounds at all. */
  fits(size) {
    return size <= this.maxBytes && this.maxEntries > 0;
  }

  /**
   * Stores `value` under `key` (replacing its entry), evicting others until the bounds hold.
   * False, and nothing changed, when an entry of `size` can never fit.
   */
  set(key, value, size = 0) {
    if (!this.fits(size)) return false;
    const old = this._index.get(key);
    if (old !== undefined) this._remove(old);
    if (this._seenOnce.size > 0) this._seenOnce.delete(key);
    while (this._index.size > 0 && (this.bytes + size > this.maxBytes || this._index.size >= this.maxEntries)) {
      this._evictOne();
    }
    // The newest rank of all: its place is the heap's end, no sifting.
    const entry = new Entry(key, value, size, ++this._tick);
    entry.at = this._heap.length;
    this._heap.push(entry);
    this._index.set(key, entry);
    this.bytes += size;
    this.admissions++;
    return true;
  }

  /** Drops `key`'s entry; false when there was none. */
  delete(key) {
    const entry = this._index.get(key);
    if (entry === undefined) return false;
    this._remove(entry);
    return true;
  }

  /** Notes a miss of `key`: true when it was missed before and not stored since. */
  sighted(key) {
    if (this._seenOnce.delete(key)) return true;
    if (this._seenOnce.size >= this.maxEntries) {
      if (this.maxEntries === 0) return false;
      this._seenOnce.delete(this._seenOnce.keys().next().value);
    }
    this._seenOnce.set(key, true);
    return false;
  }

  /**
   * Admission: whether an entry of `size` under `key` may come in, given whether it was
   * `seenBefore` (sighted). It may when it was, or when storing it evicts nothing. Counts a
   * refusal in `rejections`.
   */
  admits(key, size, seenBefore) {
    if (seenBefore) return true;
    const old = this._index.get(key);
    const bytes = this.bytes - (old === undefined ? 0 : old.size);
    const entries = this._index.size - (old === undefined ? 0 : 1);
    if (bytes + size <= this.maxBytes && entries < this.maxEntries) return true;
    this.rejections++;
    return false;
  }

  /** Every key, in no particular order. */
  keys() {
    return this._index.keys();
  }

  /** Every value, in no particular order (none marked used). */
  *values() {
    for (const entry of this._index.values()) yield entry.value;
  }

  clear() {
    this._index.clear();
    this._heap = [];
    this._seenOnce.clear();
    this.bytes = 0;
  }

  stats() {
    return {
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
      admissions: this.admissions,
      rejections: this.rejections,
      entries: this._index.size,
      bytes: this.bytes,
    };
  }

  _remove(entry) {
    this._index.delete(entry.key);
    this.bytes -= entry.size;
    const heap = this._heap;
    const last = heap.pop();
    if (last !== entry) {
      heap[entry.at] = last;
      last.at = entry.at;
      this._siftDown(last.at);
      this._siftUp(last.at);
    }
  }

  // Evicts the least recently used entry (see the header); the cache is not empty.
  _evictOne() {
    const heap = this._heap;
    for (let n = 0; n < MAX_REPLACEMENTS; n++) {
      const root = heap[0];
      if (root.usedAt === root.rank) break;
      root.rank = root.usedAt;
      this._siftDown(0);
    }
    const victim = heap[0];
    this._remove(victim);
    this.evictions++;
    if (this.onEvict !== undefined) this.onEvict(victim.key, victim.value);
  }

  _siftUp(i) {
    const heap = this._heap;
    const entry = heap[i];
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent].rank <= entry.rank) break;
      heap[i] = heap[parent];
      heap[i].at = i;
      i = parent;
    }
    heap[i] = entry;
    entry.at = i;
  }

  _siftDown(i) {
    const heap = this._heap;
    const n = heap.length;
    const entry = heap[i];
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && heap[child + 1].rank < heap[child].rank) child++;
      if (heap[child].rank >= entry.rank) break;
      heap[i] = heap[child];
      heap[i].at = i;
      i = child;
    }
    heap[i] = entry;
    entry.at = i;
  }
}

module.exports = { BoundedLru, MAX_REPLACEMENTS };
