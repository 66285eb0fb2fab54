'use strict';
// The middlewares never compile a stylesheet on the event loop: the folder's stylesheets are
// compiled on libuv's pool (criticalCssCompileAsync, seen here through async_hooks) when the
// middleware is made (warm), and one with no plan yet is compiled there while its page waits,
// once however many first pages ask for it, again when the file changes; a page still counts
// once in stats(). A stylesheet the engine refuses is refused once. The synchronous
// API (inlineCriticalCss, CriticalCss#processSync) compiles where it is called, as documented.
const test = require('node:test');
const assert = require('node:assert/strict');
const asyncHooks = require('node:async_hooks');
const fs = require('node:fs');
const express = require('express');
const { criticalCss, CriticalCss } = require('../../../lib/express/critical-css');
const { listen, request } = require('../helpers/http');
const { makeDistFolder, bootstrapPage, STYLESHEET } = require('../helpers/critical-css-pages');

const COMPILE = 'ssr-native:critical-css-compile';
// Bun's async_hooks report no resources: there the rest of each test still runs
const seesResources = !process.versions.bun;

// Counts the async resources of each type created while the hook is on.
function resourceCounter() {
  const counts = new Map();
  const hook = asyncHooks.createHook({ init: (id, type) => counts.set(type, (counts.get(type) || 0) + 1) }).enable();
  return { count: (type) => counts.get(type) || 0, stop: () => hook.disable() };
}

async function withApp(dir, fn, options = { warm: false }) {
  const app = express();
  const middleware = criticalCss({ browserDistFolder: dir, memoPages: 0, ...options });
  app.use(middleware);
  app.get('/orders/:user', (req, res) => res.type('html').send(bootstrapPage(req.params.user)));
  const server = await listen(app);
  try {
    await fn(server.url, middleware);
  } finally {
    await server.close();
    middleware.close();
  }
}

// The engine's answer for `page` against the stylesheet as it is now, from a CriticalCss of its own.
function expected(dir, page) {
  const reference = new CriticalCss({ browserDistFolder: dir, memoPages: 0, warm: false, name: 'reference' });
  try {
    return reference.processSync(Buffer.from(page));
  } finally {
    reference.close();
  }
}

test('first pages wait for one compilation on the pool; a changed stylesheet compiles there again', async () => {
  const dist = makeDistFolder();
  try {
    await withApp(dist.dir, async (url, middleware) => {
      const counter = resourceCounter();
      const users = Array.from({ length: 8 }, (_, i) => `first-${i}`);
      const answers = await Promise.all(users.map((u) => request(`${url}/orders/${u}`)));
      counter.stop();
      answers.forEach((res, i) => {
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, expected(dist.dir, bootstrapPage(users[i])), `page of ${users[i]}`);
      });
      assert.match(answers[0].body.toString(), /<style>[^<]*\.navbar/);
      if (seesResources) assert.equal(counter.count(COMPILE), 1, 'one compilation, on the pool');
      let stats = middleware.stats();
      assert.equal(stats.compiled, 1, JSON.stringify(stats));
      assert.equal(stats.pages, users.length, 'each page counted once');
      assert.equal(stats.inlined, users.length);

      // a later page: the plan is there, nothing is compiled
      const later = resourceCounter();
      assert.equal((await request(`${url}/orders/later`)).status, 200);
      later.stop();
      assert.equal(later.count(COMPILE), 0);

      // the file changes (a deploy, a dev rebuild): its new content compiles on the pool
      const css = `${fs.readFileSync(dist.stylesheet, 'utf8')}\n.table-striped-marker{color:teal}\n.navbar{outline:1px solid red}\n`;
      fs.writeFileSync(dist.stylesheet, css);
      let res;
      const again = resourceCounter();
      for (let i = 0; i < 200; i++) {
        res = await request(`${url}/orders/edited-${i}`);
        if (res.body.includes('outline:1px solid red')) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      again.stop();
      assert.match(res.body.toString(), /\.navbar\{outline:1px solid red\}|\.navbar \{ ?outline: ?1px solid red;? ?\}/);
      assert.doesNotMatch(res.body.toString(), /table-striped-marker/, 'a rule of no element stays out');
      stats = middleware.stats();
      assert.equal(stats.compiled, 2, JSON.stringify(stats));
      if (seesResources) assert.equal(again.count(COMPILE), 1, 'the new content compiled once, on the pool');
    });
  } finally {
    dist.remove();
  }
});

test("warm: the folder's stylesheets are compiled on the pool before the first page", async () => {
  const dist = makeDistFolder();
  try {
    const counter = resourceCounter();
    await withApp(
      dist.dir,
      async (url, middleware) => {
        for (let i = 0; i < 500 && middleware.stats().compiled === 0; i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        counter.stop();
        assert.equal(middleware.stats().compiled, 1, 'compiled ahead of any page');
        if (seesResources) assert.equal(counter.count(COMPILE), 1, 'on the pool');
        const first = resourceCounter();
        const res = await request(`${url}/orders/first`);
        first.stop();
        assert.deepEqual(res.body, expected(dist.dir, bootstrapPage('first')));
        assert.equal(first.count(COMPILE), 0, 'the first page found its plan');
        const stats = middleware.stats();
        assert.equal(stats.compiled, 1, JSON.stringify(stats));
        assert.equal(stats.stylesheetSyncReads, 0, JSON.stringify(stats));
      },
      {},
    );
  } finally {
    dist.remove();
  }
});

test('a stylesheet the engine refuses is refused once; its pages go out with the stylesheet linked', async () => {
  const dist = makeDistFolder(`${'@media all{'.repeat(2000)}.navbar{color:red}${'}'.repeat(2000)}`);
  try {
    await withApp(dist.dir, async (url, middleware) => {
      for (let i = 0; i < 3; i++) {
        const res = await request(`${url}/orders/refused-${i}`);
        assert.equal(res.status, 200);
        assert.doesNotMatch(res.body.toString(), /<style>/);
        assert.match(res.body.toString(), new RegExp(`href="${STYLESHEET}"`));
      }
      const stats = middleware.stats();
      assert.equal(stats.compileErrors, 1, JSON.stringify(stats));
      assert.equal(stats.compiled, 0);
      assert.equal(stats.pages, 3);
    });
  } finally {
    dist.remove();
  }
});

test('the synchronous API compiles where it is called', () => {
  const dist = makeDistFolder();
  const engine = new CriticalCss({ browserDistFolder: dist.dir, warm: false, name: 'sync' });
  try {
    const counter = resourceCounter();
    const out = engine.processSync(bootstrapPage('sync'));
    counter.stop();
    assert.match(out, /<style>[^<]*\.navbar/);
    assert.equal(counter.count(COMPILE), 0);
    assert.equal(engine.stats().compiled, 1);
  } finally {
    engine.close();
    dist.remove();
  }
});

test('a worker terminated while its stylesheet compiles takes nothing down', async () => {
  const { Worker } = require('node:worker_threads');
  const dist = makeDistFolder();
  try {
    const nativePath = require.resolve('../../../lib/native');
    for (let round = 0; round < 4; round++) {
      const worker = new Worker(
        `const { parentPort } = require('node:worker_threads');
         const native = require(${JSON.stringify(nativePath)});
         const css = require('node:fs').readFileSync(${JSON.stringify(dist.stylesheet)});
         for (let k = 0; k < 3; k++) native.criticalCssCompileAsync(css, () => {});
         parentPort.postMessage('started');`,
        { eval: true },
      );
      await new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      await worker.terminate();
    }
    await withApp(dist.dir, async (url, middleware) => {
      assert.equal((await request(`${url}/orders/after-workers`)).status, 200);
      assert.equal(middleware.stats().compiled, 1);
    });
  } finally {
    dist.remove();
  }
});
