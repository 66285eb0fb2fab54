'use strict';
// lib/http/accept-encoding.js (the Accept-Encoding reading of serveStatic's and Koa serve()'s
// precompressed variants) against the peer it stands in for: express.static behind compression
// 1.8, whose choice is negotiator 0.6.4's (compression's own copy, loaded from its folder) over
// the same codings. On well-formed headers the two agree except for one documented class:
// neither identity nor `*` named and the best coding below q=1, where ours keeps identity at
// q=1 and negotiator ranks it at the lowest q listed. Hostile headers never throw and always get
// one of the variants held or identity.
const test = require('node:test');
const assert = require('node:assert/strict');
const { chooseEncoding } = require('../../../lib/http/accept-encoding');
const { mulberry32 } = require('../helpers/seeded-random');

const Negotiator = require(require.resolve('negotiator', { paths: [require.resolve('compression')] }));

const CODINGS = ['br', 'gzip', 'identity', '*', 'deflate', 'zstd'];
const QS = ['', '', ';q=0', ';q=1', ';q=0.5', ';q=0.8', ';q=0.25', ';q=0.001', ';q=1.0'];
const VARIANT_SETS = [{ br: true, gzip: true }, { gzip: true }, { br: true }];

// compression 1.8's choice among the codings a store of these variants can send
function peerChoice(header, variants) {
  const held = ['br', 'gzip'].filter((coding) => variants[coding]);
  const choice = new Negotiator({ headers: { 'accept-encoding': header } }).encoding([...held, 'identity'], held);
  return choice === 'identity' || choice === undefined ? undefined : choice;
}

function qOf(header, coding) {
  const item = header.split(', ').find((entry) => entry.split(';')[0] === coding);
  if (item === undefined) return undefined;
  const q = item.split(';q=')[1];
  return q === undefined ? 1 : Number(q);
}

test('well-formed headers: the same coding as compression 1.8, but for implicit identity', () => {
  const seed = 20261203;
  const random = mulberry32(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  let differences = 0;
  for (let i = 0; i < 20000; i++) {
    const named = new Set();
    const items = [];
    const count = 1 + Math.floor(random() * 4);
    for (let j = 0; j < count; j++) {
      const coding = pick(CODINGS);
      if (named.has(coding)) continue;
      named.add(coding);
      items.push(coding + pick(QS));
    }
    const header = items.join(', ');
    const variants = pick(VARIANT_SETS);
    const ours = chooseEncoding(header, variants);
    const theirs = peerChoice(header, variants);
    if (ours === theirs) continue;
    differences++;
    const why = `seed ${seed}, case ${i}: ${JSON.stringify(header)} with ${Object.keys(variants)}: ours ${ours}, compression ${theirs}`;
    assert.equal(ours, undefined, why);
    assert.ok(!named.has('identity') && !named.has('*'), why);
    assert.ok(qOf(header, theirs) < 1, why);
  }
  // the class exists in this corpus: the comparison above really ran into it
  assert.ok(differences > 0);
});

test('browser headers: the same coding as compression 1.8', () => {
  const headers = [
    'gzip, deflate, br, zstd',
    'gzip, deflate, br',
    'gzip, deflate',
    'br;q=1.0, gzip;q=0.8, *;q=0.1',
    'gzip',
    'identity',
    '*',
    'br',
    'deflate, gzip;q=1.0, *;q=0.5',
  ];
  for (const header of headers) {
    for (const variants of VARIANT_SETS) {
      assert.equal(
        chooseEncoding(header, variants),
        peerChoice(header, variants),
        `${header} ${Object.keys(variants)}`,
      );
    }
  }
});

test('hostile headers: never a throw, always a held variant or identity', () => {
  const seed = 7;
  const random = mulberry32(seed);
  const alphabet = [
    'br',
    'gzip',
    'GZIP',
    'Br',
    '*',
    'identity',
    ';',
    ',',
    '=',
    'q',
    'Q',
    ' ',
    '\t',
    '"',
    '0',
    '1',
    '.',
    '-',
    'e',
    'x-gzip',
    '__proto__',
    'NaN',
    'Infinity',
  ];
  for (let i = 0; i < 20000; i++) {
    let header = '';
    const length = Math.floor(random() * 12);
    for (let j = 0; j < length; j++) header += alphabet[Math.floor(random() * alphabet.length)];
    const variants = VARIANT_SETS[i % VARIANT_SETS.length];
    const got = chooseEncoding(header, variants);
    assert.ok(
      got === undefined || variants[got] === true,
      `seed ${seed}, case ${i}: ${JSON.stringify(header)} -> ${got}`,
    );
  }
});
