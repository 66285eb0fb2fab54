'use strict';
// The first-layer entry store: bounded by total bytes (bodies + keys + headers) and by entry
// count, least recently used evicted first, with the indexes purges need (target URI -> keys,
// tag -> keys) and, per primary key, the Vary names its responses declared.
//
// Bodies are Buffers of their own (allocUnsafeSlow): their bytes live outside V8's heap, so a
// gigabyte of pages costs the garbage collector one small object per entry, not the pages. A
// Map's insertion order is the LRU order (a hit moves its entry to the end).
const { targetOf } = require('./key');

class MemoryStore {
  constructor({ maxBytes, maxEntries }) {
    this.maxBytes = maxBytes;
    this.maxEntries = maxEntries;
    this.entries = new Map(); // key -> entry
    this.byTarget = new Map(); // path?query -> Set<key>
    this.byTag = new Map(); // tag -> Set<key>
    this.vary = new Map(); // primary -> { names, count }
    this.bytes = 0;
    this.evictions = 0;
  }

  get(key) {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /** The Vary names stored responses of this primary key declared (undefined: none stored). */
  varyOf(primary) {
    const spec = this.vary.get(primary);
    return spec === undefined ? undefined : spec.names;
  }

  /** Stores `entry` (replacing its key's); false when it can never fit. */
  set(entry) {
    if (entry.size > this.maxBytes) return false;
    this.delete(entry.key);
    const spec = this.vary.get(entry.primary);
    if (spec !== undefined && !sameNames(spec.names, entry.varyNames)) {
      // the response changed what it varies on: its older variants are keyed by other headers
      this.deleteKeys([...this.keysOfPrimary(entry.primary)]);
    }
    this.entries.set(entry.key, entry);
    this.bytes += entry.size;
    addTo(this.byTarget, entry.target, entry.key);
    for (const tag of entry.tags) addTo(this.byTag, tag, entry.key);
    const current = this.vary.get(entry.primary);
    if (current === undefined) this.vary.set(entry.primary, { names: entry.varyNames, count: 1 });
    else current.count++;
    while (this.bytes > this.maxBytes || this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      this.delete(oldest);
      this.evictions++;
    }
    return true;
  }

  delete(key) {
    const entry = this.entries.get(key);
    if (entry === undefined) return false;
    this.entries.delete(key);
    this.bytes -= entry.size;
    removeFrom(this.byTarget, entry.target, key);
    for (const tag of entry.tags) removeFrom(this.byTag, tag, key);
    const spec = this.vary.get(entry.primary);
    if (spec !== undefined && --spec.count === 0) this.vary.delete(entry.primary);
    return true;
  }

  deleteKeys(keys) {
    let n = 0;
    for (const key of keys) if (this.delete(key)) n++;
    return n;
  }

  *keysOfPrimary(primary) {
    const keys = this.byTarget.get(targetOf(primary));
    if (keys === undefined) return;
    for (const key of keys) if (this.entries.get(key).primary === primary) yield key;
  }

  /** Every entry of a target (`/path?query`, normalised as keys are), all hosts and variants. */
  purgeTarget(target) {
    const keys = this.byTarget.get(target);
    return keys === undefined ? 0 : this.deleteKeys([...keys]);
  }

  purgePrefix(prefix) {
    const keys = [];
    for (const [target, set] of this.byTarget) if (target.startsWith(prefix)) keys.push(...set);
    return this.deleteKeys(keys);
  }

  purgeTag(tag) {
    const keys = this.byTag.get(tag);
    return keys === undefined ? 0 : this.deleteKeys([...keys]);
  }

  clear() {
    const n = this.entries.size;
    this.entries.clear();
    this.byTarget.clear();
    this.byTag.clear();
    this.vary.clear();
    this.bytes = 0;
    return n;
  }
}

function sameNames(a, b) {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

function addTo(index, name, key) {
  let set = index.get(name);
  if (set === undefined) index.set(name, (set = new Set()));
  set.add(key);
}

function removeFrom(index, name, key) {
  const set = index.get(name);
  if (set === undefined) return;
  set.delete(key);
  if (set.size === 0) index.delete(name);
}

module.exports = { MemoryStore };
