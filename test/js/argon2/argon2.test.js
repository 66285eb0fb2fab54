'use strict';
// ssr-native/argon2 against known answers and against the argon2 package itself: same
// results, same errors (type and message) for the same calls.
const test = require('node:test');
const assert = require('node:assert/strict');
const ours = require('../../../lib/argon2/index.js');
const peer = require('argon2');

const fast = { memoryCost: 64, timeCost: 1, parallelism: 1 };

async function outcome(fn) {
  try {
    return { value: await fn() };
  } catch (err) {
    return { error: { type: err.constructor.name, message: err.message } };
  }
}

test('known answer: the argon2 package defaults (m=64 MiB, t=3, p=4, argon2id)', async () => {
  const digest = await ours.hash('password', { salt: Buffer.alloc(16, 'salt') });
  assert.equal(
    digest,
    '$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0c2FsdA$rBWULD5jOGpQy32rLvGcmvQMVqIVNAmrCtekWvUA8bw',
  );
});

test('known answers: RFC 9106 vectors for the three types', async () => {
  const options = {
    memoryCost: 32,
    timeCost: 3,
    parallelism: 4,
    salt: Buffer.alloc(16, 2),
    secret: Buffer.alloc(8, 3),
    associatedData: Buffer.alloc(12, 4),
    raw: true,
  };
  const password = Buffer.alloc(32, 1);
  const tag = async (type) => (await ours.hash(password, { ...options, type })).toString('hex');
  assert.equal(await tag(ours.argon2d), '512b391b6f1162975371d30919734294f868e3be3984f3c1a13a4db9fabe4acb');
  assert.equal(await tag(ours.argon2i), 'c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8');
  assert.equal(await tag(ours.argon2id), '0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659');
});

test('known answers: PHC reference strings verify, in any parameter order', async () => {
  const digests = [
    '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc',
    '$argon2id$v=19$m=256,t=2,p=2$c29tZXNhbHQ$bQk8UB/VmZZF4Oo79iDXuL5/0ttZwg2f/5U52iv1cDc',
    '$argon2id$v=19$p=2,m=256,t=2$c29tZXNhbHQ$bQk8UB/VmZZF4Oo79iDXuL5/0ttZwg2f/5U52iv1cDc',
    '$argon2id$v=19$m=256,p=2,t=2$c29tZXNhbHQ$bQk8UB/VmZZF4Oo79iDXuL5/0ttZwg2f/5U52iv1cDc',
    // No v= means version 0x10.
    '$argon2i$m=65536,t=2,p=1$c29tZXNhbHQ$9sTbSlTio3Biev89thdrlKKiCaYsjjYVJxGAL3swxpQ',
  ];
  for (const digest of digests) {
    assert.equal(await ours.verify(digest, 'password'), true, digest);
    assert.equal(await ours.verify(digest, 'passwore'), false, digest);
  }
});

test('constants and exports match the argon2 package', () => {
  assert.equal(ours.argon2d, peer.argon2d);
  assert.equal(ours.argon2i, peer.argon2i);
  assert.equal(ours.argon2id, peer.argon2id);
  for (const name of Object.keys(peer)) assert.equal(typeof ours[name], typeof peer[name], name);
});

test('PHC output: m,t,p order, data= when associatedData is set, never the secret', async () => {
  const salt = Buffer.from('0123456789abcdef');
  const digest = await ours.hash('pw', {
    ...fast,
    salt,
    secret: Buffer.from('pepper'),
    associatedData: Buffer.from('ad'),
  });
  assert.match(digest, /^\$argon2id\$v=19\$m=64,t=1,p=1,data=YWQ\$MDEyMzQ1Njc4OWFiY2RlZg\$[A-Za-z0-9+/]{43}$/);
  assert.equal(await peer.verify(digest, 'pw', { secret: Buffer.from('pepper') }), true);
  assert.equal(await ours.verify(digest, 'pw', { secret: Buffer.from('pepper') }), true);
  assert.equal(await ours.verify(digest, 'pw'), false);
});

test('defaults: random 16-byte salt, argon2id v=19 m=65536 t=3 p=4', async () => {
  const a = await ours.hash('password', { raw: false });
  const b = await ours.hash('password');
  assert.match(a, /^\$argon2id\$v=19\$m=65536,t=3,p=4\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  assert.notEqual(a.split('$')[4], b.split('$')[4]);
  assert.equal(await peer.verify(a, 'password'), true);
});

test('hash: same results and errors as the argon2 package for odd options', async () => {
  const salt = Buffer.from('saltsaltsaltsalt');
  const cases = [
    ['pw', { ...fast, salt, raw: true }],
    ['pw', { ...fast, salt, version: 0x10, raw: true }],
    ['pw', { ...fast, salt, version: 0x11, raw: true }],
    ['pw', { ...fast, salt, type: 5 }],
    ['pw', { ...fast, salt, type: 'argon2i' }],
    ['pw', { ...fast, salt: 'saltsaltsalt' }],
    ['pw', { ...fast, salt: Buffer.alloc(4) }],
    ['pw', { ...fast, salt: Buffer.alloc(8) }],
    ['pw', { ...fast, salt, memoryCost: 7 }],
    ['pw', { ...fast, salt, memoryCost: 16, parallelism: 4 }],
    ['pw', { ...fast, salt, memoryCost: -1 }],
    ['pw', { ...fast, salt, memoryCost: 2 ** 32 }],
    ['pw', { ...fast, salt, memoryCost: '64' }],
    ['pw', { ...fast, salt, memoryCost: 64.7 }],
    ['pw', { ...fast, salt, timeCost: 0 }],
    ['pw', { ...fast, salt, timeCost: 2 ** 32 }],
    ['pw', { ...fast, salt, parallelism: 0 }],
    ['pw', { ...fast, salt, parallelism: 2 ** 24 }],
    ['pw', { ...fast, salt, hashLength: 3 }],
    ['pw', { ...fast, salt, hashLength: 4, raw: true }],
    ['pw', { ...fast, salt, hashLength: 2 ** 32 }],
    ['pw', { ...fast, salt, hashLength: undefined }],
    ['pw', { ...fast, salt, secret: 'abc' }],
    ['pw', { ...fast, salt, associatedData: new Uint8Array([1, 2]) }],
    ['pw', { ...fast, salt: new Uint8Array(16) }],
    [123, { ...fast, salt }],
    [null, { ...fast, salt }],
    [undefined, { ...fast, salt }],
    [{}, { ...fast, salt }],
    [new Uint8Array([1, 2, 3]), { ...fast, salt, raw: true }],
    [[1, 2, 3], { ...fast, salt, raw: true }],
    ['', { ...fast, salt, raw: true }],
    ['pässwörd 🔑', { ...fast, salt, raw: true }],
  ];
  for (const [password, options] of cases) {
    const expected = await outcome(() => peer.hash(password, options));
    const actual = await outcome(() => ours.hash(password, options));
    const label = `${String(password)} ${JSON.stringify(options)}`;
    if (expected.error) {
      assert.deepEqual(actual, expected, label);
    } else if (Buffer.isBuffer(expected.value)) {
      assert.deepEqual(actual.value, expected.value, label);
    } else {
      // Same tag and salt; only the parameter order differs (m,p,t there, m,t,p here).
      const norm = (d) => d.replace(/m=([^,$]+),p=([^,$]+),t=([^,$]+)/, 'm=$1,t=$3,p=$2');
      assert.equal(actual.value, norm(expected.value), label);
    }
  }
});

test('verify and needsRehash: same results and errors as the argon2 package', async () => {
  const good = await peer.hash('pw', { ...fast, salt: Buffer.from('saltsaltsalt') });
  const digests = [
    good,
    good.replace('m=64,p=1,t=1', 'm=64,t=1,p=1'),
    good.replace('m=64,p=1,t=1', 't=1,p=1,m=64'),
    good.replace('$v=19', ''),
    'garbage',
    '',
    123,
    null,
    '$2a$10$abcdefghijklmnopqrstuu',
    '$scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA',
    '$argon2id',
    '$argon2id$v=19',
    '$argon2id$v=19$m=64,t=1$c2FsdHNhbHQ$aGFzaGhhc2g',
    '$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ',
    '$argon2id$v=19$m=64,t=1,p=1,x=2$c2FsdHNhbHQ$aGFzaGhhc2g',
    '$argon2id$v=19$m=64,t=1,p=1$c2FsdA$aGFzaGhhc2g',
    '$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGE',
    '$argon2id$v=19$m=64;t=1$c2FsdHNhbHQ$aGFzaGhhc2g',
    '$argon2id$v=19$m=64,t=1,p=1$c2Fs*HNhbHQ$aGFzaGhhc2g',
    '$Argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g',
    '$argon2x$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g',
    '$argon2id$v=19$m=64,t=1,p=1$extra$c2FsdHNhbHQ$aGFzaGhhc2g',
    '$argon2id$v=19$m=64,t=1,p=1,data=YWQ$c2FsdHNhbHQ$aGFzaGhhc2g',
  ];
  for (const digest of digests) {
    for (const password of ['pw', 'px', 5]) {
      const label = `${String(digest)} / ${password}`;
      assert.deepEqual(
        await outcome(() => ours.verify(digest, password)),
        await outcome(() => peer.verify(digest, password)),
        label,
      );
    }
    for (const options of [undefined, fast, { ...fast, version: 0x10 }, { timeCost: 1 }]) {
      assert.deepEqual(
        await outcome(() => ours.needsRehash(digest, options)),
        await outcome(() => peer.needsRehash(digest, options)),
        `needsRehash ${String(digest)} ${JSON.stringify(options)}`,
      );
    }
  }
});

test('ESM entry exposes the same functions', async () => {
  const esm = await import('../../../lib/argon2/index.mjs');
  assert.equal(esm.hash, ours.hash);
  assert.equal(esm.default, ours);
  assert.equal(esm.SemaphoreFullError, ours.SemaphoreFullError);
});
