'use strict';
// lib/files/answer.js, the one static answer step: each flavour's differences named one by one,
// and seeded random requests (conditional headers, ranges, HEAD) answered by the flavour and by
// its peer package on the same file. The peers' answers are taken where they are a value
// (@fastify/send's send() returns status and headers) or off a real loopback server (send 1.2).
// A failure prints the seed and the request.
const { test, before, after } = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { answer, WHOLE, NONE, FLAVOURS } = require('../../../lib/files/answer');
const { charsetContentTypeOf, statTag } = require('../../../lib/files/record');
const { configOf } = require('../../../lib/fastify/static-options');
const { mulberry32 } = require('../helpers/seeded-random');

const SEED = Number(process.env.SEED || 0xa5e7);
const ROUNDS = 400;
const BODY = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz'.repeat(5));

let dir;
let filePath;
let stat;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-answer-'));
  filePath = path.join(dir, 'a.txt');
  fs.writeFileSync(filePath, BODY);
  stat = fs.statSync(filePath);
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The file as the peers see it: stat-based tag, mtime date. */
function fileOf(type) {
  return { size: stat.size, etag: statTag(stat), lastModified: stat.mtime.toUTCString(), type };
}

function pick(random, list) {
  return list[Math.floor(random() * list.length)];
}

/** Request headers drawn around the file's own validators, so that some match and some do not. */
function randomRequest(random) {
  const etag = statTag(stat);
  const strong = etag.slice(2);
  const modified = stat.mtime.getTime();
  const dates = [
    new Date(modified).toUTCString(),
    new Date(modified - 3600e3).toUTCString(),
    new Date(modified + 3600e3).toUTCString(),
    'not a date',
    '',
  ];
  const tags = [etag, strong, '"other"', '*', `"x", ${etag}`, `"x" , ${strong}`, 'W/"x"', ''];
  const size = BODY.length;
  const ranges = [
    'bytes=0-9',
    'bytes=5-',
    'bytes=-7',
    `bytes=${size - 1}-${size + 10}`,
    `bytes=${size}-`,
    'bytes=0-1,3-4',
    'bytes=0-4,2-8',
    'bytes=9-3',
    'bytes=abc',
    'items=0-3',
    ' bytes=1-2',
    'bytes=-0',
    'bytes=0-',
    '',
  ];
  const headers = {};
  const maybe = (p) => random() < p;
  if (maybe(0.2)) headers['if-match'] = pick(random, tags);
  if (maybe(0.3)) headers['if-none-match'] = pick(random, tags);
  if (maybe(0.2)) headers['if-modified-since'] = pick(random, dates);
  if (maybe(0.2)) headers['if-unmodified-since'] = pick(random, dates);
  if (maybe(0.45)) headers.range = pick(random, ranges);
  if (maybe(0.25)) headers['if-range'] = pick(random, [etag, strong, '"other"', ...dates]);
  if (maybe(0.1)) headers['cache-control'] = pick(random, ['no-cache', 'max-age=0']);
  return { method: maybe(0.2) ? 'HEAD' : 'GET', headers };
}

function randomSendOptions(random) {
  const options = {};
  for (const name of ['acceptRanges', 'cacheControl', 'lastModified', 'etag', 'immutable']) {
    if (random() < 0.25) options[name] = random() < 0.5;
  }
  if (random() < 0.3) options.maxAge = pick(random, [0, 1000, '1h']);
  return options;
}

test('the flavours are named', () => {
  assert.deepStrictEqual(FLAVOURS.slice().sort(), ['fastify-send'].sort());
  assert.throws(() => answer('nginx', { headers: {} }, fileOf('text/plain'), {}), TypeError);
});

// --- @fastify/send 4 ---

test(`fastify-send: seeded requests answer as @fastify/send 4's send() (seed ${SEED})`, async () => {
  const send = require('@fastify/send');
  const random = mulberry32(SEED);
  const seen = new Set();
  for (let i = 0; i < ROUNDS; i++) {
    const request = randomRequest(random);
    const options = randomSendOptions(random);
    const peer = await send(request, '/a.txt', { root: dir, ...options });
    peer.stream?.destroy();
    const ours = answer(
      'fastify-send',
      request,
      fileOf(charsetContentTypeOf(filePath)),
      configOf({ root: dir, ...options }),
    );
    const where = `seed ${SEED}, round ${i}: ${JSON.stringify({ request, options })}`;
    seen.add(ours.status);
    assert.strictEqual(ours.status, peer.statusCode, where);
    if (ours.status === 412) continue;
    if (ours.status === 416) {
      assert.strictEqual(ours.headers['Content-Range'], peer.metadata.error.headers['Content-Range'], where);
      assert.strictEqual(ours.span, NONE, where);
      continue;
    }
    assert.deepStrictEqual(ours.headers, peer.headers, where);
    if (ours.status === 304) assert.strictEqual(ours.span, NONE, where);
    else if (ours.status === 206) {
      const [, start, end] = /^bytes (\d+)-(\d+)\//.exec(ours.headers['Content-Range']);
      assert.deepStrictEqual(ours.span, { start: Number(start), end: Number(end) }, where);
    } else assert.strictEqual(ours.span, WHOLE, where);
  }
  // the draw reaches every outcome
  assert.deepStrictEqual([...seen].sort(), [200, 206, 304, 412, 416], `seed ${SEED}`);
});

test('fastify-send: every header is the answer own, the response is not read', () => {
  const config = configOf({ root: dir });
  const ours = answer('fastify-send', { method: 'GET', headers: {} }, fileOf('text/plain'), config, {
    statusCode: 500,
    getHeader: () => assert.fail('read the response'),
  });
  assert.strictEqual(ours.status, 200);
  assert.deepStrictEqual(Object.keys(ours.headers), [
    'Accept-Ranges',
    'Cache-Control',
    'Last-Modified',
    'ETag',
    'Content-Type',
    'Content-Length',
  ]);
});

test('fastify-send: If-None-Match * matches and Cache-Control: no-cache makes the copy stale', () => {
  const config = configOf({ root: dir });
  const file = fileOf('text/plain');
  assert.strictEqual(answer('fastify-send', { headers: { 'if-none-match': '*' } }, file, config).status, 304);
  const stale = { 'if-none-match': file.etag, 'cache-control': 'no-cache' };
  assert.strictEqual(answer('fastify-send', { headers: stale }, file, config).status, 200);
});

test('fastify-send: a 304 keeps the validators and drops the Content-Type', () => {
  const file = fileOf('text/plain');
  const ours = answer('fastify-send', { headers: { 'if-none-match': file.etag } }, file, configOf({ root: dir }));
  assert.strictEqual(ours.status, 304);
  assert.strictEqual(ours.headers.ETag, file.etag);
  assert.strictEqual(ours.headers['Content-Type'], undefined);
  assert.strictEqual(ours.headers['Content-Length'], undefined);
});

test('fastify-send: HEAD answers as GET (the adapter writes no body)', () => {
  const file = fileOf('text/plain');
  const config = configOf({ root: dir });
  const headers = { range: 'bytes=2-5' };
  assert.deepStrictEqual(
    answer('fastify-send', { method: 'HEAD', headers }, file, config),
    answer('fastify-send', { method: 'GET', headers }, file, config),
  );
});
