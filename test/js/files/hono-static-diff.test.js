'use strict';
// Differential test: ssr-native/hono's serveStatic and etag against @hono/node-server 2.1.9's
// serveStatic and hono 4.13.19's etag, on real node-server apps over the same tree: every path
// (traversal, NUL, encoded separators, dotfiles, long names) x option set x method x
// Accept-Encoding x conditional/range header gives the same status, headers and body; only the
// ETag value differs (ours: CRC-32 of the body, checked against zlib's; theirs: SHA-1). Range
// headers come from a seeded generator (seed printed).
const test = require('node:test');
const assert = require('node:assert/strict');
const zlib = require('node:zlib');
const { Hono } = require('hono');
const { etag: peerEtag } = require('hono/etag');
const { serve } = require('@hono/node-server');
const { serveStatic: peerServeStatic } = require('@hono/node-server/serve-static');
const ours = require('../../../lib/hono');
const { mulberry32 } = require('../helpers/seeded-random');
const { makeTree, rawRequest } = require('../helpers/static-tree');

const SEED = Number(process.env.SEED || 0x40e0);
const json = JSON.stringify({ items: Array.from({ length: 40 }, (_, i) => ({ i })) });
const FILES = {
  'a.txt': 'hello world\n',
  'empty.txt': '',
  'index.html': '<h1>root index</h1>\n',
  'data.json': json,
  'data.json.gz': zlib.gzipSync(json),
  'data.json.br': zlib.brotliCompressSync(json),
  'style.css': 'body { color: red }\n'.repeat(100),
  'style.css.zst': Buffer.from('pretend zstd'),
  noext: 'no extension',
  'with space.txt': 'space',
  'ünï.txt': 'unicode',
  'pct%25.txt': 'percent',
  'sub/index.html': '<h1>sub index</h1>',
  'sub/page.html': '<p>sub page</p>',
  'noindex/file.txt': 'f',
  '.hidden': 'secret dotfile',
  'x.mjs': 'export default 1',
};
const PATHS = [
  '/',
  '/a.txt',
  '/empty.txt',
  '/index.html',
  '/data.json',
  '/style.css',
  '/noext',
  '/with%20space.txt',
  '/%C3%BCn%C3%AF.txt',
  '/pct%25.txt',
  '/sub',
  '/sub/',
  '/sub/page.html',
  '/noindex',
  '/noindex/',
  '/nope',
  '/a.txt/',
  '/a.txt?x=1',
  '//a.txt',
  '/./a.txt',
  '/sub/../a.txt',
  '/%2e%2e/a.txt',
  '/..%2fa.txt',
  '/%5Ca.txt',
  '/sub%2fpage.html',
  '/%00',
  '/a.txt%00',
  '/%zz',
  '/%',
  '/.hidden',
  '/x.mjs',
  '/' + 'a'.repeat(300),
  '/' + 'a/'.repeat(3000),
  '/static/a.txt',
];
const OPTION_SETS = [
  {},
  { precompressed: true },
  { index: 'page.html' },
  { rewriteRequestPath: (p) => p.replace(/^\/static/, '') },
  { path: 'a.txt' },
  { allowPercentInPath: true },
];
const HEADER_SETS = [
  {},
  { 'accept-encoding': 'gzip, deflate, br, zstd' },
  { 'accept-encoding': 'gzip' },
  { 'accept-encoding': 'zstd' },
  { 'if-none-match': '{etag}' },
  { 'if-none-match': 'W/{etag}' },
  { 'if-none-match': '*' },
  { 'if-none-match': '"other"' },
  { range: 'bytes=0-3' },
  { range: 'bytes=-2' },
  { range: 'bytes=5-' },
  { range: 'bytes=999-' },
  { range: 'nonsense' },
];

function describe(r) {
  const headers = Object.entries(r.headers)
    .filter(([k]) => !['date', 'etag', 'connection', 'keep-alive'].includes(k))
    .sort();
  return { status: r.status, headers, body: r.body.toString('latin1'), tagged: r.headers.etag !== undefined };
}

async function start(serveStaticImpl, etagImpl, root, options, etagOptions) {
  const app = new Hono();
  if (etagImpl) app.use('*', etagImpl(etagOptions));
  app.use('*', serveStaticImpl({ root, ...options }));
  app.get('*', (c) => c.text('fallback ' + c.req.path, 404));
  const server = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return {
    port: server.address().port,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections?.();
        server.close(() => done());
      }),
  };
}

async function compare(pair, rawPath, method, headers) {
  const run = async (port) => {
    const h = { ...headers };
    if (h['if-none-match']) {
      const first = await rawRequest(port, rawPath);
      h['if-none-match'] = h['if-none-match'].replace('{etag}', (first.headers.etag || '"none"').replace(/^W\//, ''));
    }
    return rawRequest(port, rawPath, { method, headers: h });
  };
  const theirs = await run(pair.peer.port);
  const mine = await run(pair.ours.port);
  assert.deepEqual(describe(mine), describe(theirs), `${method} ${rawPath.slice(0, 60)} ${JSON.stringify(headers)}`);
  if (mine.status === 200 && method === 'GET' && mine.headers.etag && mine.body.length) {
    const crc = (zlib.crc32(mine.body) >>> 0).toString(16).padStart(8, '0');
    assert.equal(mine.headers.etag.replace(/^W\//, ''), `"${mine.body.length.toString(16)}-${crc}"`, rawPath);
  }
}

let tree;
test.before(() => {
  tree = makeTree(FILES);
});
test.after(() => tree.remove());

test(`serveStatic + etag match @hono/node-server 2.1.9 + hono/etag (seed ${SEED})`, async () => {
  const random = mulberry32(SEED);
  for (const options of OPTION_SETS) {
    for (const withEtag of [false, true]) {
      const pair = {
        peer: await start(peerServeStatic, withEtag && peerEtag, tree.root, options),
        ours: await start(ours.serveStatic, withEtag && ours.etag, tree.root, options),
      };
      try {
        for (const rawPath of PATHS) {
          for (const method of ['GET', 'HEAD', 'POST']) await compare(pair, rawPath, method, {});
          for (const headers of HEADER_SETS) await compare(pair, rawPath, 'GET', headers);
          const a = Math.floor(random() * 40);
          await compare(pair, rawPath, 'GET', { range: `bytes=${a}-${a + Math.floor(random() * 40)}` });
          await compare(pair, rawPath, 'GET', {}); // again: the route memo may answer
        }
      } finally {
        await pair.peer.close();
        await pair.ours.close();
      }
    }
  }
});

test('mimes: its entries first, the default table for the rest (hono serveStatic; node-server 2.1.9 ignores it)', async () => {
  const server = await start(ours.serveStatic, undefined, tree.root, { mimes: { txt: 'text/x-mine' } });
  try {
    assert.equal((await rawRequest(server.port, '/a.txt')).headers['content-type'], 'text/x-mine');
    assert.equal((await rawRequest(server.port, '/index.html')).headers['content-type'], 'text/html; charset=utf-8');
  } finally {
    await server.close();
  }
});

test('etag: weak tags and retainedHeaders as hono/etag', async () => {
  for (const etagOptions of [{ weak: true }, { retainedHeaders: ['x-keep'] }]) {
    const build = async (impl) => {
      const app = new Hono();
      app.use('*', impl(etagOptions));
      app.get('/page', (c) => {
        c.header('x-keep', '1');
        c.header('cache-control', 'max-age=60');
        return c.html('<p>' + 'x'.repeat(1000) + '</p>');
      });
      const server = await new Promise((resolve) => {
        const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
      });
      return {
        port: server.address().port,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      };
    };
    const pair = { peer: await build(peerEtag), ours: await build(ours.etag) };
    try {
      for (const headers of [{}, { 'if-none-match': '{etag}' }, { 'if-none-match': '*' }])
        await compare(pair, '/page', 'GET', headers);
      const r = await rawRequest(pair.ours.port, '/page');
      assert.equal(/^W\//.test(r.headers.etag), etagOptions.weak === true);
    } finally {
      await pair.peer.close();
      await pair.ours.close();
    }
  }
});

test('a cached file is written from the same memory on every request (no per-request copy)', async () => {
  const http = require('node:http');
  const written = [];
  const end = http.ServerResponse.prototype.end;
  http.ServerResponse.prototype.end = function (chunk, ...rest) {
    if (chunk instanceof Uint8Array && chunk.length) written.push(chunk);
    return end.call(this, chunk, ...rest);
  };
  const server = await start(ours.serveStatic, undefined, tree.root, {});
  try {
    for (let i = 0; i < 3; i++) assert.equal((await rawRequest(server.port, '/data.json')).body.toString(), json);
  } finally {
    http.ServerResponse.prototype.end = end;
    await server.close();
  }
  assert.equal(written.length, 3);
  for (const chunk of written.slice(1)) {
    assert.equal(chunk.buffer, written[0].buffer);
    assert.equal(chunk.byteOffset, written[0].byteOffset);
  }
});
