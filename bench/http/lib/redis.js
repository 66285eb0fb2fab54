'use strict';
// A real Redis for the response cache's fleet: Debian's redis-server started on a free loopback
// port with no persistence, and the clients the cache's fleet servers connect with. Shared by
// test/js/cache/cache-redis.test.js and the ssr-cache-fleet benchmark.
const fs = require('fs');
const { spawn } = require('child_process');
const { freePort, accepts } = require('./ports');

const REDIS_SERVER = '/usr/bin/redis-server';
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Why Redis cannot be started here, or null when it can. */
function redisMissing() {
  return fs.existsSync(REDIS_SERVER) ? null : `no ${REDIS_SERVER} (Debian's redis-server package)`;
}

/** Starts redis-server on `port` and resolves with its ChildProcess once it accepts connections. */
async function startRedis(port) {
  const child = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100; i++) {
    if (await accepts(port)) return child;
    if (child.exitCode !== null) break;
    await delay(50);
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not start on port ${port}`);
}

/**
 * A connected client of `kind` ('ioredis' or 'node-redis') as a fleet server would configure it
 * for a cache: no offline queue (a command while Redis is down fails at once instead of waiting)
 * and a fixed reconnection delay.
 */
async function redisClient(kind, port) {
  if (kind === 'node-redis') {
    const { createClient } = require('redis');
    const c = createClient({
      socket: { host: '127.0.0.1', port, reconnectStrategy: () => 100, connectTimeout: 500 },
      disableOfflineQueue: true,
    });
    c.on('error', () => {});
    await c.connect();
    return c;
  }
  const Redis = require('ioredis');
  const c = new Redis({
    host: '127.0.0.1',
    port,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: () => 100,
  });
  c.on('error', () => {});
  await new Promise((resolve) => c.once('ready', resolve));
  return c;
}

module.exports = { REDIS_SERVER, redisMissing, freePort, startRedis, redisClient };
