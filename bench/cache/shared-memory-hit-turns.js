'use strict';
// CPU and minor page faults of a cold response-cache hit (1,000 pages in turn) with the
// in-process memory store and with sharedMemoryStore, A/B interleaved, the event loop turning
// (an awaited setImmediate) every `hitsPerTurn` hits, as a server's loop turns between requests.
// shared-memory-hit.js asks its hits in one synchronous loop, where no immediate runs: Node-API
// finalizers (external buffers' included) run only as immediates, so any body memory recycled
// by a finalizer is never recycled there. Compare the two before building on finalizers.
// Run pinned: taskset -c 1 node bench/cache/shared-memory-hit-turns.js [pageBytes] [hitsPerTurn] [rounds]
// (hitsPerTurn 0: no turns, as shared-memory-hit.js)
const { sharedMemoryStore } = require('../../lib/express/cache');
const path = require('path');
const { filledEngine } = require('./cache-hits');

const pageBytes = Number(process.argv[2] || 20000);
const hitsPerTurn = Number(process.argv[3] || 16);
const rounds = Number(process.argv[4] || 7);
const HITS = 12000;

const here = path.join(__dirname, '..', '..');
const store = sharedMemoryStore({ name: `bench-turns-${process.pid}`, maxBytes: 256 << 20 });
const engines = { memory: filledEngine(here, undefined, pageBytes), shared: filledEngine(here, store, pageBytes) };
const requests = Array.from({ length: 1000 }, (_, i) => ({
  method: 'GET',
  url: `/p/${i}`,
  headers: { host: 'shop.example' },
}));
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** [ns of process CPU, minor page faults] per hit over HITS cold hits. */
async function timeHits(engine) {
  const faults = process.resourceUsage().minorPageFault;
  const start = process.cpuUsage();
  for (let i = 0; i < HITS; i++) {
    if (engine.begin(requests[i % requests.length]).action !== 'hit') throw new Error(`not a hit: /p/${i % 1000}`);
    if (hitsPerTurn > 0 && i % hitsPerTurn === hitsPerTurn - 1) await turn();
  }
  const used = process.cpuUsage(start);
  return [((used.user + used.system) * 1000) / HITS, (process.resourceUsage().minorPageFault - faults) / HITS];
}

(async () => {
  const cpu = { memory: [], shared: [] };
  const faults = { memory: [], shared: [] };
  for (let round = 0; round < rounds; round++) {
    for (const which of round % 2 ? ['shared', 'memory'] : ['memory', 'shared']) {
      const [ns, pf] = await timeHits(engines[which]);
      cpu[which].push(ns);
      faults[which].push(pf);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const m = median(cpu.memory);
  const s = median(cpu.shared);
  console.log(
    `cold, a turn every ${hitsPerTurn || 'never'}: memory ${m.toFixed(0)} ns/hit ` +
      `(${median(faults.memory).toFixed(2)} faults), shared memory ${s.toFixed(0)} ns/hit ` +
      `(${median(faults.shared).toFixed(2)} faults), ratio ${(s / m).toFixed(2)} (median of ${rounds})`,
  );
  require('fs').rmSync(store.file, { force: true });
})();
