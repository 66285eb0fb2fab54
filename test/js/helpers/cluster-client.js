'use strict';
// What the cluster tests (node:cluster and PM2) ask of the app of shm-cluster-app.js behind one
// port: a free port, a GET on a new connection each time (so the cluster spreads them over its
// workers; a failure or a 10 s stall reads as status 0), a pool running `fn` over items `width`
// at a time, the render count from the app's log, and the checks both clusters must pass.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function get(port, url) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: url, agent: false, timeout: 10000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      res.on('error', () => resolve({ status: 0, body: '' }));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ status: 0, body: '' }));
  });
}

async function pool(items, width, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

/** renders(url?): how many renders the log holds (of `url`, or of all). */
function renderCounter(log) {
  return (url) => {
    const lines = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
    return url === undefined ? lines.length : lines.filter((l) => l.endsWith(` ${url}`)).length;
  };
}

/** 500 pages, each asked 4 times, spread over the workers: 500 renders for the machine. */
async function eachPageOnce(port, renders) {
  const urls = Array.from({ length: 500 }, (_, i) => `/p/${i}`);
  const served = new Set();
  for (let round = 0; round < 4; round++) {
    await pool(urls, 8, async (url) => {
      const r = await get(port, url);
      assert.equal(r.status, 200, url);
      assert.match(r.body, new RegExp(`^page ${url} by (\\d+) `));
      served.add(r.body.split(' ')[3]);
    });
  }
  assert.equal(renders(), 500);
  assert.ok(served.size >= 2, 'the answers came from several workers');
}

/** 64 concurrent requests for one new page: one render, one body. */
async function burstOnce(port, renders, url = '/p/burst') {
  const results = await Promise.all(Array.from({ length: 64 }, () => get(port, url)));
  for (const r of results) assert.equal(r.status, 200);
  assert.equal(new Set(results.map((r) => r.body)).size, 1);
  assert.equal(renders(url), 1);
}

/** A purge through whichever worker answers: the next request renders, wherever it lands. */
async function purgeReachesAll(port, renders, url = '/p/purged') {
  for (let i = 0; i < 8; i++) await get(port, url);
  const before = renders(url);
  assert.equal(before, 1);
  const purge = await get(port, '/purge?prefix=/p/');
  assert.equal(purge.status, 200);
  const after = [];
  for (let i = 0; i < 8; i++) after.push(await get(port, url));
  assert.equal(renders(url), before + 1);
  assert.equal(new Set(after.map((r) => r.body)).size, 1);
}

/**
 * Load until `until` (12 at a time, seeded pages of several sizes) while `kill()` is called
 * every `every()` ms. Resolves to { ok, failed, bad: [torn or foreign answers] }.
 */
async function underKills({ port, random, until, every, kill }) {
  let ok = 0;
  let failed = 0; // refused or cut by a kill (the cluster's own hand-over): reported, not judged
  const bad = [];
  const load = pool(Array.from({ length: 200000 }), 12, async () => {
    if (Date.now() > until) return;
    const id = Math.floor(random() * 200);
    const pad = 100 + (id % 7) * 20000; // bodies of several blocks, some large
    const url = `/p/c${id}?pad=${pad}`;
    const r = await get(port, url);
    if (r.status !== 200) {
      failed++;
      return;
    }
    const m = /^page (\S+) by \d+ (x*)$/.exec(r.body);
    if (m === null || m[1] !== url || m[2].length !== pad) bad.push(`${url}: ${r.body.slice(0, 80)}`);
    else ok++;
  });
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, every()));
    await kill();
  }
  await load;
  return { ok, failed, bad };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The /stats of `n` distinct workers: [{ pid, stats }] (asked on new connections until seen). */
async function statsOfWorkers(port, n) {
  const byPid = new Map();
  for (let i = 0; i < 400 && byPid.size < n; i++) {
    const r = await get(port, '/stats');
    if (r.status !== 200) continue;
    const { pid, stats } = JSON.parse(r.body);
    byPid.set(pid, stats);
  }
  assert.equal(byPid.size, n, `${n} workers answered /stats`);
  return [...byPid].map(([pid, stats]) => ({ pid, stats }));
}

const sum = (all, field) => all.reduce((n, w) => n + w.stats[field], 0);

/** What each worker's counters grew by since `before` (statsOfWorkers of the same workers). */
function grown(before, after) {
  return after.map(({ pid, stats }) => {
    const was = before.find((w) => w.pid === pid);
    const delta = {};
    for (const name of Object.keys(stats))
      delta[name] = typeof stats[name] === 'number' && was !== undefined ? stats[name] - was.stats[name] : stats[name];
    return { pid, stats: delta };
  });
}

/** Polls `check` every 100 ms until true, up to `ms`; false when it never was. */
async function until(check, ms) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) return false;
    await sleep(100);
  }
  return true;
}

/**
 * 4 stale pages, each asked 32 times at once through every worker while its refresh renders
 * (800 ms): each is rendered again once for the machine, by whichever worker the refresh
 * reached (any worker takes the ticket: were it the sender's alone, a refresh landing
 * elsewhere would be served the stale page and render nothing).
 */
async function staleRefreshedOnce(port, renders, workers = 4) {
  const urls = ['a', 'b', 'c', 'd'].map((id) => `/swr/${id}?ms=800`);
  const first = await Promise.all(urls.map((url) => get(port, url)));
  for (const r of first) assert.equal(r.status, 200);
  await sleep(1200); // past max-age=1: stale, within stale-while-revalidate
  const burst = await Promise.all(urls.flatMap((url) => Array.from({ length: 32 }, () => get(port, url))));
  burst.forEach((r, i) => assert.equal(r.body, first[Math.floor(i / 32)].body, 'the stale page, at once'));
  // each refresh renders (800 ms) and stores; then nothing more may render
  const refreshed = await until(() => urls.every((url) => renders(url) >= 2), 10000);
  await sleep(1500);
  const counts = urls.map((url) => renders(url));
  const all = await statsOfWorkers(port, workers);
  const seen = JSON.stringify(all.map((w) => ({ pid: w.pid, ...pick(w.stats) })));
  assert.ok(refreshed, `every page refreshed: renders ${counts}, ${seen}`);
  assert.deepEqual(counts, [2, 2, 2, 2], `one render and one refresh a page: ${seen}`);
  assert.equal(sum(all, 'refreshes'), 4, `one refresh a page for the machine: ${seen}`);
  assert.equal(sum(all, 'refreshFailures'), 0, seen);
  for (const w of all) assert.ok(w.stats.staleServed > 0, `every worker met the stale pages: ${seen}`);
  const after = await Promise.all(urls.map((url) => get(port, url)));
  after.forEach((r, i) => assert.notEqual(r.body, first[i].body, 'the refreshed page is served'));
}

/**
 * A page one worker found uncacheable (private) passes on every worker: 32 requests at once,
 * spread over all, go straight to the origin (none waits for the fill lock or counts a miss).
 */
async function hitForPassSeenByAll(port, renders, workers = 4) {
  const url = '/hfp/x?ms=300';
  const before = await statsOfWorkers(port, workers);
  assert.equal((await get(port, url)).status, 200);
  assert.equal(renders(url), 1);
  const burst = await Promise.all(Array.from({ length: 32 }, () => get(port, url)));
  for (const r of burst) assert.equal(r.status, 200);
  assert.equal(renders(url), 33, 'each request rendered: never stored');
  const all = grown(before, await statsOfWorkers(port, workers));
  const seen = JSON.stringify(all.map((w) => ({ pid: w.pid, ...pick(w.stats) })));
  assert.equal(sum(all, 'misses'), 1, `only the first request was a miss: ${seen}`);
  assert.equal(sum(all, 'hitForPassServed'), 32, seen);
  assert.equal(sum(all, 'sharedLockWaits') + sum(all, 'coalesced'), 0, `no one waited: ${seen}`);
  for (const w of all) assert.ok(w.stats.hitForPassServed > 0, `every worker passed it: ${seen}`);
}

function pick(s) {
  const { hits, misses, staleServed, refreshes, refreshFailures, refreshing, hitForPassServed, sharedLockWaits } = s;
  return { hits, misses, staleServed, refreshes, refreshFailures, refreshing, hitForPassServed, sharedLockWaits };
}

module.exports = {
  freePort,
  get,
  pool,
  sleep,
  until,
  renderCounter,
  statsOfWorkers,
  eachPageOnce,
  burstOnce,
  purgeReachesAll,
  underKills,
  staleRefreshedOnce,
  hitForPassSeenByAll,
};
