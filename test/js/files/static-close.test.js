'use strict';
// close() under requests in flight: a FileCache closed while its loads are on the libuv pool (by
// serveStatic's mw.close(), Koa serve()'s, or the owner of a shared cache) must cost those requests
// an HTTP answer, never the process. Before this was handled, the load's callback asked the closed
// native cache for its generation and the "FileCache is closed" error escaped from a libuv
// callback: an uncaught exception that ends a server. Also: what the FileCache API answers
// after close() (documented in lib/express/serve-static.d.ts), and that bodies handed out stay intact.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const express = require('express');
const Koa = require('koa');
const serveStatic = require('../../../lib/express/serve-static');
const { serve } = require('../../../lib/koa');
const { FileCache } = require('../../..');
const { makeTree, rawRequest, listenOn } = require('../helpers/static-tree');

const css = 'a { color: red }\n'.repeat(400);
const files = { 'a.txt': 'alpha', 'b.css': css, 'sub/index.html': '<p>index</p>' };

async function withServer(handler, fn) {
  const server = await listenOn(handler);
  try {
    return await fn(server.port);
  } finally {
    await server.close();
  }
}

// Express: the middleware sees the request, then its cache is closed at once, with the load it
// started still on the pool. Errors reach the app's handler, which names them.
function expressClosingUnder(makeMw) {
  const app = express();
  app.use((req, res, next) => {
    const mw = makeMw();
    mw(req, res, next);
    mw.close();
  });
  app.use((req, res) => res.status(404).send('fell through'));
  app.use((err, req, res, next) => res.status(err.status || 500).send(`error: ${err.message}`));
  return app;
}

// A load already on the pool completes and its file is sent; a load asked for after close()
// (the next extension) gets the closed cache's error: a 500 through next(err).
for (const [label, url, options, expected] of [
  ['a file', '/a.txt', {}, 'alpha'],
  ['a file found through extensions (a second load after the first)', '/a', { extensions: ['txt'] }, 500],
  ['an index file', '/sub/', {}, '<p>index</p>'],
  ['a compressible file with compress on', '/b.css', { compress: true }, css],
]) {
  test(
    `serveStatic: close() with the load for ${label} in flight: ${expected === 500 ? '500' : 'the file'}, the process lives on`,
    { timeout: 20000 },
    async () => {
      const tree = makeTree(files);
      try {
        await withServer(
          expressClosingUnder(() => serveStatic(tree.root, options)),
          async (port) => {
            for (let i = 0; i < 20; i++) {
              const r = await rawRequest(port, url, { headers: { 'accept-encoding': 'gzip, br' } });
              if (expected === 500) {
                assert.equal(r.status, 500, `request ${i}: ${r.status} ${r.body}`);
                assert.equal(r.body.toString(), 'error: FileCache is closed');
              } else {
                assert.equal(r.status, 200, `request ${i}: ${r.status} ${r.body}`);
                assert.equal(r.body.toString(), expected);
              }
            }
          },
        );
      } finally {
        tree.remove();
      }
    },
  );
}

test(
  'serveStatic: a shared cache closed by its owner under concurrent requests: each answer is the whole file or a 500',
  { timeout: 20000 },
  async () => {
    const tree = makeTree(files);
    const cache = new FileCache({ root: tree.root });
    const mw = serveStatic(tree.root, { cache, compress: true });
    const app = express();
    let seen = 0;
    // the owner closes the cache as the 5th request arrives: the loads of the first four are on the pool
    app.use((req, res, next) => {
      mw(req, res, next);
      if (++seen === 5) cache.close();
    });
    app.use((err, req, res, next) => res.status(500).send(`error: ${err.message}`));
    try {
      await withServer(app, async (port) => {
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) => rawRequest(port, i % 2 ? '/b.css' : '/a.txt')),
        );
        const statuses = answers.map((r, i) => {
          if (r.status === 200) assert.equal(r.body.toString(), i % 2 ? css : 'alpha');
          else assert.equal(r.body.toString(), 'error: FileCache is closed');
          return r.status;
        });
        assert.ok(statuses.includes(500), statuses.join());
        assert.equal((await rawRequest(port, '/a.txt')).status, 500);
      });
    } finally {
      tree.remove();
    }
  },
);

test(
  'Koa serve(): close() with loads in flight answers 500 with no Content-Encoding, the process lives on',
  { timeout: 20000 },
  async () => {
    const tree = makeTree(files);
    try {
      const app = new Koa();
      // an app's own error handler, which (unlike Koa's default) keeps the headers already set
      app.use(async (ctx, next) => {
        try {
          await next();
        } catch (err) {
          ctx.status = 500;
          ctx.body = `error: ${err.message}`;
        }
      });
      app.use(async (ctx, next) => {
        const mw = serve(tree.root, { compress: true });
        const done = mw(ctx, next);
        mw.close(); // koa-send's look for a .br sibling is on the pool; the .gz one comes after close
        await done;
      });
      await withServer(app.callback(), async (port) => {
        for (const url of ['/a.txt', '/b.css', '/sub/']) {
          const r = await rawRequest(port, url, { headers: { 'accept-encoding': 'br, gzip' } });
          assert.equal(r.status, 500, `${url}: ${r.status}`);
          assert.equal(r.body.toString(), 'error: FileCache is closed');
          assert.equal(r.headers['content-encoding'], undefined, `${url}: a closed cache is no .gz sibling`);
        }
      });
    } finally {
      tree.remove();
    }
  },
);

test('FileCache after close(): lookups miss, loads call back with ERR_FILE_CACHE_CLOSED, the generation has moved, bodies stay intact', async () => {
  const tree = makeTree(files);
  try {
    const cache = new FileCache({ root: tree.root });
    const loaded = await cache.get(path.join(tree.root, 'b.css'));
    assert.equal(loaded.status, 'loaded');
    const before = cache.generation();
    const pending = cache.get(path.join(tree.root, 'a.txt')); // on the pool while we close
    cache.close();
    assert.equal((await pending).body.toString(), 'alpha'); // a load under way completes
    assert.equal(cache.lookup(path.join(tree.root, 'b.css')).status, 'miss');
    const after = await cache.get(path.join(tree.root, 'b.css'));
    assert.deepEqual(
      { status: after.status, code: after.code, message: after.message },
      { status: 'error', code: 'ERR_FILE_CACHE_CLOSED', message: 'FileCache is closed' },
    );
    let sync = true;
    cache.load(path.join(tree.root, 'b.css'), (result) => {
      assert.equal(sync, false, 'the callback comes later, as for a real load');
      assert.equal(result.code, 'ERR_FILE_CACHE_CLOSED');
    });
    sync = false;
    assert.notEqual(cache.generation(), before);
    assert.equal(cache.touch(loaded.id), cache.generation());
    assert.equal(cache.variantsOf(loaded.id), undefined);
    assert.equal(cache.nativeVariant(loaded.id, 'gzip'), null);
    assert.equal(cache.attachVariant(loaded.id, 'gzip', Buffer.from('x')), null);
    cache.invalidate(path.join(tree.root, 'b.css'));
    cache.clear();
    cache.close(); // twice is fine
    const stats = cache.stats();
    assert.equal(stats.entries, 0);
    assert.equal(stats.bytes, 0);
    assert.ok(stats.misses >= 1); // counted up to close()
    if (global.gc) global.gc();
    assert.equal(loaded.body.toString(), css);
  } finally {
    tree.remove();
  }
});
