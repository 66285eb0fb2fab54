'use strict';
// The auth server of auth.js (same routes, same SQLite schema, same JWTs) on Bun.serve, Bun only:
//   AUTH_HASH=bun-workers  the auth article's final design: Bun.password in 3 worker threads
//                          behind a semaphore of 3, answering 429 when all 3 are busy
//   AUTH_HASH=ssr-native   ssr-native/argon2 called directly (its own pool and semaphore: 429 with
//                          Retry-After when full), argon2id m=65536 t=3 p=4 (the argon2 package's
//                          defaults)
// Env as auth.js: AUTH_DEPS (jsonwebtoken), AUTH_DB (the SQLite file).
/* global Bun */
const path = require('path');
const { Worker } = require('worker_threads');
const { openUsers } = require('./auth-db');

if (typeof Bun === 'undefined') throw new Error('auth-bun.js runs under Bun (Bun.serve)');

const jwt = require(path.join(process.env.AUTH_DEPS, 'node_modules', 'jsonwebtoken'));
const users = openUsers(process.env.AUTH_DB, process.env.AUTH_DEPS);
const SECRET = process.env.AUTH_JWT_SECRET || 'bench-only-secret';
const mode = process.env.AUTH_HASH || 'bun-workers';
const PERMITS = 3; // the article's semaphore

class Busy extends Error {
  constructor(retryAfter) {
    super('too many hashes in flight');
    this.retryAfter = retryAfter;
  }
}

let hashing = 0; // hashes/verifies in flight (the scenario waits for 0 between variants)

function workerPool() {
  const idle = Array.from({ length: PERMITS }, () => new Worker(path.join(__dirname, 'auth-bun-worker.js')));
  const pending = new Map();
  let nextId = 0;
  for (const w of idle) {
    w.on('message', ({ id, value, error }) => {
      const job = pending.get(id);
      pending.delete(id);
      idle.push(w);
      if (error) job.reject(new Error(error));
      else job.resolve(value);
    });
  }
  // The semaphore: one permit per idle worker; none left -> 429 at once.
  const run = (message) => {
    const w = idle.pop();
    if (!w) return Promise.reject(new Busy(1));
    const id = ++nextId;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      w.postMessage({ id, ...message });
    });
  };
  return {
    hash: (password) => run({ op: 'hash', password }),
    verify: (digest, password) => run({ op: 'verify', password, digest }),
  };
}

function ours() {
  const argon2 = require('../../../lib/argon2/index.js');
  const cost = { type: argon2.argon2id, memoryCost: 65536, timeCost: 3, parallelism: 4 };
  const busy = (err) => {
    throw err instanceof argon2.SemaphoreFullError ? new Busy(err.retryAfter) : err;
  };
  return {
    hash: (password) => argon2.hash(password, cost).catch(busy),
    verify: (digest, password) => argon2.verify(digest, password).catch(busy),
  };
}

const hasher = mode === 'ssr-native' ? ours() : mode === 'bun-workers' ? workerPool() : null;
if (!hasher) throw new Error(`unknown AUTH_HASH ${mode}`);

async function counted(work) {
  hashing++;
  try {
    return await work();
  } finally {
    hashing--;
  }
}

const json = (body, status = 200, headers = {}) => Response.json(body, { status, headers });

async function credentials(req) {
  let body;
  try {
    body = await req.json();
  } catch {
    return null;
  }
  if (!body || typeof body.email !== 'string' || typeof body.password !== 'string' || !body.email || !body.password)
    return null;
  return body;
}

// A full semaphore answers 429 with Retry-After, as the Express servers' ssr-native variant does.
function failed(err) {
  if (err instanceof Busy) return json({ error: 'Too Many Requests' }, 429, { 'Retry-After': String(err.retryAfter) });
  return json({ error: 'internal error' }, 500);
}

async function register(req) {
  const body = await credentials(req);
  if (!body) return json({ error: 'email and password required' }, 400);
  try {
    const digest = await counted(() => hasher.hash(body.password));
    return json({ id: users.insert(body.email, digest), email: body.email }, 201);
  } catch (err) {
    if (err && err.code === 'SQLITE_CONSTRAINT_UNIQUE') return json({ error: 'email taken' }, 409);
    return failed(err);
  }
}

async function login(req) {
  const body = await credentials(req);
  if (!body) return json({ error: 'email and password required' }, 400);
  try {
    const user = users.byEmail(body.email);
    if (!user || !(await counted(() => hasher.verify(user.password, body.password)))) {
      return json({ error: 'invalid credentials' }, 401);
    }
    return json({ token: jwt.sign({ sub: user.id, email: user.email }, SECRET, { expiresIn: '1h' }) });
  } catch (err) {
    return failed(err);
  }
}

function list(req) {
  const match = /^Bearer (.+)$/.exec(req.headers.get('authorization') || '');
  try {
    if (!match) throw new Error('no token');
    jwt.verify(match[1], SECRET);
  } catch {
    return json({ error: 'unauthorized' }, 401);
  }
  return json({ users: users.latest() });
}

const server = Bun.serve({
  port: Number(process.env.PORT || 0),
  hostname: '127.0.0.1',
  routes: {
    '/health': { GET: () => json({ status: 'ok', hashing }) },
    '/api/users': { GET: list, POST: register },
    '/api/users/login': { POST: login },
  },
  fetch: () => json({ error: 'not found' }, 404),
});
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
process.stdout.write(`READY ${server.port}\n`);
