'use strict';
// serveStatic's memo of URL paths that fall through to next() (missing files, API routes, a
// directory without index): a memoised miss costs no load, a file created later is served
// within 1 s, statuses stay serve-static's, and the memo stays bounded under hostile paths.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const express = require('express');
const referenceStatic = require('serve-static');
const serveStatic = require('../../../lib/express/serve-static');
const { FileCache } = require('../../../lib/files/file-cache');
const { makeTree, rawRequest, listenOn, eventually } = require('../helpers/static-tree');

async function withServer(handler, fn) {
  const server = await listenOn(handler);
  try {
    return await fn(server.port);
  } finally {
    await server.close();
  }
}

function expressWith(mw) {
  const app = express();
  app.use(mw);
  app.get('/api/users', (req, res) => res.json([{ id: 1 }]));
  app.use((req, res) => res.status(404).send('fell through'));
  // the error serve-static forwarded, without a stack (which names our files, not theirs)
  app.use((err, req, res, next) => res.status(err.status || 500).send(`${err.status} ${err.expose} ${err.message}`));
  return app;
}

// Calls the middleware without HTTP; resolves 'next' (and the error, if any) or 'answered'.
function call(mw, url) {
  return new Promise((resolve) => {
    const headers = {};
    const req = { method: 'GET', url, originalUrl: url, headers };
    const res = {
      statusCode: 200,
      headersSent: false,
      _headers: {},
      setHeader(k, v) {
        this._headers[k.toLowerCase()] = v;
      },
      getHeader(k) {
        return this._headers[k.toLowerCase()];
      },
      getHeaderNames() {
        return Object.keys(this._headers);
      },
      removeHeader(k) {
        delete this._headers[k.toLowerCase()];
      },
      end() {
        resolve({ outcome: 'answered', status: this.statusCode });
      },
    };
    mw(req, res, (err) => resolve({ outcome: 'next', err }));
  });
}

// Seeded generator (mulberry32): a failure prints the seed and the path.
const { mulberry32: generator } = require('../helpers/seeded-random');
function randomPath(random, length) {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-_';
  let p = '/';
  while (p.length < length) p += random() < 0.1 ? '/' : alphabet[Math.floor(random() * alphabet.length)];
  return p.replace(/\/+/g, '/').replace(/\/$/, 'x');
}

// The third: a FileCache shared by several mounts (as under ssr-native/register) has no root of
// its own; the mount's root still lets its misses be memoised.
for (const { mode, watch, shared } of [
  { mode: 'inotify', watch: true },
  { mode: 'stat sweep', watch: false },
  { mode: 'inotify, a cache shared by mounts', watch: true, shared: true },
]) {
  test(`${mode}: a memoised fall-through is served within 1 s once the file appears`, async () => {
    const tree = makeTree({ 'index.html': 'home', 'about/team.txt': 'team', 'api/': '' });
    fs.rmdirSync(path.join(tree.root, 'api'));
    const options = { maxAge: '1y', index: false, redirect: false, watch };
    if (shared) options.cache = new FileCache({});
    const mw = serveStatic(tree.root, options);
    try {
      await withServer(expressWith(mw), async (port) => {
        const get = async (p) => {
          const r = await rawRequest(port, p);
          return `${r.status} ${r.body.toString()}`;
        };
        // a route behind the static middleware, a missing page, a missing asset, a directory
        assert.equal(await get('/api/users'), '200 [{"id":1}]');
        assert.equal(await get('/missing.js'), '404 fell through');
        assert.equal(await get('/about'), '404 fell through');
        assert.equal(await get('/deep/er/page.js'), '404 fell through');
        if (watch) {
          // memoised: asking again loads nothing
          assert.ok(mw.stats().memoFallthroughs >= 4, JSON.stringify(mw.stats()));
          const loads = mw.stats().misses;
          for (const p of ['/api/users', '/missing.js', '/about', '/deep/er/page.js']) await get(p);
          assert.equal(mw.stats().misses, loads, 'a memoised fall-through made a load');
        }

        fs.writeFileSync(path.join(tree.root, 'missing.js'), 'now here');
        assert.equal(await eventually(async () => (await get('/missing.js')) === '200 now here'), true, 'new file');

        fs.mkdirSync(path.join(tree.root, 'deep/er'), { recursive: true });
        fs.writeFileSync(path.join(tree.root, 'deep/er/page.js'), 'deep page');
        assert.equal(
          await eventually(async () => (await get('/deep/er/page.js')) === '200 deep page'),
          true,
          'new dirs',
        );

        fs.mkdirSync(path.join(tree.root, 'api'));
        fs.writeFileSync(path.join(tree.root, 'api/users'), 'static users');
        assert.equal(await eventually(async () => (await get('/api/users')) === '200 static users'), true, 'api');

        fs.rmSync(path.join(tree.root, 'about'), { recursive: true });
        fs.writeFileSync(path.join(tree.root, 'about'), 'about page');
        assert.equal(await eventually(async () => (await get('/about')) === '200 about page'), true, 'dir -> file');
      });
    } finally {
      mw.close();
      tree.remove();
    }
  });
}

test("statuses with memoised directories and misses stay serve-static 2.2.1's on every repeat", async () => {
  const tree = makeTree({ 'index.html': 'home', 'about/team.txt': 'team', 'docs/index.html': 'docs', '.env': 'x' });
  const paths = [
    '/about',
    '/about/',
    '/docs',
    '/docs/',
    '/nope',
    '/nope/',
    '/about/nope',
    '/index.html/x',
    '/.env',
    '/%E0%A4%A',
    '/a/../../x',
    '',
  ];
  const variants = [
    {},
    { index: false, redirect: false },
    { index: false },
    { redirect: false },
    { fallthrough: false },
    { fallthrough: false, index: false, redirect: false },
    { extensions: ['html'] },
    { dotfiles: 'deny' },
  ];
  try {
    for (const options of variants) {
      const ours = serveStatic(tree.root, options);
      try {
        await withServer(expressWith(ours), (oursPort) =>
          withServer(expressWith(referenceStatic(tree.root, options)), async (refPort) => {
            for (let round = 0; round < 3; round++) {
              for (const p of paths) {
                const url = p || '/';
                const a = await rawRequest(oursPort, url);
                const b = await rawRequest(refPort, url);
                const where = `${JSON.stringify(options)} ${url} round ${round}`;
                assert.equal(a.status, b.status, where);
                assert.equal(a.headers.location, b.headers.location, where);
                assert.equal(a.headers['content-type'], b.headers['content-type'], where);
                if (a.status !== 200) assert.equal(a.body.toString(), b.body.toString(), where);
              }
            }
          }),
        );
      } finally {
        ours.close();
      }
    }
  } finally {
    tree.remove();
  }
});

test('the fall-through memo stays bounded under thousands of distinct missing paths (seeded)', async () => {
  const tree = makeTree({ 'index.html': 'home' });
  const mw = serveStatic(tree.root, { index: false, redirect: false });
  const long = serveStatic(tree.root, { index: false, redirect: false });
  const seed = 0x9e11;
  const random = generator(seed);
  try {
    let peak = 0;
    for (let i = 0; i < 9000; i++) {
      const p = randomPath(random, 8 + Math.floor(random() * 24));
      const r = await call(mw, p);
      assert.equal(r.outcome, 'next', `seed ${seed} path ${p}`);
      assert.equal(r.err, undefined, `seed ${seed} path ${p}`);
      peak = Math.max(peak, mw.stats().memoFallthroughs);
    }
    assert.ok(peak > 1000, `the memo was used (peak ${peak})`);
    assert.ok(peak <= 8192, `count bound (peak ${peak})`);
    // long paths: bounded by characters too (1 Mi characters: about 1050 of these)
    peak = 0;
    for (let i = 0; i < 1500; i++) {
      const p = randomPath(random, 1000);
      const r = await call(long, p);
      assert.equal(r.outcome, 'next', `seed ${seed} path ${p}`);
      peak = Math.max(peak, long.stats().memoFallthroughs);
    }
    assert.ok(peak > 900 && peak <= 1100, `character bound (peak ${peak} paths of ~1000 characters)`);
    // over the length limit: not memoised at all
    const before = long.stats().memoFallthroughs;
    await call(long, randomPath(random, 3000));
    assert.equal(long.stats().memoFallthroughs, before);
  } finally {
    mw.close();
    long.close();
    tree.remove();
  }
});
