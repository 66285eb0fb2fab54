'use strict';
// The live sources of statistics that ssr-native/metrics exports: every cache or pool with a
// stats() registers itself here, once, when it is made. Nothing is read until a scrape.
//
//   const { addSource } = require('../stat-sources');
//   addSource('compression_cache', 'default', () => cache.stats());            // a singleton
//   addSource('response_cache', name, (cache) => cache.stats(), { owner: this }); // per instance
//
// `kind` names the metrics (ssr_native_<kind>_<field>), `name` is their `name` label (made
// unique among the live sources of a kind: "x", "x#2", ...). stats() returns plain numbers:
// a field is a counter (exported as <field>_total) when it is listed in COUNTERS or in
// options.counters, else a gauge; booleans are gauges of 0/1; an object of the shape
// { bounds, counts, sum, count } (counts per bucket, one more than bounds) is a histogram.
// With `owner`, the registry holds the owner weakly: statsFn(owner) must not close over it, and
// the source disappears when the owner is collected or remove() is called (close()).
const { invalidType, invalidValue } = require('./validate');

const COUNTERS = new Set([
  'hits',
  'misses',
  'evictions',
  'invalidations',
  'loads',
  'watchFallbacks',
  'rereads',
  'unstableLoads',
  'bypasses',
  'rejected',
  'hashes',
  'stores',
  'errors',
]);

const KIND = /^[a-z][a-z0-9_]*$/;
const byKind = new Map(); // kind -> Map(name -> entry)
const finalizer = new FinalizationRegistry((entry) => entry.remove());
// Called with each new source (registerMetrics makes its metrics then, not at the next scrape).
const listeners = new Set();

function onSource(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function addSource(kind, name, statsFn, options = {}) {
  if (typeof kind !== 'string' || !KIND.test(kind)) throw invalidValue('kind', 'snake_case', kind);
  if (typeof name !== 'string' || name.length === 0) throw invalidType('name', 'a non-empty string', name);
  if (typeof statsFn !== 'function') throw invalidType('statsFn', 'a function', statsFn);
  let names = byKind.get(kind);
  if (names === undefined) byKind.set(kind, (names = new Map()));
  let unique = name;
  for (let n = 2; names.has(unique); n++) unique = `${name}#${n}`;
  // Only the WeakRef may reach the owner: nothing below refers to `options`.
  const weak = options.owner !== undefined;
  const owner = weak ? new WeakRef(options.owner) : null;
  const counters = options.counters ? new Set([...COUNTERS, ...options.counters]) : COUNTERS;
  const entry = {
    kind,
    name: unique,
    counters,
    read() {
      if (owner === null) return statsFn();
      const target = owner.deref();
      return target === undefined ? null : statsFn(target);
    },
    remove() {
      if (names.get(unique) === entry) names.delete(unique);
      if (weak) finalizer.unregister(entry);
    },
  };
  names.set(unique, entry);
  if (weak) finalizer.register(options.owner, entry, entry);
  for (const listener of listeners) listener(entry);
  return { name: unique, remove: () => entry.remove() };
}

/** Every live source's stats now: [{ kind, name, counters, stats }] (a kind when given). */
function readSources(kind) {
  const out = [];
  for (const [k, names] of byKind) {
    if (kind !== undefined && k !== kind) continue;
    for (const entry of names.values()) {
      const stats = entry.read();
      if (stats === null)
        entry.remove(); // owner collected, finalizer not run yet
      else out.push({ kind: k, name: entry.name, counters: entry.counters, stats });
    }
  }
  return out;
}

module.exports = { addSource, readSources, onSource, COUNTERS };
