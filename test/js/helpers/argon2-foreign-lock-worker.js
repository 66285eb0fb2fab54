'use strict';
// A node:cluster worker for argon2-foreign-lock.test.js: joins its cluster's budget the default
// way (no configuration) by hashing, and reports the warnings it got, its budget and the hash.
const argon2 = require('../../../lib/argon2/index.js');

const warnings = [];
process.on('warning', (w) => warnings.push({ code: w.code, message: w.message }));

argon2.hash('correct horse', { memoryCost: 4096, timeCost: 2, parallelism: 1 }).then(
  async (encoded) => {
    const verified = await argon2.verify(encoded, 'correct horse');
    // Warnings are emitted on the next tick: let them arrive before reporting.
    setImmediate(() => process.send({ encoded, verified, shared: argon2.stats().shared, warnings }));
  },
  (err) => process.send({ error: String(err && err.stack), warnings }),
);
