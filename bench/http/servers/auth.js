'use strict';
// A small auth server, shaped like the Node/Bun REST benchmark's: Express 5 with
//   GET  /health           JSON
//   POST /api/users        { email, password } -> argon2id hash + INSERT (201)
//   POST /api/users/login  { email, password } -> SELECT + verify + a JWT (200, or 401)
//   GET  /api/users        Authorization: Bearer <jwt> -> the latest 20 users (or 401)
// Users live in SQLite (auth-db.js: better-sqlite3, or bun:sqlite under Bun; a temp file in WAL
// mode, so cluster workers share it).
//
// Env: ARGON2_IMPL = argon2 | node-rs | node-crypto | ssr-native (all at argon2id m=65536 t=3
// p=4, the argon2 package's defaults); AUTH_DEPS = folder whose node_modules holds
// better-sqlite3 and jsonwebtoken (installed for the benchmark only); AUTH_DB = the database
// file (created if missing); AUTH_WORKERS = n > 1: a node:cluster primary forking n workers.
const cluster = require('cluster');
const path = require('path');

const workers = Number(process.env.AUTH_WORKERS || 1);
if (workers > 1 && cluster.isPrimary) {
  for (let i = 0; i < workers; i++) cluster.fork();
  process.on('SIGTERM', () => {
    for (const w of Object.values(cluster.workers)) w.process.kill('SIGTERM');
    process.exit(0);
  });
  return;
}

const http = require('http');
const crypto = require('crypto');
const express = require('express');
const { listen } = require('../lib/server');

const { openUsers } = require('./auth-db');

const deps = path.join(process.env.AUTH_DEPS, 'node_modules');
const jwt = require(path.join(deps, 'jsonwebtoken'));

const impl = process.env.ARGON2_IMPL || 'argon2';
const COST = { memoryCost: 65536, timeCost: 3, parallelism: 4 };

// hash(password) -> PHC string; verify(digest, password) -> boolean.
function hasher() {
  if (impl === 'argon2') {
    const argon2 = require('argon2');
    return { hash: (p) => argon2.hash(p, { type: argon2.argon2id, ...COST }), verify: (d, p) => argon2.verify(d, p) };
  }
  if (impl === 'ssr-native') {
    const ours = require('../../../lib/argon2/index.js');
    return { hash: (p) => ours.hash(p, { type: ours.argon2id, ...COST }), verify: (d, p) => ours.verify(d, p), ours };
  }
  if (impl === 'node-rs') {
    const rs = require('@node-rs/argon2');
    return { hash: (p) => rs.hash(p, { algorithm: 2 /* Argon2id */, ...COST }), verify: (d, p) => rs.verify(d, p) };
  }
  if (impl === 'node-crypto') {
    if (typeof crypto.argon2 !== 'function')
      throw new Error(`crypto.argon2 needs Node >= 24 (this is ${process.version})`);
    // crypto.argon2 returns the raw tag: encode/parse the PHC string here.
    const b64 = (buf) => buf.toString('base64').replace(/=+$/, '');
    const derive = (password, nonce, m, t, p, tagLength) =>
      new Promise((resolve, reject) =>
        crypto.argon2(
          'argon2id',
          { message: password, nonce, memory: m, passes: t, parallelism: p, tagLength },
          (err, tag) => (err ? reject(err) : resolve(tag)),
        ),
      );
    return {
      async hash(password) {
        const salt = crypto.randomBytes(16);
        const tag = await derive(password, salt, COST.memoryCost, COST.timeCost, COST.parallelism, 32);
        return `$argon2id$v=19$m=${COST.memoryCost},t=${COST.timeCost},p=${COST.parallelism}$${b64(salt)}$${b64(tag)}`;
      },
      async verify(digest, password) {
        const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([^$]+)\$([^$]+)$/.exec(digest);
        if (!match) return false;
        const expected = Buffer.from(match[5], 'base64');
        const tag = await derive(
          password,
          Buffer.from(match[4], 'base64'),
          +match[1],
          +match[2],
          +match[3],
          expected.length,
        );
        return crypto.timingSafeEqual(tag, expected);
      },
    };
  }
  throw new Error(`unknown ARGON2_IMPL ${impl}`);
}
const argon2 = hasher();

const users = openUsers(process.env.AUTH_DB, process.env.AUTH_DEPS);

const SECRET = process.env.AUTH_JWT_SECRET || 'bench-only-secret';
let hashing = 0; // hashes/verifies in flight in this process (the scenario waits for 0)

async function counted(work) {
  hashing++;
  try {
    return await work();
  } finally {
    hashing--;
  }
}

function credentials(req) {
  const body = req.body || {};
  if (typeof body.email !== 'string' || typeof body.password !== 'string' || !body.email || !body.password) return null;
  return body;
}

const app = express();
app.use(express.json());
app.get('/health', (req, res) => {
  res.json({ status: 'ok', hashing });
});
app.post('/api/users', async (req, res, next) => {
  try {
    const body = credentials(req);
    if (!body) return res.status(400).json({ error: 'email and password required' });
    const digest = await counted(() => argon2.hash(body.password));
    try {
      res.status(201).json({ id: users.insert(body.email, digest), email: body.email });
    } catch (err) {
      if (err.code === 'SQLITE_CONSTRAINT_UNIQUE') return res.status(409).json({ error: 'email taken' });
      throw err;
    }
  } catch (err) {
    next(err);
  }
});
app.post('/api/users/login', async (req, res, next) => {
  try {
    const body = credentials(req);
    if (!body) return res.status(400).json({ error: 'email and password required' });
    const user = users.byEmail(body.email);
    if (!user || !(await counted(() => argon2.verify(user.password, body.password)))) {
      return res.status(401).json({ error: 'invalid credentials' });
    }
    const token = jwt.sign({ sub: user.id, email: user.email }, SECRET, { expiresIn: '1h' });
    res.json({ token });
  } catch (err) {
    next(err);
  }
});
app.get('/api/users', (req, res) => {
  const match = /^Bearer (.+)$/.exec(req.get('authorization') || '');
  try {
    if (!match) throw new Error('no token');
    jwt.verify(match[1], SECRET);
  } catch {
    return res.status(401).json({ error: 'unauthorized' });
  }
  res.json({ users: users.latest() });
});
// Ours: a full semaphore answers 429 with Retry-After (the others have no admission control).
if (argon2.ours) app.use(argon2.ours.expressErrorHandler());
// autocannon closes its connections when a run ends, sometimes mid-body: nothing to answer.
app.use((err, req, res, next) => (err && err.type === 'request.aborted' ? res.destroy() : next(err)));

listen(http.createServer(app));
