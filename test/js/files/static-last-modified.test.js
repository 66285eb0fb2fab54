'use strict';
// Last-Modified of a file whose mtime has a fractional millisecond: Node's fs.Stats rounds it
// (x.9996 s becomes x+1 s), so serve-static and koa-send send the next second; Bun's truncates it.
// Ours must agree with the runtime's own fs.Stats, cached and streamed, and setHeaders must see
// the same Date.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const referenceServeStatic = require('serve-static');
const Koa = require('koa');
const koaStatic = require('koa-static');
const serveStatic = require('../../../lib/express/serve-static');
const { serve } = require('../../../lib/koa');
const { listen, request } = require('../helpers/http');

// What this runtime's fs.Stats says, after checking the file system kept the fraction (so the
// test can tell rounding from truncation at all).
function expectedLastModified(root) {
  const stat = fs.statSync(path.join(root, 'small.txt'));
  assert.ok(stat.mtimeMs % 1 > 0.5, `the file system keeps sub-millisecond mtimes here (mtimeMs ${stat.mtimeMs})`);
  const runtimeRounds = !process.versions.bun;
  assert.equal(
    stat.mtime.toUTCString(),
    runtimeRounds ? 'Tue, 14 Nov 2023 22:13:21 GMT' : 'Tue, 14 Nov 2023 22:13:20 GMT',
  );
  return stat.mtime.toUTCString();
}

function tree() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-lastmod-'));
  const files = { 'small.txt': 'x'.repeat(100), 'large.txt': 'y'.repeat(64 * 1024) };
  // 2023-11-14T22:13:20.9996Z: the kernel keeps the nanoseconds; Node's fs.Stats rounds to ...21.000Z
  const when = 1700000000.9996;
  for (const [name, body] of Object.entries(files)) {
    fs.writeFileSync(path.join(root, name), body);
    fs.utimesSync(path.join(root, name), when, when);
  }
  return root;
}

test("Last-Modified of a fractional millisecond as this runtime's fs.Stats gives it (serveStatic vs serve-static 2.2.1)", async (t) => {
  const root = tree();
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const expected = expectedLastModified(root);
  const seen = [];
  const ours = serveStatic(root, { maxFileSize: 1024, setHeaders: (res, p, stat) => seen.push(stat.mtime.getTime()) });
  const peer = referenceServeStatic(root);
  const a = await listen((req, res) => ours(req, res, () => res.end('next')));
  const b = await listen((req, res) => peer(req, res, () => res.end('next')));
  t.after(() => Promise.all([a.close(), b.close()]));
  for (const name of ['/small.txt', '/large.txt', '/small.txt']) {
    const [mine, theirs] = [await request(a.url + name), await request(b.url + name)];
    assert.equal(mine.status, 200, name);
    assert.equal(mine.headers['last-modified'], theirs.headers['last-modified'], name);
    assert.equal(mine.headers['last-modified'], expected, name);
  }
  const mtime = fs.statSync(path.join(root, 'small.txt')).mtime.getTime(); // the runtime's own Date
  assert.ok(seen.length >= 2 && seen.every((ms) => ms === mtime), `setHeaders saw ${seen}, fs.Stats ${mtime}`);
  ours.close?.();
});

test("Last-Modified of a fractional millisecond as this runtime's fs.Stats gives it (Koa serve() vs koa-static 5)", async (t) => {
  const root = tree();
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const appOf = (mw) => {
    const app = new Koa();
    app.use(mw);
    return listen(app.callback());
  };
  const expected = expectedLastModified(root);
  const ours = serve(root, { maxFileSize: 1024 });
  const a = await appOf(ours);
  const b = await appOf(koaStatic(root));
  t.after(() => Promise.all([a.close(), b.close()]));
  for (const name of ['/small.txt', '/large.txt', '/small.txt']) {
    const [mine, theirs] = [await request(a.url + name), await request(b.url + name)];
    assert.equal(mine.status, 200, name);
    assert.equal(mine.headers['last-modified'], theirs.headers['last-modified'], name);
    assert.equal(mine.headers['last-modified'], expected, name);
  }
  ours.close?.();
});
