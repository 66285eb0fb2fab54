'use strict';
// A node:cluster of WORKERS (4) Express 5 workers behind one port, each with responseCache()
// over CACHE_STORE: memory (each worker its own memory store), shared (sharedMemoryStore named
// SHM_NAME, SHM_MAX_BYTES, and SHM_HOT_BYTES when given) or redis (an ioredis client to REDIS_PORT,
// behind each worker's memory layer); none: no cache (the baseline of a memory reading).
// Routes (every worker):
//   /page/<id>  cacheable (public, s-maxage=600): a ~PAGE_BYTES (75 KB) generated HTML page,
//               distinct per URL; each render appends "<pid>\n" to RENDER_LOG (O_APPEND)
//   /fresh/<id> the same page, not stored (no-store)
//   /hit/<n>    one of the first n (at most HIT_URLS) warm /page URLs at random (the load
//               generator sends one path)
//   /stats      { pid, ...the cache's stats() } of the worker that answers
//   /memory     { pid, ...process.memoryUsage(), heap: v8.getHeapStatistics() } of that worker
// SIGUSR2 to a worker: a full GC. The primary writes the workers' pids to PIDS_FILE, then prints "READY <port>".
const cluster = require('node:cluster');
const fs = require('node:fs');

const WORKERS = Number(process.env.WORKERS || 4);

if (cluster.isPrimary) {
  const ports = new Map();
  let stopping = false;
  cluster.on('listening', (worker, address) => {
    ports.set(worker.process.pid, address.port);
    if (ports.size !== WORKERS) return;
    fs.writeFileSync(process.env.PIDS_FILE, [...ports.keys()].join('\n'));
    process.stdout.write(`READY ${[...ports.values()][0]}\n`);
  });
  cluster.on('exit', (worker, code, signal) => {
    if (!stopping) process.stderr.write(`worker ${worker.process.pid} exited (${code ?? signal})\n`);
  });
  const stop = () => {
    stopping = true;
    for (const w of Object.values(cluster.workers)) w.process.kill('SIGTERM');
    setTimeout(() => process.exit(0), 200);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  for (let i = 0; i < WORKERS; i++) cluster.fork();
} else {
  const express = require('express');
  const { responseCache, sharedMemoryStore } = require('../../../lib/express/cache');
  const { redisClient } = require('../lib/redis');
  const { renderPage } = require('../lib/page');

  const STORE = process.env.CACHE_STORE || 'memory';
  const HIT_URLS = Number(process.env.HIT_URLS || 100);
  const page = renderPage(Number(process.env.PAGE_BYTES || 75 * 1024));
  const log = fs.openSync(process.env.RENDER_LOG, 'a');
  const limits = { maxBytes: 1024 * 1024 * 1024, maxEntries: 20000 };
  process.on('SIGTERM', () => process.exit(0));
  // SIGUSR2: a full GC (no command-line flag: the runner starts plain node), so that a memory
  // reading counts what is held, not garbage waiting for a collection
  require('v8').setFlagsFromString('--expose-gc');
  const fullGc = require('vm').runInNewContext('gc');
  process.on('SIGUSR2', () => fullGc());

  const app = express();
  app.set('etag', false);
  app.use('/hit', (req, res, next) => {
    const n = Math.min(HIT_URLS, Number(req.url.slice(1)) || HIT_URLS);
    req.url = req.originalUrl = `/page/${Math.floor(Math.random() * n)}`;
    app.handle(req, res, next);
  });
  let cache;
  app.get('/stats', (req, res) => res.json({ pid: process.pid, ...(cache.stats ? cache.stats() : {}) }));
  // what this worker's memory holds by V8's and Node's accounting (read after a SIGUSR2 full GC)
  app.get('/memory', (req, res) => {
    const v8 = require('v8');
    res.json({ pid: process.pid, ...process.memoryUsage(), heap: v8.getHeapStatistics() });
  });
  app.use((req, res, next) => cache(req, res, next));
  // the same page, never stored: a warm-up that grows heaps and allocators as the fill will
  app.get('/fresh/:id', (req, res) => {
    res.set('Cache-Control', 'no-store');
    res.type('html').send(Buffer.from(`${page.slice(0, -20)}<!--${req.params.id}-->${page.slice(-20)}`).toString());
  });
  app.get('/page/:id', (req, res) => {
    fs.writeSync(log, `${process.pid}\n`);
    res.set('Cache-Control', 'public, s-maxage=600');
    // a distinct flat string per URL, as a render makes
    const html = `${page.slice(0, -20)}<!--${req.params.id}-->${page.slice(-20)}`;
    res.type('html').send(Buffer.from(html).toString());
  });

  const listen = () => app.listen(Number(process.env.PORT || 0), '127.0.0.1');
  if (STORE === 'shared') {
    cache = responseCache({
      store: sharedMemoryStore({
        name: process.env.SHM_NAME,
        dir: '/dev/shm', // where the scenario measures and removes it
        maxEntries: limits.maxEntries,
        maxBytes: Number(process.env.SHM_MAX_BYTES),
        ...(process.env.SHM_HOT_BYTES ? { hotBytes: Number(process.env.SHM_HOT_BYTES) } : {}),
      }),
    });
    listen();
  } else if (STORE === 'none') {
    cache = (req, res, next) => next();
    listen();
  } else if (STORE === 'redis') {
    redisClient('ioredis', Number(process.env.REDIS_PORT)).then((store) => {
      cache = responseCache({ ...limits, store, storeOptions: { prefix: process.env.CACHE_PREFIX } });
      listen();
    });
  } else {
    cache = responseCache(limits);
    listen();
  }
}
