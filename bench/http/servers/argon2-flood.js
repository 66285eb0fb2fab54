'use strict';
// The auth-server shape: Express 5 with GET /health (JSON) and POST /register (hash the
// password at the argon2 package defaults). ARGON2_IMPL: argon2 (the package, no admission
// control) or ssr-native (our pool + semaphore; 429 with Retry-After when full).
const http = require('http');
const express = require('express');
const { listen } = require('../lib/server');

const impl = process.env.ARGON2_IMPL || 'argon2';
const argon2 = impl === 'ssr-native' ? require('../../../lib/argon2/index.js') : require('argon2');
if (!['argon2', 'ssr-native'].includes(impl)) throw new Error(`unknown ARGON2_IMPL ${impl}`);
// Optional override of the pool threads' niceness (default 10), to measure its effect.
if (impl === 'ssr-native' && process.env.ARGON2_PRIORITY) {
  argon2.configure({ priority: Number(process.env.ARGON2_PRIORITY) });
}
if (impl === 'ssr-native' && process.env.ARGON2_POLICY) {
  argon2.configure({ policy: process.env.ARGON2_POLICY });
}
if (impl === 'ssr-native' && process.env.ARGON2_REJECT_DELAY) {
  const delay = process.env.ARGON2_REJECT_DELAY;
  argon2.configure({ rejectDelayMs: delay === 'auto' ? delay : Number(delay) });
}
if (impl === 'ssr-native' && process.env.ARGON2_SHARED === '0') {
  argon2.configure({ shared: false }); // a cluster worker with its own pool limits only
}
if (impl === 'ssr-native' && process.env.ARGON2_MAX_QUEUE) {
  argon2.configure({ maxQueue: Number(process.env.ARGON2_MAX_QUEUE) });
}

const app = express();
app.use(express.json());
let registered = 0;
app.get('/health', (req, res) => {
  res.json({ status: 'ok', registered });
});
app.post('/register', async (req, res, next) => {
  try {
    const digest = await argon2.hash(String((req.body && req.body.password) || ''));
    registered++;
    res.status(201).json({ user: req.body.email, digest });
  } catch (err) {
    next(err);
  }
});
if (impl === 'ssr-native') app.use(argon2.expressErrorHandler());

listen(http.createServer(app));
