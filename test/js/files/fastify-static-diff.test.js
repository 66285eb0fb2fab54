'use strict';
// Differential test: ssr-native/fastify's fastifyStatic against @fastify/static 10.1.11
// (@fastify/send 4) on Fastify 5, and ours on Fastify 4 against it on Fastify 5, over the same tree and the path set of the
// Express and Koa differential tests (traversal, NUL, encoded separators, dotfiles, long names).
// Every path x option set x method x Accept-Encoding x conditional/range header must give the
// same status, headers and body. Intended differences, normalised here and listed in
// docs/fastify.md: the ETag value (ours is the CRC-32 of the content, checked against zlib's),
// and .js files typed text/javascript (mime-db today; @fastify/send's mime 3 says
// application/javascript). Range headers are drawn from a seeded generator (seed printed).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const peerStatic = require('@fastify/static');
const ours = require('../../../lib/fastify');
const { mulberry32 } = require('../helpers/seeded-random');
const { makeTree, rawRequest, contentTag } = require('../helpers/static-tree');

const FASTIFIES = { 'fastify 5': require('fastify'), 'fastify 4': require('fastify4') };
const SEED = Number(process.env.SEED || 0x5eed25);

const big = Buffer.alloc(200 * 1024);
for (let i = 0; i < big.length; i++) big[i] = (i * 7 + (i >> 9)) & 0xff;
const json = JSON.stringify({ items: Array.from({ length: 40 }, (_, i) => ({ i, name: `item ${i}` })) });

const FILES = {
  'a.txt': 'hello world\n',
  'empty.txt': '',
  'index.html': '<h1>root index</h1>\n',
  'big.bin': big,
  'data.json': json,
  'data.json.gz': zlib.gzipSync(json),
  'data.json.br': zlib.brotliCompressSync(json),
  'gz-only.txt.gz': zlib.gzipSync('only the gzip sibling exists'),
  'style.css': 'body { color: red }\n'.repeat(100),
  'style.css.gz': zlib.gzipSync('body { color: red }\n'.repeat(100)),
  noext: 'no extension',
  'with space.txt': 'space',
  'ünï.txt': 'unicode',
  'hash#name.txt': 'hash',
  'page.html': '<p>page</p>',
  'page.txt': 'page as text',
  'sub/index.html': '<h1>sub index</h1>',
  'sub/index.html.gz': zlib.gzipSync('<h1>sub index</h1>'),
  'sub/page.html': '<p>sub page</p>',
  'sub/notes.txt': 'notes',
  'sub/deeper/file.js': 'console.log(1)\n',
  'noindex/file.txt': 'f',
  'dir.html/inner.txt': 'inner',
  'idxdir/index.html/inner.txt': 'an index.html that is a directory',
  '.hidden': 'secret dotfile',
  '.dir/file.txt': 'in dot dir',
  'sub/.env': 'KEY=1',
  'x.y.z': 'dots',
};
const SECOND_ROOT = { 'only-second.txt': 'from the second root', 'a.txt': 'shadowed by the first root' };

const PATHS = [
  '/',
  '/a.txt',
  '/empty.txt',
  '/index.html',
  '/big.bin',
  '/data.json',
  '/data.json.gz',
  '/gz-only.txt',
  '/style.css',
  '/noext',
  '/with%20space.txt',
  '/%C3%BCn%C3%AF.txt',
  '/hash%23name.txt',
  '/page',
  '/page.html',
  '/sub',
  '/sub/',
  '/sub/page',
  '/sub/notes',
  '/sub/deeper/file.js',
  '/sub/deeper',
  '/sub/deeper/',
  '/noindex',
  '/noindex/',
  '/dir.html',
  '/dir.html/',
  '/idxdir',
  '/idxdir/',
  '/link.txt',
  '/only-second.txt',
  '/nope',
  '/nope/',
  '/a.txt/',
  '/a.txt?x=1&y=2',
  '//a.txt',
  '///sub',
  '/./a.txt',
  '/sub/../a.txt',
  '/%2e%2e/a.txt',
  '/../a.txt',
  '/sub/%2e%2e/%2e%2e/etc/passwd',
  '/..%2fetc%2fpasswd',
  '/%2E%2E%5Ca.txt',
  '/sub%2fpage.html',
  '/sub%5cpage.html',
  '/%2fetc%2fpasswd',
  '/%00',
  '/a.txt%00.html',
  '/%zz',
  '/%E0%A4%A',
  '/%',
  '/.hidden',
  '/.dir/file.txt',
  '/.dir/',
  '/sub/.env',
  '/sub/%2eenv',
  '/%2ehidden',
  '/x.y.z',
  '/' + 'a'.repeat(300),
  '/' + 'a/'.repeat(3000),
  '/sub/deeper/file.js/',
  '/A.TXT',
  '/static/a.txt',
  '/static',
  '/static/',
  '/static/sub/',
];

const OPTION_SETS = [
  {},
  { dotfiles: 'ignore' },
  { dotfiles: 'deny' },
  { index: false },
  { index: ['page.html', 'index.html'] },
  { extensions: ['html', 'txt'] },
  { preCompressed: true },
  { redirect: true },
  { maxAge: 5000, immutable: true },
  { maxAge: '2h' },
  { cacheControl: false, lastModified: false, acceptRanges: false },
  { etag: false },
  { prefix: '/static' },
  { prefix: '/static/', redirect: true },
  { rootArray: true },
  { allowedPath: (pathname) => !pathname.includes('notes') },
  {
    setHeaders(res, filePath, stats) {
      res.setHeader('X-Path-Tail', filePath.slice(-8));
      res.setHeader('X-Size', String(stats.size));
      res.setHeader('X-Is-File', String(stats.isFile()));
    },
  },
];

const DATE = 'Mon, 06 May 2024 07:08:09 GMT';
const ACCEPT_ENCODINGS = [undefined, 'gzip, deflate, br, zstd', 'gzip', 'br;q=0, gzip', '*', 'identity'];
const CONDITIONALS = [
  {},
  { 'if-none-match': '{etag}' },
  { 'if-none-match': 'W/"other", {etag}' },
  { 'if-none-match': '*' },
  { 'if-none-match': '{etag}', 'cache-control': 'no-cache' },
  { 'if-modified-since': DATE },
  { 'if-modified-since': 'Sun, 05 May 2024 07:08:09 GMT' },
  { 'if-match': '"nope"' },
  { 'if-match': '{etag}' },
  { 'if-unmodified-since': 'Sun, 05 May 2024 07:08:09 GMT' },
  { range: 'bytes=0-4' },
  { range: 'bytes=-3' },
  { range: 'bytes=0-1,5-6' },
  { range: 'bytes=99999-' },
  { range: 'bytes=x' },
  { range: 'bytes=2-', 'if-range': '{etag}' },
  { range: 'bytes=2-', 'if-range': '"stale"' },
  { range: 'bytes=2-', 'if-range': 'not a date' },
  { range: 'bytes=2-', 'if-range': DATE },
  { range: 'bytes=2-', 'if-range': '' },
  { 'if-match': '{etag-strong}' },
  { 'if-match': '"other", {etag}' },
  { 'if-match': '{etag}', 'if-unmodified-since': 'Sun, 05 May 2024 07:08:09 GMT' },
];

const IGNORED = new Set(['date', 'connection', 'keep-alive', 'etag']);

function describeResponse(r) {
  const headers = [];
  for (let i = 0; i < r.rawHeaders.length; i += 2) {
    const name = r.rawHeaders[i].toLowerCase();
    let value = r.rawHeaders[i + 1];
    if (name === 'content-type') value = value.replace('application/javascript', 'text/javascript');
    if (!IGNORED.has(name)) headers.push(`${name}: ${value}`);
  }
  headers.sort();
  headers.push(`etag present: ${r.headers.etag !== undefined}`);
  return { status: r.status, headers, body: r.body.toString('latin1') };
}

async function appWith(Fastify, plugin, root, options) {
  const app = Fastify({ logger: false });
  const { rootArray, ...rest } = options;
  await app.register(plugin, { root: rootArray ? [root, root + '-2'] : root, ...rest });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

// @fastify/static 10 needs Fastify 5: on Fastify 4, ours is held against it on Fastify 5
async function startPair(Fastify, root, options) {
  const peer = await appWith(FASTIFIES['fastify 5'], peerStatic, root, options);
  const mine = await appWith(Fastify, ours.fastifyStatic, root, options);
  return {
    peer: peer.server.address().port,
    ours: mine.server.address().port,
    close: () => Promise.all([peer.close(), mine.close()]),
    maxFileSize: options.maxFileSize,
  };
}

async function fill(headers, port, rawPath, accept) {
  if (!Object.values(headers).some((v) => v.includes('{etag'))) return headers;
  const first = await rawRequest(port, rawPath, { headers: accept === undefined ? {} : { 'accept-encoding': accept } });
  const tag = first.headers.etag || '"none"';
  const out = {};
  // {etag-strong}: the same tag without its W/ (a weak comparison must still match it)
  for (const [k, v] of Object.entries(headers))
    out[k] = v.replace('{etag}', tag).replace('{etag-strong}', tag.replace(/^W\//, ''));
  return out;
}

async function compare(pair, rawPath, { method = 'GET', headers = {}, accept } = {}) {
  const send = async (port) => {
    const h = await fill(headers, port, rawPath, accept);
    if (accept !== undefined) h['accept-encoding'] = accept;
    return rawRequest(port, rawPath, { method, headers: h }).catch((err) => ({
      status: `no response: ${err.code}`,
      headers: {},
      rawHeaders: [],
      body: Buffer.alloc(0),
    }));
  };
  const theirs = await send(pair.peer);
  const mine = await send(pair.ours);
  const where = `${method} ${rawPath.slice(0, 80)} accept-encoding=${accept} ${JSON.stringify(headers)}`;
  assert.deepEqual(describeResponse(mine), describeResponse(theirs), where);
  if (mine.status === 200 && method === 'GET' && mine.headers.etag && mine.headers['accept-ranges'] !== undefined) {
    // past maxFileSize the file is streamed from disk, under @fastify/send's own stat tag
    if (mine.body.length > pair.maxFileSize) assert.equal(mine.headers.etag, theirs.headers.etag, where);
    else assert.equal(mine.headers.etag, contentTag(mine.body), where);
  }
}

async function eachConcurrently(items, task, width = 8) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]);
  };
  await Promise.all(Array.from({ length: width }, worker));
}

let tree;
test.before(() => {
  tree = makeTree(FILES);
  fs.symlinkSync('a.txt', path.join(tree.root, 'link.txt'));
  const second = tree.root + '-2';
  for (const [name, body] of Object.entries(SECOND_ROOT)) {
    fs.mkdirSync(second, { recursive: true });
    fs.writeFileSync(path.join(second, name), body);
  }
});
test.after(() => {
  tree.remove();
  fs.rmSync(tree.root + '-2', { recursive: true, force: true });
});

for (const [label, Fastify] of Object.entries(FASTIFIES)) {
  test(`${label}: every path x option set x GET/HEAD matches @fastify/static 10.1.11`, async () => {
    for (const options of OPTION_SETS) {
      const pair = await startPair(Fastify, tree.root, options);
      try {
        await eachConcurrently(PATHS, async (rawPath) => {
          for (const method of ['GET', 'HEAD']) await compare(pair, rawPath, { method });
          // twice: the second answer may come from the route memo
          await compare(pair, rawPath);
        });
      } finally {
        await pair.close();
      }
    }
  });

  test(`${label}: Accept-Encoding x conditional and range headers match @fastify/static (seed ${SEED})`, async () => {
    const random = mulberry32(SEED);
    const files = ['/a.txt', '/big.bin', '/data.json', '/style.css', '/sub/', '/gz-only.txt', '/empty.txt'];
    // lastModified: false: an If-Range date against a response without a date;
    // maxFileSize: 8 (ours only): files past 8 bytes are streamed from disk, with the same answers
    for (const options of [{}, { preCompressed: true }, { lastModified: false }, { maxFileSize: 8 }]) {
      const pair = await startPair(Fastify, tree.root, options);
      try {
        for (const rawPath of files) {
          for (const accept of ACCEPT_ENCODINGS) {
            for (const headers of CONDITIONALS) await compare(pair, rawPath, { accept, headers });
          }
          for (let i = 0; i < 20; i++) {
            const a = Math.floor(random() * 300);
            const b = Math.floor(random() * 300);
            const spec = random() < 0.2 ? `-${a}` : random() < 0.2 ? `${a}-` : `${a}-${b}`;
            await compare(pair, rawPath, { headers: { range: `bytes=${spec}${random() < 0.2 ? ',' + b + '-' : ''}` } });
          }
        }
      } finally {
        await pair.close();
      }
    }
  });
}

test('reply.sendFile and reply.download answer as @fastify/static does', async () => {
  const Fastify = FASTIFIES['fastify 5'];
  const build = async (plugin) => {
    const app = Fastify();
    await app.register(plugin, { root: tree.root, serve: false });
    app.get('/send/*', (req, reply) => reply.sendFile(req.params['*']));
    app.get('/maxage', (req, reply) => reply.sendFile('a.txt', { maxAge: 60000 }));
    app.get('/other-root', (req, reply) => reply.sendFile('only-second.txt', tree.root + '-2'));
    app.get('/download', (req, reply) => reply.download('a.txt'));
    app.get('/download-as', (req, reply) => reply.download('ünï.txt', 'rapport "final" €.txt'));
    await app.listen({ port: 0, host: '127.0.0.1' });
    return app;
  };
  const peer = await build(peerStatic);
  const mine = await build(ours.fastifyStatic);
  try {
    const pair = { peer: peer.server.address().port, ours: mine.server.address().port };
    for (const p of [
      '/send/a.txt',
      '/send/sub/page.html',
      '/send/nope',
      '/send/.hidden',
      '/maxage',
      '/other-root',
      '/download',
      '/download-as',
    ]) {
      await compare(pair, p);
    }
  } finally {
    await Promise.all([peer.close(), mine.close()]);
  }
});

test('the list option is refused, naming it', async () => {
  const app = require('fastify')();
  await assert.rejects(app.register(ours.fastifyStatic, { root: tree.root, list: true }).ready(), /"list" option/);
});
