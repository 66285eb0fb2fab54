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
const { filledEngine, timeHits } = require('./cache-hits');

const other = process.argv[2];
if (other === undefined || !fs.existsSync(path.join(other, 'lib', 'cache', 'engine.js'))) {
  console.error('usage: node bench/cache/shared-memory-hit-ab.js <other checkout> [pageBytes] [hotPages] [rounds]');
  process.exit(2);
}
const pageBytes = Number(process.argv[3] || 20000);
const hotPages = Number(process.argv[4] || 64);
const rounds = Number(process.argv[5] || 21);
const files = [];

// `tree`'s engine, over its own sharedMemoryStore when `shared`, else over the memory store
function engineWith(tree, shared) {
  let store;
  if (shared) {
    const { sharedMemoryStore } = require(path.resolve(tree, 'lib', 'express', 'cache'));
    store = sharedMemoryStore({ name: `bench-ab-${process.pid}-${files.length}`, maxBytes: 256 << 20 });
    files.push(store.file);
  }
  return filledEngine(tree, store, pageBytes);
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
