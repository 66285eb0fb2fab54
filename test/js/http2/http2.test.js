'use strict';
// Every piece behind node:http2's compatibility API, h2c (http2.createServer) and TLS
// (http2.createSecureServer, a self-signed certificate made at test time), against the same app
// on HTTP/1.1: the same request sequence on each (a fresh app per protocol, so a content-cache
// or response-cache hit happens on HTTP/2 itself) must give the same status, the same headers
// (less Date, and HTTP/1.1's connection-specific ones, which HTTP/2 forbids and which must not
// appear on it) and the same decoded body. Node's http2 client rejects a reset stream, which is
// what a compressed whole body dropped by a wrapped write() looked like (HEADERS with a
// Content-Length, no DATA, NGHTTP2_PROTOCOL_ERROR).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http2 = require('node:http2');
const { Readable } = require('node:stream');
const { setTimeout: delay } = require('node:timers/promises');
const { listen, request } = require('../helpers/http');
const { serverOptions, listenOn, listenH2, h2request, decode } = require('../helpers/http2');
const { mulberry32 } = require('../helpers/seeded-random');
const compression = require('../../../lib/express/compression');
const { ContentCache } = require('../../../lib/compression/content-cache');
const { serveStatic, etag: entityTag } = require('../../../lib');
const { responseCache } = require('../../../lib/express/cache');
const koa = require('../../../lib/koa');
const ourFastify = require('../../../lib/fastify');
const ourHono = require('../../../lib/hono');

const CONNECTION_SPECIFIC = ['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection'];
const PROTOCOLS = ['h2c', 'h2 TLS'];
const BROWSER = 'gzip, deflate, br';

const page = `<!doctype html><main>${Array.from({ length: 900 }, (_, i) => `<p class="row">item ${i % 97}</p>`).join('')}</main>`;
const json = { items: Array.from({ length: 120 }, (_, i) => ({ id: i, name: `product ${i}` })) };

// 64 KiB of base64 text from a seeded generator (compresses to about three quarters)
function bigChunk(i) {
  const random = mulberry32(0xb16 + i);
  const bytes = Buffer.alloc(48 * 1024);
  for (let j = 0; j < bytes.length; j++) bytes[j] = Math.floor(random() * 256);
  return bytes.toString('base64');
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-h2-static-'));
fs.writeFileSync(path.join(root, 'index.html'), page);
fs.writeFileSync(path.join(root, 'app.js'), `console.log(${JSON.stringify(page)});\n`);
fs.writeFileSync(path.join(root, 'small.txt'), 'tiny');
test.after(() => fs.rmSync(root, { recursive: true, force: true }));

/** Starts a (req, res) handler made by `make()` on HTTP/1.1, h2c or TLS. */
function handlerServer(make) {
  return async (protocol) => {
    const handler = await make();
    if (protocol === 'h1') return listen(handler);
    return listenH2(handler, { secure: protocol === 'h2 TLS' });
  };
}

function ask(server, req, earlier) {
  const headers = typeof req.headers === 'function' ? req.headers(earlier) : req.headers || {};
  if (server.h1) return request(`${server.url}${req.path}`, { method: req.method, headers });
  return h2request(server.url, req.path, { method: req.method, headers });
}

// The headers to compare: Date changes, and HTTP/1.1's connection-specific headers have no place in HTTP/2.
function comparable(headers) {
  const out = {};
  for (const name of Object.keys(headers).sort()) {
    if (name === 'date' || CONNECTION_SPECIFIC.includes(name)) continue;
    out[name] = headers[name];
  }
  return out;
}

/** Runs `requests` in order on a fresh app per protocol; HTTP/2 answers must equal HTTP/1.1's. */
async function sameOnBoth(start, requests) {
  const answers = {};
  for (const protocol of ['h1', ...PROTOCOLS]) {
    const server = await start(protocol);
    server.h1 = protocol === 'h1';
    try {
      const list = [];
      for (const req of requests) list.push(await ask(server, req, list));
      answers[protocol] = list;
    } finally {
      await server.close();
    }
  }
  for (const protocol of PROTOCOLS) {
    requests.forEach((req, i) => {
      const one = answers.h1[i];
      const two = answers[protocol][i];
      const what = `${protocol} ${req.method || 'GET'} ${req.path} #${i}`;
      for (const name of CONNECTION_SPECIFIC) assert.equal(two.headers[name], undefined, `${what}: ${name}`);
      assert.equal(two.status, one.status, `${what}: status`);
      assert.deepEqual(comparable(two.headers), comparable(one.headers), `${what}: headers`);
      assert.deepEqual(decode(two), decode(one), `${what}: decoded body`);
    });
  }
  return answers;
}

// Node's HTTP/1.1 adds a Content-Length to end(chunk) by itself, its http2 compatibility API does not.
function notFound(res) {
  res.statusCode = 404;
  res.setHeader('Content-Length', '9');
  res.end('not found');
}

const etagOf = (earlier) => ({ 'accept-encoding': BROWSER, 'if-none-match': earlier[0].headers.etag });

// --- ssr-native/compression on node:http2 (res.end(body), streamed writes, flush) -------------

function compressionApp(options) {
  const middleware = compression(options);
  return (req, res) =>
    middleware(req, res, () => {
      const url = req.url;
      if (url === '/end') {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.end(Buffer.from(page));
      } else if (url === '/end-string') {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.end(page, 'utf8');
      } else if (url === '/end-callback') {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        let called = false;
        res.end(page, () => {
          called = true;
        });
        res.on('finish', () => setImmediate(() => assert.ok(called, 'end callback')));
      } else if (url === '/json') {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify(json));
      } else if (url === '/stream') {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        const third = page.length / 3;
        res.write(page.slice(0, third));
        setImmediate(() => {
          res.write(page.slice(third, 2 * third));
          res.end(page.slice(2 * third));
        });
      } else if (url === '/sse') {
        res.setHeader('Content-Type', 'text/event-stream');
        res.setHeader('Cache-Control', 'no-cache');
        for (let i = 0; i < 20; i++) {
          res.write(`data: ${JSON.stringify({ i, pad: 'x'.repeat(80) })}\n\n`);
          res.flush();
        }
        res.end();
      } else if (url === '/big-stream') {
        // past HTTP/2's flow-control window (64 KiB): the zlib stream pauses on a full
        // stream and resumes on 'drain'
        res.setHeader('Content-Type', 'text/plain');
        let i = 0;
        const more = () => {
          while (i < 40) if (!res.write(bigChunk(i++))) return;
          if (i++ === 40) res.end();
        };
        res.on('drain', more);
        more();
      } else if (url === '/writehead') {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.end(page);
      } else if (url === '/small') {
        res.setHeader('Content-Type', 'text/plain');
        res.end('tiny');
      } else if (url === '/etag') {
        const tag = entityTag(Buffer.from(page), { weak: true });
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.setHeader('ETag', tag);
        if (req.headers['if-none-match'] === tag) {
          res.statusCode = 304;
          res.end();
        } else {
          res.end(page);
        }
      } else {
        notFound(res);
      }
    });
}

const COMPRESSION_REQUESTS = [
  ...['/end', '/end-string', '/end-callback', '/json', '/stream', '/sse', '/writehead', '/small'].flatMap((p) => [
    { path: p, headers: { 'accept-encoding': BROWSER } },
    { path: p, headers: { 'accept-encoding': BROWSER } }, // the content cache's hit
    { path: p, headers: { 'accept-encoding': 'gzip' } },
    { path: p, headers: { 'accept-encoding': 'deflate' } },
    { path: p, headers: {} },
  ]),
  { path: '/nothing', headers: { 'accept-encoding': BROWSER } },
  { path: '/big-stream', headers: { 'accept-encoding': 'gzip' } },
  { path: '/big-stream', headers: { 'accept-encoding': 'br' } },
  { path: '/end', method: 'HEAD', headers: { 'accept-encoding': BROWSER } },
  { path: '/stream', method: 'HEAD', headers: { 'accept-encoding': BROWSER } },
];

test('compression: whole bodies (res.end), streamed ones and flushed events on http2', async () => {
  const answers = await sameOnBoth(
    handlerServer(() => compressionApp({ cache: new ContentCache() })),
    COMPRESSION_REQUESTS,
  );
  // the whole bodies really were compressed, with their length stated
  const end = answers.h2c[0];
  assert.equal(end.headers['content-encoding'], 'br');
  assert.equal(Number(end.headers['content-length']), end.body.length);
  assert.equal(decode(end).toString(), page);
});

test('compression without a content cache, and zstd, on http2', async () => {
  const requests = [
    { path: '/end', headers: { 'accept-encoding': 'zstd, br' } },
    { path: '/json', headers: { 'accept-encoding': 'gzip' } },
  ];
  await sameOnBoth(
    handlerServer(() => compressionApp({ cache: false, zstd: true })),
    requests,
  );
});

test('compression: ETag and 304 on http2', async () => {
  const answers = await sameOnBoth(
    handlerServer(() => compressionApp({ cache: new ContentCache() })),
    [
      { path: '/etag', headers: { 'accept-encoding': BROWSER } },
      { path: '/etag', headers: etagOf },
    ],
  );
  assert.equal(answers.h2c[1].status, 304);
  assert.equal(answers['h2 TLS'][1].body.length, 0);
});

// --- serveStatic and the response cache, with compression in front -------------------------

test('serveStatic on http2, alone and behind compression: files, ranges, 304', async () => {
  const requests = [
    { path: '/index.html', headers: { 'accept-encoding': BROWSER } },
    { path: '/index.html', headers: etagOf },
    { path: '/app.js', headers: { 'accept-encoding': 'gzip' } },
    { path: '/app.js', headers: { 'accept-encoding': 'br' } },
    { path: '/small.txt', headers: { 'accept-encoding': BROWSER } },
    { path: '/index.html', headers: { range: 'bytes=10-99' } },
    { path: '/missing.html', headers: {} },
  ];
  for (const front of [false, true]) {
    for (const compress of [false, true]) {
      const make = async () => {
        // preloaded: the compressed variants exist before the first request, on every protocol
        const files = serveStatic(root, { compress, acceptRanges: true, preload: true });
        await files.cache.ready;
        const zip = front ? compression({ cache: new ContentCache() }) : (req, res, next) => next();
        return (req, res) => zip(req, res, () => files(req, res, () => notFound(res)));
      };
      const answers = await sameOnBoth(handlerServer(make), requests);
      assert.equal(answers.h2c[1].status, 304, `front ${front} compress ${compress}`);
      assert.equal(answers.h2c[5].status, 206);
      if (front || compress) assert.equal(answers['h2 TLS'][0].headers['content-encoding'], 'br');
    }
  }
});

test('serveStatic and Koa serve() on http2: files past maxFileSize streamed from disk', async () => {
  const requests = [
    { path: '/index.html', headers: { 'accept-encoding': BROWSER } },
    { path: '/index.html', headers: { range: 'bytes=100-20000' } },
    { path: '/app.js', headers: {} },
  ];
  const node = () => {
    const files = serveStatic(root, { maxFileSize: 1024, acceptRanges: true });
    return (req, res) => files(req, res, () => notFound(res));
  };
  const answers = await sameOnBoth(handlerServer(node), requests);
  assert.equal(answers.h2c[0].body.length, page.length);
  assert.equal(answers['h2 TLS'][1].status, 206);
  const Koa = require('koa');
  const koaApp = () => {
    const app = new Koa();
    app.use(koa.compress({ cache: new ContentCache() }));
    app.use(koa.serve(root, { maxFileSize: 1024, acceptRanges: true }));
    return app.callback();
  };
  const koaAnswers = await sameOnBoth(handlerServer(koaApp), requests);
  assert.equal(koaAnswers.h2c[0].headers['content-encoding'], 'br');
});

test('response cache behind compression on http2: render, hits, 304', async () => {
  let renders = 0;
  const make = () => {
    const zip = compression({ cache: new ContentCache() });
    const pages = responseCache();
    return (req, res) =>
      zip(req, res, () =>
        pages(req, res, () => {
          renders++;
          res.setHeader('Content-Type', 'text/html; charset=utf-8');
          res.setHeader('Cache-Control', 'public, s-maxage=60');
          res.end(page);
        }),
      );
  };
  const answers = await sameOnBoth(handlerServer(make), [
    { path: '/p', headers: { 'accept-encoding': BROWSER } },
    { path: '/p', headers: { 'accept-encoding': BROWSER } },
    { path: '/p', headers: { 'accept-encoding': 'gzip' } },
    { path: '/p', headers: (e) => etagOf(e.slice(1)) }, // the tag the cache gives its hits
    { path: '/p', headers: {} },
  ]);
  assert.equal(renders, 3, 'one render per protocol: every later answer was a cache hit');
  assert.equal(answers.h2c[1].headers['content-encoding'], 'br');
  assert.equal(answers.h2c[3].status, 304);
});

// --- Angular's writeResponse (a WHATWG Response onto the compatibility API's response) --------

test('angular writeResponse on http2, alone and behind compression: HTML whole with ETag and 304, streamed JSON', async () => {
  const { writeResponse } = require('../../../lib/angular');
  for (const front of [false, true]) {
    const make = () => {
      const zip = front ? compression({ cache: new ContentCache() }) : (req, res, next) => next();
      return (req, res) =>
        zip(req, res, () => {
          const response =
            req.url === '/data'
              ? new Response(
                  new ReadableStream({
                    start(controller) {
                      controller.enqueue(new TextEncoder().encode(JSON.stringify(json).slice(0, 2000)));
                      controller.enqueue(new TextEncoder().encode(JSON.stringify(json).slice(2000)));
                      controller.close();
                    },
                  }),
                  { headers: { 'content-type': 'application/json' } },
                )
              : new Response(page, { headers: { 'content-type': 'text/html; charset=utf-8' } });
          writeResponse(response, req, res);
        });
    };
    const answers = await sameOnBoth(handlerServer(make), [
      { path: '/', headers: { 'accept-encoding': BROWSER } },
      { path: '/', headers: etagOf },
      { path: '/', method: 'HEAD', headers: etagOf },
      { path: '/data', headers: { 'accept-encoding': BROWSER } },
      { path: '/data', headers: {} },
    ]);
    assert.equal(answers.h2c[1].status, 304, `front ${front}`);
    if (front) assert.equal(answers['h2 TLS'][0].headers['content-encoding'], 'br');
  }
});

// --- Koa -----------------------------------------------------------------------------------

for (const [name, Koa] of [
  ['koa 3', require('koa')],
  ['koa 2', require('koa2')],
]) {
  test(`${name} on http2: compress, etag, conditional, serve, cache`, async () => {
    const make = () => {
      const app = new Koa();
      app.silent = true;
      app.use(koa.compress({ cache: new ContentCache() }));
      app.use(koa.conditional());
      app.use(koa.etag());
      app.use(koa.serve(root));
      app.use(async (ctx, next) => {
        if (ctx.path !== '/cached') return next();
        return koa.cache()(ctx, async () => {
          ctx.set('Cache-Control', 'public, max-age=60');
          ctx.type = 'html';
          ctx.body = page;
        });
      });
      app.use((ctx) => {
        if (ctx.path === '/page') {
          ctx.type = 'html';
          ctx.body = page;
        } else if (ctx.path === '/json') {
          ctx.body = json;
        } else if (ctx.path === '/stream') {
          ctx.type = 'html';
          ctx.body = Readable.from([page.slice(0, 1000), page.slice(1000)]);
        } else {
          // Koa's own 404 body is 'Not Found' on HTTP/1.1 and '404' on HTTP/2
          ctx.status = 404;
          ctx.body = 'not found';
        }
      });
      return app.callback();
    };
    const requests = ['/page', '/json', '/stream', '/index.html', '/app.js', '/cached', '/nothing'].flatMap((p) => [
      { path: p, headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } },
      { path: p, headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } },
      { path: p, headers: { 'accept-encoding': 'gzip' } },
      { path: p, headers: {} },
    ]);
    requests.push({ path: '/page', headers: etagOf }, { path: '/index.html', headers: (e) => etagOf(e.slice(12)) });
    const answers = await sameOnBoth(handlerServer(make), requests);
    assert.equal(answers.h2c.at(-2).status, 304);
    assert.equal(answers.h2c.at(-1).status, 304);
  });
}

// --- Fastify with http2: true --------------------------------------------------------------

for (const [name, fastify] of [
  ['fastify 5', require('fastify')],
  ['fastify 4', require('fastify4')],
]) {
  test(`${name} with http2: true: fastifyCompress, fastifyEtag, fastifyStatic`, async () => {
    const start = async (protocol) => {
      const options =
        protocol === 'h1' ? {} : protocol === 'h2c' ? { http2: true } : { http2: true, https: serverOptions(true) };
      const app = fastify(options);
      await app.register(ourFastify.fastifyCompress, { cache: new ContentCache() });
      await app.register(ourFastify.fastifyEtag, { weak: true });
      await app.register(ourFastify.fastifyStatic, { root, prefix: '/static/' });
      app.get('/page', (req, reply) => reply.type('text/html; charset=utf-8').send(page));
      app.get('/json', () => json);
      app.get('/stream', (req, reply) =>
        reply.type('text/html; charset=utf-8').send(Readable.from([page.slice(0, 1000), page.slice(1000)])),
      );
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address();
      const secure = protocol === 'h2 TLS';
      return { url: `${secure ? 'https' : 'http'}://127.0.0.1:${port}`, close: () => app.close() };
    };
    const requests = ['/page', '/json', '/stream', '/static/index.html', '/static/small.txt', '/nothing'].flatMap(
      (p) => [
        { path: p, headers: { 'accept-encoding': BROWSER } },
        { path: p, headers: { 'accept-encoding': BROWSER } },
        { path: p, headers: { 'accept-encoding': 'gzip' } },
        { path: p, headers: {} },
      ],
    );
    requests.push(
      { path: '/page', headers: etagOf },
      { path: '/static/index.html', headers: (e) => etagOf(e.slice(12)) },
    );
    const answers = await sameOnBoth(start, requests);
    assert.equal(answers.h2c[0].headers['content-encoding'], 'br');
    assert.equal(answers.h2c.at(-2).status, 304);
    assert.equal(answers['h2 TLS'].at(-1).status, 304);
  });
}

// --- Hono on @hono/node-server with http2.createServer -------------------------------------

test('hono on @hono/node-server with createServer: http2.createServer: compress, etag, serveStatic', async () => {
  const { Hono } = require('hono');
  const { createAdaptorServer } = require('@hono/node-server');
  const relativeRoot = path.relative(process.cwd(), root);
  const start = async (protocol) => {
    const app = new Hono();
    app.use('*', ourHono.compress({ cache: new ContentCache() }));
    app.use('*', ourHono.etag());
    app.use('/static/*', ourHono.serveStatic({ root: relativeRoot, rewriteRequestPath: (p) => p.slice(7) }));
    app.get('/page', (c) => c.html(page));
    app.get('/json', (c) => c.json(json));
    const secure = protocol === 'h2 TLS';
    const server =
      protocol === 'h1'
        ? createAdaptorServer({ fetch: app.fetch })
        : createAdaptorServer({
            fetch: app.fetch,
            createServer: secure ? http2.createSecureServer : http2.createServer,
            serverOptions: serverOptions(secure),
          });
    const listening = await listenOn(server, secure);
    if (protocol === 'h1') {
      const close = listening.close;
      listening.close = () => {
        server.closeAllConnections();
        return close();
      };
    }
    return listening;
  };
  const requests = ['/page', '/json', '/static/index.html', '/static/app.js', '/nothing'].flatMap((p) => [
    { path: p, headers: { 'accept-encoding': BROWSER } },
    { path: p, headers: { 'accept-encoding': BROWSER } },
    { path: p, headers: { 'accept-encoding': 'deflate' } },
    { path: p, headers: {} },
  ]);
  requests.push({ path: '/page', headers: etagOf }, { path: '/static/index.html', headers: (e) => etagOf(e.slice(8)) });
  const answers = await sameOnBoth(start, requests);
  assert.equal(answers.h2c[0].headers['content-encoding'], 'gzip');
  assert.equal(answers.h2c.at(-2).status, 304);
  assert.equal(answers.h2c.at(-1).status, 304);
});

// --- node -r ssr-native/register ------------------------------------------------------------

test('node -r ssr-native/register: require("compression") on an http2 server answers whole bodies', async () => {
  const { spawn } = require('node:child_process');
  const script = `
    const http2 = require('http2');
    const compression = require('compression');
    const active = require(${JSON.stringify(path.join(__dirname, '..', '..', '..', 'lib', 'register'))}).active;
    const middleware = compression();
    const page = ${JSON.stringify(page)};
    const server = http2.createServer((req, res) => middleware(req, res, () => {
      res.setHeader('Content-Type', 'text/html');
      res.end(page);
    }));
    server.listen(0, '127.0.0.1', () => {
      process.stdout.write(JSON.stringify({ port: server.address().port, swapped: active.compression.size }) + '\\n');
    });
    process.stdin.on('end', () => process.exit(0)).resume();
  `;
  const child = spawn(
    process.execPath,
    ['-r', path.join(__dirname, '..', '..', '..', 'lib', 'register'), '-e', script],
    {
      cwd: path.join(__dirname, '..', '..', '..'),
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, SSR_NATIVE_REGISTER: '' },
    },
  );
  try {
    const line = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c) => {
        out += c;
        if (out.includes('\n')) resolve(out.split('\n')[0]);
      });
      child.on('exit', (code) => reject(new Error(`child exited ${code}`)));
    });
    const { port, swapped } = JSON.parse(line);
    assert.equal(swapped, 1, 'compression 1.x was replaced by ssr-native/compression');
    const res = await h2request(`http://127.0.0.1:${port}`, '/', { headers: { 'accept-encoding': BROWSER } });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-encoding'], 'br');
    assert.equal(decode(res).toString(), page);
  } finally {
    child.stdin.end();
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on('exit', resolve)));
  }
});

// --- the response cache's key and refresh on HTTP/2 -------------------------------------------

test('response cache on http2: the :authority is the host of the key (one site never gets another site`s page)', async () => {
  const pages = responseCache();
  const server = await listenH2((req, res) =>
    pages(req, res, () => {
      res.setHeader('Content-Type', 'text/plain');
      res.setHeader('Cache-Control', 'public, max-age=60');
      res.end(`page of ${req.headers[':authority']} ${req.headers.host}`);
    }),
  );
  try {
    const asks = [
      [{ ':authority': 'a.example' }, 'page of a.example undefined'],
      [{ ':authority': 'b.example' }, 'page of b.example undefined'],
      // Host naming the same site as sent: the same entry; in another case or naming another
      // site: its own entry (the key holds the Host as the app sees it)
      [{ ':authority': 'a.example', host: 'a.example' }, 'page of a.example undefined'],
      [{ ':authority': 'a.example', host: 'A.example' }, 'page of a.example A.example'],
      [{ ':authority': 'a.example', host: 'b.example' }, 'page of a.example b.example'],
      [{ ':authority': 'b.example' }, 'page of b.example undefined'],
      [{ ':authority': 'a.example', host: 'b.example' }, 'page of a.example b.example'],
    ];
    for (const [headers, page] of asks) {
      const res = await h2request(server.url, '/', { headers });
      assert.equal(res.body.toString(), page, JSON.stringify(headers));
    }
    assert.equal(pages.stats().renders, 4);
    assert.equal(pages.stats().hits, 3);
  } finally {
    await server.close();
  }
});

test('response cache on http2: an :authority that is not host[:port] passes and is never a key (host: false)', async () => {
  const pages = responseCache({ host: false, allowedHosts: ['victim.example'] });
  let renders = 0;
  const server = await listenH2((req, res) =>
    pages(req, res, () => {
      renders++;
      res.setHeader('Cache-Control', 'public, max-age=60');
      res.end(`<script src="//${req.headers[':authority']}/app.js"></script>`);
    }),
  );
  try {
    const spellings = ['victim.example:1@evil.example', 'victim.example@evil.example', 'victim.example:99999'];
    // nghttp2 1.6x (Node 22+) resets a stream whose :authority holds userinfo (RFC 9113 8.3.1) before the
    // app sees it; older ones hand it over. Either way it must never be answered from, or become, a key.
    let arrived = 0;
    let badArrived = 0;
    for (const authority of [...spellings, 'victim.example:31337']) {
      for (let i = 0; i < 2; i++) {
        const sent = await h2request(server.url, '/', { headers: { ':authority': authority } }).then(
          () => true,
          (err) => {
            assert.equal(err.code, 'ERR_HTTP2_STREAM_ERROR', authority);
            assert.ok(authority.includes('@'), `only userinfo is refused by HTTP/2 itself: ${authority}`);
            return false;
          },
        );
        if (sent) arrived++;
        if (sent && spellings.includes(authority)) badArrived++;
      }
    }
    assert.ok(arrived >= 4, `${arrived} requests arrived`);
    assert.equal(renders, arrived);
    const plain = await h2request(server.url, '/', { headers: { ':authority': 'victim.example' } });
    assert.equal(plain.body.toString(), '<script src="//victim.example/app.js"></script>');
    assert.equal(pages.stats().badAuthority, badArrived);
    assert.equal(pages.stats().hostNotAllowed, 2);
  } finally {
    await server.close();
  }
});

test('response cache on http2: a stale-while-revalidate entry is refreshed over HTTP/2 (h2c and TLS)', async () => {
  for (const secure of [false, true]) {
    let now = 1_700_000_000_000;
    let renders = 0;
    const pages = responseCache({ now: () => now });
    const server = await listenH2(
      (req, res) =>
        pages(req, res, () => {
          renders++;
          res.setHeader('Content-Type', 'text/plain');
          res.setHeader('Cache-Control', 'public, max-age=1, stale-while-revalidate=60');
          res.end(`render ${renders} of ${req.headers[':authority']}`);
        }),
      { secure },
    );
    try {
      const headers = { ':authority': 'site.example' };
      assert.equal((await h2request(server.url, '/p', { headers })).body.toString(), 'render 1 of site.example');
      now += 5000;
      // stale: served at once, refreshed in the background through the server
      assert.equal((await h2request(server.url, '/p', { headers })).body.toString(), 'render 1 of site.example');
      for (let i = 0; i < 100 && pages.stats().refreshing + pages.stats().pending > 0; i++) await delay(10);
      for (let i = 0; i < 100 && renders < 2; i++) await delay(10);
      assert.equal(pages.stats().refreshFailures, 0, `secure ${secure}`);
      assert.equal((await h2request(server.url, '/p', { headers })).body.toString(), 'render 2 of site.example');
    } finally {
      await server.close();
    }
  }
});
