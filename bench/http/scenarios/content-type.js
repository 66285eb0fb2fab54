'use strict';
// How long does a Content-Type parse (cached and not) and Express's setCharset round trip take,
// against content-type 1.0.5 and fast-content-type-parse; and for the 2.x API (Express 5.3,
// body-parser 2.4, type-is 2.1), ssr-native/content-type/v2 against content-type 2.1.0?
const { spawnSync } = require('child_process');
const path = require('path');
const { LOAD_CPU, pinnedCommand } = require('../lib/cpu');
const { median } = require('../lib/median');
const { serverRuntime } = require('../lib/runtime');
const { headlineFromSamples } = require('../lib/headline');

const BASELINE = 'content-type';
const CASES = [
  {
    name: 'cached',
    title: 'parse(string): the same 5 request Content-Types (fresh strings, as from the HTTP parser)',
    candidates: ['content-type', 'fast-content-type-parse', 'ssr-native'],
    iterations: 1_000_000,
  },
  {
    name: 'cached-req',
    title: 'parse(req) as body-parser and Koa call it: the same 5 request Content-Types',
    candidates: ['content-type', 'fast-content-type-parse', 'ssr-native'],
    iterations: 1_000_000,
  },
  {
    name: 'roundtrip',
    title: "Express setCharset: parse(type), parameters.charset = 'utf-8', format()",
    candidates: ['content-type', 'fast-content-type-parse', 'ssr-native'],
    iterations: 1_000_000,
  },
  {
    name: 'cached',
    api: 'v2',
    title: 'content-type 2.x API, parse(string): the same 5 request Content-Types (as body-parser 2.4 reads a charset)',
    candidates: ['content-type-2', 'ssr-native-v2'],
    baseline: 'content-type-2',
    iterations: 1_000_000,
  },
  {
    name: 'roundtrip',
    api: 'v2',
    title: "content-type 2.x API, Express 5.3 setCharset: parse(type), parameters.charset = 'utf-8', format()",
    candidates: ['content-type-2', 'ssr-native-v2'],
    baseline: 'content-type-2',
    iterations: 1_000_000,
  },
  {
    name: 'uncached',
    title: 'parse: a Content-Type never seen before on every call',
    candidates: [
      'content-type',
      'fast-content-type-parse',
      'ssr-native',
      'ssr-native-no-cache',
      'ssr-native-native-scanner',
    ],
    iterations: 300_000,
  },
  {
    name: 'uncached-long',
    title: 'parse: a ~450-character Content-Type never seen before on every call',
    candidates: ['content-type', 'fast-content-type-parse', 'ssr-native', 'ssr-native-js-scanner'],
    iterations: 100_000,
  },
];
const LABELS = {
  'content-type': 'content-type 1.0.5',
  'fast-content-type-parse': 'fast-content-type-parse 4 (+ content-type format)',
  'ssr-native': 'ssr-native (default: cache, scanner auto)',
  'ssr-native-no-cache': 'ssr-native, cacheSize 0 (scanner alone)',
  'ssr-native-native-scanner': "ssr-native, scanner 'native' (C++ on every miss)",
  'ssr-native-js-scanner': "ssr-native, scanner 'js' (JavaScript on every miss)",
  'content-type-2': 'content-type 2.1.0',
  'ssr-native-v2': 'ssr-native/content-type/v2',
};

module.exports = {
  name: 'content-type',
  order: 6,
  headline: CASES[0].title,
  question:
    'ns per Content-Type parse (cached, uncached) and per Express setCharset round trip, against content-type 1.0.5 and fast-content-type-parse, and (2.x API) against content-type 2.1.0.',
  async run({ pick, log, headline }) {
    const rounds = pick.rounds(3, 3, 9);
    const tables = [];
    for (const c of CASES.filter((x) => !headline || x.title === headline)) {
      const samples = Object.fromEntries(c.candidates.map((name) => [name, []]));
      for (let round = 0; round < rounds; round++) {
        // Rotate the order every round so no candidate always runs first or last.
        const order = c.candidates.map((_, i) => c.candidates[(i + round) % c.candidates.length]);
        for (const candidate of order) {
          const iterations = Math.ceil(c.iterations / pick(4, 3, 1));
          const [cmd, args] = pinnedCommand(LOAD_CPU, serverRuntime().bin, [
            path.join(__dirname, '..', 'micro', 'content-type.js'),
            c.name,
            candidate,
            String(iterations),
          ]);
          const out = spawnSync(cmd, args, { encoding: 'utf8' });
          if (out.status !== 0) throw new Error(out.stderr);
          samples[candidate].push(JSON.parse(out.stdout).ns);
        }
        log(`  ${c.api || 'v1'} ${c.name} round ${round + 1}/${rounds}`);
      }
      const baseline = c.baseline || BASELINE;
      const base = median(samples[baseline]);
      const ratioColumn = `ratio vs ${LABELS[baseline]}`;
      tables.push({
        title: c.title,
        columns: ['implementation', 'ns/call', ratioColumn],
        rows: c.candidates.map((name) => {
          const ns = median(samples[name]);
          return {
            implementation: LABELS[name],
            'ns/call': ns.toFixed(0),
            [ratioColumn]: `${(base / ns).toFixed(2)}x`,
          };
        }),
        notes: [
          `CPU time per call; median of ${rounds} runs, each candidate in a fresh process pinned to one CPU, order rotated per round; ratio = speed-up.`,
        ],
        summary: headlineFromSamples({
          measure: 'ns/call',
          higherIsBetter: false,
          samples: Object.fromEntries(Object.entries(samples).map(([name, v]) => [LABELS[name], v])),
          baseline: LABELS[baseline],
          ours: LABELS[c.candidates.find((name) => name.startsWith('ssr-native'))],
          peers: c.candidates
            .filter((name) => name !== baseline && !name.startsWith('ssr-native'))
            .map((name) => LABELS[name]),
        }),
      });
    }
    return { tables };
  },
};
