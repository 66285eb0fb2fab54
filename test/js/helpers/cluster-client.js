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

module.exports = { freePort, get, pool, renderCounter, eachPageOnce, burstOnce, purgeReachesAll, underKills };
