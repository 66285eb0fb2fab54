'use strict';
// How many times a stale page is rendered again on one machine: a node:cluster of 4 Express
// workers (test/js/helpers/shm-cluster-server.js), `pages` pages fresh for 5 s then served
// stale while revalidated (a render takes 1 s), each asked 32 times at once through every
// worker once stale (the burst must end before the refreshed page is stale again). Counted from the app's render log: the refresh renders per stale page with
// (a) one sharedMemoryStore (the refresh lock and ticket in the segment) and (b) a memory store
// per worker (each worker refreshes what it meets; a refresh reaching another worker is refused
// there and served the stale page), with the refreshes the workers sent (stats().refreshes).
// Rounds alternate (a) and (b), median.
//
//   node bench/cache/cluster-refresh.js [pages] [rounds]     (default: 16 3)
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { freePort, get, sleep, statsOfWorkers } = require('../../test/js/helpers/cluster-client');
const { median } = require('../http/lib/median');

const SERVER = path.join(__dirname, '..', '..', 'test', 'js', 'helpers', 'shm-cluster-server.js');
const pages = Number(process.argv[2] || 16);
const rounds = Number(process.argv[3] || 3);

async function once(store, round) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cluster-refresh-'));
  const log = path.join(dir, 'renders.log');
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER], {
    env: {
      ...process.env,
      PORT: String(port),
      STORE: store,
      SHM_NAME: `bench-refresh-${process.pid}-${round}`,
      SHM_DIR: dir,
      RENDER_LOG: log,
      WORKERS: '4',
    },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await new Promise((resolve) => child.stdout.on('data', (d) => String(d).includes('ready') && resolve()));
    const urls = Array.from({ length: pages }, (_, i) => `/swr/r${round}-${i}?ms=1000&age=5`);
    // each page stored (by every worker, with per-worker stores): 16 asks, new connections
    for (let i = 0; i < 16; i++) await Promise.all(urls.map((url) => get(port, url)));
    const filled = lines(log);
    const before = await refreshesSent(port);
    await sleep(5200); // stale (max-age=5), within stale-while-revalidate
    await Promise.all(urls.flatMap((url) => Array.from({ length: 32 }, () => get(port, url))));
    await sleep(2500); // the refreshes render (1 s) and store
    const sent = (await refreshesSent(port)) - before;
    return { renders: (lines(log) - filled) / pages, sent: sent / pages };
  } finally {
    child.kill('SIGTERM');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function refreshesSent(port) {
  return (await statsOfWorkers(port, 4)).reduce((n, w) => n + w.stats.refreshes, 0);
}

function lines(log) {
  return fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
}

async function main() {
  const shared = [];
  const memory = [];
  for (let r = 0; r < rounds; r++) {
    shared.push(await once('shared', r));
    memory.push(await once('memory', r));
  }
  const cpu = os.cpus()[0].model;
  console.log(`cpu ${cpu}, load ${os.loadavg()[0].toFixed(1)}, ${pages} stale pages x 32 requests over 4 workers`);
  for (const [name, runs] of [
    ['sharedMemoryStore', shared],
    ['memory store per worker', memory],
  ]) {
    const renders = runs.map((r) => r.renders);
    const sent = runs.map((r) => r.sent);
    console.log(
      `${name}: refresh renders per stale page ${median(renders)} (${renders.join(', ')}), refreshes sent ${median(sent)} (${sent.join(', ')})`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
