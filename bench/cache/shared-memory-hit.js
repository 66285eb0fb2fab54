'use strict';
// CPU of a response-cache hit (CacheEngine.begin() answering 'hit') with the in-process memory
// store and with sharedMemoryStore, A/B interleaved: a few hot pages (hit again and again) and
// many pages cycled (past the hot set: each hit copies the page out of the segment and checks
// it). Run pinned: taskset -c 1 node bench/cache/shared-memory-hit.js [pageBytes] [hotPages]
const path = require('path');
const { sharedMemoryStore } = require('../../lib/express/cache');
const { filledEngine, timeHits } = require('./cache-hits');

const pageBytes = Number(process.argv[2] || 20000);
const hotPages = Number(process.argv[3] || 64);
const name = `bench-${process.pid}`;

const here = path.join(__dirname, '..', '..');
const sharedStore = sharedMemoryStore({ name, maxBytes: 256 << 20 });
const engines = {
  memory: filledEngine(here, undefined, pageBytes),
  shared: filledEngine(here, sharedStore, pageBytes),
};
const results = { memory: { hot: [], cycled: [] }, shared: { hot: [], cycled: [] } };
for (let round = 0; round < 5; round++) {
  for (const which of round % 2 ? ['shared', 'memory'] : ['memory', 'shared']) {
    results[which].hot.push(timeHits(engines[which], hotPages, 200000));
    results[which].cycled.push(timeHits(engines[which], 1000, 50000));
  }
}
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
for (const kind of ['hot', 'cycled']) {
  const m = median(results.memory[kind]);
  const s = median(results.shared[kind]);
  console.log(
    `${kind}: memory ${m.toFixed(0)} ns/hit, shared memory ${s.toFixed(0)} ns/hit, ratio ${(s / m).toFixed(2)}`,
  );
}
require('fs').rmSync(sharedStore.file, { force: true });
