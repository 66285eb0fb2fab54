'use strict';
// How long does one etag() call take, against the functions it replaces?
const { spawnSync } = require('child_process');
const path = require('path');
const { LOAD_CPU, pinnedCommand } = require('../lib/cpu');
const { median } = require('../lib/median');

const SIZES = [
  { label: '64 B', bytes: 64, iterations: 2_000_000 },
  { label: '75 KB', bytes: 75 * 1024, iterations: 20_000 },
];

module.exports = {
  name: 'etag',
  order: 5,
  question: 'ns per etag() call on a 64-byte and a 75 KB Buffer, against zlib.crc32 and SHA-1 (Express default).',
  async run({ quick, log }) {
    const rounds = quick ? 3 : 7;
    const tables = [];
    for (const size of SIZES) {
      const samples = {};
      for (let round = 0; round < rounds; round++) {
        const iterations = quick ? Math.ceil(size.iterations / 4) : size.iterations;
        const [cmd, args] = pinnedCommand(LOAD_CPU, process.execPath, [
          path.join(__dirname, '..', 'micro', 'etag.js'),
          String(size.bytes),
          String(iterations),
        ]);
        const out = spawnSync(cmd, args, { encoding: 'utf8' });
        if (out.status !== 0) throw new Error(out.stderr);
        const { results } = JSON.parse(out.stdout);
        for (const [name, ns] of Object.entries(results)) (samples[name] ||= []).push(ns);
        log(`  ${size.label} round ${round + 1}/${rounds}`);
      }
      const baselineName = 'zlib.crc32 in JS';
      const base = median(samples[baselineName]);
      const rows = Object.entries(samples).map(([name, values]) => {
        const ns = median(values);
        return {
          function: name,
          'ns/call': ns.toFixed(0),
          'GB/s': ((size.bytes / ns)).toFixed(2),
          [`ratio vs ${baselineName}`]: `${(base / ns).toFixed(2)}x`,
        };
      });
      tables.push({
        title: `${size.label} Buffer`,
        columns: ['function', 'ns/call', 'GB/s', `ratio vs ${baselineName}`],
        rows,
        notes: [`median of ${rounds} runs, each in a fresh process pinned to one CPU; ratio = speed-up.`],
      });
    }
    return { tables };
  },
};
