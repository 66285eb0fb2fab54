'use strict';
// PageMemo: what cacheCommonEngine remembers per prerendered-page path: "not a prerendered page",
// or the page's HTML as a string together with the FileCache entry it came from. CommonEngine's
// own memo (`pageIsSSG`) keeps one entry per URL path ever requested, so a crawler or an attacker
// asking for random paths grows it without end; this one is an LRU (lib/bounded/lru.js) bounded
// both in entries and in the bytes of HTML strings it holds.
const { BoundedLru } = require('../bounded/lru');

class PageMemo {
  constructor(maxEntries, maxBytes) {
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
    this._lru = new BoundedLru({ maxEntries, maxBytes });
  }

  get size() {
    return this._lru.size;
  }

  /** The sum of html.length (UTF-16 code units) held, an estimate of the heap used. */
  get bytes() {
    return this._lru.bytes;
  }

  get(key) {
    return this._lru.get(key);
  }

  set(key, entry) {
    // larger than the whole budget: not memoised, and what was memoised before is stale
    if (!this._lru.set(key, entry, sizeOf(entry))) this._lru.delete(key);
  }

  delete(key) {
    this._lru.delete(key);
  }

  clear() {
    this._lru.clear();
  }
}

function sizeOf(entry) {
  return entry.html === undefined ? 0 : entry.html.length;
}

module.exports = { PageMemo };
