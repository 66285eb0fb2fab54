'use strict';
// ssr-native's writeResponse next to an @angular/ssr writeResponseToNodeResponse (19+), over
// HTTP: for each kind of Response an AppEngine server hands over, the same status, headers and
// body, except the ETag (and Content-Length instead of chunked) that ours adds to HTML, and 304s
// for a matching If-None-Match. Used by scripts/test-angular.js (the fixture's Angular 21) and
// scripts/angular-version-check.js (the other majors).
const assert = require('assert/strict');
const http = require('http');
// What ssr-native's etag() makes, computed independently (zlib's CRC-32).
const { contentTag: crcTag } = require('../test/js/helpers/static-tree');

async function compareWriters(writeResponseToNodeResponse, writeResponse) {
  const page = '<!doctype html><html><body>' + 'é€ ssr '.repeat(500) + '</body></html>';
  const htmlHeaders = { 'content-type': 'text/html;charset=UTF-8' };
  // one chunk per pull; with failAfter, the pull after the last chunk fails
  const streamOf = (chunks, failAfter) => {
    let i = 0;
    return new ReadableStream({
      pull(controller) {
        if (i < chunks.length) controller.enqueue(chunks[i++]);
        else if (failAfter) controller.error(new Error('render failed'));
        else controller.close();
      },
    });
  };
  const big = 'x'.repeat(64 * 1024);
  const cases = {
    'html-string': () =>
      new Response(page, { headers: { ...htmlHeaders, 'content-length': String(Buffer.byteLength(page)) } }),
    'html-stream-string': () => new Response(streamOf([page]), { headers: htmlHeaders }),
    'html-stream-bytes': () =>
      new Response(
        streamOf([new TextEncoder().encode(page.slice(0, 100)), new TextEncoder().encode(page.slice(100))]),
        { headers: htmlHeaders },
      ),
    'html-404': () => new Response(streamOf([page]), { status: 404, headers: htmlHeaders }),
    'html-cookies': () => {
      const headers = new Headers(htmlHeaders);
      headers.append('set-cookie', 'a=1; Path=/');
      headers.append('set-cookie', 'b=2; HttpOnly');
      headers.append('x-custom', 'v');
      return new Response(streamOf([page]), { headers });
    },
    'html-fails': () => new Response(streamOf(['<html>partial'], true), { headers: htmlHeaders }),
    'html-over-max-buffer': () => new Response(streamOf([big, big]), { headers: htmlHeaders }),
    json: () =>
      new Response(streamOf([new TextEncoder().encode('{"a":1}')]), {
        headers: { 'content-type': 'application/json' },
      }),
    'no-body': () => new Response(null, { status: 204, headers: { 'x-a': 'b' } }),
    redirect: () => new Response(null, { status: 302, headers: { location: '/elsewhere' } }),
    'prerendered-etag': () => new Response(page, { headers: { ...htmlHeaders, etag: '"abc"' } }),
  };
  const server = http.createServer((req, res) => {
    const [, which, name] = req.url.split('/');
    const response = cases[name]();
    const write =
      which === 'stock'
        ? writeResponseToNodeResponse(response, res)
        : writeResponse(response, req, res, { maxBuffer: 100 * 1024 });
    write.catch((err) => {
      res.statusCode = 599;
      res.end(String(err));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const get = (urlPath, headers = {}) =>
    new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: server.address().port, path: urlPath, headers }, (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }),
          );
        })
        .on('error', reject);
    });
  const comparable = (headers) => {
    const out = { ...headers };
    for (const name of ['date', 'etag', 'content-length', 'transfer-encoding', 'connection', 'keep-alive'])
      delete out[name];
    return out;
  };
  try {
    for (const name of Object.keys(cases)) {
      const stock = await get(`/stock/${name}`);
      const ours = await get(`/ours/${name}`);
      assert.equal(ours.status, stock.status, name);
      assert.deepEqual(comparable(ours.headers), comparable(stock.headers), name);
      assert.equal(ours.body, stock.body, name);
      const tagged = ['html-string', 'html-stream-string', 'html-stream-bytes', 'html-404', 'html-cookies'].includes(
        name,
      );
      if (tagged) {
        assert.equal(ours.headers.etag, crcTag(Buffer.from(ours.body)), name);
        assert.equal(ours.headers['content-length'], String(Buffer.byteLength(ours.body)), name);
        const again = await get(`/ours/${name}`, { 'if-none-match': ours.headers.etag });
        assert.equal(again.status, name === 'html-404' ? 404 : 304, name);
        if (again.status === 304) assert.deepEqual(again.headers['set-cookie'], stock.headers['set-cookie'], name);
        const noCache = await get(`/ours/${name}`, { 'if-none-match': ours.headers.etag, 'cache-control': 'no-cache' });
        assert.equal(noCache.status, stock.status, `${name}: Cache-Control: no-cache`);
      } else {
        assert.equal(ours.headers.etag, stock.headers.etag, name);
      }
    }
    // Angular's own tag of a prerendered page is kept, and a weak match of it gets a 304
    const weak = await get('/ours/prerendered-etag', { 'if-none-match': 'W/"abc"' });
    assert.equal(weak.status, 304);
  } finally {
    server.close();
  }
}

module.exports = { compareWriters, crcTag };
