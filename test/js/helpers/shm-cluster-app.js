'use strict';
// One worker of a cluster (node:cluster through shm-cluster-server.js, or PM2's cluster mode):
// an Express app on PORT whose response cache is shared through sharedMemoryStore({ name:
// SHM_NAME, dir: SHM_DIR }) (a test's own folder, removed with it). Every render appends "<pid> <url>\n" to RENDER_LOG (one write, O_APPEND: lines
// never interleave). GET /purge?prefix= purges through this worker, GET /stats
// answers its stats; /swr/:id and /hfp/:id: see below. STORE=memory: see below.
const fs = require('node:fs');
const express = require('express');
const { responseCache, sharedMemoryStore } = require('../../../lib/express/cache');
// STORE=memory: each process its own memory store (the baseline the chaos run is compared with)
const store =
  process.env.STORE === 'memory'
    ? undefined
    : sharedMemoryStore({
        name: process.env.SHM_NAME,
        dir: process.env.SHM_DIR || undefined,
        maxBytes: 32 * 1024 * 1024,
        maxEntries: 4096,
      });
const cache = responseCache({ store, lockTimeout: 3000 });
const log = fs.openSync(process.env.RENDER_LOG, 'a');
const app = express();
app.get('/purge', (req, res) => {
  Promise.resolve(cache.purgePrefix(String(req.query.prefix))).then((n) => res.json({ n }));
});
// GET /stats: this worker's pid and cache stats (not through the cache)
app.get('/stats', (req, res) => res.json({ pid: process.pid, stats: cache.stats() }));
app.use(cache);
app.get('/p/:id', (req, res) => {
  fs.writeSync(log, `${process.pid} ${req.originalUrl}\n`);
  // a render takes a while (the window the others must wait through)
  setTimeout(() => {
    res.set('cache-control', 'public, max-age=600');
    res.send(`page ${req.originalUrl} by ${process.pid} ${'x'.repeat(Number(req.query.pad || 100))}`);
  }, 30);
});
// /swr/:id: fresh for ?age= s (default 1), then served stale while a background refresh renders
// it again (RFC 5861); a render takes ?ms= (default 30). While HOLD_FILE exists, the render that removes it
// never answers (a refresh caught mid-render, for a SIGKILL).
app.get('/swr/:id', (req, res) => {
  fs.writeSync(log, `${process.pid} ${req.originalUrl}\n`);
  if (process.env.HOLD_FILE && removed(process.env.HOLD_FILE)) return;
  setTimeout(
    () => {
      res.set('cache-control', `public, max-age=${Number(req.query.age || 1)}, stale-while-revalidate=600`);
      res.send(`swr ${req.originalUrl} by ${process.pid} at ${Date.now()}`);
    },
    Number(req.query.ms || 30),
  );
});
// /hfp/:id: never storable (private): the cache passes it for a while (hit-for-pass)
app.get('/hfp/:id', (req, res) => {
  fs.writeSync(log, `${process.pid} ${req.originalUrl}\n`);
  setTimeout(
    () => {
      res.set('cache-control', 'private, max-age=600');
      res.send(`pass ${req.originalUrl} by ${process.pid}`);
    },
    Number(req.query.ms || 30),
  );
});
app.listen(Number(process.env.PORT), '127.0.0.1');

function removed(file) {
  try {
    fs.unlinkSync(file);
    return true;
  } catch {
    return false;
  }
}
