'use strict';
// One response cache for every process of a machine (the workers of a node:cluster or PM2
// cluster server): entries and their index in one shared-memory segment (src/core/
// shared_cache.cc), opened by name by each process. Given as responseCache's `store`, it takes
// the place of the per-process memory layer (one tier, one copy of each page per machine) and
// gives the engine a fill lock every process sees, so a burst for a new page renders once.
//
// Everything read back is checked as the Redis store's is (entry-metadata.js storedEntry): any
// process of this user can write to the segment. A page read twice lately is kept here, frozen,
// with the stamp of the write it came from and the index slot that holds it; the next hit checks
// only whether that write is still the one stored (no copy, no parse), reading the slot's words
// straight from the mapped index (StampTable: no native call), so a purge or a rewrite by any
// process is seen on the very next hit. These private copies (the hot set) are bounded in bytes (`hotBytes`,
// by default a 64th of the segment, at most HOT_BYTES) as well as in entries, so the machine
// holds each page about once: a bound in entries alone let each worker keep its own copy of most
// of the pages it served (measured: bench/cache/cluster-pss.js).
//
// A page read from the segment is copied once (straight into a Buffer, its CRC checked there);
// what its metadata says is parsed and checked once per write: each process keeps the checked
// metadata of the last META_ENTRIES entries it read (no bodies, bounded in bytes too), and a
// later read of the same write (same stamp) reuses it around the fresh copy of the body.
//
// A primary key whose responses vary holds a marker entry (its Vary names) under the primary
// itself, so a hit costs one look-up whether or not the page varies.
//
// The segment is opened at first use (the first look-up, store or purge), never when the store
// is made: `ng build` loads server.mjs to prerender, and must create nothing. A segment that
// cannot be opened (refused for its owner, mode or type, no room) leaves this process with a
// memory store of its own and one warning (shared-memory-segment.js); stats().store says which.
const os = require('os');
const path = require('path');
const { BoundedLru } = require('../bounded/lru');
const { metadataText, parseJson, storedEntry, FIELD_NAME } = require('./entry-metadata');
const { HOT_ENTRIES, NO_NAMES, MemoryStore } = require('./memory-store');
const { defaultDir, openSegment } = require('./shared-memory-segment');
const { SharedMemoryWork } = require('./shared-memory-work');
const { invalidType, outOfRange } = require('../validate');
const { ownOptions } = require('../options');

// the names sharedMemoryStore's options know (a misspelt one is a TypeError, not a silent default)
const SHARED_MEMORY_STORE_OPTIONS = ['name', 'dir', 'maxBytes', 'maxEntries', 'persist', 'hotBytes'];

// What each process may keep of the segment's pages by default (its hot set), in bytes: a 64th of
// the segment (4 workers then add ~6% to it), at most this.
const HOT_BYTES = 4 * 1024 * 1024;
const HOT_SHARE = 64;
// The checked metadata each process keeps (no bodies): at most this many entries and bytes.
const META_ENTRIES = 2048;
const META_BYTES = 2 * 1024 * 1024;
const NO_BODY = Buffer.alloc(0);

// The engine asks a store object for its layers under this key (lib/cache/engine.js).
const CACHE_LAYERS = Symbol.for('ssr-native.cache.layers');
const STORED = Symbol('stored by this store'); // an entry read from the segment, as it is there
const NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;
const TARGET = 0;
const TAG = 1;
const PRIMARY = 2;
const ALL = 3;
const WORD = 2 ** 32;

// The segment's index slots as this process maps them (the addon's stampTable(): an
// ArrayBuffer that keeps the mapping alive): whether a slot still holds the write of a stamp,
// read as the core's seqlock readers do (include/ssr_native/shared_cache.h, Stamps()), without
// a call. Atomics.load: every read is made, in order (none merged by the compiler).
class StampTable {
  constructor([buffer, slotBytes, seqAt, hashAt, stampAt, refAt]) {
    this.words = new Uint32Array(buffer);
    this.refs = new Uint8Array(buffer);
    this.count = buffer.byteLength / slotBytes;
    this.slotWords = slotBytes / 4;
    this.slotBytes = slotBytes;
    this.seq = seqAt / 4;
    this.hash = hashAt / 4;
    this.stamp = stampAt / 4;
    this.ref = refAt;
  }

  /**
   * Whether the slot of hot copy `hot` is unchanged since the copy was checked (marked used when
   * so): its sequence word then, else -1. Every write or removal of a slot moves its sequence
   * word, so an unchanged word with the copy's stamp still in place is the copy's write (two
   * reads where holds() makes six).
   */
  still(hot) {
    const words = this.words;
    const at = hot.slot * this.slotWords;
    if (Atomics.load(words, at + this.seq) !== hot.seq || Atomics.load(words, at + this.stamp) !== hot.lo) return -1;
    const ref = hot.slot * this.slotBytes + this.ref; // CLOCK's reference bit, as a native hit sets it
    if (this.refs[ref] === 0) this.refs[ref] = 1;
    return hot.seq;
  }

  /**
   * Whether slot `slot` holds the write whose stamp is lo + hi * 2^32 (marked used when so): the
   * slot's sequence word then (even), else -1.
   */
  holds(slot, lo, hi) {
    const words = this.words;
    const at = slot * this.slotWords;
    const seq = Atomics.load(words, at + this.seq);
    if ((seq & 1) !== 0) return -1; // being written
    const live = (Atomics.load(words, at + this.hash) | Atomics.load(words, at + this.hash + 1)) !== 0;
    const same = Atomics.load(words, at + this.stamp) === lo && Atomics.load(words, at + this.stamp + 1) === hi;
    if (!live || !same || Atomics.load(words, at + this.seq) !== seq) return -1;
    const ref = slot * this.slotBytes + this.ref; // CLOCK's reference bit, as a native hit sets it
    if (this.refs[ref] === 0) this.refs[ref] = 1;
    return seq;
  }

  /** Whether slot `slot` is unchanged since holds() answered `seq` (every write moves it). */
  unchanged(slot, seq) {
    return Atomics.load(this.words, slot * this.slotWords + this.seq) === seq;
  }
}

// The stamp table of `native`, or undefined (an older addon, a runtime without external
// ArrayBuffers, a big-endian machine): hot hits then ask the segment with a call.
function stampTableOf(native) {
  if (typeof native.stampTable !== 'function' || os.endianness() !== 'LE') return undefined;
  const parts = native.stampTable();
  return parts === undefined ? undefined : new StampTable(parts);
}

// A hot copy: the page as read, the write it came from (stamp, split in 32-bit words), its slot
// and the slot's sequence word when its stamp was checked there (-1: not checked).
class HotCopy {
  constructor(value, stamp, slot) {
    this.value = value;
    this.stamp = stamp;
    this.lo = stamp % WORD;
    this.hi = Math.floor(stamp / WORD);
    this.slot = slot;
    this.seq = -1;
  }
}

// An entry made of the checked metadata of a write (storedEntry's fields) and a fresh copy of its
// body: what `{ ...meta, body }` made, without a spread (~15 ns a hit where the spread took ~200).
class SegmentEntry {
  constructor(meta, body) {
    this.key = meta.key;
    this.primary = meta.primary;
    this.target = meta.target;
    this.varyNames = meta.varyNames;
    this.status = meta.status;
    this.headers = meta.headers;
    this.body = body;
    this.length = meta.length;
    this.etag = meta.etag;
    this.lastModified = meta.lastModified;
    this.tags = meta.tags;
    this.storedAt = meta.storedAt;
    this.freshUntil = meta.freshUntil;
    this.swrUntil = meta.swrUntil;
    this.sieUntil = meta.sieUntil;
    this.expiresAt = meta.expiresAt;
    this.size = meta.size;
    this[STORED] = meta[STORED];
  }
}

class SharedMemoryStore {
  constructor(native, maxBytes, hotBytes, counters) {
    this.native = native;
    this.maxBytes = maxBytes;
    this.table = stampTableOf(native);
    // key -> HotCopy, each counted at its entry's size; hotBytes 0 keeps none
    this.hot = new BoundedLru({ maxEntries: hotBytes === 0 ? 0 : HOT_ENTRIES, maxBytes: hotBytes });
    this.memo = undefined; // varyOf()'s look-up (a HotCopy, not kept), for the get() right after it
    this.memoKey = undefined;
    this.memoAt = 0;
    this.last = undefined; // read()'s last answer from the segment, as a HotCopy
    this.lastSeq = -1; // its slot's sequence word when the stamp table checked it (-1: not checked)
    this.memoSeq = -1;
    // key -> { stamp, value: the entry as checked, its body left out }
    this.metas = new BoundedLru({ maxEntries: META_ENTRIES, maxBytes: META_BYTES });
    this.counters = counters;
    this.entries = {
      get size() {
        return native.stats().entries;
      },
    };
  }

  get bytes() {
    return this.native.stats().bytes;
  }

  get evictions() {
    return this.native.stats().evictions;
  }

  // The entry (frozen when hot) or Vary marker ({ vary, expiresAt }) stored under `key`.
  read(key) {
    this.last = undefined;
    this.lastSeq = -1;
    const hot = this.hot.peek(key);
    if (hot !== undefined && this.table !== undefined) {
      const seq = this.table.still(hot);
      if (seq >= 0) {
        this.last = hot;
        this.lastSeq = seq;
        return hot.value;
      }
    }
    // the metadata of the write this process checked last: not sent again when still stored
    const known = this.metas.peek(key);
    const knownStamp = hot === undefined || this.table !== undefined ? 0 : hot.stamp;
    const got = this.native.get(key, 0, knownStamp, known === undefined ? 0 : known.stamp);
    if (got === undefined) {
      if (hot !== undefined) this.hot.delete(key);
      return undefined;
    }
    if (typeof got === 'number') {
      this.last = hot;
      return hot.value;
    }
    const [stamp, text, body, slot] = got;
    let value;
    if (known !== undefined && known.stamp === stamp) {
      this.metas.get(key); // marked used
      this.counters.metaHits++;
      value = new SegmentEntry(known.value, body);
    } else value = this.checked(key, stamp, text, body);
    if (value === undefined) return undefined;
    const copy = new HotCopy(value, stamp, slot);
    if (this.hot.sighted(key) && this.hot.fits(value.size)) {
      // kept with the slot's sequence word from a full check of its stamp, for still()
      copy.value = freeze(value);
      copy.seq = this.table === undefined ? -1 : this.table.holds(slot, copy.lo, copy.hi);
      if (this.table === undefined || copy.seq >= 0) this.hot.set(key, copy, value.size);
    }
    this.last = copy;
    return copy.value;
  }

  // The entry or Vary marker a write's metadata text and body make, checked (undefined: deleted).
  checked(key, stamp, text, body) {
    const meta = parseJson(text);
    const value =
      meta !== null && typeof meta === 'object' && 'vary' in meta ? marker(meta) : storedEntry(meta, body, key);
    if (value === undefined) {
      // not an entry of ours, or not one that may be sent: it goes, and the page is rendered
      this.counters.sharedInvalid++;
      this.native.delete(key);
      return undefined;
    }
    if (value.varyNames !== undefined) {
      if (value.varyNames.length === 0) value.varyNames = NO_NAMES;
      if (value.tags.length === 0) value.tags = NO_NAMES;
      value[STORED] = this;
      freezeParts(value); // shared by every entry made from this write's metadata
      this.metas.set(key, { stamp, value: { ...value, body: NO_BODY } }, value.size - body.length);
    }
    return value;
  }

  get(key) {
    const memo = this.memo;
    this.memo = undefined;
    // varyOf()'s look-up of this key, made just before (begin() asks for the Vary names, then
    // for the entry): one copy per hit. It is used while its write is still the one stored (the
    // stamp table says so, without a call), or, without the table, while at most a millisecond
    // old (a look-up made then).
    const value = memo !== undefined && this.memoKey === key && this.stillStored(memo) ? memo.value : this.read(key);
    return value === undefined || value.vary !== undefined ? undefined : value;
  }

  // Whether varyOf()'s look-up still holds: its slot unchanged since the table checked it, or its
  // write still the one stored; without the table, a look-up at most a millisecond old.
  stillStored(memo) {
    const table = this.table;
    if (table === undefined) return Date.now() - this.memoAt <= 1;
    return this.memoSeq >= 0 ? table.unchanged(memo.slot, this.memoSeq) : table.holds(memo.slot, memo.lo, memo.hi) >= 0;
  }

  varyOf(primary) {
    const value = this.read(primary);
    this.memo = this.last;
    this.memoSeq = this.lastSeq;
    this.memoKey = primary;
    if (this.table === undefined) this.memoAt = Date.now();
    return value === undefined || value.vary === undefined ? undefined : value.vary;
  }

  set(entry) {
    this.memo = undefined;
    if (entry[STORED] === this) return true; // read from the segment a moment ago (adopt)
    if (entry.size > this.maxBytes) return false;
    this.hot.delete(entry.key);
    const current = this.read(entry.primary);
    const names = current === undefined || current.vary === undefined ? NO_NAMES : current.vary;
    if (current !== undefined && !sameNames(names, entry.varyNames)) {
      // the response changed what it varies on: its older variants are keyed by other headers
      this.native.purge(PRIMARY, entry.primary, false);
      this.hot.delete(entry.primary);
    }
    const expiresAt = Math.max(1, Math.ceil(entry.expiresAt));
    if (
      entry.varyNames.length > 0 &&
      (current === undefined ||
        current.vary === undefined ||
        names !== entry.varyNames ||
        current.expiresAt < expiresAt)
    ) {
      const text = JSON.stringify({ vary: entry.varyNames, expiresAt });
      const empty = Buffer.alloc(0);
      if (!this.native.put(entry.primary, entry.target, entry.primary, '', text, empty, expiresAt)) return false;
    }
    return this.native.put(
      entry.key,
      entry.target,
      entry.primary,
      entry.tags.join('\n'),
      metadataText(entry),
      entry.body,
      expiresAt,
    );
  }

  delete(key) {
    this.memo = undefined;
    this.hot.delete(key);
    this.metas.delete(key);
    return this.native.delete(key);
  }

  purgeTarget(target) {
    return this.purged(this.native.purge(TARGET, target, false));
  }

  purgeTargetWhere(target, which) {
    let n = 0;
    for (const key of this.native.keys(TARGET, target, false)) if (which(key) && this.delete(key)) n++;
    return n;
  }

  purgePrefix(prefix) {
    return this.purged(this.native.purge(TARGET, prefix, true));
  }

  purgeTag(tag) {
    return this.purged(this.native.purge(TAG, tag, false));
  }

  clear() {
    return this.purged(this.native.purge(ALL, '', false));
  }

  purged(n) {
    this.memo = undefined; // the hot set checks its stamps on every hit
    return n;
  }
}

// What the engine holds as its memory layer: the segment's store once opened, or this
// process's own memory store when the segment could not be (the fallback). Opens at first use.
class LazySegmentStore {
  constructor(settings) {
    this.settings = settings; // { file, maxBytes, maxEntries, persist, hotBytes }
    this.maxBytes = settings.maxBytes;
    this.maxEntries = settings.maxEntries;
    this.inner = undefined; // a SharedMemoryStore, or a MemoryStore (fallback)
    this.fallback = undefined; // why the segment is not used (stats().store)
    // metaHits: reads of the segment whose metadata was taken from this process's checked copy
    this.counters = { sharedHits: 0, sharedMisses: 0, sharedLockWaits: 0, sharedInvalid: 0, metaHits: 0 };
  }

  get current() {
    return this.inner === undefined ? this.open() : this.inner;
  }

  open() {
    const { native, reason } = openSegment(this.settings);
    if (native !== undefined)
      this.inner = new SharedMemoryStore(native, this.maxBytes, this.settings.hotBytes, this.counters);
    else {
      this.fallback = reason;
      this.inner = new MemoryStore({ maxBytes: this.maxBytes, maxEntries: this.maxEntries });
    }
    return this.inner;
  }

  /** The segment's store, or undefined (not opened yet, or the fallback). */
  get segment() {
    return this.inner instanceof SharedMemoryStore ? this.inner : undefined;
  }

  /** Which store holds the entries, for stats().store. */
  describe() {
    if (this.fallback !== undefined) return `memory (fallback: ${this.fallback})`;
    return this.inner === undefined ? 'shared-memory (opens at first use)' : 'shared-memory';
  }

  // stats never open the segment
  get entries() {
    return this.inner === undefined ? NOT_OPENED : this.inner.entries;
  }

  get bytes() {
    return this.inner === undefined ? 0 : this.inner.bytes;
  }

  get evictions() {
    return this.inner === undefined ? 0 : this.inner.evictions;
  }

  /**
   * What this process keeps beside the segment: its copies of pages (the hot set: hotBytes,
   * hotEntries) and the checked metadata of entries it read (metaBytes, metaEntries).
   */
  hotStats() {
    const segment = this.segment;
    return segment === undefined
      ? { hotBytes: 0, hotEntries: 0, metaBytes: 0, metaEntries: 0 }
      : {
          hotBytes: segment.hot.bytes,
          hotEntries: segment.hot.size,
          metaBytes: segment.metas.bytes,
          metaEntries: segment.metas.size,
        };
  }

  get(key) {
    return this.current.get(key);
  }

  varyOf(primary) {
    return this.current.varyOf(primary);
  }

  set(entry) {
    return this.current.set(entry);
  }

  delete(key) {
    return this.current.delete(key);
  }

  purgeTarget(target) {
    return this.current.purgeTarget(target);
  }

  purgeTargetWhere(target, which) {
    return this.current.purgeTargetWhere(target, which);
  }

  purgePrefix(prefix) {
    return this.current.purgePrefix(prefix);
  }

  purgeTag(tag) {
    return this.current.purgeTag(tag);
  }

  clear() {
    return this.current.clear();
  }
}

const NOT_OPENED = Object.freeze({ size: 0 });

// The engine's shared layer over the same segment: the fill lock every process sees, and the
// entry another process stored while this one waited. Entries are written by the memory layer
// (the segment's store), so put() and purge() have nothing left to do. Under the fallback it
// holds nothing and locks nothing (available() false: the process renders on its own).
class SharedMemoryLayer {
  constructor(lazy) {
    this.lazy = lazy;
    this.counters = lazy.counters;
    this.retakesLocks = true; // a lock is cheap to ask for: a waiter takes over a freed one
  }

  start() {}

  available() {
    return this.lazy.current instanceof SharedMemoryStore;
  }

  get(key, primary) {
    const store = this.lazy.current;
    if (!(store instanceof SharedMemoryStore)) return Promise.resolve(undefined);
    const value = store.read(key);
    if (value !== undefined && value.vary === undefined) {
      this.counters.sharedHits++;
      return Promise.resolve({ entry: Object.isFrozen(value) ? { ...value } : value });
    }
    this.counters.sharedMisses++;
    if (value !== undefined && key === primary) return Promise.resolve({ varyNames: value.vary });
    return Promise.resolve(undefined);
  }

  lock(key, ms) {
    const store = this.lazy.segment;
    return Promise.resolve(store !== undefined && store.native.lock(key, Date.now(), Math.max(1, Math.round(ms))));
  }

  unlock(key) {
    const store = this.lazy.segment;
    if (store !== undefined) store.native.unlock(key);
  }

  put() {}

  purge() {
    return Promise.resolve();
  }

  close() {}
}

function marker(meta) {
  const { vary, expiresAt } = meta;
  if (!Array.isArray(vary) || vary.length === 0 || vary.length > 64) return undefined;
  for (const name of vary) if (typeof name !== 'string' || !FIELD_NAME.test(name)) return undefined;
  if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) return undefined;
  return { vary, expiresAt };
}

function freeze(value) {
  freezeParts(value);
  return Object.freeze(value);
}

function freezeParts(value) {
  if (value.headers !== undefined) {
    for (const name in value.headers) Object.freeze(value.headers[name]);
    Object.freeze(value.headers);
    Object.freeze(value.tags);
  }
  Object.freeze(value.varyNames === undefined ? value.vary : value.varyNames);
}

function sameNames(a, b) {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

/**
 * A response store shared by every process of this machine that opens the same `name`: give it
 * as responseCache's `store`. `dir`: a tmpfs folder (default: $XDG_RUNTIME_DIR or systemd's
 * $RUNTIME_DIRECTORY when it is this user's alone, else /dev/shm); `maxBytes` (default 64 MiB)
 * and `maxEntries` (default 10000) size the segment, reserved whole when it is opened (at first
 * use); `persist` keeps its entries over a full restart (a rolling restart always keeps them);
 * `hotBytes` (default maxBytes / 64, at most 4 MiB; 0 for none) bounds the copies of pages each
 * process keeps beside the segment.
 */
function sharedMemoryStore(options = {}) {
  if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
  ownOptions(options, SHARED_MEMORY_STORE_OPTIONS, 'sharedMemoryStore(options)');
  const {
    name,
    dir = defaultDir(),
    maxBytes = 64 * 1024 * 1024,
    maxEntries = 10000,
    persist = false,
    hotBytes = Math.min(HOT_BYTES, Math.floor(maxBytes / HOT_SHARE)),
  } = options;
  if (typeof name !== 'string' || !NAME.test(name))
    throw invalidType('options.name', 'a name of letters, digits, ".", "_" and "-" (up to 128)', name);
  if (typeof dir !== 'string' || !path.isAbsolute(dir)) throw invalidType('options.dir', 'an absolute path', dir);
  if (!Number.isSafeInteger(maxBytes)) throw invalidType('options.maxBytes', 'an integer', maxBytes);
  if (maxBytes < 4096) throw outOfRange('options.maxBytes', '>= 4096', maxBytes);
  if (!Number.isInteger(maxEntries)) throw invalidType('options.maxEntries', 'an integer', maxEntries);
  if (maxEntries < 1 || maxEntries > 2 ** 26) throw outOfRange('options.maxEntries', '1 to 2^26', maxEntries);
  if (typeof persist !== 'boolean') throw invalidType('options.persist', 'a boolean', persist);
  if (!Number.isSafeInteger(hotBytes)) throw invalidType('options.hotBytes', 'an integer', hotBytes);
  if (hotBytes < 0) throw outOfRange('options.hotBytes', '>= 0', hotBytes);
  const file = path.join(dir, `ssr-native-cache-${name}`);
  const store = new LazySegmentStore({ file, maxBytes, maxEntries, persist, hotBytes });
  const layers = {
    memory: store,
    shared: new SharedMemoryLayer(store),
    work: new SharedMemoryWork(store), // refreshes and hit-for-pass, once per machine
    describe: () => store.describe(),
    gauges: () => store.hotStats(),
  };
  return {
    [CACHE_LAYERS]: layers,
    /** The segment's path (it exists once opened). */
    file,
    stats: () => {
      const segment = store.segment;
      const sizes =
        segment === undefined
          ? { entries: store.entries.size, bytes: store.bytes, maxBytes, evictions: store.evictions, repairs: 0 }
          : segment.native.stats();
      return { store: store.describe(), ...store.counters, ...sizes, ...store.hotStats() };
    },
  };
}

module.exports = { sharedMemoryStore, SharedMemoryStore, CACHE_LAYERS, HOT_BYTES };
