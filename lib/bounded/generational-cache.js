'use strict';
// A bounded map with approximately least-recently-used eviction, at the cost of one Map lookup
// per hit: entries live in two generations of at most capacity/2 each. New entries go to the
// young generation; a hit in the old one moves the entry to the young one; when the young
// generation is full it becomes the old one and the previous old one is dropped whole. So the
// cache never holds more than `capacity` entries, and anything used within the last capacity/2
// insertions survives.

class GenerationalCache {
  constructor(capacity) {
    this.resize(capacity);
  }

  get capacity() {
    return this._capacity;
  }

  get size() {
    return this._young.size + this._old.size;
  }

  resize(capacity) {
    this._capacity = capacity;
    this._generation = Math.floor(capacity / 2);
    this.clear();
  }

  clear() {
    this._young = new Map();
    this._old = new Map();
  }

  get(key) {
    const value = this._young.get(key);
    if (value !== undefined || this._old.size === 0) return value;
    const old = this._old.get(key);
    if (old !== undefined) {
      this._old.delete(key);
      this.set(key, old);
    }
    return old;
  }

  set(key, value) {
    if (this._generation === 0) return;
    this._young.set(key, value);
    if (this._young.size >= this._generation) {
      this._old = this._young;
      this._young = new Map();
    }
  }
}

module.exports = { GenerationalCache };
