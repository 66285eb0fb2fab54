'use strict';
// The response cache on one machine: a node:cluster of 4 Express 5 workers behind one port
// (servers/ssr-cache-cluster.js) serving a generated ~75 KB HTML page per URL, with each worker
// its own memory store, one sharedMemoryStore for all four, or the Redis store (a real
// redis-server started here) for reference. N distinct URLs are each requested 4 times (a new
// connection per request, so the cluster spreads them over the workers): how many renders; how
// much memory the stored pages take (the summed PSS of every process, from
// /proc/<pid>/smaps_rollup, before and after the fill, against the pages' bytes, raw and over the
// growth of a cluster with no cache over the same traffic); and the server
// CPU per request on hits (all workers' CPU from /proc/<pid>/stat over a hit-only load window,
// the clusters loaded in turn, order rotated each round).
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { median } = require('../lib/median');
const { cpuSeconds, settleCpu } = require('../lib/cpu-time');
const { SERVER_CPU, pinProcess } = require('../lib/cpu');
const { headlineFromSamples } = require('../lib/headline');
const { redisMissing, freePort, startRedis } = require('../lib/redis');
const { inBatches } = require('../lib/batches');

const SCRIPT = path.join(__dirname, '..', 'servers', 'ssr-cache-cluster.js');
const WORKERS = 4;
const PAGE_BYTES = 75 * 1024;
const HITS = 'server CPU per request on hits, 4 workers';

/** Proportional set size of `pid` in bytes (smaps_rollup), 0 once it is gone; `field`: Pss_File etc. */
function pss(pid, field = 'Pss') {
  try {
    const m = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

// The summed Pss of `pids`, and that of their memory not backed by a file (Pss - Pss_File: the
// heaps and the segment, without the node binary's and libraries' pages, whose share moves
// with how many node processes the machine runs).
function summedPss(pids) {
  const all = pids.reduce((s, pid) => s + pss(pid), 0);
  return { all, unfiled: all - pids.reduce((s, pid) => s + pss(pid, 'Pss_File'), 0) };
}

// One GET on a connection of its own (the cluster's primary hands each new connection to the
// next worker); resolves with the body's length.
function fetchOnce(port, p) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: p, agent: false }, (res) => {
      let n = 0;
      res.on('data', (c) => (n += c.length));
      res.on('end', () => (res.statusCode === 200 ? resolve(n) : reject(new Error(`${p}: ${res.statusCode}`))));
    });
    req.on('error', reject);
  });
}

/** Pss of `pid`'s mappings of `file` in bytes (from /proc/<pid>/smaps), 0 once it is gone. */
function pssOf(pid, file) {
  let sum = 0;
  let inside = false;
  let text;
  try {
    text = fs.readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return 0;
  }
  for (const line of text.split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inside = line.endsWith(file);
    else if (inside && line.startsWith('Pss:')) sum += Number(line.match(/(\d+) kB/)[1]) * 1024;
  }
  return sum;
}

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);

module.exports = {
  name: 'ssr-cache-cluster',
  order: 62,
  question:
    'responseCache() in a node:cluster of 4 workers: per-worker memory stores, one sharedMemoryStore, or Redis: renders for N URLs requested 4 times each, the memory the stored pages take (summed PSS), and server CPU per hit.',
  skip: () => redisMissing(),
  estimate: { quick: 40, default: 80, full: 180 },
  async run({ pick, log, startServer, runLoad }) {
    const urls = pick(200, 500, 1000);
    const rounds = pick.rounds(2, 3, 5);
    const seconds = pick(1, 2, 3);
    const connections = 32;
    const shmMaxBytes = Math.ceil((urls * 80 * 1024 * 1.5) / 2 ** 20) * 2 ** 20; // the pages and room to spare
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-cache-cluster-'));
    const shmName = `bench-cluster-${process.pid}`;
    const redisPort = await freePort();
    const redis = await startRedis(redisPort);
    const variants = [
      { name: 'memory store per worker', store: 'memory' },
      { name: 'ssr-native sharedMemoryStore', store: 'shared' },
      { name: 'Redis store (+ memory layer per worker)', store: 'redis' },
    ];
    // no cache at all: the baseline of the memory reading only (the same traffic grows the
    // workers' heaps and malloc arenas by itself), stopped before the hit tables
    const noCache = { name: 'no cache (baseline)', store: 'none' };
    const started = []; // every cluster started, stopped at the end (the baseline's stop() is then a no-op)
    let clusters = [];
    try {
      for (const v of [noCache, ...variants]) {
        const renderLog = path.join(tmp, `${v.store}.renders`);
        const pidsFile = path.join(tmp, `${v.store}.pids`);
        fs.writeFileSync(renderLog, '');
        const server = await startServer(SCRIPT, {
          WORKERS: String(WORKERS),
          CACHE_STORE: v.store,
          SHM_NAME: shmName,
          REDIS_PORT: String(redisPort),
          CACHE_PREFIX: `bench${process.pid}:`,
          HIT_URLS: String(urls),
          SHM_MAX_BYTES: String(shmMaxBytes),
          PAGE_BYTES: String(PAGE_BYTES),
          RENDER_LOG: renderLog,
          PIDS_FILE: pidsFile,
        });
        const workers = fs.readFileSync(pidsFile, 'utf8').split('\n').map(Number);
        for (const pid of workers) pinProcess(pid, SERVER_CPU); // forked before the primary was pinned
        started.push({ ...v, server, workers, renderLog });
      }
      const baseline = started[0];
      clusters = started.slice(1);
      const renders = (c) => fs.readFileSync(c.renderLog, 'utf8').split('\n').length - 1;
      // every process whose memory holds the pages: the workers, the primary, redis-server
      const memoryPids = (c) => [...c.workers, c.server.pid, ...(c.store === 'redis' ? [redis.pid] : [])];
      const fullGc = async (c) => {
        for (const pid of c.workers) process.kill(pid, 'SIGUSR2');
        await delay(300);
        await settleCpu(c.workers, 3000);
      };
      const segment = path.join('/dev/shm', `ssr-native-cache-${shmName}`);

      // 1. fill: every URL 4 times, round by round, 8 requests at once, a connection each
      const memoryRows = [];
      let baseGrowth = 0;
      for (const c of [baseline, ...clusters]) {
        // the same pages, not stored, first: code compiled and heaps grown before the 'before'
        // reading (not all of it: the no-cache cluster still grows over the fill's traffic)
        for (let round = 0; round < WORKERS; round++)
          await inBatches(urls, 8, (i) => fetchOnce(c.server.port, `/fresh/${i}`));
        await settleCpu([...c.workers, c.server.pid], 3000);
        await fullGc(c);
        const before = summedPss(memoryPids(c));
        const pssBefore = before.all;
        let pageBytes = 0;
        const started = Date.now();
        for (let round = 0; round < WORKERS; round++) {
          const sizes = await inBatches(urls, 8, (i) => fetchOnce(c.server.port, `/page/${i}`));
          if (round === 0) pageBytes = sizes.reduce((x, y) => x + y, 0);
        }
        const ms = Date.now() - started;
        await settleCpu([...c.workers, c.server.pid], 3000);
        await fullGc(c);
        const after = summedPss(memoryPids(c));
        const pssAfter = after.all;
        const grown = pssAfter - pssBefore;
        const unfiled = after.unfiled - before.unfiled;
        const shm = c.store === 'shared' && fs.existsSync(segment) ? fs.statSync(segment).blocks * 512 : 0;
        const inSegment = c.store === 'shared' ? c.workers.reduce((s, pid) => s + pssOf(pid, segment), 0) : 0;
        c.fill = { renders: renders(c), pageBytes, grown };
        if (c === baseline) {
          baseGrowth = unfiled;
          await c.server.stop();
          log(`  ${c.name}: PSS +${mib(grown)} MiB (${mib(unfiled)} MiB not file-backed) over the same traffic`);
          continue;
        }
        memoryRows.push({
          store: c.name,
          requests: urls * WORKERS,
          renders: c.fill.renders,
          'fill ms': ms,
          'pages MiB': mib(pageBytes),
          'PSS before MiB': mib(pssBefore),
          'PSS after MiB': mib(pssAfter),
          'PSS growth MiB': mib(grown),
          'growth / pages': (grown / pageBytes).toFixed(2),
          'over no cache MiB': mib(unfiled - baseGrowth),
          'over no cache / pages': ((unfiled - baseGrowth) / pageBytes).toFixed(2),
          'in the segment MiB': c.store === 'shared' ? mib(inSegment) : '-',
          'segment on tmpfs MiB': c.store === 'shared' ? mib(shm) : '-',
        });
        log(`  ${c.name}: ${c.fill.renders} renders, PSS +${mib(grown)} MiB for ${mib(pageBytes)} MiB of pages`);
      }

      // 2. hits only: /hit/<n> picks one of the first n warm URLs (all: n = urls) at random in
      // the worker; every URL of the set, or a hot set that fits each process's hot entries
      const hitTable = async (n, what) => {
        const hitPath = `/hit/${n}`;
        const samples = Object.fromEntries(clusters.map((c) => [c.name, []]));
        const rps = Object.fromEntries(clusters.map((c) => [c.name, []]));
        const windowRenders = Object.fromEntries(clusters.map((c) => [c.name, 0]));
        // warm-up, until a window renders nothing: with per-worker stores each worker must have
        // rendered every page itself before the windows measure hits only
        const warmWindows = {};
        for (const c of clusters) {
          for (warmWindows[c.name] = 1; warmWindows[c.name] <= 12; warmWindows[c.name]++) {
            const before = renders(c);
            await runLoad({ url: `${c.server.url}${hitPath}`, connections, duration: 2 });
            if (renders(c) === before) break;
          }
        }
        for (let round = 0; round < rounds; round++) {
          const order = clusters.map((_, i) => clusters[(i + round) % clusters.length]);
          if (round % 2 === 1) order.reverse();
          for (const c of order) {
            const pids = [...c.workers, c.server.pid];
            await settleCpu(pids, 3000);
            const rendersBefore = renders(c);
            const cpuBefore = c.workers.reduce((s, pid) => s + cpuSeconds(pid), 0);
            const r = await runLoad({ url: `${c.server.url}${hitPath}`, connections, duration: seconds });
            await settleCpu(pids, 3000);
            const cpu = c.workers.reduce((s, pid) => s + cpuSeconds(pid), 0) - cpuBefore;
            windowRenders[c.name] += renders(c) - rendersBefore;
            if (r.non2xx + r.errors > 0) throw new Error(`${c.name}: ${r.non2xx + r.errors} failed requests`);
            samples[c.name].push((cpu * 1e6) / r.total);
            rps[c.name].push(r.requestsPerSecond);
          }
        }
        const base = median(samples[clusters[0].name]);
        const rows = clusters.map((c) => ({
          store: c.name,
          'CPU us/req (workers)': median(samples[c.name]).toFixed(1),
          'per round': samples[c.name].map((x) => x.toFixed(1)).join(', '),
          'req/s': Math.round(median(rps[c.name])).toLocaleString('en-US'),
          'warm-up windows': warmWindows[c.name],
          'renders in windows': windowRenders[c.name],
          'ratio (memory / this)': (base / median(samples[c.name])).toFixed(2),
        }));
        log(`  hits, ${what}: ${rows.map((r) => `${r.store} ${r['CPU us/req (workers)']} us`).join(', ')}`);
        return {
          title: `${HITS}: GET of ${what} at random, ${connections} connections, ${seconds} s x ${rounds} rounds`,
          columns: [
            'store',
            'CPU us/req (workers)',
            'per round',
            'req/s',
            'warm-up windows',
            'renders in windows',
            'ratio (memory / this)',
          ],
          rows,
          notes: [
            "server CPU: the 4 workers' user+system time from /proc/<pid>/stat over the window (the primary left out: keep-alive connections), per request; clusters loaded in turn, order rotated each round",
            'warm-up: 2 s windows of the same load until one renders nothing (at most 12)',
            'workers and primary pinned to CPU 0, the load generator (autocannon) to CPU 1, redis-server unpinned. target: shared within 1.1x of the per-worker memory store',
          ],
          summary: headlineFromSamples({
            measure: `server CPU us/req on hits (${what})`,
            samples,
            baseline: clusters[0].name,
            ours: clusters[1].name,
            peers: [clusters[2].name],
            higherIsBetter: false,
          }),
        };
      };
      const hot = 64;
      const allTable = await hitTable(urls, `all ${urls} warm ~75 KB pages`);
      const hotTable = await hitTable(hot, `${hot} of the warm pages (a hot set)`);
      const memoryTable = {
        title: `${urls} distinct URLs (generated ~75 KB HTML pages) each requested ${WORKERS} times over the 4 workers: renders and memory`,
        columns: [
          'store',
          'requests',
          'renders',
          'fill ms',
          'pages MiB',
          'PSS before MiB',
          'PSS after MiB',
          'PSS growth MiB',
          'growth / pages',
          'over no cache MiB',
          'over no cache / pages',
          'in the segment MiB',
          'segment on tmpfs MiB',
        ],
        rows: memoryRows,
        notes: [
          `before: after ${WORKERS}x${urls} requests for the same pages marked no-store (code compiled, heaps grown; the same traffic still grows a cluster with no cache)`,
          `over no cache: the growth minus that of a cluster with no cache at all over the same traffic (${mib(baseGrowth)} MiB: the workers' malloc arenas and V8 heaps grow by themselves, e.g. freed 75 KB body buffers kept by glibc), the measure of issue 54; both growths without file-backed pages (Pss - Pss_File: the node binary's share moves with the machine's other node processes)`,
          "in the segment: the workers' Pss of the segment's mapping after the fill (each touched page counted once over the workers)",
          'PSS: summed Pss of /proc/<pid>/smaps_rollup over the 4 workers and the primary (and redis-server for the Redis store), after a full GC in each worker; the shared segment pages a worker has touched count there, split between the processes that map them',
          `segment on tmpfs: the file /dev/shm/ssr-native-cache-<name> (maxBytes ${mib(shmMaxBytes)} MiB, 1.5x the pages, reserved in full by posix_fallocate at start), not in PSS where no process touched it`,
          'targets: shared growth over no cache within 1.2x of the pages, per-worker ~4x; renders: shared N, per-worker up to 4N',
        ],
      };
      return { tables: [allTable, hotTable, memoryTable] };
    } finally {
      await Promise.all(started.map((c) => c.server.stop()));
      redis.kill('SIGKILL');
      fs.rmSync(tmp, { recursive: true, force: true });
      fs.rmSync(path.join('/dev/shm', `ssr-native-cache-${shmName}`), { force: true });
    }
  },
};
