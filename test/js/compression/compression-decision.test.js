'use strict';
// compression(options)'s one decision (lib/express/compression-decision.js), shared by the
// whole-body stage and the streaming path: the same head gets the same headers and the same
// coding from both, except that only a whole body may be answered with dcz; Vary is set as the
// peer sets it (before the threshold, HEAD and negotiation steps). Random heads from a seeded
// generator; a failure prints the seed and the head.
const test = require('node:test');
const assert = require('node:assert');
const http = require('http');
const { mulberry32 } = require('../helpers/seeded-random');
const { CompressionDecision, shouldCompress } = require('../../../lib/express/compression-decision');
const { createNegotiator } = require('../../../lib/compression/negotiate');

const TYPES = [undefined, 'text/html; charset=utf-8', 'application/json', 'image/png', 'text/css'];
const CACHE_CONTROLS = [undefined, 'no-transform', 'public, no-transform', 'max-age=60'];
const CODINGS = [undefined, 'identity', 'gzip'];
const ACCEPTS = [undefined, '', 'gzip', 'br, gzip', 'gzip, deflate, br, zstd', 'identity', 'deflate;q=0'];
const DICTIONARIES = [undefined, ':pZGm1Av0IEBKARczz7exkNYsZb8LzaMrV7J32a2fFG4=:'];

const pick = (random, list) => list[Math.floor(random() * list.length)];
const encoders = { br: 'br-encoder', gzip: 'gzip-encoder', deflate: 'deflate-encoder' };
const negotiate = createNegotiator(['br', 'gzip', 'deflate', 'identity'], ['br', 'gzip'], 'negotiator0');

// A transport whose choice is dcz whenever the request names a dictionary (the real choice,
// dictionary-transport.js, is tested in dictionary*.test.js); no Link to announce.
const dcz = { encoder: 'dcz-encoder' };
const transport = {
  link: () => undefined,
  choose: (accept, available) => (available === undefined ? null : dcz),
};

function randomHead(random) {
  return {
    method: random() < 0.2 ? 'HEAD' : 'GET',
    type: pick(random, TYPES),
    cacheControl: pick(random, CACHE_CONTROLS),
    coding: pick(random, CODINGS),
    contentLength: random() < 0.5 ? undefined : Math.floor(random() * 3000),
    length: Math.floor(random() * 3000),
    accept: pick(random, ACCEPTS),
    available: pick(random, DICTIONARIES),
  };
}

function responseFor(head) {
  const headers = {};
  if (head.accept !== undefined) headers['accept-encoding'] = head.accept;
  if (head.available !== undefined) headers['available-dictionary'] = head.available;
  const req = { method: head.method, headers };
  const res = new http.ServerResponse(req);
  if (head.type !== undefined) res.setHeader('Content-Type', head.type);
  if (head.cacheControl !== undefined) res.setHeader('Cache-Control', head.cacheControl);
  if (head.coding !== undefined) res.setHeader('Content-Encoding', head.coding);
  if (head.contentLength !== undefined) res.setHeader('Content-Length', head.contentLength);
  return { req, res };
}

function decisionWith(dictionaries) {
  return new CompressionDecision({
    filter: shouldCompress,
    threshold: 1024,
    enforceEncoding: 'identity',
    negotiate,
    encoders,
    dictionaries,
  });
}

test('a streamed and a whole body get the same decision, only a whole one may get dcz', () => {
  const seed = 0x5eed53;
  const random = mulberry32(seed);
  const decision = decisionWith(transport);
  let dczSeen = 0;
  for (let i = 0; i < 2000; i++) {
    const head = randomHead(random);
    const why = `seed ${seed}, head ${i}: ${JSON.stringify(head)}`;
    const streamed = responseFor(head);
    const whole = responseFor(head);
    const streamChoice = decision.choose(streamed.req, streamed.res, head.length, false);
    const wholeChoice = decision.choose(whole.req, whole.res, head.length, true);
    assert.deepStrictEqual(whole.res.getHeaders(), streamed.res.getHeaders(), why);
    assert.ok(streamChoice === null || streamChoice.coding !== 'dcz', why);
    if (wholeChoice !== null && wholeChoice.coding === 'dcz') {
      dczSeen++;
      assert.strictEqual(wholeChoice.dictionary, dcz, why);
    } else {
      assert.deepStrictEqual(wholeChoice, streamChoice, why);
    }
  }
  assert.ok(dczSeen > 0, 'the heads reached a dcz answer');
});

test('Vary is set whenever the filter passes, before the threshold, HEAD and negotiation', () => {
  const seed = 0xa11ce;
  const random = mulberry32(seed);
  const decision = decisionWith(null);
  let small = 0;
  for (let i = 0; i < 2000; i++) {
    const head = randomHead(random);
    const why = `seed ${seed}, head ${i}: ${JSON.stringify(head)}`;
    const { req, res } = responseFor(head);
    const choice = decision.choose(req, res, head.length, false);
    const passes = shouldCompress(req, res) && !/no-transform/.test(head.cacheControl || '');
    assert.strictEqual(res.getHeader('Vary') === 'Accept-Encoding', passes, why);
    if (choice !== null) {
      assert.strictEqual(choice.encoder, encoders[choice.coding], why);
      assert.ok(head.length >= 1024 && head.method === 'GET', why);
    }
    if (passes && head.length < 1024) small++;
  }
  assert.ok(small > 0, 'the heads reached bodies under the threshold');
});
