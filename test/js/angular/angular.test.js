'use strict';
// ssr-native/angular without Angular installed: argument errors, the bounds of the page memo,
// writeResponse over HTTP with real WHATWG Responses (clients that leave, bodies that fail), and
// the ESM wrapper. The real Angular engines (CommonEngine of @angular/ssr 17-22, AngularNodeAppEngine
// 21 in an `ng new` app, the writers of 19-22) are checked by `npm run test:angular`.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { listen, request } = require('../helpers/http');
const angular = require('ssr-native/angular');
const { PageMemo } = require('../../../lib/angular/page-memo');
const { FileCache } = require('ssr-native');

const { cacheCommonEngine, ssgCacheOf, writeResponse } = angular;

const { contentTag: crcTag } = require('../helpers/static-tree');

// Seeded, so a failure can be replayed (test/js/helpers/seeded-random.js).
const { mulberry32: rng } = require('../helpers/seeded-random');

test('ESM wrapper re-exports the CommonJS API', async () => {
  const esm = await import('ssr-native/angular');
  assert.equal(esm.cacheCommonEngine, cacheCommonEngine);
  assert.equal(esm.writeResponse, writeResponse);
  assert.equal(esm.ssgCacheOf, ssgCacheOf);
  assert.equal(esm.default, angular);
});

test('cacheCommonEngine: a TypeError for anything that is not a known CommonEngine', () => {
  for (const bad of [undefined, null, 42, 'engine']) {
    assert.throws(() => cacheCommonEngine(bad), {
      name: 'TypeError',
      message: /^engine must be a CommonEngine instance/,
    });
  }
  // the shape of a future major: render() no longer asks retrieveSSGPage()
  class FutureEngine {
    constructor() {
      this.pageIsSSG = new Map();
    }
    async render() {
      return 'rendered';
    }
    async retrieveSSGPage() {
      return undefined;
    }
  }
  assert.throws(() => cacheCommonEngine(new FutureEngine()), {
    name: 'TypeError',
    message:
      /unsupported CommonEngine \(an instance of FutureEngine; @angular\/ssr .*\): its render\(\) does not call retrieveSSGPage\(\)\. ssr-native supports the CommonEngine of @angular\/ssr 17-18/,
  });
  assert.throws(() => cacheCommonEngine({ render() {} }), {
    message: /no retrieveSSGPage\(\) method, it has no pageIsSSG map/,
  });
});

test('cacheCommonEngine: options are checked', () => {
  class Engine {
    constructor() {
      this.pageIsSSG = new Map();
    }
    async render(opts) {
      return (await this.retrieveSSGPage(opts)) ?? 'rendered';
    }
    async retrieveSSGPage() {
      return undefined;
    }
  }
  assert.throws(() => cacheCommonEngine(new Engine(), 5), { name: 'TypeError', message: /^options must be an object/ });
  assert.throws(() => cacheCommonEngine(new Engine(), { maxPages: -1 }), { name: 'RangeError' });
  assert.throws(() => cacheCommonEngine(new Engine(), { maxBytes: '1' }), { name: 'TypeError' });
  assert.throws(() => cacheCommonEngine(new Engine(), { cache: {} }), {
    name: 'TypeError',
    message: /options\.cache must be a FileCache/,
  });
  const cache = new FileCache();
  const engine = cacheCommonEngine(new Engine(), { cache });
  assert.equal(ssgCacheOf(engine).cache, cache);
  ssgCacheOf(engine).close();
  assert.equal(Object.prototype.hasOwnProperty.call(engine, 'retrieveSSGPage'), false, 'close() gives the method back');
  cache.close();
});

test('PageMemo stays within its entry and byte bounds over random use', () => {
  for (let seed = 1; seed <= 20; seed++) {
    const random = rng(seed);
    const maxEntries = 1 + Math.floor(random() * 50);
    const maxBytes = Math.floor(random() * 5000);
    const memo = new PageMemo(maxEntries, maxBytes);
    const model = new Map(); // key -> entry, to check what get() returns
    for (let i = 0; i < 2000; i++) {
      const key = `/p${Math.floor(random() * 200)}`;
      if (random() < 0.5) {
        const entry = random() < 0.3 ? { ssg: false } : { ssg: true, html: 'x'.repeat(Math.floor(random() * 400)) };
        memo.set(key, entry);
        model.set(key, entry);
      } else {
        const got = memo.get(key);
        if (got !== undefined) assert.equal(got, model.get(key), `seed ${seed}: a stale entry for ${key}`);
      }
      assert.ok(memo.size <= maxEntries, `seed ${seed}: ${memo.size} entries > ${maxEntries}`);
      assert.ok(memo.bytes <= maxBytes, `seed ${seed}: ${memo.bytes} bytes > ${maxBytes}`);
      let bytes = 0;
      for (const entry of memo._map.values()) bytes += entry.html === undefined ? 0 : entry.html.length;
      assert.equal(memo.bytes, bytes, `seed ${seed}: byte count drifted`);
    }
  }
});

test('PageMemo evicts the least recently used entry', () => {
  const memo = new PageMemo(2, 100);
  memo.set('a', { ssg: false });
  memo.set('b', { ssg: false });
  memo.get('a');
  memo.set('c', { ssg: false });
  assert.ok(memo.get('a'));
  assert.equal(memo.get('b'), undefined);
  assert.ok(memo.get('c'));
});

test('writeResponse: HTML gets the CRC-32 ETag, a 304 on GET and HEAD, cookies kept', async () => {
  const page = '<!doctype html><p>' + 'ü'.repeat(1000) + '</p>';
  const server = await listen((req, res) => {
    const headers = new Headers({ 'content-type': 'text/html;charset=UTF-8' });
    headers.append('set-cookie', 'a=1');
    headers.append('set-cookie', 'b=2');
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(page); // AppEngine enqueues the finished page as one string
        controller.close();
      },
    });
    writeResponse(new Response(body, { headers, status: req.url === '/missing' ? 404 : 200 }), req, res);
  });
  try {
    const first = await request(`${server.url}/`);
    assert.equal(first.status, 200);
    assert.equal(first.body.toString(), page);
    assert.equal(first.headers.etag, crcTag(Buffer.from(page)));
    assert.equal(first.headers['content-length'], String(Buffer.byteLength(page)));
    assert.deepEqual(first.headers['set-cookie'], ['a=1', 'b=2']);
    for (const method of ['GET', 'HEAD']) {
      const again = await request(`${server.url}/`, { method, headers: { 'if-none-match': first.headers.etag } });
      assert.equal(again.status, 304, method);
      assert.equal(again.headers['content-type'], undefined);
      assert.deepEqual(again.headers['set-cookie'], ['a=1', 'b=2']);
    }
    const post = await request(`${server.url}/`, { method: 'POST', headers: { 'if-none-match': first.headers.etag } });
    assert.equal(post.status, 200);
    const missing = await request(`${server.url}/missing`, { headers: { 'if-none-match': first.headers.etag } });
    assert.equal(missing.status, 404, 'no 304 for a non-2xx page');
    assert.equal(missing.headers.etag, first.headers.etag);
  } finally {
    await server.close();
  }
});

test('writeResponse: non-HTML and bodies over maxBuffer stream through without an ETag', async () => {
  const server = await listen((req, res) => {
    const type = req.url === '/json' ? 'application/json' : 'text/html';
    const chunk = new TextEncoder().encode(req.url === '/json' ? '{"a":1}' : 'y'.repeat(1000));
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(chunk);
        controller.enqueue(chunk);
        controller.close();
      },
    });
    writeResponse(new Response(body, { headers: { 'content-type': type } }), req, res, { maxBuffer: 1500 });
  });
  try {
    for (const [urlPath, length] of [
      ['/json', 14],
      ['/big', 2000],
    ]) {
      const res = await request(`${server.url}${urlPath}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.length, length);
      assert.equal(res.headers.etag, undefined, urlPath);
      assert.equal(res.headers['transfer-encoding'], 'chunked', urlPath);
    }
  } finally {
    await server.close();
  }
});

// A client that reads the headers and the first bytes, stops reading (the socket fills and the
// writer waits for 'drain') and then disconnects.
function leaveMidStream(url) {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.once('data', () => {
        res.pause();
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 200);
      });
    });
    req.on('error', () => {});
  });
}

function withDeadline(promise, ms, what) {
  let timer;
  const deadline = new Promise(
    (resolve, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms)),
  );
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

test('writeResponse: a client that leaves mid-stream cancels the body, and the call settles', async () => {
  // streamed as is (not HTML), and HTML past maxBuffer (streamed after the chunks read so far)
  for (const type of ['application/octet-stream', 'text/html']) {
    const chunk = new Uint8Array(64 * 1024).fill(120);
    let cancelled;
    const bodyCancelled = new Promise((resolve) => (cancelled = resolve));
    let settled;
    const server = await listen((req, res) => {
      const body = new ReadableStream(
        {
          pull(controller) {
            controller.enqueue(chunk); // endless
          },
          cancel: cancelled,
        },
        { highWaterMark: 0 },
      );
      settled = writeResponse(new Response(body, { headers: { 'content-type': type } }), req, res, { maxBuffer: 1024 });
    });
    try {
      await leaveMidStream(`${server.url}/`);
      // Before @angular/ssr 22's fix the writer waits for a 'drain' that never comes: fail then,
      // rather than hang the suite (the deadline is a hang guard; this takes milliseconds).
      await withDeadline(
        Promise.all([bodyCancelled, settled]),
        10000,
        `${type}: the body was not cancelled or the call did not settle`,
      );
    } finally {
      server.server.closeAllConnections();
      await server.close();
    }
  }
});

test('writeResponse: a failing body ends with "Internal server error.", and nothing is logged after', async (t) => {
  const errors = t.mock.method(console, 'error', () => {});
  for (const type of ['text/html', 'application/json']) {
    let closed;
    const server = await listen((req, res) => {
      closed = new Promise((resolve) => res.on('close', resolve));
      let sent = false;
      const body = new ReadableStream({
        pull(controller) {
          if (sent) return controller.error(new Error('render failed'));
          sent = true;
          controller.enqueue(new TextEncoder().encode('partial '));
        },
      });
      writeResponse(new Response(body, { headers: { 'content-type': type } }), req, res);
    });
    try {
      const res = await request(`${server.url}/`);
      assert.equal(res.status, 200, type);
      assert.equal(res.body.toString(), 'partial Internal server error.', type);
      await closed;
      await new Promise(setImmediate); // a cancel of the failed body on 'close' would have rejected and logged by now
    } finally {
      await server.close();
    }
  }
  assert.equal(errors.mock.callCount(), 0, errors.mock.calls.map((c) => c.arguments.join(' ')).join('\n'));
});

test('writeResponse: a response that has already ended is left alone', async () => {
  let outcome;
  const server = await listen((req, res) => {
    res.end('answered already');
    outcome = writeResponse(
      new Response('<p>late</p>', { headers: { 'content-type': 'text/html', 'x-late': '1' } }),
      req,
      res,
    );
  });
  try {
    const res = await request(`${server.url}/`);
    assert.equal(res.body.toString(), 'answered already');
    assert.equal(res.headers['x-late'], undefined);
    assert.equal(await outcome, undefined);
  } finally {
    await server.close();
  }
});

// A client that asks and leaves before the page is ready: over HTTP/1.1 the response is then
// destroyed; over HTTP/2 (Express on http2's compatibility API) only its stream says so.
test('writeResponse: a client that left before the page was ready gets nothing, and the call settles', async () => {
  const http2 = require('node:http2');
  for (const protocol of ['http/1.1', 'h2']) {
    let pulls = 0;
    let settled;
    let handled;
    const handledNow = new Promise((resolve) => (handled = resolve));
    const handler = (req, res) => {
      res.on('close', () => {
        const body = new ReadableStream(
          {
            pull(controller) {
              pulls++;
              controller.enqueue(new Uint8Array(64 * 1024)); // endless
            },
          },
          { highWaterMark: 0 },
        ); // pulled only when read
        settled = writeResponse(
          new Response(body, { headers: { 'content-type': 'application/octet-stream' } }),
          req,
          res,
        );
        handled();
      });
    };
    const server = protocol === 'h2' ? http2.createServer(handler) : http.createServer(handler);
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${server.address().port}`;
    try {
      if (protocol === 'h2') {
        const session = http2.connect(url);
        session.on('error', () => {});
        const stream = session.request({ ':path': '/' });
        stream.on('error', () => {});
        stream.on('ready', () => stream.close(http2.constants.NGHTTP2_CANCEL));
        await handledNow;
        session.close();
      } else {
        const req = http.get(url, { agent: false });
        req.on('error', () => {});
        req.on('socket', (socket) => socket.on('connect', () => setImmediate(() => req.destroy())));
        await handledNow;
      }
      await withDeadline(settled, 10000, `${protocol}: the call did not settle`);
      assert.equal(pulls, 0, `${protocol}: nothing is read for a client that has gone`);
    } finally {
      if (server.closeAllConnections) server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }
});

test('writeResponse: rejects what is not a Response, request or response', async () => {
  await assert.rejects(writeResponse(null, {}, {}), { name: 'TypeError', message: /^response must be a Response/ });
  await assert.rejects(writeResponse(new Response('x'), null, {}), {
    name: 'TypeError',
    message: /^req must be an IncomingMessage/,
  });
  await assert.rejects(writeResponse(new Response('x'), { headers: {} }, {}), {
    name: 'TypeError',
    message: /^res must be a ServerResponse/,
  });
  await assert.rejects(writeResponse(new Response('x'), { headers: {} }, { setHeader() {} }, { maxBuffer: -1 }), {
    name: 'RangeError',
  });
});
