'use strict';
// The mount order docs/cache.md and docs/compression.md give, `app.use(compression());
// app.use(responseCache())`, with both of ours: a page renders once, every later request is a
// response-cache hit, and each hit's whole body is a compression content-cache hit, so a repeated
// page is compressed once per encoding, whatever the number of requests; the decoded bytes are
// the rendered page, Vary says Accept-Encoding, and a matching If-None-Match gets a 304.
const test = require('node:test');
const assert = require('node:assert/strict');
const zlib = require('node:zlib');
const express = require('express');
const compression = require('../../../lib/express/compression');
const { ContentCache } = require('../../../lib/compression/content-cache.js');
const { responseCache } = require('../../../lib/express/cache');
const { listen, request } = require('../helpers/http');

const BROWSER = 'gzip, deflate, br, zstd';

function decode(res) {
  const coding = res.headers['content-encoding'];
  if (coding === 'br') return zlib.brotliDecompressSync(res.body);
  if (coding === 'gzip') return zlib.gunzipSync(res.body);
  if (coding === undefined) return res.body;
  throw new Error(`unexpected coding ${coding}`);
}

test('compression in front of the response cache: one render, one compression per encoding', async () => {
  const contents = new ContentCache();
  const pages = responseCache();
  let renders = 0;
  const app = express();
  app.use(compression({ cache: contents }));
  app.use(pages);
  app.get('/page', (req, res) => {
    renders++;
    res.set('Cache-Control', 'public, s-maxage=60');
    res.type('html').send(`<main>${'<p>the same rendered page</p>'.repeat(800)}</main>`);
  });
  const server = await listen(app);
  try {
    const url = `${server.url}/page`;
    const first = await request(url, { headers: { 'accept-encoding': BROWSER } });
    const page = decode(first);
    assert.equal(first.headers['content-encoding'], 'br');
    for (let i = 0; i < 5; i++) {
      const res = await request(url, { headers: { 'accept-encoding': BROWSER } });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-encoding'], 'br');
      assert.match(res.headers.vary || '', /accept-encoding/i);
      assert.ok(res.headers.age !== undefined, 'a response-cache hit carries Age');
      assert.deepEqual(decode(res), page);
    }
    const gz = await request(url, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(decode(gz), page);
    const plain = await request(url);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.deepEqual(plain.body, page);

    assert.equal(renders, 1, 'rendered once');
    assert.equal(pages.stats().hits, 7);
    const stats = contents.stats();
    assert.equal(stats.compressions, 2, 'one Brotli and one gzip compression in all');
    assert.equal(stats.hits, 5, 'every later Brotli answer came from the content cache');

    const etag = first.headers.etag;
    assert.ok(etag, 'the stored page has an ETag');
    const revalidated = await request(url, { headers: { 'accept-encoding': BROWSER, 'if-none-match': etag } });
    assert.equal(revalidated.status, 304);
    assert.equal(revalidated.body.length, 0);
  } finally {
    await server.close();
  }
});

// Issue 42: compression({ dictionary: true }) in front adds Vary: Available-Dictionary to what the
// cache stores; kept in the key, a random value per request forced a render and an entry each.
const { mulberry32 } = require('../helpers/seeded-random');

for (const [name, makeApp] of [
  ['express 4', () => require('express4')()],
  ['express 5', () => express()],
]) {
  test(`${name}: random Available-Dictionary values behind compression({ dictionary: true }) neither render nor store`, async () => {
    const pages = responseCache();
    let renders = 0;
    const app = makeApp();
    app.use(compression({ dictionary: true }));
    app.use(pages);
    app.get('/page', (req, res) => {
      renders++;
      res.set('Cache-Control', 'public, s-maxage=60');
      res.type('html').send(`<main>${'<p>the same rendered page</p>'.repeat(100)}</main>`);
    });
    const server = await listen(app);
    const seed = 42;
    const random = mulberry32(seed);
    try {
      const url = `${server.url}/page`;
      for (let i = 0; i < 20; i++) {
        const hash = Buffer.from(Array.from({ length: 32 }, () => Math.floor(random() * 256))).toString('base64');
        const res = await request(url, {
          headers: {
            'accept-encoding': 'gzip, br, zstd, dcz',
            'available-dictionary': `:${hash}:`,
            'dictionary-id': `"${i}"`,
          },
        });
        assert.equal(res.status, 200, `seed ${seed}, request ${i}`);
        assert.match(res.headers.vary || '', /available-dictionary/i, 'the client still sees the Vary');
      }
      assert.equal(renders, 1, `seed ${seed}`);
      assert.equal(pages.stats().entries, 1);
    } finally {
      await server.close();
    }
  });
}

for (const [name, Koa] of [
  ['koa 2', require('koa2')],
  ['koa 3', require('koa')],
]) {
  test(`${name}: random Available-Dictionary values behind compress({ dictionary: true }) neither render nor store`, async () => {
    const { compress, cache } = require('../../../lib/koa');
    const app = new Koa();
    const pages = cache();
    let renders = 0;
    app.use(compress({ dictionary: true }));
    app.use(pages);
    app.use((ctx) => {
      renders++;
      ctx.set('Cache-Control', 'public, s-maxage=60');
      ctx.type = 'html';
      ctx.body = `<main>${'<p>the same rendered page</p>'.repeat(100)}</main>`;
    });
    const server = await listen(app.callback());
    const seed = 7;
    const random = mulberry32(seed);
    try {
      for (let i = 0; i < 20; i++) {
        const hash = Buffer.from(Array.from({ length: 32 }, () => Math.floor(random() * 256))).toString('base64');
        const res = await request(`${server.url}/page`, {
          headers: { 'accept-encoding': 'gzip, br, zstd, dcz', 'available-dictionary': `:${hash}:` },
        });
        assert.equal(res.status, 200, `seed ${seed}, request ${i}`);
      }
      assert.equal(renders, 1, `seed ${seed}`);
    } finally {
      await server.close();
    }
  });
}
