'use strict';
// The PHC string reader/writer against @phc/format (what the argon2 package uses) on random
// and mutated strings: same results, same errors.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const crypto = require('node:crypto');
const ours = require('../../../lib/argon2/phc.js');
// @phc/format is the argon2 package's own dependency: load the copy it uses.
const theirs = require(require.resolve('@phc/format', { paths: [path.dirname(require.resolve('argon2'))] }));

function outcome(fn) {
  try {
    return { value: fn() };
  } catch (err) {
    return { error: `${err.constructor.name}: ${err.message}` };
  }
}

const SEEDS = [
  '$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0c2FsdA$rBWULD5jOGpQy32rLvGcmvQMVqIVNAmrCtekWvUA8bw',
  '$argon2i$m=4096,t=3,p=1,data=YWQ$c29tZXNhbHQ$aGFzaA',
  '$scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA',
  '$2a$10$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234',
  '$pbkdf2-sha256$i=1000$c2FsdA',
  '$argon2d$v=16$m=8,t=1,p=1$$',
];
const ALPHABET = '$=,+/.-abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 _*';

function mutate(text, random) {
  const chars = [...text];
  const edits = 1 + Math.floor(random() * 4);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(random() * (chars.length + 1));
    const c = ALPHABET[Math.floor(random() * ALPHABET.length)];
    const kind = Math.floor(random() * 3);
    if (kind === 0) chars.splice(at, 0, c);
    else if (kind === 1) chars.splice(at, 1);
    else chars[at] = c;
  }
  return chars.join('');
}

test('deserialize: same result or error as @phc/format on mutated strings', () => {
  const seed = crypto.randomInt(2 ** 31);
  let s = seed;
  const random = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const inputs = [...SEEDS, '', '$', '$$', '$$$$$$', 'x', null, 42, undefined, {}];
  for (let i = 0; i < 3000; i++) inputs.push(mutate(SEEDS[i % SEEDS.length], random));
  for (const input of inputs) {
    assert.deepEqual(
      outcome(() => ours.deserialize(input)),
      outcome(() => theirs.deserialize(input)),
      `seed ${seed}: ${String(input)}`,
    );
  }
});

test('serialize: same strings and errors as @phc/format', () => {
  const salt = Buffer.from('saltsalt');
  const hash = Buffer.from('hashhashhash');
  const cases = [
    { id: 'argon2id', version: 19, params: { m: 65536, t: 3, p: 4 }, salt, hash },
    { id: 'argon2id', version: 19, params: { m: 64, t: 1, p: 1, data: Buffer.from('ad') }, salt, hash },
    { id: 'argon2i', params: { m: '64', t: 1, p: 1 }, salt },
    { id: 'argon2id' },
    { id: 'Argon2id' },
    { id: 5 },
    { id: 'argon2id', version: -1 },
    { id: 'argon2id', version: 1.5 },
    { id: 'argon2id', version: '19' },
    { id: 'argon2id', params: null },
    { id: 'argon2id', params: { M: 1 } },
    { id: 'argon2id', params: { m: 64.7 } },
    { id: 'argon2id', params: { m: 'a b' } },
    { id: 'argon2id', params: { data: new Uint8Array(2) } },
    { id: 'argon2id', params: { m: 1 }, salt: 'salt' },
    { id: 'argon2id', params: { m: 1 }, salt, hash: 'hash' },
  ];
  for (const c of cases) {
    const copy = () => ({ ...c, params: c.params && typeof c.params === 'object' ? { ...c.params } : c.params });
    assert.deepEqual(
      outcome(() => ours.serialize(copy())),
      outcome(() => theirs.serialize(copy())),
      JSON.stringify(c),
    );
  }
});
