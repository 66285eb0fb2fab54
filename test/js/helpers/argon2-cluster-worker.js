'use strict';
// A node:cluster worker for argon2-cluster.test.js: hashes without pause (no shared-budget
// configuration: the cluster budget is automatic) and reports its permits every 10 ms.
const argon2 = require('../../../lib/argon2/index.js');

if (process.env.ARGON2_SHARED_SLOTS) argon2.configure({ sharedSlots: Number(process.env.ARGON2_SHARED_SLOTS) });
const long = { memoryCost: 65536, timeCost: 6, parallelism: 1 };

async function hashForever() {
  for (;;) await argon2.hash('password', long);
}
// Two hashes in flight: each worker alone would use two permits.
hashForever();
hashForever();
setInterval(() => {
  const { shared } = argon2.stats();
  process.send({ here: shared ? shared.here : -1, held: shared ? shared.held : -1, name: shared && shared.name });
}, 10);
