'use strict';
// The learned dictionary's dcz answers, this checkout against another one, in the same rounds:
//   node bench/http/dictionary-paired.js <other checkout> [--rounds 16] [--pages 400]
//
// compression-dictionary.js's dcz variant (servers/compression-dictionary.js, COMPRESSION=
// dictionary: Express 5.3, pages sharing a layout and 20 KB of critical CSS) started from both
// checkouts at once, each server pinned to CPU 0 (lib/server.js). Both learn their dictionary from
// the same 40 warm-up pages; then, in interleaved rounds (the order rotated every round), each
// serves the same block of pages it never saw, 8 at a time, in dcz against its dictionary. Prints
// the server CPU per page (from /proc once idle) and bytes per page of each, and the per-round
// ratio of this checkout's CPU to the other's: on a shared machine the rounds move a lot, the
// median of the ratios and their spread are the figure. The other checkout needs its own
// build/Release/ssr_native.node built with libzstd.
const crypto = require('crypto');
const http = require('http');
const path = require('path');
const { startServer } = require('./lib/server');
const { cpuSeconds, settleCpu } = require('./lib/cpu-time');
const { median } = require('./lib/median');
const { describeMachine } = require('./lib/cpu');

const SERVER = path.join('bench', 'http', 'servers', 'compression-dictionary.js');
const WARM_PAGES = 40;
const CONCURRENCY = 8;
const ACCEPT = 'gzip, deflate, br, zstd, dcb, dcz';

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? Number(process.argv[i + 1]) : fallback;
}

function get(agent, url, headers) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

// Pages [from, to), CONCURRENCY at a time: { bytes: [per page], codings }.
async function pages(server, from, to, headers) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const bytes = [];
  const codings = new Set();
  let next = from;
  async function worker() {
    while (next < to) {
      const n = next++;
      const res = await get(agent, `${server.url}/page/${n}`, headers);
      if (res.status !== 200) throw new Error(`/page/${n}: status ${res.status}`);
      bytes.push(res.body.length);
      codings.add(res.headers['content-encoding'] || 'identity');
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  agent.destroy();
  return { bytes, codings: [...codings] };
}

// Warms `server` up and returns the request headers naming its learned dictionary.
async function learnedDictionary(server) {
  const headers = { 'accept-encoding': ACCEPT };
  await pages(server, 0, WARM_PAGES, headers);
  const until = Date.now() + 30000;
  let link;
  while (!(link = (await get(undefined, `${server.url}/page/0`, headers)).headers.link)) {
    if (Date.now() > until) throw new Error('no dictionary announced after the warm-up pages');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const dictionary = (await get(undefined, `${server.url}${/<([^>]+)>/.exec(link)[1]}`, {})).body;
  return { ...headers, 'available-dictionary': `:${crypto.createHash('sha256').update(dictionary).digest('base64')}:` };
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

async function main() {
  const other = process.argv[2];
  if (!other || other.startsWith('--')) {
    console.error('usage: node bench/http/dictionary-paired.js <other checkout> [--rounds N] [--pages N]');
    process.exit(2);
  }
  const rounds = option('rounds', 16);
  const perRound = option('pages', 400);
  const variants = [
    { name: `other (${other})`, script: path.join(path.resolve(other), SERVER) },
    { name: 'this checkout', script: path.join(__dirname, '..', '..', SERVER) },
  ];
  const machine = describeMachine();
  console.log(`${machine.cpu}, ${machine.cpus} CPUs; load average ${require('os').loadavg()[0].toFixed(1)}`);
  const servers = [];
  try {
    for (const v of variants) servers.push(await startServer(v.script, { COMPRESSION: 'dictionary' }));
    const headers = [];
    for (const server of servers) headers.push(await learnedDictionary(server));
    const cpu = variants.map(() => []);
    const bytes = variants.map(() => []);
    for (let round = 0; round < rounds; round++) {
      const from = 1000 + round * perRound;
      for (let k = 0; k < variants.length; k++) {
        const i = (k + round) % variants.length;
        await settleCpu(servers.map((s) => s.pid));
        const before = cpuSeconds(servers[i].pid);
        const result = await pages(servers[i], from, from + perRound, headers[i]);
        await settleCpu([servers[i].pid]);
        if (!result.codings.every((c) => c === 'dcz')) throw new Error(`${variants[i].name}: ${result.codings}`);
        cpu[i].push(((cpuSeconds(servers[i].pid) - before) / perRound) * 1e6);
        bytes[i].push(mean(result.bytes));
      }
    }
    for (const [i, v] of variants.entries())
      console.log(
        `${v.name}: server CPU ${median(cpu[i]).toFixed(0)} us/page (median of ${rounds} rounds), ` +
          `${median(bytes[i]).toFixed(0)} bytes/page`,
      );
    const ratios = cpu[1].map((c, r) => c / cpu[0][r]).sort((a, b) => a - b);
    console.log(
      `this/other CPU per page: median ${median(ratios).toFixed(3)} (rounds ${ratios[0].toFixed(2)}-` +
        `${ratios[ratios.length - 1].toFixed(2)}); bytes ${(median(bytes[1]) / median(bytes[0])).toFixed(4)}`,
    );
  } finally {
    for (const s of servers) await s.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
