'use strict';
// The response cache's memory store against a plain model of what it must hold: seeded random
// sequences of stores, hits, deletes, purges (URL, prefix, tag) and clears over a few URLs, hosts,
// Vary variants and tags, under a byte and an entry bound. After every step the store holds the
// model's keys in the model's LRU order, counts the model's bytes, reports each primary key's
// Vary names, and its URL and tag indexes list exactly the keys stored under each name (the one
// key itself, not a Set, where a name has one). A hit returns the body, headers and times that were
// stored (each entry lives in native memory between the two). A store whose native block cannot be
// allocated (made to throw now and then) stores nothing and leaves the indexes consistent.
const test = require('node:test');
const assert = require('node:assert/strict');
const { MemoryStore, HOT_ENTRIES } = require('../../../lib/cache/memory-store');
const { variantKey, targetOf } = require('../../../lib/cache/key');
const { mulberry32 } = require('../helpers/seeded-random');

const TARGETS = ['/a', '/a?x=1', '/ab', '/b/c', '/b/d'];
const HOSTS = ['', 'shop.example'];
const TAGS = ['t1', 't2', 't3'];
const LANGS = ['en', 'fr'];
const VARIES = [[], ['accept-language']];
const MAX_BYTES = 2400;
const MAX_ENTRIES = 6;

class Model {
  constructor() {
    this.entries = new Map();
  }
  get(key) {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, e);
    return e;
  }
  // outOfMemory: the native block cannot be allocated. The entry it replaces is gone all the same
  // (a newer response superseded it), and nothing else is touched.
  set(entry, outOfMemory) {
    if (entry.size > MAX_BYTES) return false;
    this.entries.delete(entry.key);
    const names = this.varyOf(entry.primary);
    if (names !== undefined && names.join() !== entry.varyNames.join())
      for (const e of [...this.entries.values()]) if (e.primary === entry.primary) this.entries.delete(e.key);
    if (outOfMemory) return false;
    this.entries.set(entry.key, entry);
    while (this.bytes() > MAX_BYTES || this.entries.size > MAX_ENTRIES)
      this.entries.delete(this.entries.keys().next().value);
    return true;
  }
  bytes() {
    let n = 0;
    for (const e of this.entries.values()) n += e.size;
    return n;
  }
  varyOf(primary) {
    let names;
    for (const e of this.entries.values()) if (e.primary === primary) names = e.varyNames;
    return names;
  }
  drop(pred) {
    let n = 0;
    for (const e of [...this.entries.values()]) if (pred(e)) n += this.entries.delete(e.key) ? 1 : 0;
    return n;
  }
}

function indexed(index) {
  const out = {};
  for (const [name, value] of index) {
    assert.ok(typeof value === 'string' || value.size > 1, `index ${name}: a Set of ${value.size}`);
    out[name] = typeof value === 'string' ? [value] : [...value].sort();
  }
  return out;
}

function expectedIndex(model, namesOf) {
  const out = {};
  for (const e of model.entries.values()) for (const name of namesOf(e)) (out[name] ||= []).push(e.key);
  for (const name of Object.keys(out)) out[name].sort();
  return out;
}

function randomEntry(random, pick) {
  const target = pick(TARGETS);
  const primary = `${target}\n${pick(HOSTS)}`;
  const varyNames = pick(VARIES);
  const key = variantKey(primary, varyNames, { 'accept-language': pick(LANGS) });
  const tags = TAGS.filter(() => random() < 0.4);
  const body = Buffer.from(`<p>${key} ${random()}</p>`);
  return {
    key,
    primary,
    target: targetOf(primary),
    varyNames,
    tags,
    status: 200,
    headers: { 'content-type': 'text/html', 'x-stored': String(random()) },
    body,
    length: String(body.length),
    storedAt: 1e12 + random(),
    size: 100 + Math.floor(random() * 500),
  };
}

for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
  test(`memory store = model over 600 random steps (seed ${seed}): keys in LRU order, bytes, Vary names, URL and tag indexes`, () => {
    const random = mulberry32(seed);
    const pick = (xs) => xs[Math.floor(random() * xs.length)];
    const store = new MemoryStore({ maxBytes: MAX_BYTES, maxEntries: MAX_ENTRIES });
    const model = new Model();
    const log = [];
    for (let step = 0; step < 600; step++) {
      const r = random();
      let op;
      if (r < 0.45) {
        const entry = randomEntry(random, pick);
        const outOfMemory = random() < 0.1;
        op = ['set', entry.key, entry.tags.join(' '), entry.size, outOfMemory ? '(out of memory)' : ''];
        // (defined on the instance: the native class's own method is read-only)
        if (outOfMemory)
          Object.defineProperty(store.slots, 'put', {
            configurable: true,
            value: () => {
              throw new RangeError('Array buffer allocation failed');
            },
          });
        try {
          assert.equal(store.set({ ...entry }), model.set(entry, outOfMemory));
        } finally {
          delete store.slots.put;
        }
      } else if (r < 0.65) {
        const key = pick([...model.entries.keys(), 'missing']);
        op = ['get', key];
        const [got, want] = [store.get(key), model.get(key)];
        assert.equal(got?.key, want?.key);
        if (want !== undefined) {
          // what was stored comes back: body bytes, headers, times
          assert.deepEqual(got.body, want.body);
          assert.deepEqual(got.headers, want.headers);
          assert.equal(got.storedAt, want.storedAt);
          assert.deepEqual([got.tags, got.varyNames], [want.tags, want.varyNames]);
        }
      } else if (r < 0.75) {
        const key = pick([...model.entries.keys(), 'missing']);
        op = ['delete', key];
        assert.equal(store.delete(key), model.drop((e) => e.key === key) === 1);
      } else if (r < 0.83) {
        const target = pick(TARGETS);
        op = ['purgeTarget', target];
        assert.equal(
          store.purgeTarget(target),
          model.drop((e) => e.target === target),
        );
      } else if (r < 0.9) {
        const prefix = pick(['/a', '/b/', '/', '/z']);
        op = ['purgePrefix', prefix];
        assert.equal(
          store.purgePrefix(prefix),
          model.drop((e) => e.target.startsWith(prefix)),
        );
      } else if (r < 0.99) {
        const tag = pick(TAGS);
        op = ['purgeTag', tag];
        assert.equal(
          store.purgeTag(tag),
          model.drop((e) => e.tags.includes(tag)),
        );
      } else {
        op = ['clear'];
        assert.equal(
          store.clear(),
          model.drop(() => true),
        );
      }
      log.push(op.join(' '));
      const where = `seed ${seed}, step ${step}; last steps:\n${log.slice(-8).join('\n')}`;
      assert.deepEqual([...store.entries.keys()], [...model.entries.keys()], where);
      assert.equal(store.bytes, model.bytes(), where);
      for (const target of TARGETS)
        for (const host of HOSTS) {
          const primary = `${target}\n${host}`;
          assert.deepEqual(store.varyOf(primary), model.varyOf(primary), `${where}\nvaryOf ${primary}`);
        }
      assert.deepEqual(
        indexed(store.byTarget),
        expectedIndex(model, (e) => [e.target]),
        `${where}\nURL index`,
      );
      assert.deepEqual(
        indexed(store.byTag),
        expectedIndex(model, (e) => e.tags),
        `${where}\ntag index`,
      );
      assert.equal(store.vary.size, new Set([...model.entries.values()].map((e) => e.primary)).size, where);
      for (const key of store.hot.keys()) assert.ok(model.entries.has(key), `${where}\nhot entry ${key} not stored`);
    }
  });
}

test(`the hot set keeps the entries hit twice among the last ${HOT_ENTRIES} read, no more, and none of a walk over many pages`, () => {
  const random = mulberry32(9);
  const pick = (xs) => xs[Math.floor(random() * xs.length)];
  const store = new MemoryStore({ maxBytes: 1 << 30, maxEntries: 10_000 });
  const keys = [];
  for (let i = 0; i < 3 * HOT_ENTRIES; i++) {
    const entry = { ...randomEntry(random, pick), key: `/many/${i}\n`, primary: `/many/${i}\n`, target: `/many/${i}` };
    assert.ok(store.set(entry));
    keys.push(entry.key);
  }
  // a walk: each page hit once, then again after more than HOT_ENTRIES others
  for (let round = 0; round < 2; round++) for (const key of keys) assert.equal(store.get(key).key, key);
  assert.equal(store.hot.size, 0, 'a walk keeps no entry objects');
  // each page hit twice in a row: the second hit keeps it, the last HOT_ENTRIES of them stay
  for (const key of keys) {
    store.get(key);
    assert.equal(store.get(key), store.hot.get(key), `${key}: the second hit is kept`);
    const kept = store.hot.get(key);
    assert.ok(Object.isFrozen(kept) && Object.isFrozen(kept.headers), `${key}: shared by its hits, so frozen`);
  }
  assert.equal(store.get(keys[0]).key, keys[0]);
  assert.equal(store.get(keys[0]).key, keys[0]); // hot again: the most recent
  assert.deepEqual([...store.hot.keys()], [...keys.slice(-HOT_ENTRIES + 1), keys[0]]);
  assert.ok(store.recent.size <= HOT_ENTRIES);
});
