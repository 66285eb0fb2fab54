'use strict';
// How much memory the response cache takes on one machine: a node:cluster of 4 Express 5 workers
// (bench/http/servers/ssr-cache-cluster.js), N pages asked 4 times each on a new connection each
// (the cluster spreads them over the workers), then a full GC in every worker and the workers'
// summed PSS (/proc/<pid>/smaps_rollup), read before the traffic (after a warm-up of the same
// renders, never stored) and after it. The cache's cost is that growth minus the growth of the
// same traffic with no cache, for (a) one sharedMemoryStore and (b) a memory store per worker,
// against the pages' bytes (a difference of growths: clusters started alike differ by several
// MiB in absolute PSS). File-backed pages are left out (Pss - Pss_File): the node binary's and
// libraries' pages are shared with every node process of the machine, so their share moves with
// the other jobs' processes (by several MiB between readings on a shared machine), and no cache
// stores anything there. Each store is measured in `rounds` fresh clusters, interleaved,
// median. The segment's reservation (its maxBytes, tmpfs pages reserved at open) is reported
// beside it: PSS counts only the segment's pages some worker touched.
//
//   node bench/cache/cluster-pss.js [pages] [pageBytes] [rounds]     (default: 200 102400 3)
//   SHM_HOT_BYTES=0 node bench/cache/cluster-pss.js ...              (no per-process copies)
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { inBatches } = require('../http/lib/batches');
const { median } = require('../http/lib/median');

const SERVER = path.join(__dirname, '..', 'http', 'servers', 'ssr-cache-cluster.js');
const WORKERS = 4;
const pages = Number(process.argv[2] || 200);
const pageBytes = Number(process.argv[3] || 100 * 1024);
const rounds = Number(process.argv[4] || 3);
const shmMaxBytes = Math.ceil((pages * pageBytes * 1.5) / 2 ** 20) * 2 ** 20; // the pages and room to spare
const MiB = 2 ** 20;

/** Proportional set size of `pid` in bytes without its file-backed pages (Pss - Pss_File). */
function pss(pid) {
  const text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (field) => Number(text.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))[1]) * 1024;
  return kb('Pss') - kb('Pss_File');
}

/** Pss of `pid`'s mappings of `file` in bytes (from /proc/<pid>/smaps). */
function pssOf(pid, file) {
  let sum = 0;
  let inside = false;
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inside = line.endsWith(file);
    else if (inside && line.startsWith('Pss:')) sum += Number(line.match(/(\d+) kB/)[1]) * 1024;
  }
  return sum;
}

/** The CPU as /proc/cpuinfo names it, with its family and model. */
function cpuName() {
  const info = fs.readFileSync('/proc/cpuinfo', 'utf8');
  const field = (name) => (info.match(new RegExp(`^${name}\\s*: (.*)$`, 'm')) || [])[1];
  return `${field('model name')} (family ${field('cpu family')} model ${field('model')})`;
}

// One GET on a connection of its own: { status, body }.
function get(port, p) {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: p, agent: false }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`${p}: ${res.statusCode}`));
          else resolve(Buffer.concat(chunks));
        });
      })
      .on('error', reject);
  });
}

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function startCluster(store, tmp, name) {
  const pidsFile = path.join(tmp, `${name}.pids`);
  const child = spawn(process.execPath, [SERVER], {
    env: {
      ...process.env,
      WORKERS: String(WORKERS),
      CACHE_STORE: store,
      SHM_NAME: name,
      SHM_MAX_BYTES: String(shmMaxBytes),
      HIT_URLS: String(pages),
      PAGE_BYTES: String(pageBytes),
      RENDER_LOG: path.join(tmp, `${name}.renders`),
      PIDS_FILE: pidsFile,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`cluster (${store}) exited: ${code}`)));
    child.stdout.on('data', (c) => {
      out += c;
      const m = out.match(/READY (\d+)/);
      if (m) {
        child.removeAllListeners('exit');
        const workers = fs.readFileSync(pidsFile, 'utf8').split('\n').map(Number);
        resolve({ child, port: Number(m[1]), workers });
      }
    });
  });
}

function stopCluster(c) {
  return new Promise((resolve) => {
    c.child.on('exit', resolve);
    c.child.kill('SIGTERM');
  });
}

// The cache's stats() of every worker (asked on new connections until each has answered).
async function workerStats(c) {
  const seen = new Map();
  for (let n = 0; n < 10 * WORKERS && seen.size < WORKERS; n++) {
    const s = JSON.parse(await get(c.port, '/stats'));
    seen.set(s.pid, s);
  }
  return [...seen.values()];
}

// The workers' summed PSS after a full GC in each, and their V8 heaps' summed size then (each
// worker's heapTotal, asked on new connections until each has answered).
async function summedPss(c) {
  for (const pid of c.workers) process.kill(pid, 'SIGUSR2');
  await delay(1000);
  const sum = c.workers.reduce((s, pid) => s + pss(pid), 0);
  const heaps = new Map();
  for (let n = 0; n < 10 * WORKERS && heaps.size < WORKERS; n++) {
    const m = JSON.parse(await get(c.port, '/memory'));
    heaps.set(m.pid, m.heapTotal);
  }
  return { pss: sum, heap: [...heaps.values()].reduce((s, x) => s + x, 0) };
}

// One cluster of `store`: the traffic, a full GC in each worker, the workers' summed PSS.
async function measure(store, tmp, n) {
  const name = `pss-${process.pid}-${store}-${n}`;
  const c = await startCluster(store, tmp, name);
  const segment = path.join('/dev/shm', `ssr-native-cache-${name}`);
  try {
    // the same pages never stored first, as often as the traffic asks them, in every cluster:
    // heaps and allocators grown alike by renders, whatever the store spares of them after
    for (let round = 0; round < WORKERS; round++) await inBatches(pages, 8, (i) => get(c.port, `/fresh/${i}`));
    const before = await summedPss(c);
    let bytes = 0;
    for (let round = 0; round < WORKERS; round++) {
      const bodies = await inBatches(pages, 8, (i) => get(c.port, `/page/${i}`));
      if (round === 0) bytes = bodies.reduce((s, b) => s + b.length, 0);
    }
    const stats = store === 'none' ? [] : await workerStats(c);
    const after = await summedPss(c);
    const sum = after.pss - before.pss;
    const heap = after.heap - before.heap;
    const inSegment = c.workers.reduce((s, pid) => s + pssOf(pid, segment), 0);
    const reserved = fs.existsSync(segment) ? fs.statSync(segment).blocks * 512 : 0;
    const renders = fs.readFileSync(path.join(tmp, `${name}.renders`), 'utf8').split('\n').length - 1;
    const hotBytes = stats.reduce((s, x) => s + (x.hotBytes || 0), 0);
    const metaBytes = stats.reduce((s, x) => s + (x.metaBytes || 0), 0);
    return {
      pss: sum,
      heap,
      inSegment,
      bytes,
      reserved,
      renders,
      hotBytes,
      metaBytes,
      store: stats[0] && stats[0].store,
    };
  } finally {
    await stopCluster(c);
    fs.rmSync(segment, { force: true });
  }
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cluster-pss-'));
  const stores = ['none', 'shared', 'memory'];
  const runs = Object.fromEntries(stores.map((s) => [s, []]));
  try {
    for (let n = 0; n < rounds; n++) {
      const order = n % 2 ? [...stores].reverse() : stores;
      for (const store of order) runs[store].push(await measure(store, tmp, n));
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const cpu = cpuName();
  const pageTotal = runs.none[0].bytes;
  const base = median(runs.none.map((r) => r.pss));
  console.log(
    `${pages} pages of ${(pageBytes / 1024).toFixed(0)} KB (${(pageTotal / MiB).toFixed(1)} MiB), asked ${WORKERS} times over ${WORKERS} workers; ${rounds} clusters per store, median; ${cpu}, node ${process.version}`,
  );
  const heaps = (r) => r.map((x) => (x.heap / MiB).toFixed(1)).join(', ');
  console.log(
    `no cache: workers' summed PSS grew ${(base / MiB).toFixed(1)} MiB (runs ${runs.none.map((x) => (x.pss / MiB).toFixed(1)).join(', ')}; V8 heaps ${heaps(runs.none)} MiB)`,
  );
  const grown = {};
  for (const store of ['shared', 'memory']) {
    const r = runs[store];
    grown[store] = median(r.map((x) => x.pss)) - base;
    const extra =
      store === 'shared'
        ? `; of it the segment's pages ${(median(r.map((x) => x.inSegment)) / MiB).toFixed(1)} MiB, hot copies ${(median(r.map((x) => x.hotBytes)) / MiB).toFixed(1)} MiB and checked metadata ${(median(r.map((x) => x.metaBytes)) / MiB).toFixed(1)} MiB summed; segment reserved ${(r[0].reserved / MiB).toFixed(1)} MiB (maxBytes, on tmpfs); V8 heaps ${heaps(r)} MiB`
        : `; V8 heaps ${heaps(r)} MiB`;
    console.log(
      `${store === 'shared' ? 'sharedMemoryStore' : 'memory store per worker'}: +${(grown[store] / MiB).toFixed(1)} MiB = ${(grown[store] / pageTotal).toFixed(2)}x the pages (runs ${r.map((x) => ((x.pss - base) / MiB).toFixed(1)).join(', ')} MiB), renders ${r.map((x) => x.renders).join(', ')}${extra}`,
    );
  }
  console.log(`shared / per-worker: ${(grown.shared / grown.memory).toFixed(2)}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
