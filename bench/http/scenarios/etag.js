'use strict';
// How long does one etag() call take, against the functions it replaces?
const { spawnSync } = require('child_process');
const path = require('path');
const { LOAD_CPU, pinnedCommand } = require('../lib/cpu');
const { median } = require('../lib/median');
const { serverRuntime, underBun } = require('../lib/runtime');
const { headlineFromSamples } = require('../lib/headline');

const SIZES = [
  { label: '64 B Buffer', bytes: 64, iterations: 2_000_000 },
  { label: '75 KB Buffer', bytes: 75 * 1024, iterations: 20_000 },
  // Strings, as Koa bodies and Angular's HTML reach etag(): one-byte ASCII pages (Express 5
  // would have made a Buffer first), Latin-1 text, a two-byte page (one U+2014 near the end:
  // the worst case of the Latin-1 check where it is a regex, as on Node 20) and CJK text.
  { label: '64 B ASCII string', bytes: 64, iterations: 2_000_000, kind: 'ascii' },
  { label: '1 KB ASCII string', bytes: 1024, iterations: 500_000, kind: 'ascii', fullOnly: true },
  { label: '62 KB ASCII string', bytes: 62 * 1024, iterations: 20_000, kind: 'ascii', fullOnly: true },
  { label: '75 KB ASCII string', bytes: 75 * 1024, iterations: 20_000, kind: 'ascii' },
  {
    label: '75 KB Latin-1 string (some e replaced by é)',
    bytes: 75 * 1024,
    iterations: 5_000,
    kind: 'latin1',
    fullOnly: true,
  },
  { label: '75 KB two-byte string (ASCII + one U+2014 at the end)', bytes: 75 * 1024, iterations: 2_000, kind: 'wide' },
  { label: '75 KB CJK string', bytes: 75 * 1024, iterations: 2_000, kind: 'cjk' },
];

module.exports = {
  name: 'etag',
  order: 5,
  headline: '75 KB Buffer', // the default run's case (see README: headline cases)
  question:
    'ns per etag() call on Buffers and strings, against zlib.crc32 and SHA-1 (Express default); for strings also against the same bytes as a Buffer; for Buffers also each CRC-32 path forced.',
  async run({ pick, log, headline }) {
    const rounds = pick.rounds(3, 3, 7);
    const tables = [];
    let activePath = null;
    // The default run keeps the cases the README quotes; --full adds the other string kinds.
    for (const size of SIZES.filter((s) =>
      headline ? s.label === headline : !s.fullOnly || pick(false, false, true),
    )) {
      const samples = {};
      for (let round = 0; round < rounds; round++) {
        const iterations = Math.ceil(size.iterations / pick(4, 3, 1));
        const [cmd, args] = pinnedCommand(LOAD_CPU, serverRuntime().bin, [
          path.join(__dirname, '..', 'micro', 'etag.js'),
          String(size.bytes),
          String(iterations),
          size.kind || 'buffer',
        ]);
        const out = spawnSync(cmd, args, { encoding: 'utf8' });
        if (out.status !== 0) throw new Error(out.stderr);
        const { results, activePath: chosen } = JSON.parse(out.stdout);
        activePath = chosen;
        for (const [name, ns] of Object.entries(results)) (samples[name] ||= []).push(ns);
        log(`  ${size.label} round ${round + 1}/${rounds}`);
      }
      // zlib.crc32 exists from Node 20.15 / 22.2; before that, ratios are taken against SHA-1.
      const baselineName = samples['zlib.crc32 in JS'] ? 'zlib.crc32 in JS' : 'express default (SHA-1)';
      const base = median(samples[baselineName]);
      const sameBytes = samples['ssr-native etag, same bytes as a Buffer'];
      const bufferNs = sameBytes ? median(sameBytes) : null;
      const columns = ['function', 'ns/call', 'GB/s', `ratio vs ${baselineName}`];
      if (bufferNs) columns.push('time vs the same bytes as a Buffer');
      const rows = Object.entries(samples).map(([name, values]) => {
        const ns = median(values);
        const row = {
          function: name,
          'ns/call': ns.toFixed(0),
          'GB/s': (size.bytes / ns).toFixed(2),
          [`ratio vs ${baselineName}`]: `${(base / ns).toFixed(2)}x`,
        };
        if (bufferNs) row['time vs the same bytes as a Buffer'] = `${(ns / bufferNs).toFixed(2)}x`;
        return row;
      });
      tables.push({
        title: size.label,
        columns,
        rows,
        notes: [
          `median of ${rounds} runs, each in a fresh process pinned to one CPU; CPU time per call; ratio = speed-up.`,
          ...(underBun()
            ? [
                "Under Bun, zlib.crc32 is Bun's own node:zlib crc32 (native): the summary's baseline there, the built-in a Bun user already has.",
              ]
            : []),
          ...(size.kind
            ? []
            : [
                `etag() runs the CRC-32 path the dispatcher chose here (${activePath}); each crc32WithPath row forces one path and formats the tag in JS, as the zlib.crc32 row does. A path forced on this CPU is not that path on the CPU it is chosen for (a Zen 3 or a Skylake has other multipliers).`,
              ]),
          ...(bufferNs
            ? [
                'time vs the same bytes as a Buffer: how much the string costs over etag() of Buffer.from(s) already made (target <= 2x for ASCII pages).',
              ]
            : []),
        ],
        // Summary: against what Express does today (SHA-1 of the body), zlib.crc32 as the peer;
        // under Bun against Bun's zlib.crc32, its built-in.
        summary: headlineFromSamples({
          measure: 'ns/call',
          higherIsBetter: false,
          samples,
          baseline: underBun() && samples['zlib.crc32 in JS'] ? 'zlib.crc32 in JS' : 'express default (SHA-1)',
          ours: samples['ssr-native etag(s)'] ? 'ssr-native etag(s)' : 'ssr-native etag',
          peers: underBun() ? ['express default (SHA-1)'] : ['zlib.crc32 in JS'],
        }),
      });
    }
    return { tables };
  },
};
