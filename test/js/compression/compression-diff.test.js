'use strict';
// Differential test: ssr-native/compression against compression 1.8.2, both mounted in the same
// framework (Express 4, 5.2, 5.3 and plain node:http) in front of the same routes. Seeded cases
// vary the body (HTML, JSON, binary; 0 bytes to 300 KB), the Content-Type, status, method,
// Accept-Encoding (browsers' headers, q-values, `*`, identity, malformed ones), Cache-Control
// no-transform, an existing Content-Encoding or Vary, and how the body is written (res.send,
// res.json, res.end, writes then end, writeHead then end). Each case is asked of ours twice (a
// miss, then a content-cache hit) and must give the peer's status, Content-Encoding, Vary and
// every other header, and a decoded body byte-identical to the peer's decoded body.
// The one intended difference: a body given whole goes out with a Content-Length (of the
// compressed bytes) where the peer sends Transfer-Encoding: chunked; the test checks that
// Content-Length against the bytes received, and the compressed size against the peer's.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const peerCompression = require('compression');
const compression = require('../../../lib/express/compression');
const { ContentCache } = require('../../../lib/compression/content-cache');
const { etag } = require('../../../lib/etag');
const { mulberry32 } = require('../helpers/seeded-random');
const { pick, makeText, decode, comparable } = require('../helpers/compression-diff');

const SEED = Number(process.env.COMPRESSION_DIFF_SEED || 0x22c0);
const CASES = Number(process.env.COMPRESSION_DIFF_CASES || 160);

const ACCEPT_ENCODINGS = [
  undefined,
  '',
  'gzip, deflate, br, zstd',
  'gzip, deflate, br',
  'gzip, deflate',
  'gzip',
  'br',
  'deflate',
  'identity',
  'identity;q=0',
  '*',
  '*;q=0',
  'gzip;q=0, *',
  'br;q=0, gzip;q=0',
  'gzip;q=0.5, deflate;q=0.5',
  'deflate, gzip',
  'deflate;q=1, br;q=0.9',
  'BR',
  'GZip',
  'x-gzip',
  'gzip;q=abc',
  'br;q=',
  ' , ,',
  ';q=1',
  'zstd',
  'zstd, br;q=0.5',
  'gzip;q=0.001, identity;q=0.002',
  'compress, gzip',
  'br;level=5, gzip',
  'gzip, deflate, br, zstd, ' + 'x, '.repeat(200),
  'gzip;q=1.5, br',
  'identity, *;q=0',
  'gzip ; q=0.8 , br ; q=0.9',
];
const TYPES = [
  'text/html; charset=utf-8',
  'application/json',
  'text/plain',
  'image/png',
  'application/octet-stream',
  'application/vnd.api+json',
  'text/css',
  'application/javascript',
  'image/svg+xml',
  'x-unknown/thing',
  undefined,
];
const SIZES = [0, 5, 1023, 1024, 1025, 2000, 4096, 4097, 20000, 75000, 300000];
const STATUSES = [200, 200, 200, 201, 204, 304, 404, 500];
const METHODS = ['GET', 'GET', 'GET', 'HEAD', 'POST'];
const WRITERS = ['send', 'send', 'json', 'end', 'end-string', 'writes', 'writeHead'];

// HTML-like text with repeats (compressible) and some randomness (not trivially so).

// The vocabulary of this suite's bodies (a number drawn from the body's generator among them).
const TEXT_WORDS = () => ['<div class="row">', 'hello', 'world', '</div>', '<span>', 'ssr', 'native', '\n', 'é', '€'];
function bodyText(random, size) {
  return makeText(random, size, { words: TEXT_WORDS }).toString('latin1');
}

function makeCase(random, id) {
  const size = pick(random, SIZES);
  const binary = random() < 0.2;
  const body = binary
    ? Buffer.from(Array.from({ length: size }, () => Math.floor(random() * 256)))
    : bodyText(random, size);
  return {
    id,
    size,
    body,
    type: pick(random, TYPES),
    status: pick(random, STATUSES),
    method: pick(random, METHODS),
    acceptEncoding: pick(random, ACCEPT_ENCODINGS),
    writer: pick(random, WRITERS),
    noTransform: random() < 0.08,
    contentEncoding: random() < 0.05 ? 'x-custom' : undefined,
    vary: random() < 0.15 ? pick(random, ['Origin', 'accept-encoding', '*', 'Origin, Cookie']) : undefined,
    ourTag: random() < 0.3,
    setLength: random() < 0.5,
  };
}

const random = mulberry32(SEED);
const cases = Array.from({ length: CASES }, (_, id) => makeCase(random, id));

// The route, written against node:http's API so the same code serves every framework.
function respond(res, c, express) {
  if (c.noTransform) res.setHeader('Cache-Control', 'public, no-transform');
  if (c.contentEncoding) res.setHeader('Content-Encoding', c.contentEncoding);
  if (c.vary) res.setHeader('Vary', c.vary);
  const bytes = Buffer.isBuffer(c.body) ? c.body : Buffer.from(c.body, 'latin1');
  if (c.ourTag) res.setHeader('ETag', etag(bytes));
  const type = c.type;
  if (express && (c.writer === 'send' || c.writer === 'json')) {
    res.status(c.status);
    if (type) res.type(type);
    if (c.writer === 'json') res.json({ body: bytes.toString('latin1') });
    else res.send(bytes);
    return;
  }
  res.statusCode = c.status;
  if (type) res.setHeader('Content-Type', type);
  switch (c.writer) {
    case 'end-string':
      res.end(bytes.toString('latin1'), 'latin1');
      return;
    case 'writes': {
      const third = Math.ceil(bytes.length / 3);
      res.write(bytes.subarray(0, third));
      res.write(bytes.subarray(third, 2 * third).toString('latin1'), 'latin1');
      res.end(bytes.subarray(2 * third));
      return;
    }
    case 'writeHead':
      res.writeHead(c.status, { 'X-Extra': 'yes' });
      res.end(bytes);
      return;
    default:
      if (c.setLength) res.setHeader('Content-Length', bytes.length);
      res.end(bytes);
  }
}

// A 204/304 or HEAD answer has no body to decode, whatever its Content-Encoding says.

function fetchRaw(port, c) {
  return new Promise((resolve, reject) => {
    const headers = {};
    if (c.acceptEncoding !== undefined) headers['accept-encoding'] = c.acceptEncoding;
    const req = http.request(
      { host: '127.0.0.1', port, path: `/case/${c.id}`, method: c.method, headers, agent: false },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(5000, () =>
      req.destroy(new Error(`no answer in 5 s: case ${c.id} ${JSON.stringify({ ...c, body: c.size })}`)),
    );
    req.end();
  });
}

function makeApps(kind) {
  const ourCache = new ContentCache();
  const ours = compression({ cache: ourCache });
  const theirs = peerCompression();
  const caseOf = (url) => cases[Number(/^\/case\/(\d+)$/.exec(url)[1])];
  if (kind === 'http') {
    const wrap = (middleware) =>
      http.createServer((req, res) => middleware(req, res, () => respond(res, caseOf(req.url), false)));
    return { ours: wrap(ours), theirs: wrap(theirs), ourCache };
  }
  const express = require(kind);
  const wrap = (middleware) => {
    const app = express();
    app.use(middleware);
    app.all('/case/:id', (req, res) => respond(res, caseOf(req.url), true));
    return http.createServer(app);
  };
  return { ours: wrap(ours), theirs: wrap(theirs), ourCache };
}

function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

for (const kind of ['express4', 'express52', 'express53', 'http']) {
  test(`same responses as compression 1.8.2 on ${kind} (seed ${SEED}, ${CASES} cases)`, async () => {
    const { ours, theirs, ourCache } = makeApps(kind);
    const [ourPort, theirPort] = await Promise.all([listen(ours), listen(theirs)]);
    try {
      for (const c of cases) {
        const expected = await fetchRaw(theirPort, c);
        for (const round of ['miss', 'hit']) {
          const got = await fetchRaw(ourPort, c);
          const where = `case ${JSON.stringify({ ...c, body: `<${c.size} bytes>` })} (${round}, seed ${SEED})`;
          assert.equal(got.status, expected.status, where);
          assert.deepEqual(comparable(got.headers), comparable(expected.headers), where);
          const decoded = decode(got.headers['content-encoding'], got.body);
          const peerDecoded = decode(expected.headers['content-encoding'], expected.body);
          assert.ok(decoded.equals(peerDecoded), `decoded bodies differ: ${where}`);
          if (got.headers['content-length'] !== undefined) {
            const bodiless = c.method === 'HEAD' || got.status === 204 || got.status === 304;
            if (!bodiless) assert.equal(Number(got.headers['content-length']), got.body.length, where);
          }
          if (expected.headers['content-length'] !== undefined) {
            assert.equal(got.headers['content-length'], expected.headers['content-length'], where);
          }
          const encoding = got.headers['content-encoding'];
          if (encoding !== undefined && encoding !== 'x-custom') {
            // no larger than the peer's output (+2%, and a few header bytes for tiny bodies)
            assert.ok(
              got.body.length <= expected.body.length * 1.02 + 16,
              `ours ${got.body.length} B, peer ${expected.body.length} B: ${where}`,
            );
          }
        }
      }
      const stats = ourCache.stats();
      assert.ok(stats.hits > 0 && stats.misses > 0, JSON.stringify(stats));
    } finally {
      await Promise.all([new Promise((r) => ours.close(r)), new Promise((r) => theirs.close(r))]);
    }
  });
}
