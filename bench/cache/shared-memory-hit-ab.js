'use strict';
// Hit CPU of two checkouts' sharedMemoryStore against the in-process memory store, in one
// process: the memory store, the other checkout's shared store (A) and this one's (B) take turns
// in short rounds (order rotated), so a load swing on a shared machine hits all three alike; each
// round's ratio to the memory store, median over the rounds. Hot: `hotPages` pages hit again and
// again; cycled: 1,000 pages in turn (each hit copies its page out of the segment).
// Run pinned: taskset -c 1 node bench/cache/shared-memory-hit-ab.js <other checkout> [pageBytes]
// [hotPages] [rounds]   (the other checkout with its own build/, e.g. a `git worktree` of main)
const fs = require('fs');
const path = require('path');

const other = process.argv[2];
if (other === undefined || !fs.existsSync(path.join(other, 'lib', 'cache', 'engine.js'))) {
  console.error('usage: node bench/cache/shared-memory-hit-ab.js <other checkout> [pageBytes] [hotPages] [rounds]');
  process.exit(2);
}
const pageBytes = Number(process.argv[3] || 20000);
const hotPages = Number(process.argv[4] || 64);
const rounds = Number(process.argv[5] || 21);
const HEADERS = { 'cache-control': 'public, max-age=600', 'content-type': 'text/html' };
const files = [];

function engineWith(tree, shared) {
  const { CacheEngine } = require(path.resolve(tree, 'lib', 'cache', 'engine'));
  const { sharedMemoryStore } = require(path.resolve(tree, 'lib', 'express', 'cache'));
  let store;
  if (shared) {
    store = sharedMemoryStore({ name: `bench-ab-${process.pid}-${files.length}`, maxBytes: 256 << 20 });
    files.push(store.file);
  }
  const engine = new CacheEngine(store === undefined ? {} : { store });
  const body = Buffer.alloc(pageBytes, 'x');
  for (let i = 0; i < 1000; i++) {
    const d = engine.begin({ method: 'GET', url: `/p/${i}`, headers: { host: 'shop.example' } });
    engine.store(d.fill, engine.admit(d.fill, 200, HEADERS), HEADERS, body);
  }
  return engine;
}

function timeHits(engine, pages, n) {
  const reqs = Array.from({ length: pages }, (_, i) => ({
    method: 'GET',
    url: `/p/${i}`,
    headers: { host: 'shop.example' },
  }));
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const d = engine.begin(reqs[i % pages]);
    if (d.action !== 'hit') throw new Error(`not a hit: ${d.action}`);
  }
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / n; // ns per hit
}

const here = path.join(__dirname, '..', '..');
const engines = { memory: engineWith(here, false), A: engineWith(other, true), B: engineWith(here, true) };
const names = Object.keys(engines);
const ratios = { hot: { A: [], B: [] }, cycled: { A: [], B: [] } };
for (let round = 0; round < rounds; round++) {
  const t = { hot: {}, cycled: {} };
  for (let i = 0; i < names.length; i++) {
    const which = names[(i + round) % names.length];
    t.hot[which] = timeHits(engines[which], hotPages, 60000);
    t.cycled[which] = timeHits(engines[which], 1000, 12000);
  }
  for (const kind of ['hot', 'cycled']) for (const w of ['A', 'B']) ratios[kind][w].push(t[kind][w] / t[kind].memory);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const kind of ['hot', 'cycled'])
  console.log(
    `${kind}: shared / memory, median of ${rounds} rounds: ${other} ${median(ratios[kind].A).toFixed(3)}, ` +
      `this checkout ${median(ratios[kind].B).toFixed(3)}`,
  );
for (const file of files) fs.rmSync(file, { force: true });
