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
const { answer, errorOf, WHOLE, NONE, FLAVOURS } = require('../../../lib/files/answer');
const { charsetContentTypeOf, statTag } = require('../../../lib/files/record');
const { configOf } = require('../../../lib/fastify/static-options');
const { mulberry32 } = require('../helpers/seeded-random');
const { listen, request: httpRequest } = require('../helpers/http');
const { sendConfig } = require('../../../lib/files/send-config');
const { contentTypeOf } = require('../../../lib/files/record');

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
  assert.deepStrictEqual(FLAVOURS.slice().sort(), ['fastify-send', 'koa-send', 'node-server', 'send'].sort());
  for (const name of ['nginx', 'constructor', '__proto__', 'toString']) {
    assert.throws(() => answer(name, { headers: {} }, fileOf('text/plain'), {}), TypeError, name);
  }
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

// --- send 1.2 ---

/** A node ServerResponse as the answer reads it: status and the headers set so far. */
function responseWith(status, headers) {
  const lower = {};
  for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
  return { statusCode: status, getHeader: (name) => lower[name.toLowerCase()] };
}

/** The headers a response ends with: `present`, then the answer's set and removed ones. */
function finalHeaders(present, answered) {
  const out = {};
  for (const [name, value] of Object.entries(present)) out[name.toLowerCase()] = String(value);
  for (const [name, value] of Object.entries(answered)) {
    if (value === undefined) delete out[name.toLowerCase()];
    else out[name.toLowerCase()] = String(value);
  }
  return out;
}

const SEND_HEADERS = [
  'accept-ranges',
  'cache-control',
  'last-modified',
  'etag',
  'content-type',
  'content-length',
  'content-range',
  'content-language',
];

test(`send: seeded requests answer as send 1.2 on a real server, earlier headers and status included (seed ${SEED})`, async () => {
  const send = require('send');
  const random = mulberry32(SEED ^ 0x5e4d);
  let current;
  const server = await listen((req, res) => {
    const stream = send(req, '/a.txt', { root: dir, ...current.options });
    // serve-static's setHeaders moment: before send sets its own
    stream.on('headers', () => {
      for (const [name, value] of Object.entries(current.present)) res.setHeader(name, value);
    });
    res.statusCode = current.status;
    stream.pipe(res);
  });
  const seen = new Set();
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const request = randomRequest(random);
      const options = randomSendOptions(random);
      const present = {};
      if (random() < 0.15) present.ETag = pick(random, ['"custom"', statTag(stat)]);
      if (random() < 0.1) present['Last-Modified'] = new Date(stat.mtime.getTime() - 7200e3).toUTCString();
      if (random() < 0.1) present['Cache-Control'] = 'no-store';
      if (random() < 0.1) present['Content-Type'] = 'text/x-custom';
      if (random() < 0.1) present['Content-Language'] = 'en';
      const status = random() < 0.1 ? 404 : 200;
      current = { options, present, status };
      const peer = await httpRequest(server.url + '/a.txt', request);
      const ours = answer(
        'send',
        request,
        fileOf(contentTypeOf(filePath)),
        sendConfig(options, dir),
        responseWith(status, present),
      );
      const where = `seed ${SEED}, round ${i}: ${JSON.stringify(current)} ${JSON.stringify(request)}`;
      seen.add(ours.status);
      assert.strictEqual(ours.status === 200 ? status : ours.status, peer.status, where);
      if (ours.status === 412) continue;
      if (ours.status === 416) {
        assert.strictEqual(ours.headers['Content-Range'], peer.headers['content-range'], where);
        continue;
      }
      const expected = {};
      const got = finalHeaders(present, ours.headers);
      for (const name of SEND_HEADERS) {
        if (peer.headers[name] !== undefined) expected[name] = peer.headers[name];
        if (got[name] === undefined) delete got[name];
      }
      for (const name of Object.keys(got)) if (!SEND_HEADERS.includes(name)) delete got[name];
      assert.deepStrictEqual(got, expected, where);
      if (ours.status === 304) assert.strictEqual(ours.span, NONE, where);
      else if (ours.status === 206 && request.method === 'GET')
        assert.deepStrictEqual(BODY.subarray(ours.span.start, ours.span.end + 1), peer.body, where);
      else if (request.method === 'GET') assert.strictEqual(ours.span, WHOLE, where);
    }
  } finally {
    await server.close();
  }
  assert.deepStrictEqual([...seen].sort(), [200, 206, 304, 412, 416], `seed ${SEED}`);
});

test('send: a header the response has is kept and is the validator the 304 test reads', () => {
  const file = fileOf('text/plain');
  const config = sendConfig({}, dir);
  const response = responseWith(200, { ETag: '"theirs"', 'Cache-Control': 'no-store' });
  const fresh = answer('send', { method: 'GET', headers: { 'if-none-match': '"theirs"' } }, file, config, response);
  assert.strictEqual(fresh.status, 304);
  assert.strictEqual('ETag' in fresh.headers, false);
  assert.strictEqual('Cache-Control' in fresh.headers, false);
  const stale = answer('send', { method: 'GET', headers: { 'if-none-match': file.etag } }, file, config, response);
  assert.strictEqual(stale.status, 200);
});

test('send: a 304 removes every content header, and only a 2xx or 304 becomes one', () => {
  const file = { ...fileOf('text/plain'), encoding: 'br' };
  const config = sendConfig({}, dir);
  const request = { method: 'GET', headers: { 'if-none-match': file.etag } };
  const ours = answer('send', request, file, config, responseWith(200, { 'Content-Language': 'en' }));
  assert.strictEqual(ours.status, 304);
  for (const name of ['Content-Encoding', 'Content-Language', 'Content-Length', 'Content-Range', 'Content-Type']) {
    assert.ok(name in ours.headers && ours.headers[name] === undefined, name);
  }
  assert.strictEqual(answer('send', request, file, config, responseWith(404, {})).status, 200);
});

test('send: a passing If-Match hides If-Unmodified-Since, which @fastify/send still checks', () => {
  const file = fileOf('text/plain');
  const before = new Date(stat.mtime.getTime() - 3600e3).toUTCString();
  const request = { method: 'GET', headers: { 'if-match': file.etag, 'if-unmodified-since': before } };
  assert.strictEqual(answer('send', request, file, sendConfig({}, dir), responseWith(200, {})).status, 200);
  assert.strictEqual(answer('fastify-send', request, file, configOf({ root: dir })).status, 412);
});

// --- koa-send 5 (+ ssr-native's ETag and ranges) ---

const KOA = { cacheControl: 'max-age=0', etag: true, acceptRanges: true };

test('koa-send: no conditional step, and a fresh request gets the whole body rather than a 206', () => {
  const file = fileOf('.txt');
  const fresh = { 'if-none-match': file.etag, range: 'bytes=0-3' };
  const ours = answer('koa-send', { method: 'GET', headers: fresh }, file, KOA, responseWith(200, {}));
  assert.strictEqual(ours.status, 200);
  assert.strictEqual(ours.span, WHOLE);
  assert.strictEqual(ours.headers['Content-Length'], String(file.size));
  // send answers the same request with a 304
  assert.strictEqual(
    answer('send', { method: 'GET', headers: fresh }, file, sendConfig({}, dir), responseWith(200, {})).status,
    304,
  );
  const stale = { 'if-none-match': '"other"', range: 'bytes=0-3' };
  const ranged = answer('koa-send', { method: 'GET', headers: stale }, file, KOA, responseWith(200, {}));
  assert.strictEqual(ranged.status, 206);
  assert.deepStrictEqual([ranged.span.start, ranged.span.end], [0, 3]);
  assert.strictEqual(ranged.headers['Content-Length'], '4');
  assert.strictEqual(ranged.headers['Content-Range'], `bytes 0-3/${file.size}`);
});

test('koa-send: Content-Length always, the others only where absent; Content-Type is left to Koa', () => {
  const file = { ...fileOf('.txt'), encoding: 'gzip' };
  const present = { 'Content-Length': '1', 'Last-Modified': 'then', 'Cache-Control': 'no-store', ETag: '"x"' };
  const ours = answer('koa-send', { method: 'GET', headers: {} }, file, KOA, responseWith(200, present));
  assert.deepStrictEqual(ours.headers, {
    'Content-Length': String(file.size),
    'Content-Encoding': 'gzip',
    'Accept-Ranges': 'bytes',
  });
  const bare = answer(
    'koa-send',
    { method: 'GET', headers: {} },
    fileOf('.txt'),
    { cacheControl: 'max-age=1' },
    responseWith(200, {}),
  );
  assert.deepStrictEqual(Object.keys(bare.headers), ['Content-Length', 'Last-Modified', 'Cache-Control']);
});

test('koa-send: an unsatisfiable range is a 416 with its Content-Range, unless the copy is fresh', () => {
  const file = fileOf('.txt');
  const request = { method: 'GET', headers: { range: `bytes=${file.size}-` } };
  const ours = answer('koa-send', request, file, KOA, responseWith(200, {}));
  assert.strictEqual(ours.status, 416);
  assert.strictEqual(ours.headers['Content-Range'], `bytes */${file.size}`);
  request.headers['if-none-match'] = file.etag;
  assert.strictEqual(answer('koa-send', request, file, KOA, responseWith(200, {})).status, 200);
});

// --- @hono/node-server 2.1 ---

test(`node-server: seeded Range headers answer as @hono/node-server's serveStatic (seed ${SEED})`, async () => {
  const { Hono } = require('hono');
  const { serveStatic } = require('@hono/node-server/serve-static');
  const { getMimeType } = require('hono/utils/mime');
  const app = new Hono();
  app.use('*', serveStatic({ root: dir }));
  const random = mulberry32(SEED ^ 0x40e0);
  const size = BODY.length;
  const number = () => pick(random, [0, 1, 5, size - 1, size, size + 3, Math.floor(random() * size)]);
  const forms = [
    () => `bytes=${number()}-${number()}`,
    () => `bytes=${number()}-`,
    () => `bytes=-${number()}`,
    () => `${number()}-${number()}`,
    () => `bytes=${number()}-${number()},${number()}-${number()}`,
    () => pick(random, ['bytes=-', 'bytes=', '', 'bytes=x-1', ' bytes=1-2', 'bytes=1-2 ', 'items=0-1', '-']),
  ];
  const seen = new Set();
  for (let i = 0; i < ROUNDS; i++) {
    const headers = random() < 0.85 ? { range: pick(random, forms)() } : {};
    const method = random() < 0.2 ? 'HEAD' : 'GET';
    const peer = await app.request('/a.txt', { method, headers });
    const peerBody = Buffer.from(await peer.arrayBuffer());
    const file = { size, etag: statTag(stat), lastModified: stat.mtime.toUTCString(), type: getMimeType(filePath) };
    // a header value reaches a server without its surrounding whitespace (fetch's Headers, as
    // node's HTTP parser, strips it)
    const received = headers.range === undefined ? {} : { range: headers.range.trim() };
    const ours = answer('node-server', { method, headers: received }, file);
    const where = `seed ${SEED}, round ${i}: ${method} ${JSON.stringify(headers)}`;
    seen.add(ours.status);
    assert.strictEqual(ours.status, peer.status, where);
    const got = {};
    for (const [name, value] of Object.entries(ours.headers)) got[name.toLowerCase()] = value;
    assert.deepStrictEqual(got, Object.fromEntries(peer.headers), where);
    if (method === 'HEAD' || ours.status === 416) continue;
    const sent = ours.span === WHOLE ? BODY : BODY.subarray(ours.span.start, ours.span.end + 1);
    assert.deepStrictEqual(sent, peerBody, where);
  }
  assert.deepStrictEqual([...seen].sort(), [200, 206, 416], `seed ${SEED}`);
});

test('node-server: HEAD reads no Range, and an unparsable Range is the whole body as a 206', () => {
  const file = fileOf('text/plain');
  const head = answer('node-server', { method: 'HEAD', headers: { range: 'bytes=0-3' } }, file);
  assert.strictEqual(head.status, 200);
  assert.strictEqual(head.headers['Accept-Ranges'], undefined);
  assert.strictEqual(head.headers['Content-Length'], String(file.size));
  const odd = answer('node-server', { method: 'GET', headers: { range: 'nonsense' } }, file);
  assert.strictEqual(odd.status, 206);
  assert.deepStrictEqual(odd.span, { start: 0, end: file.size - 1 });
  // send reads the same header as no range at all
  assert.strictEqual(
    answer('send', { method: 'GET', headers: { range: 'nonsense' } }, file, sendConfig({}, dir), responseWith(200, {}))
      .status,
    200,
  );
});

test('errorOf: a 412 and a 416 as the peers raise them, the 416 with its Content-Range', () => {
  const file = fileOf('text/plain');
  const config = configOf({ root: dir });
  const failed = answer('fastify-send', { headers: { 'if-match': '"other"' } }, file, config);
  const err412 = errorOf(failed);
  assert.strictEqual(err412.status, 412);
  assert.strictEqual(err412.headers, undefined);
  const unsatisfiable = answer('fastify-send', { headers: { range: `bytes=${file.size}-` } }, file, config);
  const err416 = errorOf(unsatisfiable);
  assert.strictEqual(err416.status, 416);
  assert.deepStrictEqual(err416.headers, { 'Content-Range': `bytes */${file.size}` });
});
