'use strict';
// What does the ETag cost Express 5 per request, in server CPU time? ssr-native's etag against
// ETags off and against a function returning a constant tag (all of an ETag's cost to Express
// except computing it), with the spread over interleaved rounds: on a shared machine the CPU
// time per request is the stable figure, and the spread says how far to trust a ratio. The CRC
// paths a CPU without AVX-512 takes (vpclmul256, pclmul) run forced, tagged in JavaScript.
const path = require('path');
const { median } = require('../lib/median');
const { cpuTimes } = require('../lib/cpu-time');

const SCRIPT = path.join(__dirname, '..', 'servers', 'express-etag.js');
const native = require('../../../lib/native');

const FORCED = ['vpclmul256', 'pclmul'].filter((p) => native.crc32Paths().available.includes(p));
const VARIANTS = [
  { name: 'etag off', mode: 'off' },
  { name: 'constant etag fn', mode: 'constant' },
  { name: 'ssr-native etag', mode: 'ssr-native' },
  ...FORCED.map((p) => ({ name: `ssr-native, ${p} forced`, mode: `ssr-native-${p}` })),
];

module.exports = {
  name: 'express-etag-cpu',
  order: 11,
  question:
    'Express 5, 75 KB page: server CPU per request with ssr-native etag vs ETags off and vs a constant-string etag function (per-round spread).',
  async run({ pick, log, startServer, runLoad }) {
    const rounds = pick.rounds(2, 3, 7);
    const seconds = pick(1, 2, 4);
    const servers = [];
    try {
      for (const v of VARIANTS) servers.push(await startServer(SCRIPT, { ETAG_MODE: v.mode }));
      const load = (server, duration) => ({ url: `${server.url}/`, connections: 50, duration });
      for (const server of servers) await runLoad(load(server, 2));
      const cpu = VARIANTS.map(() => []);
      const user = VARIANTS.map(() => []);
      const rps = VARIANTS.map(() => []);
      for (let round = 0; round < rounds; round++) {
        for (let k = 0; k < VARIANTS.length; k++) {
          const i = (k + round) % VARIANTS.length;
          const before = cpuTimes(servers[i].pid);
          const result = await runLoad(load(servers[i], seconds));
          const after = cpuTimes(servers[i].pid);
          if (before === null || after === null) throw new Error('no /proc CPU times: this scenario needs Linux');
          const total = (t) => t.user + t.system;
          cpu[i].push(((total(after) - total(before)) * 1e6) / result.total);
          user[i].push(((after.user - before.user) * 1e6) / result.total);
          rps[i].push(result.requestsPerSecond);
          log(`  round ${round + 1}/${rounds} ${VARIANTS[i].name}: ${cpu[i][round].toFixed(1)} us CPU/req`);
        }
      }
      const ours = VARIANTS.findIndex((v) => v.mode === 'ssr-native');
      const off = VARIANTS.findIndex((v) => v.mode === 'off');
      // Per round: requests per CPU-second of ours over the other's (1.00x = the same cost).
      const spread = (j, k = ours, of = cpu) => {
        const ratios = of[k].map((c, r) => of[j][r] / c);
        return `${median(ratios).toFixed(3)}x (${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)})`;
      };
      const rows = VARIANTS.map((v, i) => ({
        variant: v.name,
        'req/s': Math.round(median(rps[i])).toLocaleString('en-US'),
        'server CPU us/req': median(cpu[i]).toFixed(1),
        'us/req min-max': `${Math.min(...cpu[i]).toFixed(1)}-${Math.max(...cpu[i]).toFixed(1)}`,
        'ratio ssr-native vs this (CPU), median (min-max)': i === ours ? '-' : spread(i),
        'this vs etag off (CPU), median (min-max)': i === off ? '-' : spread(off, i),
        'user CPU us/req': median(user[i]).toFixed(1),
        'this vs etag off (user CPU), median (min-max)': i === off ? '-' : spread(off, i, user),
      }));
      return {
        tables: [
          {
            headline: {
              measure: 'server CPU us/req',
              ours: 'ssr-native etag',
              baseline: 'etag off',
              higherIsBetter: false,
            },
            title: '75 KB page, GET /',
            columns: [
              'variant',
              'req/s',
              'server CPU us/req',
              'us/req min-max',
              'ratio ssr-native vs this (CPU), median (min-max)',
              'this vs etag off (CPU), median (min-max)',
              'user CPU us/req',
              'this vs etag off (user CPU), median (min-max)',
            ],
            rows,
            notes: [
              `${rounds} interleaved rounds of ${seconds} s per variant (order rotated each round); server pinned to CPU 0, load to CPU 1.`,
              'ratio = requests per server CPU-second of ssr-native etag over this variant, taken per round; 1.00x = the ETag costs nothing measurable.',
              'user CPU: the same without the kernel time of sending 75 KB over loopback, which every variant pays alike and which swings with the load on the other CPU; an ETag is computed in user time, so the user-CPU ratio is the steadier measure of what it costs.',
              ...(FORCED.length
                ? [
                    `${FORCED.join(', ')} forced: the CRC path a CPU without AVX-512 takes, run on this CPU with crc32WithPath and tagged in JavaScript (so at least what etag() costs there). A path forced here is not that path on the CPU it is chosen for.`,
                  ]
                : []),
            ],
          },
        ],
      };
    } finally {
      for (const s of servers) await s.stop();
    }
  },
};
