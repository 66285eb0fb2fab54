'use strict';
// The argon2-flood server as a node:cluster of ARGON2_WORKERS workers (default 2) sharing one
// port. Each worker prints READY; the primary only forks. ARGON2_SHARED=0: no shared budget.
const cluster = require('cluster');
const path = require('path');

if (cluster.isPrimary) {
  cluster.setupPrimary({ exec: path.join(__dirname, 'argon2-flood.js') });
  const workers = Number(process.env.ARGON2_WORKERS || 2);
  for (let i = 0; i < workers; i++) cluster.fork();
  process.on('SIGTERM', () => {
    for (const w of Object.values(cluster.workers)) w.process.kill('SIGTERM');
    process.exit(0);
  });
}
