'use strict';
// Two-way interoperability with the argon2 package over random parameters, types, secrets,
// associated data and passwords: each side verifies the other's PHC strings and produces
// the same raw tags. Memory stays small so the suite stays fast.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const ours = require('../../../lib/argon2/index.js');
const peer = require('argon2');

// Seeded, so a failure can be replayed (test/js/helpers/seeded-random.js).
const { mulberry32: rng } = require('../helpers/seeded-random');

function randomCase(seed) {
  const r = rng(seed);
  const int = (lo, hi) => lo + Math.floor(r() * (hi - lo + 1));
  const bytes = (n) => Buffer.from(Array.from({ length: n }, () => int(0, 255)));
  const parallelism = int(1, 4);
  const options = {
    type: int(0, 2),
    version: r() < 0.2 ? 0x10 : 0x13,
    parallelism,
    memoryCost: int(8 * parallelism, 160),
    timeCost: int(1, 3),
    hashLength: [4, 16, 32, 64, 65, 100][int(0, 5)],
    salt: bytes(int(8, 40)),
  };
  if (r() < 0.5) options.secret = bytes(int(0, 40));
  if (r() < 0.5) options.associatedData = bytes(int(1, 40));
  const password = r() < 0.5 ? bytes(int(0, 80)) : crypto.randomUUID() + '✓';
  return { password, options };
}

const seed0 = crypto.randomInt(1, 2 ** 31);

test('raw tags are identical', async () => {
  for (let i = 0; i < 40; i++) {
    const seed = seed0 + i;
    const { password, options } = randomCase(seed);
    const [a, b] = await Promise.all([
      ours.hash(password, { ...options, raw: true }),
      peer.hash(password, { ...options, raw: true }),
    ]);
    assert.deepEqual(a, b, `seed ${seed} ${JSON.stringify(options)}`);
  }
});

test('PHC strings verify both ways; wrong passwords and secrets do not', async () => {
  for (let i = 0; i < 30; i++) {
    const seed = seed0 + 1000 + i;
    const { password, options } = randomCase(seed);
    const label = `seed ${seed}`;
    const verifyOptions = options.secret ? { secret: options.secret } : undefined;
    const mine = await ours.hash(password, options);
    const theirs = await peer.hash(password, options);
    assert.equal(await peer.verify(mine, password, verifyOptions), true, `peer verifies ours, ${label}`);
    assert.equal(await ours.verify(theirs, password, verifyOptions), true, `we verify peer's, ${label}`);
    assert.equal(await ours.verify(mine, password, verifyOptions), true, label);
    assert.equal(
      await ours.verify(theirs, Buffer.concat([Buffer.from(password), Buffer.from('x')]), verifyOptions),
      false,
      label,
    );
    if (options.secret && options.secret.length > 0) {
      assert.equal(await ours.verify(theirs, password), false, `missing secret, ${label}`);
    }
    for (const rehash of [options, { ...options, timeCost: options.timeCost + 1 }]) {
      assert.equal(ours.needsRehash(theirs, rehash), peer.needsRehash(theirs, rehash), label);
      assert.equal(ours.needsRehash(mine, rehash), peer.needsRehash(mine, rehash), label);
    }
  }
});
