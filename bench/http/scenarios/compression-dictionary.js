'use strict';
// Compression Dictionary Transport on a site of server-rendered pages that share a layout and
// ~20 KB of inlined critical CSS: bytes per unseen page as gzip, Brotli (compression 1.8.2's,
// quality 4), zstd (level 3, no dictionary) and dcz (ssr-native's learned dictionary), and the
// server's CPU per unseen page for compression 1.8.2 (br), ssr-native without a dictionary (br)
// and ssr-native with one (dcz).
//
// Each variant is its own server (pinned to CPU 0); every one first serves the same 40 warm-up
// pages (ssr-native learns its dictionary from them; the client then fetches it as a browser
// would, from the Link header). Then, in interleaved rounds (the order rotated every round), each
// serves the same block of pages it never saw, 8 requests at a time from this process; its CPU
// is read from /proc once it is idle again. Targets (issue 37): dcz <= 0.4x the bytes of
// compression 1.8.2's Brotli, and CPU per page no more than Brotli q4's.
const crypto = require('crypto');
const http = require('http');
const path = require('path');
const zlib = require('zlib');
const { median } = require('../lib/median');
const { cpuSeconds, settleCpu } = require('../lib/cpu-time');

const SERVER = path.join(__dirname, '..', 'servers', 'compression-dictionary.js');
const WARM_PAGES = 40;
const CONCURRENCY = 8;

function get(agent, url, headers) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

// Requests pages [from, to) with `headers`, CONCURRENCY at a time: { bytes: [per page], codings }.
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

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

module.exports = {
  name: 'compression-dictionary',
  order: 31,
  headline: 'Express 5.3, unseen pages of one site (shared layout, 20 KB critical CSS)',
  question:
    'On a site of server-rendered pages sharing a layout and ~20 KB of inlined critical CSS, how many bytes does an unseen page take as gzip, Brotli (compression 1.8.2), zstd and dcz (ssr-native compression({ dictionary: true })), and what server CPU does each cost per page?',
  async run({ pick, log, startServer, quick }) {
    const rounds = pick.rounds(2, 3, 5);
    const perRound = pick(150, 300, 600);
    const variants = [
      { name: 'compression 1.8.2 (br q4)', env: { COMPRESSION: 'peer' }, accept: 'gzip, deflate, br' },
      { name: 'ssr-native compression (br q4)', env: { COMPRESSION: 'ours' }, accept: 'gzip, deflate, br' },
      {
        name: 'ssr-native compression({ dictionary: true }) (dcz)',
        env: { COMPRESSION: 'dictionary' },
        accept: 'gzip, deflate, br, zstd, dcb, dcz',
      },
    ];
    const servers = [];
    try {
      for (const v of variants) servers.push(await startServer(SERVER, v.env));
      const headers = [];
      for (const [i, v] of variants.entries()) {
        await pages(servers[i], 0, WARM_PAGES, { 'accept-encoding': v.accept });
        const h = { 'accept-encoding': v.accept };
        if (v.env.COMPRESSION === 'dictionary') {
          // the dictionary is learned off the event loop: wait for the Link that announces it
          const until = Date.now() + 30000;
          let link;
          while (!(link = (await get(undefined, `${servers[i].url}/page/0`, h)).headers.link)) {
            if (Date.now() > until) throw new Error('no dictionary announced after the warm-up pages');
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          const dictionaryPath = /<([^>]+)>/.exec(link)[1];
          const dictionary = (await get(undefined, `${servers[i].url}${dictionaryPath}`, {})).body;
          h['available-dictionary'] = `:${crypto.createHash('sha256').update(dictionary).digest('base64')}:`;
          log(`  dictionary: ${dictionary.length} bytes (${dictionaryPath})`);
        }
        headers.push(h);
      }
      const samples = variants.map(() => ({ cpu: [], bytes: [] }));
      for (let round = 0; round < rounds; round++) {
        const from = 1000 + round * perRound;
        for (let k = 0; k < variants.length; k++) {
          const i = (k + round) % variants.length;
          const pids = servers.map((s) => s.pid);
          await settleCpu(pids);
          const before = cpuSeconds(servers[i].pid);
          const result = await pages(servers[i], from, from + perRound, headers[i]);
          await settleCpu([servers[i].pid]);
          samples[i].cpu.push(((cpuSeconds(servers[i].pid) - before) / perRound) * 1e6);
          samples[i].bytes.push(mean(result.bytes));
          if (round === 0) log(`  ${variants[i].name}: Content-Encoding ${result.codings.join(', ')}`);
        }
      }
      // gzip and zstd bytes for the same pages, for the table (computed here: the byte counts do not
      // depend on who compresses)
      const gzipPeer = await pages(servers[0], 1000, 1000 + perRound, { 'accept-encoding': 'gzip' });
      const { createSite } = require('../../../test/js/helpers/dictionary-site');
      const site = createSite({ seed: 2026 });
      const native = require('../../../lib/native');
      const plainZstd = native.zstdDictionaryStatus().available
        ? native.zstdDictionaryEncoder(Buffer.from('\n'), 3)
        : null;
      const zeroHash = Buffer.alloc(32);
      const zstdBytes = [];
      const identityBytes = [];
      for (let n = 1000; n < 1000 + perRound; n++) {
        const body = Buffer.from(site.page(n));
        identityBytes.push(body.length);
        if (typeof zlib.zstdCompressSync === 'function') zstdBytes.push(zlib.zstdCompressSync(body).length);
        else if (plainZstd) zstdBytes.push(native.dczEncode(plainZstd, zeroHash, body).length - 40);
      }
      const br = median(samples[0].bytes);
      const brCpu = median(samples[0].cpu);
      const rows = [
        { coding: 'identity', 'bytes/page': mean(identityBytes), 'vs br': '' },
        { coding: 'gzip (compression 1.8.2)', 'bytes/page': mean(gzipPeer.bytes) },
        { coding: 'br q4 (compression 1.8.2)', 'bytes/page': br },
        ...(zstdBytes.length ? [{ coding: 'zstd -3 (no dictionary)', 'bytes/page': mean(zstdBytes) }] : []),
        { coding: 'dcz (ssr-native, learned dictionary)', 'bytes/page': median(samples[2].bytes) },
      ].map((r) => ({
        coding: r.coding,
        'bytes/page': Math.round(r['bytes/page']).toLocaleString('en-US'),
        'vs br': `${(r['bytes/page'] / br).toFixed(2)}x`,
      }));
      const cpuRows = variants.map((v, i) => {
        const cpu = median(samples[i].cpu);
        const ratios = samples[i].cpu.map((c, r) => c / samples[0].cpu[r]);
        return {
          variant: v.name,
          'server CPU us/page': cpu.toFixed(0),
          'vs compression 1.8.2': `${(cpu / brCpu).toFixed(2)}x (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`,
          'bytes/page': Math.round(median(samples[i].bytes)).toLocaleString('en-US'),
        };
      });
      const note = `${rounds} interleaved round(s) of ${perRound} unseen pages per variant, ${CONCURRENCY} at a time; server pinned to CPU 0; CPU from /proc once idle.${quick ? ' --quick: indicative only.' : ''}`;
      return {
        tables: [
          {
            headline: {
              measure: 'bytes/page',
              ours: 'dcz (ssr-native, learned dictionary)',
              baseline: 'br q4 (compression 1.8.2)',
              higherIsBetter: false,
            },
            title: 'Express 5.3, unseen pages of one site (shared layout, 20 KB critical CSS)',
            columns: ['coding', 'bytes/page', 'vs br'],
            rows,
            notes: [note, "Target: dcz <= 0.40x the bytes of compression 1.8.2's Brotli."],
          },
          {
            title: 'Express 5.3, unseen pages: server CPU per page',
            columns: ['variant', 'server CPU us/page', 'vs compression 1.8.2', 'bytes/page'],
            rows: cpuRows,
            notes: [note, "Target: dcz CPU per page no more than Brotli q4's (1.00x); per-round ratios in brackets."],
          },
        ],
      };
    } finally {
      for (const s of servers) await s.stop();
    }
  },
};
