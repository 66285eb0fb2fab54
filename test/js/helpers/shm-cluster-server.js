'use strict';
// A node:cluster server of WORKERS Express workers on PORT, all behind one port, each the app of
// shm-cluster-app.js (one response cache shared through sharedMemoryStore). A worker that exits
// is replaced. The primary prints "ready" once every worker listens.
const cluster = require('node:cluster');

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
  require('./shm-cluster-app');
}
