'use strict';
// fastifyStatic's choice of a precompressed sibling is @fastify/static 10's: the header
// lower-cased, `*` read as gzip, @fastify/accept-negotiator over br, gzip, deflate minus the
// encodings already tried (their files missing), null when none is acceptable. Random headers
// from a seeded generator; a failure names the header and the seed.
const test = require('node:test');
const assert = require('node:assert/strict');
const acceptNegotiator = require('@fastify/accept-negotiator');
const { negotiateEncoding } = require('../../../lib/fastify/precompressed');
const { mulberry32 } = require('../helpers/seeded-random');

const SEED = Number(process.env.PRECOMPRESSED_SEED) || 45;
const SUPPORTED = ['br', 'gzip', 'deflate'];

test(`the precompressed sibling is @fastify/static's choice on random headers (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const pieces = ['gzip', 'deflate', 'br', 'zstd', 'identity', '*', 'x-gzip', 'GZIP', 'BR', ';', 'q=', ',', ' '];
  pieces.push('\t', '0', '1', '.', '5', ';q=0', ';q=1', ';q=0.8', ';q=x', 'b', 'r');
  assert.equal(negotiateEncoding({}, new Set()), undefined);
  for (let n = 0; n < 20000; n++) {
    let header = '';
    const length = Math.floor(random() * 10);
    for (let i = 0; i < length; i++) header += pick(pieces);
    const checked = new Set(SUPPORTED.filter(() => random() < 0.25));
    const supported = SUPPORTED.filter((e) => !checked.has(e));
    const expected = acceptNegotiator.negotiate(header.toLowerCase().replace(/\*/g, 'gzip'), supported) ?? null;
    assert.equal(
      negotiateEncoding({ 'accept-encoding': header }, checked),
      expected,
      `${JSON.stringify(header)} without ${[...checked]} (seed ${SEED})`,
    );
  }
});
