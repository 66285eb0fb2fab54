'use strict';
// Differential test: ssr-native/koa serve() + etag() + conditional() against koa-static 5.0.0
// (koa-send 5.0.1) + koa-etag 5 + koa-conditional-get 3, on Koa 2 and Koa 3, over the same tree;
// and send() against koa-send 5.0.1 and its successor @koa/send 6.0.0 (with @koa/etag 5.0.2, the
// successor koa-etag's deprecation notice names), called from a route as apps call them.
// Every path x option set x method x Accept-Encoding x conditional header must give the same
// status, headers and body; only the ETag value may differ (ours: W/"<len>-<crc32 of content>",
// theirs: W/"<size>-<mtime>"), and ours must be the CRC-32 tag of the body it came with.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const koaStatic = require('koa-static');
const koaEtag = require('koa-etag').default;
const koaSend = require('koa-send');
const { send: koaSend6 } = require('@koa/send');
const atKoaEtag = require('@koa/etag');
const koaConditional = require('koa-conditional-get');
const ours = require('../../../lib/koa');
const { makeTree, rawRequest, listenOn, contentTag: crcTag } = require('../helpers/static-tree');

const KOAS = { 'koa 2': require('koa2'), 'koa 3': require('koa') };

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
  'page.html': '<p>page</p>',
  'page.txt': 'page as text',
  'sub/index.html': '<h1>sub index</h1>',
  'sub/page.html': '<p>sub page</p>',
  'sub/notes.txt': 'notes',
  'sub/deeper/file.js': 'console.log(1)\n',
  'noindex/file.txt': 'f',
  'dir.html/inner.txt': 'inner',
  odd: 'a file whose .br sibling is a directory',
  'odd.br/inner.txt': 'inside the odd.br directory',
  'idxdir/index.html/inner.txt': 'an index.html that is a directory',
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
  '/data.json.gz',
  '/gz-only.txt',
  '/gz-only.txt.gz',
  '/style.css',
  '/noext',
  '/with%20space.txt',
  '/%C3%BCn%C3%AF.txt',
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
  '/dir',
  '/dir.html',
  '/dir.html/',
  '/odd',
  '/odd.br',
  '/odd.br/',
  '/idxdir',
  '/idxdir/',
  '/link.txt',
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
  '/C:%5Cwindows',
  '/%5C%5Cserver%5Cshare',
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
  '/own',
];

const OPTION_SETS = [
  {},
  { index: false },
  { index: 'page.html' },
  { defer: true },
  { hidden: true },
  { format: false },
  { format: false, index: false },
  { extensions: ['html', 'txt'] },
  { extensions: ['.json', 'js'] },
  { extensions: 'html' }, // not an array: ignored, as koa-send does
  { extensions: [1] }, // TypeError when reached, as koa-send's
  { gzip: false },
  { brotli: false },
  { gzip: false, brotli: false },
  { maxage: 5000, immutable: true },
  { maxAge: 86400000 },
  { maxage: '3000' },
  { setHeaders: 'not a function' },
  {
    setHeaders(res, filePath, stats) {
      res.setHeader('X-Path-Tail', filePath.slice(-8));
      res.setHeader('X-Size', String(stats.size));
      res.setHeader('X-Mtime', String(stats.mtime.getTime()));
      res.setHeader('X-Is-File', String(stats.isFile()));
      if (filePath.endsWith('.txt')) res.setHeader('Cache-Control', 'no-store');
      if (filePath.endsWith('.html')) res.setHeader('Last-Modified', 'Tue, 01 Jan 2030 00:00:00 GMT');
    },
  },
];

const DATE = 'Mon, 06 May 2024 07:08:09 GMT';
const ACCEPT_ENCODINGS = [
  undefined,
  'gzip',
  'br',
  'gzip, br',
  'br;q=0, gzip',
  'identity',
  '*',
  'gzip;q=0.5, br;q=0.1',
  'deflate',
];
const CONDITIONALS = [
  {},
  { 'if-none-match': '{etag}' },
  { 'if-none-match': 'W/"other", {etag}' },
  { 'if-none-match': '"other"' },
  { 'if-modified-since': DATE },
  { 'if-modified-since': 'Sun, 05 May 2024 07:08:09 GMT' },
  { 'if-none-match': '{etag}', 'cache-control': 'no-cache' },
];

const IGNORED = new Set(['date', 'connection', 'keep-alive', 'etag']);

function describeResponse(r) {
  const headers = [];
  for (let i = 0; i < r.rawHeaders.length; i += 2) {
    const name = r.rawHeaders[i].toLowerCase();
    if (!IGNORED.has(name)) headers.push(`${name}: ${r.rawHeaders[i + 1]}`);
  }
  headers.sort();
  headers.push(`etag present: ${r.headers.etag !== undefined}`);
  return { status: r.status, headers, body: r.body.toString('latin1') };
}

// koa-etag prints a deprecation notice each time it is created
function quietly(fn) {
  const warn = console.warn;
  console.warn = () => {};
  try {
    return fn();
  } finally {
    console.warn = warn;
  }
}

function appFor(Koa, { conditional, etag, serve }) {
  const app = new Koa();
  app.silent = true;
  app.use(conditional());
  app.use(etag());
  app.use(serve);
  // downstream: answers /own and ?own=1 itself (defer lets it win)
  app.use(async (ctx) => {
    if (ctx.path === '/own' || ctx.query.own) ctx.body = `own ${ctx.path}`;
  });
  return app;
}

async function startPair(Koa, root, options, ourExtra = {}) {
  const theirs = quietly(() => ({ conditional: koaConditional, etag: koaEtag, serve: koaStatic(root, options) }));
  const mine = ours.serve(root, { ...options, ...ourExtra });
  const peer = await listenOn(appFor(Koa, theirs).callback());
  const our = await listenOn(appFor(Koa, { conditional: ours.conditional, etag: ours.etag, serve: mine }).callback());
  return {
    peer,
    ours: our,
    close: async () => {
      mine.close();
      await peer.close();
      await our.close();
    },
  };
}

// A route that sends files itself, as an app calling koa-send does (koa-static's loop: GET and
// HEAD only, a 404 falls through to the next middleware).
function sendRoute(sendFile, opts) {
  return async (ctx, next) => {
    let done = false;
    if (ctx.method === 'HEAD' || ctx.method === 'GET') {
      try {
        done = await sendFile(ctx, ctx.path, opts);
      } catch (err) {
        if (err.status !== 404) throw err;
      }
    }
    if (!done) await next();
  };
}

// `peer`: { send, etag } of the packages compared against. Each side gets its own options object
// (ours reads it once; koa-send reads it on every call).
async function startSendPair(Koa, root, options, peerSend, peerEtag) {
  const opts = () => ({ root, index: 'index.html', ...options });
  const theirs = quietly(() => ({ conditional: koaConditional, etag: peerEtag, serve: sendRoute(peerSend, opts()) }));
  const peer = await listenOn(appFor(Koa, theirs).callback());
  const our = await listenOn(
    appFor(Koa, { conditional: ours.conditional, etag: ours.etag, serve: sendRoute(ours.send, opts()) }).callback(),
  );
  return {
    peer,
    ours: our,
    close: async () => {
      await peer.close();
      await our.close();
    },
  };
}

async function fill(headers, port, rawPath, accept) {
  if (!Object.values(headers).some((v) => v.includes('{etag}'))) return headers;
  const first = await rawRequest(port, rawPath, { headers: accept === undefined ? {} : { 'accept-encoding': accept } });
  const tag = first.headers.etag || '"none"';
  const out = {};
  for (const [k, v] of Object.entries(headers)) out[k] = v.replace('{etag}', tag);
  return out;
}

async function compare(pair, rawPath, { method = 'GET', headers = {}, accept } = {}) {
  const send = async (port) => {
    const h = await fill(headers, port, rawPath, accept);
    if (accept !== undefined) h['accept-encoding'] = accept;
    // a connection closed without an answer is an outcome to compare too (Koa 3 closes it
    // when a file stream fails after the status line was committed)
    return rawRequest(port, rawPath, { method, headers: h }).catch((err) => ({
      status: `no response: ${err.code}`,
      headers: {},
      rawHeaders: [],
      body: Buffer.alloc(0),
    }));
  };
  const theirs = await send(pair.peer.port);
  const mine = await send(pair.ours.port);
  const where = `${method} ${rawPath.slice(0, 80)} accept-encoding=${accept} ${JSON.stringify(headers)}`;
  assert.deepEqual(describeResponse(mine), describeResponse(theirs), where);
  // a full body from memory carries the CRC-32 tag of exactly those bytes
  if (mine.status === 200 && method === 'GET' && mine.headers.etag && !pair.streamed) {
    if (!mine.body.toString().startsWith('own ')) assert.equal(mine.headers.etag, crcTag(mine.body), where);
  }
  return mine;
}

// Runs `task` over `items`, a few at a time (each item's own requests stay in order).
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
});
test.after(() => tree.remove());

for (const [label, Koa] of Object.entries(KOAS)) {
  test(`${label}: every path x option set x GET/HEAD/POST matches koa-static 5 + koa-etag + koa-conditional-get`, async () => {
    let count = 0;
    for (const options of OPTION_SETS) {
      const pair = await startPair(Koa, tree.root, options);
      try {
        await eachConcurrently(PATHS, async (rawPath) => {
          for (const method of ['GET', 'HEAD', 'POST']) {
            await compare(pair, rawPath, { method });
            count++;
          }
          // again: the second GET is answered from the remembered route
          await compare(pair, rawPath);
          await compare(pair, rawPath + (rawPath.includes('?') ? '&' : '?') + 'own=1');
        });
      } finally {
        await pair.close();
      }
    }
    assert.ok(count > 3000, `${count} comparisons`);
  });

  test(`${label}: Accept-Encoding x If-None-Match/If-Modified-Since match, cached and streamed from disk`, async () => {
    const targets = [
      '/a.txt',
      '/data.json',
      '/gz-only.txt',
      '/style.css',
      '/big.bin',
      '/sub/',
      '/odd',
      '/empty.txt',
      '/nope',
    ];
    for (const [options, extra] of [
      [{}, {}],
      [{ gzip: false }, {}],
      [{ defer: true, maxage: 1000 }, {}],
      [{}, { maxFileSize: 1024 }], // style.css and big.bin streamed from disk
    ]) {
      const pair = await startPair(Koa, tree.root, options, extra);
      pair.streamed = extra.maxFileSize !== undefined;
      try {
        await eachConcurrently(targets, async (rawPath) => {
          for (const accept of ACCEPT_ENCODINGS) {
            for (const headers of CONDITIONALS) {
              for (const method of ['GET', 'HEAD']) {
                const mine = await compare(pair, rawPath, { method, headers, accept });
                if (pair.streamed && mine.status === 200 && method === 'GET' && mine.body.length > 1024) {
                  // streamed files keep koa-etag's stat-based tag: the same value as the peer's
                  const theirs = await rawRequest(pair.peer.port, rawPath, {
                    headers: accept ? { 'accept-encoding': accept } : {},
                  });
                  assert.equal(mine.headers.etag, theirs.headers.etag, rawPath);
                }
              }
            }
          }
        });
      } finally {
        await pair.close();
      }
    }
  });

  test(`${label}: random hostile paths match koa-static (seeded)`, async () => {
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
      'C:',
      'data.json',
      '.gz',
      '.br',
      'odd',
      'idxdir',
      'link.txt',
      '%2F%2F',
    ];
    const seed0 = 0x6b6f61;
    let seed = seed0;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
    const pair = await startPair(Koa, tree.root, { extensions: ['html', 'txt'] });
    try {
      for (let i = 0; i < 500; i++) {
        let p = '/';
        const n = 1 + Math.floor(random() * 6);
        for (let j = 0; j < n; j++) p += tokens[Math.floor(random() * tokens.length)] + (random() < 0.5 ? '/' : '');
        p = p.replace(/\\/g, '%5C');
        const accept = random() < 0.5 ? 'gzip, br' : undefined;
        await compare(pair, p, { accept }).catch((err) => {
          err.message = `seed ${seed0} #${i} path ${JSON.stringify(p)}: ${err.message}`;
          throw err;
        });
      }
    } finally {
      await pair.close();
    }
  });
}

const SEND_PEERS = {
  'koa-send 5.0.1 + koa-etag 5': [koaSend, koaEtag],
  '@koa/send 6.0.0 + @koa/etag 5.0.2': [koaSend6, atKoaEtag],
};
for (const [label, [peerSend, peerEtag]] of Object.entries(SEND_PEERS)) {
  test(`koa 3: send() from a route, every path x option set x GET/HEAD/POST matches ${label}`, async () => {
    let count = 0;
    for (const options of OPTION_SETS) {
      const pair = await startSendPair(KOAS['koa 3'], tree.root, options, peerSend, peerEtag);
      try {
        await eachConcurrently(PATHS, async (rawPath) => {
          for (const method of ['GET', 'HEAD', 'POST']) {
            await compare(pair, rawPath, { method });
            count++;
          }
          await compare(pair, rawPath); // the remembered route
          await compare(pair, rawPath, { accept: 'gzip, br' });
        });
      } finally {
        await pair.close();
      }
    }
    assert.ok(count > 3000, `${count} comparisons`);
  });
}
