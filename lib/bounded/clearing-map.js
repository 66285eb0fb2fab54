'use strict';
// ClearingMap: a Map of at most `maxEntries` keys that empties itself when a new key would pass
// the bound. For memos of pure answers (a header's parse, a host check, a path's resolution):
// what they hold is cheap to compute again and the keys in use at any time are few, so dropping
// everything once in a while costs one recomputation per live key, and keeps every hit one
// plain Map lookup (no recency bookkeeping, as BoundedLru does for caches of costly entries).
// A key the client chose cannot grow it past the bound.

class ClearingMap extends Map {
  constructor(maxEntries) {
    super();
    this.maxEntries = maxEntries;
  }

  /** Sets `key`; when the map is full and `key` is new, everything else goes first. */
  set(key, value) {
    if (this.size >= this.maxEntries && !this.has(key)) this.clear();
    return super.set(key, value);
  }
}

module.exports = { ClearingMap };
