'use strict';
// Differential test: fastifyCompress from ssr-native/fastify against @fastify/compress 9.2.0 on
// real Fastify 5 servers (and ours on Fastify 4 against the peer on Fastify 5: the peer needs 5).
// Seeded cases vary the body (string, Buffer, JSON, a stream, a web stream, a fetch Response,
// bytes already gzipped; sizes around the threshold and the peer's syncThreshold), the type,
// status, method (GET, HEAD, POST), Accept-Encoding (browsers' headers, q-values, `*`,
// `identity;q=0`, malformed and very long ones), X-No-Compression, Content-Range, preset
// Content-Encoding / Vary / ETag, the route (plugin settings, `compress: false`, a route's own
// `compress` object, reply.compress) and the plugin options. Ours is asked twice (a content-cache
// miss, then a hit); every answer must carry the peer's status and headers and a body that
// decodes to the peer's, which is the original body. The intended differences (docs/fastify.md):
// a whole body ours has seen before goes out with the Content-Length of its compressed bytes
// where the peer streams it chunked (so Content-Length and Transfer-Encoding are compared only
// where no coding is applied); the compressed bytes differ by the window recorded in their header.
// Then: the negotiation against @fastify/accept-negotiator itself on random headers, a repeated
// body as a cache hit, hostile input, and request decompression against the peer's answers.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const zlib = require('node:zlib');
const { Readable } = require('node:stream');
const peerCompress = require('@fastify/compress');
const acceptNegotiator = require('@fastify/accept-negotiator');
const { fastifyCompress } = require('../../../lib/fastify');
const { ContentCache } = require('../../../lib/compression/content-cache');
const { createNegotiator } = require('../../../lib/compression/negotiate');
const { mulberry32 } = require('../helpers/seeded-random');
const { pick, makeText, decode: decodeStrict, comparable } = require('../helpers/compression-diff');

const SEED = Number(process.env.FASTIFY_COMPRESS_DIFF_SEED || 0xfa5c);
const CASES = Number(process.env.FASTIFY_COMPRESS_DIFF_CASES || 70);
const Fastify5 = require('fastify');
const Fastify4 = require('fastify4');

const ACCEPT_ENCODINGS = [
  undefined,
  '',
  'gzip, deflate, br, zstd',
  'gzip, deflate, br',
  'gzip, deflate',
  'gzip',
  'br',
  'deflate',
  'zstd',
  'identity',
  'identity;q=0',
  '*',
  '*;q=0',
  'gzip;q=0, *',
  'br;q=0, gzip;q=0',
  'gzip;q=0.5, deflate;q=0.9',
  'deflate, gzip',
  'BR',
  'x-gzip',
  'gzip;q=abc',
  'br;q=',
  ' , ,',
  ';q=1',
  'gzip;q="0.5", br;q=0.4',
  'br;x="a,b", gzip',
  'gzip, deflate, br, zstd, ' + 'x, '.repeat(600),
  'identity, *;q=0',
  'gzip ; q=0.8 , br ; q=0.9',
  'br;q=2, gzip',
  'g zip, de flate',
  '\u00e9, gzip',
];
const TYPES = [
  undefined,
  'text/html; charset=utf-8',
  'application/json',
  'text/plain',
  'image/png',
  'application/octet-stream',
  'image/svg+xml',
  'text/event-stream',
  'application/x-custom',
  'x-unknown/thing',
];
const SIZES = [0, 5, 1023, 1024, 1025, 2047, 2048, 4096, 8191, 8192, 8193, 20000, 75000, 300000];
const STATUSES = [200, 200, 200, 200, 201, 204, 304, 404];
const METHODS = ['GET', 'GET', 'GET', 'HEAD', 'POST'];
const KINDS = ['string', 'string', 'buffer', 'json', 'stream', 'webstream', 'response', 'gzipped'];
const ROUTES = ['g', 'g', 'g', 'off', 'own', 'rc', 'rc'];
const OPTION_SETS = {
  defaults: {},
  'threshold 0, syncThreshold 0': { threshold: 0, syncThreshold: 0 },
  'encodings gzip, deflate; syncThreshold 100000': { encodings: ['gzip', 'deflate'], syncThreshold: 100000 },
  'global false': { global: false },
  'customTypes, zlibOptions, brotliOptions': {
    customTypes: /x-custom/,
    zlibOptions: { level: 9 },
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } },
  },
  inflateIfDeflated: { inflateIfDeflated: true },
  'onUnsupportedEncoding, removeContentLengthHeader false': {
    onUnsupportedEncoding: (header) => `unsupported: ${header}`,
    removeContentLengthHeader: false,
  },
};
const ROUTE_COMPRESS = { encodings: ['deflate', 'gzip'], threshold: 2048 };

// The vocabulary of this suite's bodies (a number drawn from the body's generator among them).
const TEXT_WORDS = (random) => ['<li>', 'fastify', 'compress', '</li>', '\n', '\u00e9', String(random())];
function bodyText(random, size) {
  return makeText(random, size, { words: TEXT_WORDS, prefix: '<ul>' });
}

// null: bytes passed through as they came (gzip data under another label: the peer's way)
function decode(encoding, body) {
  try {
    return decodeStrict(encoding, body);
  } catch {
    return null;
  }
}

function makeCases(seed) {
  const random = mulberry32(seed);
  const cases = Array.from({ length: CASES }, (_, id) => ({
    id,
    bytes: bodyText(random, pick(random, SIZES)),
    kind: pick(random, KINDS),
    type: pick(random, TYPES),
    status: pick(random, STATUSES),
    method: pick(random, METHODS),
    route: pick(random, ROUTES),
    acceptEncoding: pick(random, ACCEPT_ENCODINGS),
    noCompression: random() < 0.05,
    range: random() < 0.05,
    contentEncoding: random() < 0.06 ? pick(random, ['identity', 'x-custom']) : undefined,
    vary: random() < 0.15 ? pick(random, ['Origin', 'Accept-Encoding', 'accept-encoding', '*']) : undefined,
    etag: random() < 0.1 ? '"strong-tag"' : undefined,
  }));
  // and one every option set compresses (reply.compress, so also where `global` is false)
  cases.push({ id: cases.length, bytes: bodyText(random, 75000), kind: 'string', type: 'text/html', status: 200 });
  Object.assign(cases.at(-1), { method: 'GET', route: 'rc', acceptEncoding: 'gzip, deflate, br, zstd' });
  return cases;
}

// The body a case's handler answers with (fresh for each request: streams are read once).
function payloadOf(c) {
  const bytes = c.bytes;
  switch (c.kind) {
    case 'buffer':
      return Buffer.from(bytes);
    case 'json':
      return { text: bytes.toString('latin1') };
    case 'stream':
      return Readable.from([bytes.subarray(0, 100), bytes.subarray(100)]);
    case 'webstream':
      return new ReadableStream({
        start(controller) {
          controller.enqueue(new Uint8Array(bytes.subarray(0, 50)));
          controller.enqueue(new Uint8Array(bytes.subarray(50)));
          controller.close();
        },
      });
    case 'response':
      return new Response(Buffer.from(bytes), { status: c.status, headers: { 'x-from-response': 'yes' } });
    case 'gzipped':
      return zlib.gzipSync(bytes);
    default:
      return bytes.toString('latin1');
  }
}

// The bytes the handler meant to send (gzipped bodies: see the peer comparison instead).
function originalOf(c) {
  if (c.kind === 'json') return Buffer.from(JSON.stringify({ text: c.bytes.toString('latin1') }));
  if (c.kind === 'string') return Buffer.from(c.bytes.toString('latin1'));
  return c.bytes;
}

function handler(cases) {
  return function answer(request, reply) {
    const c = cases[Number(request.params.id)];
    if (c.status !== 200) reply.code(c.status);
    if (c.type) reply.type(c.type);
    if (c.range) {
      reply.code(206);
      reply.header('Content-Range', `bytes 0-${Math.max(c.bytes.length - 1, 0)}/${c.bytes.length}`);
    }
    if (c.contentEncoding) reply.header('Content-Encoding', c.contentEncoding);
    if (c.vary) reply.header('Vary', c.vary);
    if (c.etag) reply.header('ETag', c.etag);
    const payload = payloadOf(c);
    if (c.route === 'rc') reply.compress(payload);
    else reply.send(payload);
  };
}

async function app(Fastify, plugin, options, cases) {
  const fastify = Fastify();
  await fastify.register(plugin, options);
  const answer = handler(cases);
  for (const method of ['get', 'post']) {
    fastify[method]('/g/:id', answer);
    fastify[method]('/rc/:id', answer);
    fastify[method]('/off/:id', { compress: false }, answer);
    fastify[method]('/own/:id', { compress: ROUTE_COMPRESS }, answer);
  }
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  return fastify;
}

function fetchRaw(port, path, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(10000, () => req.destroy(new Error(`no answer in 10 s: ${method} ${path}`)));
    req.end(body);
  });
}

function requestOf(c) {
  const headers = {};
  if (c.acceptEncoding !== undefined) headers['accept-encoding'] = c.acceptEncoding;
  if (c.noCompression) headers['x-no-compression'] = '1';
  return { method: c.method, headers };
}

function assertSame(got, expected, c, where) {
  assert.equal(got.status, expected.status, where);
  assert.deepEqual(comparable(got.headers), comparable(expected.headers), where);
  const encoding = got.headers['content-encoding'];
  const decoded = decode(encoding, got.body);
  const theirs = decode(expected.headers['content-encoding'], expected.body);
  if (theirs === null && decoded !== null && c.kind === 'gzipped' && encoding !== 'gzip') {
    // the documented difference (docs/fastify.md): the peer sends gzip data as it is under the
    // coding it negotiated (undecodable), ours compresses it with that coding
    const gzipped = zlib.gzipSync(c.bytes);
    assert.ok(expected.body.equals(gzipped), `the peer's body is not the gzip data as it is: ${where}`);
    assert.ok(decoded.equals(gzipped), `ours does not decode to the gzip data: ${where}`);
  } else if (decoded === null || theirs === null) {
    // passed through untouched by both: the same bytes
    assert.ok(got.body.equals(expected.body), `raw bodies differ: ${where}`);
  } else {
    assert.ok(decoded.equals(theirs), `decoded bodies differ: ${where}`);
  }
  const bodiless = c.method === 'HEAD' || got.status === 204 || got.status === 304;
  if (!bodiless && got.headers['content-length'] !== undefined)
    assert.equal(Number(got.headers['content-length']), got.body.length, `Content-Length: ${where}`);
  // unencoded: the same framing as the peer
  if (!encoding || encoding === 'identity' || encoding === 'x-custom') {
    assert.equal(got.headers['content-length'], expected.headers['content-length'], where);
    assert.equal(got.headers['transfer-encoding'], expected.headers['transfer-encoding'], where);
  } else if (decoded !== null && got.body.length > 0) {
    assert.ok(
      got.body.length <= expected.body.length * 1.02 + 16,
      `ours ${got.body.length} B, peer ${expected.body.length} B: ${where}`,
    );
  }
}

function describeCase(c, set, round, version) {
  const shown = { ...c, bytes: `<${c.bytes.length} bytes>` };
  if (shown.acceptEncoding && shown.acceptEncoding.length > 80)
    shown.acceptEncoding = shown.acceptEncoding.slice(0, 40) + '...';
  return `case ${JSON.stringify(shown)}, options "${set}", ${version} ${round} (seed ${SEED}; replay with FASTIFY_COMPRESS_DIFF_SEED=${SEED})`;
}

for (const [set, options] of Object.entries(OPTION_SETS)) {
  test(`same responses as @fastify/compress 9.2.0: ${set} (Fastify 5, ours on Fastify 4 too; seed ${SEED}, ${CASES} cases)`, async () => {
    const seed = SEED + Object.keys(OPTION_SETS).indexOf(set);
    const cases = makeCases(seed);
    const cache5 = new ContentCache();
    const cache4 = new ContentCache();
    const theirs = await app(Fastify5, peerCompress, options, cases);
    const ours5 = await app(Fastify5, fastifyCompress, { ...options, cache: cache5 }, cases);
    const ours4 = await app(Fastify4, fastifyCompress, { ...options, cache: cache4 }, cases);
    try {
      for (const c of cases) {
        const path = `/${c.route}/${c.id}`;
        const expected = await fetchRaw(theirs.server.address().port, path, requestOf(c));
        for (const [version, server, v5] of [
          ['Fastify 5', ours5, true],
          ['Fastify 4', ours4, false],
        ]) {
          // Fastify 4 has no fetch-Response payloads (it serializes them) and its HEAD routes cannot
          // read a web stream (a 500 with no plugin at all): those cases are Fastify 5's alone
          if (!v5 && (c.kind === 'response' || c.kind === 'webstream')) continue;
          for (const round of ['miss', 'hit']) {
            const got = await fetchRaw(server.server.address().port, path, requestOf(c));
            const where = describeCase(c, set, round, version);
            assertSame(got, expected, c, where);
            const bodiless = c.method === 'HEAD' || got.status === 204 || got.status === 304;
            const decoded = decode(got.headers['content-encoding'], got.body);
            const answered = got.body.toString('latin1', 0, 13) === 'unsupported: ';
            // a JSON object under another type is Fastify's own error; a fetch Response sets its status
            const meant = c.kind === 'response' ? c.status : c.range ? 206 : c.status;
            const sent = got.status === meant && (c.kind !== 'json' || !c.type || c.type === 'application/json');
            if (!bodiless && !answered && sent && c.kind !== 'gzipped')
              assert.ok(decoded.equals(originalOf(c)), `the decoded body is not the original: ${where}`);
          }
        }
      }
      // the hit round was answered from the cache
      for (const cache of [cache5, cache4]) {
        const stats = cache.stats();
        assert.ok(stats.hits > 0 && stats.misses > 0, JSON.stringify(stats));
      }
    } finally {
      await Promise.all([theirs.close(), ours5.close(), ours4.close()]);
    }
  });
}

test(`the negotiation is @fastify/compress's (@fastify/accept-negotiator 2) on random headers (seed ${SEED})`, () => {
  const random = mulberry32(SEED);
  const pieces = ['gzip', 'deflate', 'br', 'zstd', 'identity', '*', 'x-gzip', 'GZIP', ';', 'q=', '=', ','];
  pieces.push(' ', '\t', '0', '1', '.', '5', '0.5', '1.5', '"', 'x', 'Q=', ';q=0', ';q=1', ';q=0.8', 'b', 'r');
  const lists = [
    ['br', 'gzip', 'deflate', 'identity'],
    ['zstd', 'br', 'gzip', 'deflate', 'identity'],
    ['deflate', 'gzip'],
    ['gzip'],
  ];
  const negotiators = lists.map((list) => createNegotiator(list, list, 'fastify-compress'));
  for (let n = 0; n < 20000; n++) {
    let header = '';
    const length = 1 + Math.floor(random() * 10);
    for (let i = 0; i < length; i++) header += pick(random, pieces);
    const k = Math.floor(random() * lists.length);
    const expected = acceptNegotiator.negotiate(header.toLowerCase().replace(/\*|x-gzip/g, 'gzip'), lists[k]);
    assert.equal(
      negotiators[k](header),
      expected ?? undefined,
      `${JSON.stringify(header)} over ${lists[k]} (seed ${SEED})`,
    );
  }
});

test('a repeated body is a content-cache hit: stored bytes and a Content-Length, no compression', async () => {
  const cache = new ContentCache();
  const fastify = Fastify5();
  await fastify.register(fastifyCompress, { cache });
  const page = '<p>a page rendered once</p>'.repeat(3000); // above the default syncThreshold
  const small = '<p>small</p>'.repeat(200); // below it
  fastify.get('/page', (request, reply) => reply.type('text/html').send(page));
  fastify.get('/small', (request, reply) => reply.type('text/html').send(small));
  fastify.get('/json', () => ({ page }));
  fastify.get('/rc', (request, reply) => reply.type('text/html').compress(page));
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  const port = fastify.server.address().port;
  try {
    const headers = { 'accept-encoding': 'gzip, deflate, br' };
    for (const path of ['/page', '/small', '/json', '/rc']) {
      const first = await fetchRaw(port, path, { headers });
      const before = cache.stats();
      const second = await fetchRaw(port, path, { headers });
      const after = cache.stats();
      assert.equal(after.hits, before.hits + 1, `${path}: ${JSON.stringify(after)}`);
      assert.equal(after.compressions, before.compressions, `${path}: compressed again`);
      assert.equal(second.headers['content-encoding'], 'br', path);
      assert.equal(Number(second.headers['content-length']), second.body.length, path);
      assert.ok(second.body.equals(first.body), `${path}: the stored bytes`);
    }
    // '/rc' and '/page' send the same page: one compression between them
    assert.equal(cache.stats().compressions, 3, JSON.stringify(cache.stats()));
  } finally {
    await fastify.close();
  }
});

test('a body that only looks compressed is compressed; data of the negotiated coding passes as it is (the peer sends both undecodable)', async () => {
  const random = mulberry32(SEED);
  const text = 'x ' + bodyText(random, 4000); // "x " passes the zlib header check
  const noise = Buffer.from(Array.from({ length: 6000 }, () => Math.floor(random() * 256)));
  const gzipped = zlib.gzipSync(noise); // incompressible: still over the threshold
  const servers = {};
  for (const [name, plugin] of [
    ['peer', peerCompress],
    ['ours', fastifyCompress],
  ]) {
    const fastify = Fastify5();
    await fastify.register(plugin);
    fastify.get('/text', (request, reply) => reply.type('text/plain').send(text));
    fastify.get('/gz', (request, reply) => reply.type('text/plain').send(gzipped));
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    servers[name] = fastify;
  }
  try {
    const ask = (name, path, coding) =>
      fetchRaw(servers[name].server.address().port, path, { headers: { 'accept-encoding': coding } });
    for (const coding of ['br', 'gzip', 'deflate']) {
      const ours = await ask('ours', '/text', coding);
      assert.equal(ours.headers['content-encoding'], coding);
      assert.ok(decode(coding, ours.body).equals(Buffer.from(text)), `text under ${coding}`);
      const peer = await ask('peer', '/text', coding);
      assert.equal(decode(coding, peer.body), null, `the peer sends the text raw under ${coding}`);
    }
    // gzip data under gzip: as it is, as the peer sends it
    const same = await ask('ours', '/gz', 'gzip');
    assert.equal(same.headers['content-encoding'], 'gzip');
    assert.ok(same.body.equals(gzipped), 'gzip data passed through');
    assert.ok((await ask('peer', '/gz', 'gzip')).body.equals(gzipped));
    // gzip data when the client takes br: compressed with br (it decodes to the gzip file)
    const other = await ask('ours', '/gz', 'br');
    assert.equal(other.headers['content-encoding'], 'br');
    assert.ok(decode('br', other.body).equals(gzipped));
    assert.equal(decode('br', (await ask('peer', '/gz', 'br')).body), null, 'the peer labels gzip data br');
  } finally {
    await Promise.all(Object.values(servers).map((f) => f.close()));
  }
});

test('hostile input: malformed Accept-Encoding, clients that leave, stream bodies that fail; the process stays up', async () => {
  const cache = new ContentCache();
  const fastify = Fastify5({ logger: false });
  await fastify.register(fastifyCompress, { cache, syncThreshold: 0 });
  const page = Buffer.from('<li>unique</li>'.repeat(20000));
  let n = 0;
  fastify.get('/page', (request, reply) => reply.type('text/html').send(page));
  // a new body each time: the compression is in flight when the client leaves
  fastify.get('/unique', (request, reply) => reply.type('text/html').send(`${++n}`.padEnd(300000, '<b>x</b>')));
  fastify.get('/slow', (request, reply) => {
    let i = 0;
    const body = new Readable({
      read() {
        setTimeout(() => this.push(i++ < 50 ? Buffer.alloc(16384, 'slow ') : null), 5);
      },
    });
    reply.type('text/plain').send(body);
  });
  const peer = Fastify5({ logger: false });
  await peer.register(peerCompress);
  // stream bodies that fail, on both servers
  for (const app of [fastify, peer]) {
    app.get('/fails-late', (request, reply) => {
      let i = 0;
      const body = new Readable({
        read() {
          if (i++ < 3) this.push(Buffer.alloc(8192, 'data '));
          else this.destroy(new Error('the source failed'));
        },
      });
      reply.type('text/plain').send(body);
    });
    app.get('/fails-early', (request, reply) => {
      const body = new Readable({
        read() {
          this.destroy(new Error('the source failed at once'));
        },
      });
      reply.type('text/plain').send(body);
    });
  }
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  await peer.listen({ port: 0, host: '127.0.0.1' });
  const port = fastify.server.address().port;
  try {
    const random = mulberry32(SEED);
    for (let i = 0; i < 50; i++) {
      let header = '';
      const length = Math.floor(random() * 200);
      for (let j = 0; j < length; j++) header += String.fromCharCode(0x20 + Math.floor(random() * 95));
      const res = await fetchRaw(port, '/page', { headers: { 'accept-encoding': header } });
      assert.equal(res.status, 200, `${JSON.stringify(header)} (seed ${SEED})`);
      assert.ok(decode(res.headers['content-encoding'], res.body).equals(page), JSON.stringify(header));
    }
    // clients that leave mid-response: after the head, and while a new body is compressing
    for (const path of ['/slow', '/unique', '/page']) {
      await new Promise((resolve) => {
        const req = http.request({ host: '127.0.0.1', port, path, headers: { 'accept-encoding': 'br' }, agent: false });
        req.on('response', (res) => {
          res.once('data', () => req.destroy());
          res.on('error', () => {});
          res.on('close', resolve);
        });
        req.on('error', resolve);
        req.end();
        if (path === '/unique') setImmediate(() => req.destroy());
      });
    }
    // streams that fail (after some data, or before any): the peer's answers
    for (const path of ['/fails-late', '/fails-early']) {
      const got = await fetchRaw(port, path, { headers: { 'accept-encoding': 'gzip' } });
      const expected = await fetchRaw(peer.server.address().port, path, { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(got.status, expected.status, path);
      assert.deepEqual(comparable(got.headers), comparable(expected.headers), path);
      assert.ok(got.body.equals(expected.body), path);
    }
    // still answering, with no compression left in flight
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = await fetchRaw(port, '/page', { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(after.status, 200);
    assert.ok(zlib.gunzipSync(after.body).equals(page));
    assert.equal(cache.stats().inFlight, 0);
  } finally {
    await Promise.all([fastify.close(), peer.close()]);
  }
});

// Request payload decompression: seeded POST requests to both plugins.
const DECOMPRESS_OPTION_SETS = {
  defaults: {},
  'requestEncodings gzip': { requestEncodings: ['gzip'] },
  'forceRequestEncoding gzip': { forceRequestEncoding: 'gzip' },
  'error hooks': {
    onUnsupportedRequestEncoding: (encoding) => {
      const err = new Error(`we do not take ${encoding}`);
      err.statusCode = 400;
      err.code = 'X_UNSUPPORTED';
      return err;
    },
    onInvalidRequestPayload: (encoding) => ({ statusCode: 422, code: 'X_INVALID', message: `bad ${encoding}` }),
  },
};

function requestBody(random, encoding, body) {
  const corrupt = random() < 0.2;
  let bytes;
  if (encoding === 'gzip' || encoding === 'x-gzip') bytes = zlib.gzipSync(body);
  else if (encoding === 'deflate') bytes = zlib.deflateSync(body);
  else if (encoding === 'br') bytes = zlib.brotliCompressSync(body);
  else bytes = Buffer.from(body);
  if (corrupt) bytes = random() < 0.5 ? bytes.subarray(0, bytes.length >> 1) : Buffer.from('not compressed at all');
  return bytes;
}

for (const [set, options] of Object.entries(DECOMPRESS_OPTION_SETS)) {
  test(`request decompression answers as @fastify/compress 9.2.0: ${set} (seed ${SEED})`, async () => {
    const apps = [];
    for (const plugin of [peerCompress, fastifyCompress]) {
      const fastify = Fastify5({ bodyLimit: 64 * 1024 });
      await fastify.register(plugin, options);
      fastify.post('/', (request) => ({ got: request.body }));
      fastify.post('/off', { decompress: false }, (request) => ({ got: request.body }));
      fastify.post('/own', { decompress: { requestEncodings: ['deflate'] } }, (request) => ({ got: request.body }));
      await fastify.listen({ port: 0, host: '127.0.0.1' });
      apps.push(fastify);
    }
    try {
      const random = mulberry32(SEED + 7);
      const encodings = [undefined, 'gzip', 'deflate', 'br', 'identity', 'GZIP', 'x-unknown', 'gzip, deflate', ''];
      for (let n = 0; n < 60; n++) {
        const encoding = pick(random, encodings);
        const json = random() < 0.7;
        const text = json ? JSON.stringify({ a: 'x'.repeat(Math.floor(random() * 2000)) }) : 'plain text body';
        // some bodies inflate past bodyLimit: a decompression bomb is a 413, as in the peer
        const body = random() < 0.1 ? JSON.stringify({ a: 'y'.repeat(200000) }) : text;
        const bytes = requestBody(random, encoding, body);
        const headers = { 'content-type': json ? 'application/json' : 'text/plain' };
        if (encoding !== undefined) headers['content-encoding'] = encoding;
        const path = pick(random, ['/', '/', '/off', '/own']);
        const [expected, got] = await Promise.all(
          apps.map((a) => fetchRaw(a.server.address().port, path, { method: 'POST', headers, body: bytes })),
        );
        const where = `POST ${path} Content-Encoding ${encoding}, ${bytes.length} B (seed ${SEED}, request ${n})`;
        assert.equal(got.status, expected.status, where);
        assert.equal(got.body.toString(), expected.body.toString(), where);
        assert.equal(got.headers['content-type'], expected.headers['content-type'], where);
      }
    } finally {
      await Promise.all(apps.map((a) => a.close()));
    }
  });
}
