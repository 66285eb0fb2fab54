'use strict';
// What does response compression cost per request, and what does it save on the wire?
// Express 5.3 (and Koa 3, Fastify 5, Hono on @hono/node-server) with a browser's Accept-Encoding
// (`gzip, deflate, br, zstd`), four requests: the same 75 KB page every time, a 75 KB page that
// differs every time, the same 2 KB JSON body, a Server-Sent Events stream of 20 flushed events
// (Fastify and Hono: the two pages). Variants: no compression, the peer (compression 1.8.2 /
// koa-compress 5.2.2 / @fastify/compress 9.2.0 / hono/compress, which offers gzip and deflate
// only), ssr-native's, and on Express shrink-ray-current when it installs with `npm install
// --ignore-scripts` into a temporary directory (skipped with a message otherwise).
// SSR_NATIVE_BENCH_COMPRESSION_FRAMEWORKS=fastify,hono (any of express, koa, fastify, hono)
// runs those frameworks alone (koa and hono include their HTTP/2 case: koa-h2, hono-h2 name it
// alone); SSR_NATIVE_BENCH_COMPRESSION_REQUESTS=/page (a comma list of the
// paths below) runs those requests alone; SSR_NATIVE_BENCH_COMPRESSION_ALSO=<checkout> adds ours
// once more, its server script and lib/ from that checkout (another commit: before and after in
// the same interleaved rounds); SSR_NATIVE_BENCH_COMPRESSION_RATE=<requests/s> paces every
// variant's load at that rate instead of saturating it (on a loaded machine a saturated variant that
// runs below the others' rate pays more per request for the loop's own turns). Each variant is its own server process pinned to
// one CPU, loaded in turn (order rotated every round) from autocannon pinned to the other.
// Koa and Hono are also measured on node:http2's compatibility API (h2c, the repeated page,
// loaded by bench/http/lib/h2-load.js: one session, 20 streams in flight). Reported per variant: server CPU per request (the figure to trust on a shared machine),
// requests per server CPU-second against no compression, bytes on the wire per response, and
// the event loop's delay p99 inside the server under that load. Every server of the case must be
// idle before a variant is measured (a peer's compressions queued on libuv's pool would otherwise
// run on the server CPU inside the next variant's window). For unique pages the loop delay is
// also measured at a paced rate every variant sustains (half the peer's saturated requests/s): a
// saturated server's loop delay is its backlog of parsed requests, the paced one is what a
// compression holds the loop for.
const fs = require('fs');
const http2 = require('http2');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { median } = require('../lib/median');
const { cpuSeconds, settleCpu } = require('../lib/cpu-time');

const SCRIPT = path.join(__dirname, '..', 'servers', 'compression.js');
const ACCEPT_ENCODING = 'gzip, deflate, br, zstd';
const REQUESTS = [
  { path: '/page', title: 'repeated 75 KB page' },
  { path: '/unique', title: 'unique 75 KB pages (every body differs)', paced: true },
  { path: '/json', title: 'repeated 2 KB JSON' },
  { path: '/sse', title: 'Server-Sent Events, 20 flushed events' },
];
const PAGES = REQUESTS.slice(0, 2);

// shrink-ray-current builds native code on install, which fails here; with --ignore-scripts it
// installs and runs on Node's zlib. Installed once per run into a temporary directory.
function installShrinkRay(log) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-shrink-ray-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  try {
    execFileSync(
      'npm',
      ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', dir, 'shrink-ray-current@4'],
      {
        stdio: 'ignore',
        timeout: 60000,
      },
    );
    require(path.join(dir, 'node_modules', 'shrink-ray-current'));
    return dir;
  } catch (err) {
    log(`  shrink-ray-current skipped: it does not install with --ignore-scripts here (${err.message.split('\n')[0]})`);
    return null;
  }
}

async function getStats(server) {
  if (!server.http2) {
    const res = await fetch(`${server.url}/__stats`);
    return res.json();
  }
  const session = http2.connect(server.url);
  try {
    return await new Promise((resolve, reject) => {
      const stream = session.request({ ':path': '/__stats' });
      let text = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk) => (text += chunk));
      stream.on('end', () => resolve(JSON.parse(text)));
      stream.on('error', reject);
      session.on('error', reject);
      stream.end();
    });
  } finally {
    session.close();
  }
}

module.exports = {
  name: 'compression',
  order: 30,
  headline: 'Express 5.3, repeated 75 KB page, GET /page', // the default run's case
  question:
    'Express 5.3 / Koa 3 / Fastify 5 / Hono, Accept-Encoding: gzip, deflate, br, zstd: server CPU per request, bytes on the wire and event-loop delay with ssr-native compression vs none, compression 1.8.2 / koa-compress 5.2.2 / @fastify/compress 9.2 / hono/compress and shrink-ray-current.',
  async run({ pick, log, startServer, runLoad, quick, headline }) {
    const rounds = pick.rounds(1, 2, 5);
    const seconds = pick(1, 2, 3);
    const shrinkRay =
      quick || headline || process.env.SSR_NATIVE_BENCH_SHRINK_RAY === '0' ? null : installShrinkRay(log);
    if (quick) log('  --quick: shrink-ray-current, Koa, Fastify and Hono left out');
    const only = process.env.SSR_NATIVE_BENCH_COMPRESSION_FRAMEWORKS;
    const also = process.env.SSR_NATIVE_BENCH_COMPRESSION_ALSO;
    const fixedRate = Number(process.env.SSR_NATIVE_BENCH_COMPRESSION_RATE) || 0;
    // ours from another checkout, placed before ours (the tables read ours as the last variant)
    const alsoOurs = (name) =>
      also
        ? [
            {
              name: `${name} (${path.basename(path.resolve(also))})`,
              mode: 'ours',
              script: path.join(path.resolve(also), 'bench', 'http', 'servers', 'compression.js'),
            },
          ]
        : [];
    // none, the peer, then ours (the tables read ours as the last variant)
    const variantsOf = (peer, ours) => [
      { name: 'no compression', mode: 'none' },
      { name: peer, mode: 'peer' },
      ...alsoOurs(ours),
      { name: ours, mode: 'ours' },
    ];
    const frameworks = [
      {
        name: 'Express 5.3',
        framework: 'express',
        requests: REQUESTS,
        variants: [
          { name: 'no compression', mode: 'none' },
          { name: 'compression 1.8.2', mode: 'peer' },
          ...(shrinkRay ? [{ name: 'shrink-ray-current', mode: 'shrink-ray' }] : []),
          ...alsoOurs('ssr-native compression'),
          { name: 'ssr-native compression', mode: 'ours' },
        ],
      },
      ...(quick
        ? []
        : [
            {
              name: 'Koa 3',
              framework: 'koa',
              requests: REQUESTS,
              variants: variantsOf('koa-compress 5.2.2', 'ssr-native compress'),
            },
            {
              name: 'Koa 3 over HTTP/2 (h2c)',
              framework: 'koa',
              id: 'koa-h2',
              http2: true,
              requests: [REQUESTS[0]],
              variants: variantsOf('koa-compress 5.2.2', 'ssr-native compress'),
            },
            {
              name: 'Fastify 5',
              framework: 'fastify',
              requests: PAGES,
              variants: variantsOf('@fastify/compress 9.2.0', 'ssr-native fastifyCompress'),
            },
            {
              name: 'Hono 4 (node-server)',
              framework: 'hono',
              requests: PAGES,
              note: 'hono/compress offers gzip and deflate only: both compress with gzip here.',
              variants: variantsOf('hono/compress', 'ssr-native compress'),
            },
            {
              name: 'Hono 4 (node-server) over HTTP/2 (h2c)',
              framework: 'hono',
              id: 'hono-h2',
              http2: true,
              requests: [REQUESTS[0]],
              note: 'hono/compress offers gzip and deflate only: both compress with gzip here.',
              variants: variantsOf('hono/compress', 'ssr-native compress'),
            },
          ]),
    ].filter((f) => !only || only.split(',').some((name) => name === f.framework || name === f.id));
    const tables = [];
    // a headline run (the default) measures only its one case
    for (const fw of frameworks.filter((f) => !headline || headline.startsWith(`${f.name}, `))) {
      const servers = [];
      try {
        for (const v of fw.variants) {
          servers.push(
            await startServer(v.script || SCRIPT, {
              COMPRESSION: v.mode,
              FRAMEWORK: fw.framework,
              SHRINK_RAY_DIR: shrinkRay || '',
              HTTP2: fw.http2 ? '1' : '',
            }),
          );
          servers.at(-1).http2 = Boolean(fw.http2);
        }
        const onlyPaths = process.env.SSR_NATIVE_BENCH_COMPRESSION_REQUESTS;
        for (const request of fw.requests) {
          if (onlyPaths && !onlyPaths.split(',').includes(request.path)) continue;
          if (headline && headline !== `${fw.name}, ${request.title}, GET ${request.path}`) continue;
          const load = (server, duration, rate) => ({
            url: `${server.url}${request.path}`,
            headers: { 'accept-encoding': ACCEPT_ENCODING },
            connections: 20,
            duration,
            ...(fw.http2 ? { http2: true } : {}),
            ...(rate ? { overallRate: rate } : {}),
          });
          const pids = servers.map((s) => s.pid);
          if (!quick) for (const server of servers) await runLoad(load(server, 1));
          const samples = fw.variants.map(() => ({ cpu: [], rps: [], bytes: [], loop: [] }));
          for (let round = 0; round < rounds; round++) {
            for (let k = 0; k < fw.variants.length; k++) {
              const i = (k + round) % fw.variants.length;
              const server = servers[i];
              await settleCpu(pids);
              const before = await getStats(server);
              const cpuBefore = cpuSeconds(server.pid);
              const result = await runLoad(load(server, seconds, fixedRate));
              await settleCpu([server.pid], 3000); // compressions still queued are this window's
              const cpuAfter = cpuSeconds(server.pid);
              const after = await getStats(server);
              if (cpuBefore === null || cpuAfter === null)
                throw new Error('no /proc CPU times: this scenario needs Linux');
              if (result.errors || result.non2xx)
                throw new Error(
                  `${fw.variants[i].name} ${request.path}: ${result.errors} errors, ${result.non2xx} non-2xx`,
                );
              const served = after.requests - before.requests;
              samples[i].cpu.push(((cpuAfter - cpuBefore) * 1e6) / served);
              samples[i].rps.push(result.requestsPerSecond);
              samples[i].bytes.push((after.bytes - before.bytes) / served);
              samples[i].loop.push(after.loopP99Ms);
              log(
                `  ${fw.name} ${request.path} round ${round + 1}/${rounds} ${fw.variants[i].name}: ${samples[i].cpu.at(-1).toFixed(0)} us CPU/req, ${samples[i].bytes.at(-1).toFixed(0)} B/resp, loop p99 ${after.loopP99Ms.toFixed(2)} ms`,
              );
            }
          }
          // the paced loop delay: every variant at half the peer's saturated rate
          const pacedRate = request.paced ? Math.max(10, Math.round(median(samples[1].rps) / 2)) : 0;
          if (pacedRate) {
            for (let round = 0; round < rounds; round++) {
              for (let k = 0; k < fw.variants.length; k++) {
                const i = (k + round) % fw.variants.length;
                await settleCpu(pids);
                await getStats(servers[i]); // resets the server's loop-delay histogram
                await runLoad(load(servers[i], seconds, pacedRate));
                samples[i].pacedLoop = [...(samples[i].pacedLoop || []), (await getStats(servers[i])).loopP99Ms];
              }
            }
          }
          const base = median(samples[0].cpu);
          const peer = median(samples[1].cpu);
          const ours = fw.variants.length - 1;
          // per round: requests per CPU-second of ours over this variant's
          const spread = (j) => {
            const ratios = samples[j].cpu.map((c, r) => c / samples[ours].cpu[r]);
            return `${median(ratios).toFixed(2)}x (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`;
          };
          tables.push({
            headline: {
              measure: 'server CPU us/req',
              ours: fw.variants[ours].name,
              baseline: fw.variants[1].name,
              higherIsBetter: false,
            },
            title: `${fw.name}, ${request.title}, GET ${request.path}`,
            columns: [
              'variant',
              'req/s',
              'server CPU us/req',
              'req per CPU-s vs none',
              'ours vs this (req per CPU-s)',
              'bytes/response',
              'loop delay p99 ms',
              ...(pacedRate ? [`loop delay p99 ms at ${pacedRate} req/s`] : []),
            ],
            rows: fw.variants.map((v, i) => {
              const cpu = median(samples[i].cpu);
              return {
                variant: v.name,
                'req/s': Math.round(median(samples[i].rps)).toLocaleString('en-US'),
                'server CPU us/req': cpu.toFixed(0),
                'req per CPU-s vs none': `${(base / cpu).toFixed(2)}x`,
                'ours vs this (req per CPU-s)': i === ours ? '-' : spread(i),
                'bytes/response': Math.round(median(samples[i].bytes)).toLocaleString('en-US'),
                'loop delay p99 ms': median(samples[i].loop).toFixed(2),
                ...(pacedRate
                  ? { [`loop delay p99 ms at ${pacedRate} req/s`]: median(samples[i].pacedLoop).toFixed(2) }
                  : {}),
              };
            }),
            notes: [
              `${rounds} interleaved round(s) of ${seconds} s per variant, 20 connections${fixedRate ? `, paced at ${fixedRate} requests/s` : ''}, Accept-Encoding: ${ACCEPT_ENCODING}; server pinned to CPU 0, load to CPU 1.`,
              `bytes/response: what the server wrote to its sockets per response (headers included). Peer CPU ${peer.toFixed(0)} us/req.`,
              ...(pacedRate
                ? [
                    `loop delay at ${pacedRate} req/s: every variant paced at half the peer's saturated rate (${rounds} round(s) of ${seconds} s), the delay a compression holds the loop for rather than a saturated server's backlog.`,
                  ]
                : []),
              ...(fw.note ? [fw.note] : []),
            ],
          });
        }
      } finally {
        for (const s of servers) await s.stop();
      }
    }
    return { tables };
  },
};
