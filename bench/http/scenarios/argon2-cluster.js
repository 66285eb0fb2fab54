'use strict';
// A 2-worker node:cluster under a /register flood: with the shared budget (the default for
// cluster workers) against two independent pools. Peak arena memory of the machine from the
// workers' RSS, and registrations/s.
const fs = require('fs');
const path = require('path');
const { median } = require('../lib/median');

const SERVER = path.join(__dirname, '..', 'servers', 'argon2-cluster.js');
const VARIANTS = [
  { name: 'two independent pools (shared: false)', env: { ARGON2_IMPL: 'ssr-native', ARGON2_SHARED: '0' } },
  { name: 'shared budget (default)', env: { ARGON2_IMPL: 'ssr-native' } },
];
const MIB = 1024 * 1024;

function workerPids(primary) {
  try {
    return fs
      .readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function rssBytes(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

// Samples the sum of the workers' RSS every 10 ms until stop() is called; resolves to its peak.
function sampleRss(primary) {
  let peak = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const sum = workerPids(primary).reduce((total, pid) => total + rssBytes(pid), 0);
      peak = Math.max(peak, sum);
      await new Promise((r) => setTimeout(r, 10));
    }
    return peak;
  })();
  return { stop: () => ((running = false), done) };
}

const HASH_MIB = 64;

module.exports = {
  name: 'argon2-cluster',
  order: 42,
  question:
    "A 2-worker node:cluster flooded with registrations: peak arena memory of the machine (workers' RSS) and registrations/s, shared budget vs independent pools.",
  async run({ pick, log, startServer, runLoad }) {
    const rounds = pick.rounds(1, 2, 4);
    const seconds = pick(3, 4, 8);
    const os = require('os');
    const slots = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
    const samples = VARIANTS.map(() => ({ arena: [], regs: [], busy: [] }));
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < VARIANTS.length; k++) {
        const i = (k + round) % VARIANTS.length;
        // A fresh cluster per run (its workers, forked before the primary is pinned, may use
        // every CPU), so the idle RSS is
        // that of workers without arenas.
        const server = await startServer(SERVER, VARIANTS[i].env);
        try {
          await new Promise((r) => setTimeout(r, 500));
          const idle = workerPids(server.pid).reduce((t, pid) => t + rssBytes(pid), 0);
          const sampler = sampleRss(server.pid);
          const flood = await runLoad({
            url: `${server.url}/register`,
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email: 'a@example.com', password: 'correct horse battery staple' }),
            connections: 16,
            duration: seconds,
            timeout: 30,
          });
          const peak = await sampler.stop();
          const codes = flood.statusCodes || {};
          const out = samples[i];
          out.arena.push((peak - idle) / MIB);
          out.regs.push((codes['201'] || 0) / seconds);
          out.busy.push(codes['429'] || 0);
          log(
            `  round ${round + 1}/${rounds} ${VARIANTS[i].name}: peak arenas ${((peak - idle) / MIB).toFixed(0)} MiB, ${((codes['201'] || 0) / seconds).toFixed(1)} registrations/s`,
          );
        } finally {
          await server.stop();
          for (const pid of workerPids(server.pid)) {
            try {
              process.kill(pid, 'SIGKILL');
            } catch {}
          }
        }
      }
    }
    const base = samples[0];
    const rows = VARIANTS.map((v, i) => ({
      cluster: v.name,
      'peak RSS growth MiB (max)': Math.max(...samples[i].arena).toFixed(0),
      'peak RSS growth MiB (median)': median(samples[i].arena).toFixed(0),
      'budget MiB':
        i === 0
          ? `${2 * slots * HASH_MIB} (per worker ${slots} x ${HASH_MIB})`
          : `${slots * HASH_MIB} (${slots} x ${HASH_MIB})`,
      'registrations/s': median(samples[i].regs).toFixed(1),
      '429s per run': String(Math.round(median(samples[i].busy))),
      'ratio registrations vs independent pools': `${(median(samples[i].regs) / median(base.regs)).toFixed(2)}x`,
    }));
    return {
      tables: [
        {
          // summary: peak arena memory of the machine, shared budget against independent pools
          headline: {
            measure: 'peak RSS growth MiB (median)',
            ours: 'shared budget (default)',
            baseline: 'two independent pools (shared: false)',
            higherIsBetter: false,
          },
          title: `2 cluster workers, 16 connections posting /register back to back for ${seconds} s`,
          columns: Object.keys(rows[0]),
          rows,
          notes: [
            `${rounds} interleaved runs, a fresh cluster each; RSS of both workers summed every 10 ms, minus the sum before the flood.`,
            'Targets: peak <= the shared budget (slots x 64 MiB); registrations/s >= 0.9x independent pools.',
          ],
        },
      ],
    };
  },
};
