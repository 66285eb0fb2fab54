'use strict';
// PageMemo: what cacheCommonEngine remembers per prerendered-page path: "not a prerendered page",
// or the page's HTML as a string together with the FileCache entry it came from. CommonEngine's
// own memo (`pageIsSSG`) keeps one entry per URL path ever requested, so a crawler or an attacker
// asking for random paths grows it without end; this one is an LRU bounded both in entries and in
// the bytes of HTML strings it holds.
//
// A Map keeps insertion order, so re-inserting on a hit makes the first key the least recently
// used one: eviction is `keys().next()`.

class PageMemo {
  constructor(maxEntries, maxBytes) {
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
    this.bytes = 0; // sum of html.length (UTF-16 code units) held, an estimate of the heap used
    this._map = new Map();
  }

  get size() {
    return this._map.size;
  }

  get(key) {
    const entry = this._map.get(key);
    if (entry !== undefined) {
      this._map.delete(key);
      this._map.set(key, entry);
    }
    return entry;
  }

  set(key, entry) {
    if (this.maxEntries === 0) return;
    const previous = this._map.get(key);
    if (previous !== undefined) {
      this.bytes -= sizeOf(previous);
      this._map.delete(key);
    }
    const size = sizeOf(entry);
    if (size > this.maxBytes) return; // larger than the whole budget: not memoised
    this._map.set(key, entry);
    this.bytes += size;
    while (this._map.size > this.maxEntries || this.bytes > this.maxBytes) {
      const oldest = this._map.keys().next().value;
      this.bytes -= sizeOf(this._map.get(oldest));
      this._map.delete(oldest);
    }
  }

  delete(key) {
    const entry = this._map.get(key);
    if (entry === undefined) return;
    this.bytes -= sizeOf(entry);
    this._map.delete(key);
  }

  clear() {
    this._map.clear();
    this.bytes = 0;
  }
}

function sizeOf(entry) {
  return entry.html === undefined ? 0 : entry.html.length;
}

module.exports = { PageMemo };
