'use strict';
// Which of compression(options)'s two paths a response takes (lib/express/compression-stage.js,
// compression-stream.js): a body the whole-body stage compresses never meets the streaming path
// (the methods below the held response stay as they were), anything else goes through it, and a
// whole body left uncompressed goes out framed as compression 1.8 frames it (its head written
// before the body: chunked on HTTP/1.1, no Content-Length). Seeded cases; a failure prints the
// seed and the case.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const peerCompression = require('compression');
const compression = require('../../../lib/express/compression');
const { ContentCache } = require('../../../lib/compression/content-cache');
const { HeldResponse } = require('../../../lib/http/held-response');
const { mulberry32 } = require('../helpers/seeded-random');
const { pick, makeText, decode } = require('../helpers/compression-diff');

const SIZES = [0, 5, 500, 1023, 1024, 2000, 20000];
const TYPES = ['text/html; charset=utf-8', 'application/json', 'image/png', undefined];
const ACCEPTS = [undefined, 'identity', 'gzip', 'br', 'gzip, deflate, br, zstd'];
const WRITERS = ['end', 'end', 'write', 'writeHead'];
const WORDS = () => ['<p>', 'ssr', 'native', '</p>', '\n'];

function makeCase(random, id) {
  return {
    id,
    size: pick(random, SIZES),
    type: pick(random, TYPES),
    accept: pick(random, ACCEPTS),
    writer: pick(random, WRITERS),
    noTransform: random() < 0.15,
  };
}

function bodyOf(c) {
  return makeText(mulberry32(c.id + 1), c.size, { words: WORDS });
}

// The route: the body handed whole to end(), or started by write() or an explicit writeHead.
function respond(res, c) {
  if (c.type) res.setHeader('Content-Type', c.type);
  if (c.noTransform) res.setHeader('Cache-Control', 'no-transform');
  const body = bodyOf(c);
  if (c.writer === 'write') {
    res.write(body.subarray(0, c.size >> 1));
    res.end(body.subarray(c.size >> 1));
  } else if (c.writer === 'writeHead') {
    res.writeHead(200);
    res.end(body);
  } else res.end(body);
}

function serve(middleware, onCase) {
  const server = http.createServer((req, res) => {
    const c = JSON.parse(decodeURIComponent(req.url.slice(1)));
    middleware(req, res, () => {
      if (onCase) onCase(req, res, c);
      respond(res, c);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function fetch(server, agent, c) {
  return new Promise((resolve, reject) => {
    const headers = c.accept === undefined ? {} : { 'accept-encoding': c.accept };
    const { port } = server.address();
    const path = `/${encodeURIComponent(JSON.stringify(c))}`;
    http
      .get({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

const close = (server) => new Promise((resolve) => server.close(resolve));

test('a body the stage compresses whole never meets the streaming path; others do', async () => {
  const seed = 0xc57a9e;
  const random = mulberry32(seed);
  const wrapped = new Map(); // case id -> whether the methods below the held response changed
  const server = await serve(compression({ cache: new ContentCache() }), (req, res, c) => {
    const below = HeldResponse.on(res).below();
    const before = [below.write, below.end, below.writeHead];
    res.on('finish', () => {
      const after = [below.write, below.end, below.writeHead];
      wrapped.set(
        c.id,
        after.some((method, i) => method !== before[i]),
      );
    });
  });
  const agent = new http.Agent({ keepAlive: true });
  const seen = { whole: 0, other: 0 };
  try {
    for (let id = 0; id < 300; id++) {
      const c = makeCase(random, id);
      const why = `seed ${seed}, case ${JSON.stringify(c)}`;
      const got = await fetch(server, agent, c);
      assert.ok(decode(got.headers['content-encoding'], got.body).equals(bodyOf(c)), why);
      while (!wrapped.has(id)) await new Promise(setImmediate);
      const compressedWhole = c.writer === 'end' && got.headers['content-encoding'] !== undefined;
      assert.equal(wrapped.get(id), !compressedWhole, why);
      seen[compressedWhole ? 'whole' : 'other']++;
    }
  } finally {
    agent.destroy();
    await close(server);
  }
  assert.ok(seen.whole >= 8 && seen.other >= 8, JSON.stringify(seen));
});

test('a whole body left uncompressed is framed as compression 1.8 frames it', async () => {
  const seed = 0xf2a3e;
  const random = mulberry32(seed);
  const [ours, theirs] = await Promise.all([
    serve(compression({ cache: new ContentCache() })),
    serve(peerCompression()),
  ]);
  const agent = new http.Agent({ keepAlive: true });
  let uncompressed = 0;
  try {
    for (let id = 0; id < 120; id++) {
      const c = { ...makeCase(random, id), writer: 'end' };
      const why = `seed ${seed}, case ${JSON.stringify(c)}`;
      const expected = await fetch(theirs, agent, c);
      const got = await fetch(ours, agent, c);
      assert.equal(got.headers['content-encoding'], expected.headers['content-encoding'], why);
      if (expected.headers['content-encoding'] !== undefined) continue; // ours states a Content-Length there
      uncompressed++;
      assert.equal(got.headers['transfer-encoding'], expected.headers['transfer-encoding'], why);
      assert.equal(got.headers['content-length'], expected.headers['content-length'], why);
      assert.ok(got.body.equals(expected.body), why);
    }
  } finally {
    agent.destroy();
    await Promise.all([close(ours), close(theirs)]);
  }
  assert.ok(uncompressed > 20, `${uncompressed} uncompressed cases`);
});
