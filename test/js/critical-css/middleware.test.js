'use strict';
// ssr-native/critical-css wired into servers: inlineCriticalCss keeps the kind it is given, and
// the middleware gives every text/html answer exactly the engine's output for that page, however
// the route sends it (res.send, writeResponse, Angular's flushHeaders + write + end, serveStatic,
// a response cache's replay), with the Content-Length and ETag of the bytes sent; everything else
// goes out untouched. Composition: compression and the response cache mounted in front see the
// inlined page. The engine's output itself is checked against beasties in the engine's own tests.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const express = require('express');
const { inlineCriticalCss, criticalCss, CriticalCss } = require('../../../lib/express/critical-css');
const { writeResponse } = require('../../../lib/angular/index.js');
const { etag, serveStatic } = require('../../../lib/index.js');
const compression = require('../../../lib/express/compression');
const { responseCache } = require('../../../lib/express/cache');
const { listen, request } = require('../helpers/http');
const { makeDistFolder, bootstrapPage, STYLESHEET } = require('../helpers/critical-css-pages');

const dist = makeDistFolder();
test.after(() => dist.remove());

// What every path must send for `page`: the engine's own answer, from a CriticalCss of its own.
const reference = new CriticalCss({ browserDistFolder: dist.dir, memoPages: 0, name: 'reference' });
test.after(() => reference.close());
const inlined = (page) => reference.processSync(Buffer.from(page));

function withServer(app, fn) {
  return listen(app).then(async (server) => {
    try {
      await fn(server);
    } finally {
      await server.close();
    }
  });
}

test('inlineCriticalCss: string in, string out; Buffer in, Buffer out; the critical CSS inlined', () => {
  const page = bootstrapPage('ann');
  const options = { browserDistFolder: dist.dir };
  const asString = inlineCriticalCss(page, options);
  assert.equal(typeof asString, 'string');
  assert.match(asString, /<style[^>]*>[^<]*\.navbar\{|<style[^>]*>[^<]*\.navbar \{/, 'navbar rules inlined');
  assert.doesNotMatch(asString, /\.accordion-button/, 'rules of absent classes left out');
  // no @angular/ssr here: Angular 22.2's loader (beasties 0.5, preload 'media-script')
  assert.match(asString, new RegExp(`<link rel="stylesheet" href="${STYLESHEET}" media="print" data-beasties-media=`));
  const asBuffer = inlineCriticalCss(Buffer.from(page), options);
  assert.ok(Buffer.isBuffer(asBuffer));
  assert.equal(asBuffer.toString(), asString);
  assert.deepEqual(asBuffer, inlined(page));
  // a page the engine skips (two data-beasties-container under beasties 0.5) is returned as it was
  const skipped = `<!DOCTYPE html><html><head><link rel="stylesheet" href="${STYLESHEET}"></head><body><div data-beasties-container><p class="mb-2">x</p></div><div data-beasties-container></div></body></html>`;
  assert.equal(inlineCriticalCss(skipped, options), skipped);
  // a prerendered page inlined at build time goes out as built (Angular serves it so)
  const prerendered = page.replace(/<app-root\b/, '<app-root ng-server-context="ssg"');
  assert.notEqual(prerendered, page);
  const built = inlineCriticalCss(prerendered, options);
  assert.notEqual(built, prerendered);
  assert.equal(inlineCriticalCss(built, options), built);
  assert.throws(() => inlineCriticalCss(42, options), TypeError);
  assert.throws(() => inlineCriticalCss(page, null), TypeError);
  assert.throws(() => inlineCriticalCss(page, {}), TypeError);
  assert.throws(() => criticalCss({ browserDistFolder: dist.dir, maxBuffer: -1 }), RangeError);
});

test('Express res.send: the inlined page, its Content-Length, the ETag of the bytes sent and its 304', async () => {
  const app = express();
  app.set('etag', etag);
  const middleware = criticalCss({ browserDistFolder: dist.dir });
  app.use(middleware);
  app.get('/orders/:user', (req, res) => res.send(bootstrapPage(req.params.user)));
  await withServer(app, async ({ url }) => {
    for (const user of ['ann', 'bob']) {
      const res = await request(`${url}/orders/${user}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, inlined(bootstrapPage(user)), user);
      assert.equal(Number(res.headers['content-length']), res.body.length);
      assert.equal(res.headers.etag, etag(res.body), 'the tag of the bytes sent');
      const again = await request(`${url}/orders/${user}`, { headers: { 'if-none-match': res.headers.etag } });
      assert.equal(again.status, 304);
      assert.equal(again.body.length, 0);
      // HEAD (res.send sends no body): the head the GET got, and its 304
      const head = await request(`${url}/orders/${user}`, { method: 'HEAD' });
      assert.equal(head.headers.etag, res.headers.etag);
      assert.equal(Number(head.headers['content-length']), res.body.length);
      const headFresh = await request(`${url}/orders/${user}`, {
        method: 'HEAD',
        headers: { 'if-none-match': res.headers.etag },
      });
      assert.equal(headFresh.status, 304);
    }
    const stats = middleware.stats();
    assert.equal(stats.inlined >= 2, true, JSON.stringify(stats));
  });
  middleware.close();
});

// The sequence of @angular/ssr's writeResponseToNodeResponse: headers, flushHeaders(), each
// chunk of the Response body with res.write (Uint8Array), res.end().
async function angularWrite(response, res) {
  res.statusCode = response.status;
  for (const [name, value] of response.headers.entries()) res.setHeader(name, value);
  res.flushHeaders();
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}

function pageResponse(page, chunkSize = 4096) {
  const bytes = Buffer.from(page);
  let offset = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(new Uint8Array(bytes.subarray(offset, offset + chunkSize)));
      offset += chunkSize;
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/html;charset=UTF-8' } });
}

test("Angular's writeResponseToNodeResponse (flushHeaders, streamed chunks) and writeResponse: the inlined page", async () => {
  const app = express();
  const middleware = criticalCss({ browserDistFolder: dist.dir });
  app.use(middleware);
  app.get('/stock/:user', (req, res, next) =>
    angularWrite(pageResponse(bootstrapPage(req.params.user)), res).catch(next),
  );
  app.get('/ours/:user', (req, res, next) =>
    writeResponse(pageResponse(bootstrapPage(req.params.user)), req, res).catch(next),
  );
  await withServer(app, async ({ url }) => {
    const stock = await request(`${url}/stock/cy`);
    assert.equal(stock.status, 200);
    assert.deepEqual(stock.body, inlined(bootstrapPage('cy')));
    assert.equal(Number(stock.headers['content-length']), stock.body.length, 'sent whole, not chunked');
    assert.equal(stock.headers.etag, undefined, 'no tag where Angular gives none');
    const ours = await request(`${url}/ours/dee`);
    assert.deepEqual(ours.body, inlined(bootstrapPage('dee')));
    assert.equal(ours.headers.etag, etag(ours.body));
    const fresh = await request(`${url}/ours/dee`, { headers: { 'if-none-match': ours.headers.etag } });
    assert.equal(fresh.status, 304);
    // HEAD through writeResponse: the body is written anyway, so it is processed as for GET
    const head = await request(`${url}/ours/dee`, { method: 'HEAD', headers: { 'if-none-match': ours.headers.etag } });
    assert.equal(head.status, 304);
  });
  middleware.close();
});

test('serveStatic: a prerendered page is inlined once, then served from the memo; 304 on its new tag', async () => {
  const page = bootstrapPage('prerendered');
  fs.mkdirSync(path.join(dist.dir, 'about'), { recursive: true });
  fs.writeFileSync(path.join(dist.dir, 'about', 'index.html'), page);
  const app = express();
  const middleware = criticalCss({ browserDistFolder: dist.dir });
  app.use(middleware);
  app.use(serveStatic(dist.dir));
  await withServer(app, async ({ url }) => {
    let first;
    for (let i = 0; i < 5; i++) {
      const res = await request(`${url}/about/`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, inlined(page));
      assert.equal(Number(res.headers['content-length']), res.body.length);
      assert.equal(res.headers.etag, etag(res.body, { weak: !first || first.headers.etag.startsWith('W/') }));
      first = first || res;
    }
    const stats = middleware.stats();
    assert.equal(stats.memoHits, 4, JSON.stringify(stats));
    assert.equal(stats.pages, 1, 'the engine ran once for the file');
    const fresh = await request(`${url}/about/`, { headers: { 'if-none-match': first.headers.etag } });
    assert.equal(fresh.status, 304);
    // the stylesheet itself and a range of the page: untouched
    const css = await request(`${url}/${STYLESHEET}`);
    assert.deepEqual(css.body, fs.readFileSync(dist.stylesheet));
    const range = await request(`${url}/about/index.html`, { headers: { range: 'bytes=0-99' } });
    assert.equal(range.status, 206);
    assert.deepEqual(range.body, Buffer.from(page).subarray(0, 100));
  });
  middleware.close();
});

test('left untouched: HEAD before any GET, non-HTML, a Content-Encoding, 304, a page the engine skips, a body over maxBuffer', async () => {
  const page = bootstrapPage('eve');
  const gz = zlib.gzipSync(page);
  const big = bootstrapPage('big', 2000);
  const app = express();
  const middleware = criticalCss({ browserDistFolder: dist.dir, maxBuffer: 200 * 1024 });
  app.use(middleware);
  app.get('/page', (req, res) => res.send(page));
  app.get('/json', (req, res) => res.type('text/plain').send(page));
  app.get('/gz', (req, res) => res.set({ 'Content-Type': 'text/html', 'Content-Encoding': 'gzip' }).end(gz));
  app.get('/not-modified', (req, res) => res.status(304).end());
  // two data-beasties-container: beasties 0.5 searches both, the engine skips the page
  const skipped = `<!DOCTYPE html><html><head><link rel="stylesheet" href="${STYLESHEET}"></head><body><div data-beasties-container><p>x</p></div><div data-beasties-container></div></body></html>`;
  app.get('/skipped', (req, res) => res.send(skipped));
  app.get('/big', (req, res) => {
    res.type('html');
    res.flushHeaders();
    const bytes = Buffer.from(big);
    for (let i = 0; i < bytes.length; i += 16384) res.write(bytes.subarray(i, i + 16384));
    res.end();
  });
  app.get('/big-whole', (req, res) => res.send(big));
  await withServer(app, async ({ url }) => {
    const head = await request(`${url}/page`, { method: 'HEAD' });
    assert.equal(
      Number(head.headers['content-length']),
      Buffer.byteLength(page),
      'HEAD before any GET: as the route made it',
    );
    assert.deepEqual((await request(`${url}/json`)).body, Buffer.from(page));
    assert.deepEqual((await request(`${url}/gz`)).body, gz);
    assert.equal((await request(`${url}/not-modified`)).status, 304);
    const before = middleware.stats().skipped;
    assert.equal((await request(`${url}/skipped`)).body.toString(), skipped);
    assert.equal(middleware.stats().skipped, before + 1, 'counted');
    const streamed = await request(`${url}/big`);
    assert.deepEqual(streamed.body, Buffer.from(big));
    assert.equal(streamed.headers['transfer-encoding'], 'chunked', 'streamed through');
    const whole = await request(`${url}/big-whole`);
    assert.deepEqual(whole.body, Buffer.from(big));
    assert.ok(middleware.stats().tooLarge >= 2);
  });
  middleware.close();
});

test('compression mounted in front compresses the inlined page; the response cache stores it', async () => {
  const app = express();
  app.set('etag', etag);
  const pages = responseCache();
  const middleware = criticalCss({ browserDistFolder: dist.dir });
  let renders = 0;
  app.use(compression());
  app.use(pages);
  app.use(middleware);
  app.get('/shared', (req, res) => {
    renders++;
    res.set('Cache-Control', 'public, s-maxage=60');
    res.send(bootstrapPage('everyone'));
  });
  await withServer(app, async ({ url }) => {
    const expected = inlined(bootstrapPage('everyone'));
    const first = await request(`${url}/shared`, { headers: { 'accept-encoding': 'br' } });
    assert.equal(first.headers['content-encoding'], 'br');
    assert.deepEqual(zlib.brotliDecompressSync(first.body), expected);
    assert.equal(first.headers.etag, etag(expected), 'the tag of the inlined page');
    const pagesBefore = middleware.stats().pages;
    for (let i = 0; i < 3; i++) {
      const hit = await request(`${url}/shared`);
      assert.ok(hit.headers.age !== undefined, 'a response-cache hit');
      assert.deepEqual(hit.body, expected, 'the cache stored the inlined page');
    }
    assert.equal(renders, 1);
    assert.equal(middleware.stats().pages, pagesBefore, 'hits are not inlined again');
    const fresh = await request(`${url}/shared`, { headers: { 'if-none-match': first.headers.etag } });
    assert.equal(fresh.status, 304);
  });
  middleware.close();
});

test('a stylesheet loaded on first use (not warmed), an edited stylesheet, an engine that throws', async () => {
  const own = makeDistFolder('.navbar{color:red}.card{color:blue}\n');
  const cc = new CriticalCss({ browserDistFolder: own.dir, warm: false });
  const app = express();
  app.use(criticalCss(cc));
  app.get('/', (req, res) => res.send(bootstrapPage('fay')));
  try {
    await withServer(app, async ({ url }) => {
      const first = (await request(url)).body.toString();
      assert.match(first, /<style>[^<]*\.navbar\{color:red\}/);
      assert.equal(cc.stats().stylesheetLoads, 1);
      assert.equal(cc.stats().stylesheetSyncReads, 0, 'never read synchronously by the middleware');
      // one Buffer per file version: the engine recognizes a compiled stylesheet by identity
      const sheet = cc.source.read(own.stylesheet);
      assert.ok(Buffer.isBuffer(sheet));
      assert.equal(cc.source.read(own.stylesheet), sheet);
      fs.writeFileSync(own.stylesheet, '.navbar{color:green}\n');
      let edited = '';
      for (let i = 0; i < 100 && !/color:green/.test(edited); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        edited = (await request(url)).body.toString();
      }
      assert.match(edited, /\.navbar\{color:green\}/, 'the edited stylesheet is used');
      cc.engine.process = () => {
        throw new Error('engine failure');
      };
      const failed = await request(url);
      assert.equal(failed.status, 200);
      assert.deepEqual(failed.body, Buffer.from(bootstrapPage('fay')), 'sent as it was');
      assert.ok(cc.stats().errors >= 1);
    });
  } finally {
    cc.close();
    own.remove();
  }
});

test('inlineCriticalCss keeps at most 8 engines (one per set of options), the least recently used closed', () => {
  const { readSources } = require('../../../lib/stat-sources');
  const shared = () => readSources('critical_css').filter((s) => s.name.startsWith('inlineCriticalCss')).length;
  const page = bootstrapPage('gil');
  const expected = inlineCriticalCss(page, { browserDistFolder: dist.dir });
  for (let i = 0; i < 20; i++) {
    assert.equal(inlineCriticalCss(page, { browserDistFolder: dist.dir, memoPages: i }), expected, `options ${i}`);
    assert.ok(shared() <= 8, `${shared()} engines after ${i + 1} option sets`);
  }
  assert.equal(shared(), 8);
});

test('plain node:http: writeHead(status, headers) then end(html), and a flat header array', async () => {
  const middleware = criticalCss({ browserDistFolder: dist.dir });
  const page = bootstrapPage('hal');
  const server = await listen((req, res) =>
    middleware(req, res, () => {
      if (req.url === '/flat') res.writeHead(201, 'Made', ['Content-Type', 'text/html; charset=utf-8', 'X-A', '1']);
      else res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(page) });
      res.end(page);
    }),
  );
  try {
    const res = await request(server.url);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, inlined(page));
    assert.equal(Number(res.headers['content-length']), res.body.length, 'the length of the bytes sent');
    const flat = await request(`${server.url}/flat`);
    assert.equal(flat.status, 201);
    assert.equal(flat.headers['x-a'], '1');
    assert.deepEqual(flat.body, inlined(page));
  } finally {
    await server.close();
    middleware.close();
  }
});
