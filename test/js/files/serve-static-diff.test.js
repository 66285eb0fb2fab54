'use strict';
// Differential test: ssr-native's serveStatic against serve-static 2.2.1 (express.static in
// Express 5), both mounted in Express 5 over the same tree. Every combination of path x options
// x conditional/range headers x method must give the same status, headers (ETag values aside:
// ours are content CRC-32s, theirs size-mtime) and body. The ETag values are checked too: a file
// served from the cache carries W/"<len hex>-<crc32 hex>" of its bytes (CRC from zlib), a file
// streamed from disk the same tag as serve-static.
const test = require('node:test');
const assert = require('node:assert/strict');
const express = require('express');
const peerServeStatic = require('serve-static');
const serveStatic = require('../../../lib/express/serve-static');
const { makeTree, rawRequest, listenOn, contentTag } = require('../helpers/static-tree');

const big = Buffer.alloc(200 * 1024);
for (let i = 0; i < big.length; i++) big[i] = (i * 7 + (i >> 9)) & 0xff;

const FILES = {
  'a.txt': 'hello world\n',
  'empty.txt': '',
  'index.html': '<h1>root index</h1>\n',
  'big.bin': big,
  'data.json': '{"a":1}',
  'style.css': 'body { color: red }\n'.repeat(50),
  noext: 'no extension',
  'with space.txt': 'space',
  'ünï.txt': 'unicode',
  'page.html': '<p>page</p>',
  'sub/index.html': '<h1>sub index</h1>',
  'sub/page.html': '<p>sub page</p>',
  'sub/notes.txt': 'notes',
  'sub/deeper/file.js': 'console.log(1)\n',
  'noindex/file.txt': 'f',
  'dir.html/inner.txt': 'inner',
  '.hidden': 'secret dotfile',
  '.dir/file.txt': 'in dot dir',
  'sub/.env': 'KEY=1',
  'x.y.z': 'dots',
};

const PATHS = [
  '/',
  '/a.txt',
  '/empty.txt',
  '/index.html',
  '/big.bin',
  '/data.json',
  '/style.css',
  '/noext',
  '/with%20space.txt',
  '/%C3%BCn%C3%AF.txt',
  '/page',
  '/page.html',
  '/sub',
  '/sub/',
  '/sub/page',
  '/sub/page.html',
  '/sub/notes',
  '/sub/deeper/file.js',
  '/sub/deeper',
  '/sub/deeper/',
  '/noindex',
  '/noindex/',
  '/dir',
  '/dir.html',
  '/dir.html/',
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
];

const noop = () => {};

const OPTION_SETS = [
  {},
  { index: false },
  { index: ['missing.html', 'page.html'] },
  { index: 'notes.txt' },
  { extensions: ['html', 'txt'] },
  { extensions: 'js' },
  { dotfiles: 'allow' },
  { dotfiles: 'deny' },
  { fallthrough: false },
  { redirect: false },
  { redirect: false, fallthrough: false },
  { maxAge: '1d', immutable: true },
  { maxAge: 5000 },
  { maxage: 2 * 365 * 24 * 3600 * 1000 },
  { maxAge: 'nonsense' },
  { cacheControl: false, lastModified: false, etag: false, acceptRanges: false },
  { lastModified: false },
  {
    setHeaders(res, path, stat) {
      res.setHeader('X-Path-Tail', path.slice(-8));
      res.setHeader('X-Size', String(stat.size));
      res.setHeader('X-Mtime', String(stat.mtime.getTime()));
      res.setHeader('X-Is-File', String(stat.isFile()));
      if (path.endsWith('.txt')) res.setHeader('Cache-Control', 'no-store');
    },
  },
];

const DATE = 'Mon, 06 May 2024 07:08:09 GMT';
const HEADER_SETS = [
  {},
  { range: 'bytes=0-4' },
  { range: 'bytes=3-' },
  { range: 'bytes=-3' },
  { range: 'bytes=0-1,2-3' },
  { range: 'bytes=0-1,5-6' },
  { range: 'bytes=100000000-' },
  { range: 'bytes=abc' },
  { range: 'items=0-1' },
  { range: ' bytes=1-2' },
  { range: 'bytes=0-4', 'if-range': DATE },
  { range: 'bytes=0-4', 'if-range': 'Mon, 06 May 2024 07:08:08 GMT' },
  { range: 'bytes=0-4', 'if-range': '"not-the-tag"' },
  { range: 'bytes=0-4', 'if-range': '{etag}' },
  { range: 'bytes=0-4', 'if-range': 'not a date' },
  { 'if-match': '{etag-strong}' },
  { 'if-match': '"other", {etag}' },
  { 'if-match': '{etag}', 'if-unmodified-since': 'Sun, 05 May 2024 07:08:09 GMT' },
  { 'if-none-match': '{etag}' },
  { 'if-none-match': 'W/"other", {etag}' },
  { 'if-none-match': '"other"' },
  { 'if-none-match': '*' },
  { 'if-none-match': '{etag}', 'cache-control': 'no-cache' },
  { 'if-modified-since': DATE },
  { 'if-modified-since': 'Sun, 05 May 2024 07:08:09 GMT' },
  { 'if-modified-since': 'garbage' },
  { 'if-match': '{etag}' },
  { 'if-match': '"nope"' },
  { 'if-match': '*' },
  { 'if-unmodified-since': DATE },
  { 'if-unmodified-since': 'Sun, 05 May 2024 07:08:09 GMT' },
  { 'if-none-match': '{etag}', range: 'bytes=0-1' },
];

const IGNORED = new Set(['date', 'connection', 'keep-alive', 'etag']);

function describeResponse(r) {
  const headers = [];
  for (let i = 0; i < r.rawHeaders.length; i += 2) {
    const name = r.rawHeaders[i].toLowerCase();
    if (!IGNORED.has(name)) headers.push(`${name}: ${r.rawHeaders[i + 1]}`);
  }
  headers.push(`etag present: ${r.headers.etag !== undefined}`);
  return { status: r.status, headers, body: r.body.toString('latin1') };
}

function appFor(middleware) {
  const app = express();
  app.set('x-powered-by', false);
  app.use(middleware);
  app.use((req, res) => res.status(404).send('fell through'));
  app.use((err, req, res, next) => {
    res.status(err.status || 500);
    if (err.headers) res.set(err.headers);
    res.send(`error ${err.status} ${err.message} expose=${err.expose} code=${err.code}`);
  });
  return app;
}

async function startPair(tree, options, ourExtra = {}) {
  const peer = await listenOn(appFor(peerServeStatic(tree.root, options)));
  const oursMiddleware = serveStatic(tree.root, { ...options, ...ourExtra });
  const ours = await listenOn(appFor(oursMiddleware));
  return {
    peer,
    ours,
    maxFileSize: ourExtra.maxFileSize === undefined ? 4 << 20 : ourExtra.maxFileSize,
    close: async () => {
      oursMiddleware.close();
      await peer.close();
      await ours.close();
    },
  };
}

async function fill(headers, port, rawPath) {
  if (!Object.values(headers).some((v) => v.includes('{etag'))) return headers;
  const first = await rawRequest(port, rawPath);
  const tag = first.headers.etag || '"none"';
  const out = {};
  // {etag-strong}: the same tag without its W/ (a weak comparison must still match it)
  for (const [k, v] of Object.entries(headers))
    out[k] = v.replace('{etag}', tag).replace('{etag-strong}', tag.replace(/^W\//, ''));
  return out;
}

async function compare(pair, rawPath, { method = 'GET', headers = {} } = {}) {
  const theirs = await rawRequest(pair.peer.port, rawPath, {
    method,
    headers: await fill(headers, pair.peer.port, rawPath),
  });
  const mine = await rawRequest(pair.ours.port, rawPath, {
    method,
    headers: await fill(headers, pair.ours.port, rawPath),
  });
  const what = `${method} ${rawPath.slice(0, 80)} ${JSON.stringify(headers)}`;
  assert.deepEqual(describeResponse(mine), describeResponse(theirs), what);
  await checkTag(pair, rawPath, mine, theirs, method, what);
  return mine;
}

// The ETag's value: the content tag of the whole file's bytes when served from the cache, send's
// size-mtime tag (the same as serve-static's) when streamed. 206, 304 and HEAD answers carry the
// tag of the whole file: its bytes are fetched with a plain GET.
async function checkTag(pair, rawPath, mine, theirs, method, what) {
  const tag = mine.headers.etag;
  // (other statuses come from Express's error and fall-through handlers, with Express's tags)
  if (tag === undefined || ![200, 206, 304].includes(mine.status)) return;
  let body = mine.body;
  if (mine.status !== 200 || method !== 'GET') {
    const whole = await rawRequest(pair.ours.port, rawPath);
    assert.equal(whole.status, 200, what);
    assert.equal(whole.headers.etag, tag, `the same tag as a plain GET, ${what}`);
    body = whole.body;
  }
  if (body.length > pair.maxFileSize) assert.equal(tag, theirs.headers.etag, `streamed: send's tag, ${what}`);
  else assert.equal(tag, contentTag(body), `content tag of the bytes, ${what}`);
}

let tree;
test.before(() => {
  tree = makeTree(FILES);
});
test.after(() => tree.remove());

test('every path x option set x method matches serve-static 2.2.1', async () => {
  let count = 0;
  for (const options of OPTION_SETS) {
    const pair = await startPair(tree, options);
    try {
      for (const rawPath of PATHS) {
        for (const method of ['GET', 'HEAD', 'POST', 'OPTIONS']) {
          await compare(pair, rawPath, { method });
          count++;
        }
        // twice: the second GET is served from the memoised route
        await compare(pair, rawPath);
      }
    } finally {
      await pair.close();
    }
  }
  assert.ok(count > 3000);
});

test('conditional and range headers match serve-static on files, cached and streamed', async () => {
  const targets = ['/a.txt', '/empty.txt', '/big.bin', '/sub/', '/style.css', '/nope'];
  for (const [options, extra] of [
    [{}, {}],
    [{ acceptRanges: false }, {}],
    [{ etag: false }, {}],
    [{ lastModified: false }, {}],
    [{ fallthrough: false }, {}],
    [{}, { maxFileSize: 1024 }], // big.bin and style.css streamed from disk
  ]) {
    const pair = await startPair(tree, options, extra);
    try {
      for (const rawPath of targets) {
        for (const headers of HEADER_SETS) {
          for (const method of ['GET', 'HEAD']) await compare(pair, rawPath, { method, headers });
        }
      }
    } finally {
      await pair.close();
    }
  }
});

test('mounted under a path in Express 5: redirects keep the mount and the query', async () => {
  const peerApp = express();
  peerApp.use('/static', peerServeStatic(tree.root));
  const ours = serveStatic(tree.root);
  const ourApp = express();
  ourApp.use('/static', ours);
  const pair = { peer: await listenOn(peerApp), ours: await listenOn(ourApp) };
  try {
    for (const p of [
      '/static',
      '/static?a=1',
      '/static/',
      '/static/sub',
      '/static/sub?q=%20x',
      '/static/a.txt',
      '//static/sub',
      '/static/nope',
    ]) {
      await compare(pair, p);
    }
  } finally {
    ours.close();
    await pair.peer.close();
    await pair.ours.close();
  }
});

test('option errors are the same', () => {
  assert.throws(() => serveStatic(), { name: 'TypeError', message: 'root path required' });
  assert.throws(() => serveStatic(42), { name: 'TypeError', message: 'root path must be a string' });
  assert.throws(() => serveStatic('.', { setHeaders: 1 }), {
    name: 'TypeError',
    message: 'option setHeaders must be function',
  });
  // send validates these per request: the middleware throws then, as serve-static's does
  for (const [options, message] of [
    [{ dotfiles: 'maybe' }, 'dotfiles option must be "allow", "deny", or "ignore"'],
    [{ extensions: [1] }, 'extensions option must be array of strings or false'],
    [{ index: [{}] }, 'index option must be array of strings or false'],
  ]) {
    const peer = peerServeStatic(tree.root, options);
    const mine = serveStatic(tree.root, options);
    const req = { method: 'GET', url: '/a.txt', headers: {} };
    assert.throws(() => peer(req, {}, noop), { name: 'TypeError', message });
    assert.throws(() => mine(req, {}, noop), { name: 'TypeError', message });
    mine.close();
  }
});

test('random paths from hostile tokens match serve-static (seeded)', async () => {
  const tokens = [
    '..',
    '.',
    '%2e',
    '%2E%2e',
    '%2f',
    '%5c',
    '%5C',
    '/',
    '//',
    'a.txt',
    'sub',
    'page',
    'deeper',
    'index.html',
    '%00',
    '%',
    '%zz',
    '%C3%BC',
    '.hidden',
    '.dir',
    'file.js',
    'x.y.z',
    '~',
    '%20',
    '?',
    '?q=/..',
    '#',
    ';',
    '%3f',
    '%23',
    'noindex',
    'dir.html',
    '%252e',
    'A.TXT',
    '%u002e',
    '\\',
    '+',
  ];
  let seed = 0x5eed;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
  const pair = await startPair(tree, { extensions: ['html'], dotfiles: 'deny' });
  try {
    for (let i = 0; i < 600; i++) {
      let p = '/';
      const n = 1 + Math.floor(random() * 6);
      for (let j = 0; j < n; j++) p += tokens[Math.floor(random() * tokens.length)] + (random() < 0.5 ? '/' : '');
      p = p.replace(/\\/g, '%5C');
      await compare(pair, p);
    }
  } finally {
    await pair.close();
  }
});
