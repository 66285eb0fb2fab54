'use strict';
// Last-Modified of a file whose mtime has a fractional millisecond: fs.Stats rounds it (x.9996 s
// becomes x+1 s), so serve-static and koa-send send the next second. Ours must agree, cached and
// streamed, and setHeaders must see the same rounded Date.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const referenceServeStatic = require('serve-static');
const Koa = require('koa');
const koaStatic = require('koa-static');
const serveStatic = require('../../lib/serve-static');
const { serve } = require('../../lib/koa');
const { listen, request } = require('./helpers/http');

function tree() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-lastmod-'));
  const files = { 'small.txt': 'x'.repeat(100), 'large.txt': 'y'.repeat(64 * 1024) };
  // 2023-11-14T22:13:20.9996Z: the kernel keeps the nanoseconds, fs.Stats rounds to ...21.000Z
  const when = 1700000000.9996;
  for (const [name, body] of Object.entries(files)) {
    fs.writeFileSync(path.join(root, name), body);
    fs.utimesSync(path.join(root, name), when, when);
  }
  return root;
}

test('Last-Modified rounds a fractional millisecond as fs.Stats does (serveStatic vs serve-static 2.2.1)', async (t) => {
  const root = tree();
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const expected = fs.statSync(path.join(root, 'small.txt')).mtime.toUTCString();
  assert.equal(expected, 'Tue, 14 Nov 2023 22:13:21 GMT', 'the file system keeps sub-millisecond mtimes here');
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
  assert.ok(seen.length >= 2 && seen.every((ms) => ms === Date.parse(expected)), `setHeaders saw ${seen}`);
  ours.close?.();
});

test('Last-Modified rounds a fractional millisecond as fs.Stats does (Koa serve() vs koa-static 5)', async (t) => {
  const root = tree();
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const appOf = (mw) => {
    const app = new Koa();
    app.use(mw);
    return listen(app.callback());
  };
  const ours = serve(root, { maxFileSize: 1024 });
  const a = await appOf(ours);
  const b = await appOf(koaStatic(root));
  t.after(() => Promise.all([a.close(), b.close()]));
  for (const name of ['/small.txt', '/large.txt', '/small.txt']) {
    const [mine, theirs] = [await request(a.url + name), await request(b.url + name)];
    assert.equal(mine.status, 200, name);
    assert.equal(mine.headers['last-modified'], theirs.headers['last-modified'], name);
  }
  ours.close?.();
});
