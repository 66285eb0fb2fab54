'use strict';
// The held response: an Angular page through compression -> serveStatic -> responseCache ->
// criticalCss -> writeResponse (docs/critical-css.md's mount order, and the reverse) is held
// whole once, its CRC-32 taken once, and meets one 304 decision; over HTTP/1.1 and node:http2's
// compatibility API. The CRC-32s are counted at the addon's entry points, wrapped before any
// module of the package reads them.
const native = require('../../../lib/native');

let crcCalls = 0;
for (const name of ['crc32', 'entityTag', 'latin1Utf8Crc', 'latin1Utf8Tag', 'utf16Utf8Tag']) {
  const inner = native[name];
  if (typeof inner !== 'function') continue;
  native[name] = function counted(...args) {
    crcCalls++;
    return inner.apply(this, args);
  };
}

const test = require('node:test');
const assert = require('node:assert/strict');
const { criticalCss, CriticalCss } = require('../../../lib/express/critical-css');
const { writeResponse } = require('../../../lib/angular/index.js');
const { serveStatic } = require('../../../lib/index.js');
const compression = require('../../../lib/express/compression');
const { responseCache } = require('../../../lib/express/cache');
const held = require('../../../lib/http/held-response');
const { listen, request } = require('../helpers/http');
const { listenH2, h2request, decode } = require('../helpers/http2');
const { makeDistFolder, bootstrapPage } = require('../helpers/critical-css-pages');

const dist = makeDistFolder();
test.after(() => dist.remove());
const reference = new CriticalCss({ browserDistFolder: dist.dir, memoPages: 0, name: 'reference' });
test.after(() => reference.close());
const PAGE = bootstrapPage('everyone');
const INLINED = reference.processSync(Buffer.from(PAGE));

// The stack; `reverse` mounts it in the opposite order. Every URL is a new cache key (a miss):
// the page is rendered, inlined, tagged, stored and compressed on each request.
function stack(reverse) {
  const css = criticalCss({ browserDistFolder: dist.dir });
  const layers = [compression(), serveStatic(dist.dir), responseCache(), css];
  const route = (req, res) => {
    const response = new Response(PAGE, {
      headers: { 'content-type': 'text/html;charset=UTF-8', 'cache-control': 'public, s-maxage=60' },
    });
    writeResponse(response, req, res).catch((err) => res.destroy(err));
  };
  // connect's chain, as Express runs app.use() layers (Express itself does not run on node:http2)
  const chain = (reverse ? layers.slice().reverse() : layers).concat(route);
  const app = (req, res) => {
    let at = 0;
    const next = (err) => {
      if (err) {
        res.statusCode = 500;
        res.end(String(err));
      } else chain[at++](req, res, next);
    };
    next();
  };
  return { app, close: () => css.close() };
}

async function countsOf(send) {
  const crcBefore = crcCalls;
  const heldBefore = held.counts.bodiesHeld;
  const answer = await send();
  return { answer, crcs: crcCalls - crcBefore, holds: held.counts.bodiesHeld - heldBefore };
}

for (const reverse of [false, true]) {
  const order = reverse ? 'the reverse order' : 'compression -> serveStatic -> responseCache -> criticalCss';
  for (const protocol of ['HTTP/1.1', 'HTTP/2']) {
    test(`${protocol}, ${order}: held once, one CRC-32, one 304 decision, the same bytes`, async () => {
      const { app, close } = stack(reverse);
      const server = protocol === 'HTTP/2' ? await listenH2(app) : await listen(app);
      const get = (path, headers = {}) =>
        protocol === 'HTTP/2' ? h2request(server.url, path, { headers }) : request(`${server.url}${path}`, { headers });
      try {
        let tag;
        for (let i = 0; i < 6; i++) {
          const { answer, crcs, holds } = await countsOf(() => get(`/page?n=${i}`, { 'accept-encoding': 'br' }));
          assert.equal(answer.status, 200);
          assert.equal(answer.headers['content-encoding'], 'br');
          assert.deepEqual(decode(answer), INLINED, 'the inlined page, compressed');
          assert.equal(holds, 1, `request ${i}: the body held whole once`);
          // the first requests compile and memoize; from the fourth the page and its output are known
          if (i >= 3) assert.equal(crcs, 1, `request ${i}: one CRC-32 of the page`);
          tag = answer.headers.etag;
        }
        const { answer: notModified, holds } = await countsOf(() => get('/page?n=fresh', { 'if-none-match': tag }));
        assert.equal(notModified.status, 304, 'the one 304 decision, on the tag of the inlined page');
        assert.equal(notModified.body.length, 0);
        assert.equal(holds, 1);
      } finally {
        await server.close();
        close();
      }
    });
  }
}

test('a streamed answer the cache stores is copied as it goes, never held back', { timeout: 10000 }, async () => {
  const { responseCache: cacheOf } = require('../../../lib/express/cache');
  const layers = [compression(), cacheOf(), criticalCss({ browserDistFolder: dist.dir })];
  let release;
  const route = (req, res) => {
    res.setHeader('Content-Type', 'text/plain');
    res.setHeader('Cache-Control', 'public, s-maxage=60');
    res.flushHeaders();
    res.write('first ');
    release = () => res.end('last');
  };
  const chain = layers.concat(route);
  const app = (req, res) => {
    let at = 0;
    const next = () => chain[at++](req, res, next);
    next();
  };
  const server = await listen(app);
  try {
    const http = require('node:http');
    const body = await new Promise((resolve, reject) => {
      http
        .get(`${server.url}/stream`, { agent: false }, (res) => {
          let text = '';
          res.on('data', (chunk) => {
            text += chunk;
            // the first chunk arrives while the route still holds the end back
            if (text === 'first ' && release !== undefined) release();
          });
          res.on('end', () => resolve(text));
        })
        .on('error', reject);
    });
    assert.equal(body, 'first last');
    const hit = await request(`${server.url}/stream`);
    assert.equal(hit.body.toString(), 'first last');
    assert.ok(hit.headers.age !== undefined, 'stored from its streamed copy');
  } finally {
    await server.close();
    layers[2].close();
  }
});

test("a write or end after the route's end(), while the stages run, is refused, not sent ahead", async () => {
  // compression's stage compresses a body it has not seen (a content-cache miss) on libuv's pool,
  // so the stages are still running when the route writes again
  const middleware = compression({ threshold: 0 });
  const answers = [];
  const body = Buffer.from(PAGE);
  const app = (req, res) =>
    middleware(req, res, () => {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.end(body);
      answers.push([res.write('late write'), res.end('late end')]);
    });
  for (const listenOn of [listen, listenH2]) {
    const server = await listenOn(app);
    try {
      const answer =
        listenOn === listenH2
          ? await h2request(server.url, '/', { headers: { 'accept-encoding': 'gzip' } })
          : await request(`${server.url}/`, { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['content-encoding'], 'gzip');
      assert.deepEqual(decode(answer), body, 'the whole page and nothing else');
      assert.deepEqual(answers.pop(), [false, false]);
    } finally {
      await server.close();
    }
  }
});
