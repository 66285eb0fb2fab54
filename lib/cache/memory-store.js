'use strict';
// The first-layer entry store: bounded by total bytes (bodies + keys + headers) and by entry
// count, least recently used evicted first, with the indexes purges need (target URI -> keys,
// tag -> keys) and, per primary key, the Vary names its responses declared.
//
// Each entry (its metadata as JSON and its body) is one block in native memory (ResponseSlots),
// outside V8's heap; the index here maps its key to the block's slot id, a small integer the
// garbage collector neither allocates nor marks. So a cache of 50,000 pages costs every major GC
// the keys and index tables, not 50,000 entry objects with their headers, times and Buffers
// (about twenty objects each). A hit reads the block back into an entry object whose body is a
// view of the block (no copy). An entry hit again soon after keeps that object (the hot set, at
// most HOT_ENTRIES), so a page hit again and again costs no JSON parse and no new Buffer (a few
// microseconds each, a few percent of a hit's CPU). A hot entry holds its block alive, so every
// delete drops it from the hot set first: an evicted or purged block is freed as before. A hot
// entry is shared by every request that hits it, so it is frozen (its headers too). Every major
// GC marks what the indexes hold, so they add none for the common case: a target or tag with one
// key holds the key string itself (a Set from the second key on), and a primary key without Vary
// counts its entries with a number. The key index is a BoundedLru (approximate LRU: a hit marks
// its key used, no reordering), which evicts through forget().
const { ResponseSlots } = require('../native');
const { BoundedLru } = require('../bounded/lru');
const { targetOf } = require('./key');
const { metadataText, parseMetadata } = require('./entry-metadata');

const NO_NAMES = Object.freeze([]);
// Few enough that their objects cost a GC nothing worth measuring, enough for a site's hot pages.
const HOT_ENTRIES = 128;

class MemoryStore {
  constructor({ maxBytes, maxEntries }) {
    this.maxBytes = maxBytes;
    this.maxEntries = maxEntries;
    this.slots = new ResponseSlots();
    // key -> slot id, bounded by the entries' sizes and count
    this.entries = new BoundedLru({ maxBytes, maxEntries, onEvict: (key, id) => this.forget(key, id) });
    this.byTarget = new Map(); // path?query -> Set<key>
    this.byTag = new Map(); // tag -> Set<key>
    this.vary = new Map(); // primary -> { names, count }
    // key -> frozen entry (with its body), hit twice lately; its sightings are the keys read from
    // their blocks lately, once
    this.hot = new BoundedLru({ maxEntries: HOT_ENTRIES });
  }

  get bytes() {
    return this.entries.bytes;
  }

  get evictions() {
    return this.entries.evictions;
  }

  get(key) {
    const id = this.entries.get(key);
    if (id === undefined) return undefined;
    let entry = this.hot.get(key);
    if (entry !== undefined) return entry;
    entry = this.metadataOf(id);
    entry.body = this.slots.body(id);
    // Kept on its second hit among the last HOT_ENTRIES keys read from their blocks: hits that
    // walk many pages leave their entries young garbage, as a hot set churned by them would not.
    if (this.hot.sighted(key)) this.hot.set(key, freezeEntry(entry));
    return entry;
  }

  /** The Vary names stored responses of this primary key declared (undefined: none stored). */
  varyOf(primary) {
    const spec = this.vary.get(primary);
    return spec === undefined ? undefined : namesOf(spec);
  }

  /** Stores `entry` (replacing its key's); false when it can never fit. */
  set(entry) {
    if (entry.size > this.maxBytes) return false;
    this.delete(entry.key);
    const spec = this.vary.get(entry.primary);
    if (spec !== undefined && !sameNames(namesOf(spec), entry.varyNames)) {
      // the response changed what it varies on: its older variants are keyed by other headers
      this.deleteKeys([...this.keysOfPrimary(entry.primary)]);
    }
    let id;
    try {
      id = this.slots.put(metadataText(entry), entry.body);
    } catch {
      return false; // no memory for the block: not stored
    }
    if (!this.entries.set(entry.key, id, entry.size)) {
      this.slots.remove(id);
      return false;
    }
    addTo(this.byTarget, entry.target, entry.key);
    for (const tag of entry.tags) addTo(this.byTag, tag, entry.key);
    const current = this.vary.get(entry.primary);
    if (current === undefined)
      this.vary.set(entry.primary, entry.varyNames.length === 0 ? 1 : { names: entry.varyNames, count: 1 });
    else if (typeof current === 'number') this.vary.set(entry.primary, current + 1);
    else current.count++;
    return true;
  }

  delete(key) {
    const id = this.entries.peek(key);
    if (id === undefined) return false;
    this.entries.delete(key);
    this.forget(key, id);
    return true;
  }

  // Frees the block of `key` (out of the key index already) and drops it from the other indexes.
  forget(key, id) {
    this.hot.delete(key);
    const entry = this.metadataOf(id);
    this.slots.remove(id);
    removeFrom(this.byTarget, entry.target, key);
    for (const tag of entry.tags) removeFrom(this.byTag, tag, key);
    const spec = this.vary.get(entry.primary);
    if (typeof spec === 'number') {
      if (spec > 1) this.vary.set(entry.primary, spec - 1);
      else this.vary.delete(entry.primary);
    } else if (spec !== undefined && --spec.count === 0) this.vary.delete(entry.primary);
  }

  deleteKeys(keys) {
    let n = 0;
    for (const key of keys) if (this.delete(key)) n++;
    return n;
  }

  *keysOfPrimary(primary) {
    for (const key of keysIn(this.byTarget, targetOf(primary)))
      if (this.metadataOf(this.entries.peek(key)).primary === primary) yield key;
  }

  /** Every entry of a target (`/path?query`, normalised as keys are), all hosts and variants. */
  purgeTarget(target) {
    return this.deleteKeys(keysIn(this.byTarget, target));
  }

  /** The entries of a target whose key `which(key)` accepts (one host's, RFC 9111 4.4). */
  purgeTargetWhere(target, which) {
    return this.deleteKeys(keysIn(this.byTarget, target).filter(which));
  }

  purgePrefix(prefix) {
    const keys = [];
    for (const [target, value] of this.byTarget) {
      if (!target.startsWith(prefix)) continue;
      if (typeof value === 'string') keys.push(value);
      else keys.push(...value);
    }
    return this.deleteKeys(keys);
  }

  purgeTag(tag) {
    return this.deleteKeys(keysIn(this.byTag, tag));
  }

  /** The stored fields of slot `id` but its body (read without making a Buffer of the block). */
  metadataOf(id) {
    const entry = parseMetadata(this.slots.metadata(id));
    if (entry.varyNames.length === 0) entry.varyNames = NO_NAMES; // one array for all, as stored
    if (entry.tags.length === 0) entry.tags = NO_NAMES;
    return entry;
  }

  clear() {
    const n = this.entries.size;
    this.entries.clear();
    this.hot.clear();
    this.slots.clear();
    this.byTarget.clear();
    this.byTag.clear();
    this.vary.clear();
    return n;
  }
}

function freezeEntry(entry) {
  for (const name in entry.headers) Object.freeze(entry.headers[name]); // arrays of values too
  Object.freeze(entry.headers);
  Object.freeze(entry.tags);
  Object.freeze(entry.varyNames);
  return Object.freeze(entry);
}

function sameNames(a, b) {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

const namesOf = (spec) => (typeof spec === 'number' ? NO_NAMES : spec.names);

// An index (name -> keys) whose value is the key itself while the name has one.
function addTo(index, name, key) {
  const value = index.get(name);
  if (value === undefined) index.set(name, key);
  else if (typeof value !== 'string') value.add(key);
  else if (value !== key) index.set(name, new Set([value, key]));
}

function removeFrom(index, name, key) {
  const value = index.get(name);
  if (value === undefined) return;
  if (typeof value === 'string') {
    if (value === key) index.delete(name);
    return;
  }
  value.delete(key);
  if (value.size === 1) index.set(name, value.values().next().value);
  else if (value.size === 0) index.delete(name);
}

/** A copy of the keys under `name` (safe to delete them while iterating). */
function keysIn(index, name) {
  const value = index.get(name);
  if (value === undefined) return [];
  return typeof value === 'string' ? [value] : [...value];
}

module.exports = { MemoryStore, NO_NAMES, HOT_ENTRIES };
