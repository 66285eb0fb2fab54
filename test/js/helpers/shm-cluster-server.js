'use strict';
// A node:cluster server of WORKERS Express workers on PORT, all behind one port, sharing one
// response cache through sharedMemoryStore({ name: SHM_NAME }). Every render appends
// "<pid> <url>\n" to RENDER_LOG (one write, O_APPEND: lines never interleave). A worker that
// exits is replaced. The primary prints "ready" once every worker listens.
const cluster = require('node:cluster');
const fs = require('node:fs');

const workers = Number(process.env.WORKERS || 4);

if (cluster.isPrimary) {
  let listening = 0;
  let stopping = false;
  cluster.on('listening', () => {
    if (++listening === workers) process.stdout.write('ready\n');
  });
  cluster.on('exit', () => {
    if (!stopping) cluster.fork();
  });
  process.on('SIGTERM', () => {
    stopping = true;
    for (const w of Object.values(cluster.workers)) w.process.kill('SIGKILL');
    process.exit(0);
  });
  process.on('message', (m) => {
    // the test asks for worker pids (to kill them)
    if (m === 'pids') process.send({ pids: Object.values(cluster.workers).map((w) => w.process.pid) });
  });
  for (let i = 0; i < workers; i++) cluster.fork();
} else {
  const express = require('express');
  const { responseCache, sharedMemoryStore } = require('../../../lib/cache');
  const store = sharedMemoryStore({ name: process.env.SHM_NAME, maxBytes: 32 * 1024 * 1024, maxEntries: 4096 });
  const cache = responseCache({ store, lockTimeout: 3000 });
  const log = fs.openSync(process.env.RENDER_LOG, 'a');
  const app = express();
  app.get('/purge', (req, res) => {
    Promise.resolve(cache.purgePrefix(String(req.query.prefix))).then((n) => res.json({ n }));
  });
  app.use(cache);
  app.get('/p/:id', (req, res) => {
    fs.writeSync(log, `${process.pid} ${req.originalUrl}\n`);
    // a render takes a while (the window the others must wait through)
    setTimeout(() => {
      res.set('cache-control', 'public, max-age=600');
      res.send(`page ${req.originalUrl} by ${process.pid} ${'x'.repeat(Number(req.query.pad || 100))}`);
    }, 30);
  });
  app.listen(Number(process.env.PORT), '127.0.0.1');
}
