'use strict';
// One hashing thread of auth-bun.js's worker design (the auth article's final Bun server):
// Bun.password.hash / verify at argon2id m=64 MiB, t=3 (Bun fixes p at 1), one job at a time.
/* global Bun */
const { parentPort } = require('worker_threads');

const COST = { algorithm: 'argon2id', memoryCost: 65536, timeCost: 3 };

parentPort.on('message', async ({ id, op, password, digest }) => {
  try {
    const value = op === 'hash' ? await Bun.password.hash(password, COST) : await Bun.password.verify(password, digest);
    parentPort.postMessage({ id, value });
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) });
  }
});
