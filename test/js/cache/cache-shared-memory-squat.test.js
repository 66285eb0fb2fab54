'use strict';
// Issue 52, finding 4, and issue 55's prerender: another local user plants something under the
// segment's predictable name (a file of theirs, a file of ours open to all, a FIFO, a symbolic
// link), or the folder has no room: the site still serves, from a per-process memory store, with
// one warning naming the file, its owner and mode and what to do, and stats().store saying so;
// nothing planted is read or changed. Making the store (as `ng build`'s prerender does by loading
// server.mjs) creates nothing: the segment is opened at first use. The default folder is one only
// this user can write when the environment names one. Every test removes what it makes.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const express = require('express');
const { listen, request } = require('../helpers/http');
const { segmentDir, leftovers, TMPFS } = require('../helpers/shm-segments');
const { responseCache, sharedMemoryStore } = require('../../../lib/express/cache');
const { defaultDir } = require('../../../lib/cache/shared-memory-segment');

const PREFIX = `squat-${process.pid}`;
const dir = segmentDir(PREFIX);
let seq = 0;
const fresh = () => `${PREFIX}-${++seq}`;
const segment = (name) => path.join(dir, `ssr-native-cache-${name}`);

test.after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(leftovers(PREFIX), [], 'every segment and folder made here is removed');
});

/** An Express app over sharedMemoryStore({ name, dir }); the warnings emitted meanwhile. */
async function site(t, storeOptions) {
  const warnings = [];
  const onWarning = (w) => w.code === 'SSR_NATIVE_SHARED_CACHE_FALLBACK' && warnings.push(w);
  process.on('warning', onWarning);
  t.after(() => process.off('warning', onWarning));
  const store = sharedMemoryStore({ dir, maxBytes: 1 << 20, ...storeOptions });
  const cache = responseCache({ store });
  let renders = 0;
  const app = express();
  app.use(cache);
  app.get('/p/:id', (req, res) => {
    renders++;
    res.set('cache-control', 'public, max-age=600');
    res.send(`page ${req.params.id}`);
  });
  const server = await listen(app);
  t.after(() => server.close());
  const get = (url) => request(server.url + url, { headers: { host: 'shop.example' } });
  return { store, cache, get, warnings, renders: () => renders };
}

/** Serves 200s from memory, one warning naming the file, its owner, mode and the fix. */
async function servesWithFallback(s, file, found) {
  for (let i = 0; i < 3; i++) {
    const r = await s.get('/p/1');
    assert.equal(r.status, 200);
    assert.equal(r.body.toString(), 'page 1');
  }
  assert.equal((await s.get('/p/2')).status, 200);
  assert.equal(s.renders(), 2, 'the fallback store caches: each page rendered once');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(s.warnings.length, 1, 'one warning');
  const message = s.warnings[0].message;
  assert.ok(message.includes(file), message);
  assert.match(message, found);
  assert.match(message, /owned by uid \d+, mode 0\d{3}/);
  assert.match(message, /remove it|dir only this user can write/);
  assert.match(s.cache.stats().store, /^memory \(fallback: refused: /);
  assert.match(s.store.stats().store, /^memory \(fallback: refused: /);
}

test('a file of another user planted under the name: served from memory, one warning, the file untouched', async (t) => {
  if (process.getuid() !== 0) return t.skip('needs root to chown to nobody');
  const name = fresh();
  fs.writeFileSync(segment(name), 'the squatter', { mode: 0o600 });
  fs.chownSync(segment(name), 65534, 65534);
  const s = await site(t, { name });
  await servesWithFallback(
    s,
    segment(name),
    /a file owned by uid 65534, mode 0600.*not by this user|not by this user.*uid 65534/,
  );
  assert.equal(fs.readFileSync(segment(name), 'utf8'), 'the squatter');
  assert.equal(fs.statSync(segment(name)).uid, 65534);
});

test('a file of ours open to every user (0666): served from memory, one warning', async (t) => {
  const name = fresh();
  fs.writeFileSync(segment(name), 'open to all');
  fs.chmodSync(segment(name), 0o666);
  const s = await site(t, { name });
  await servesWithFallback(s, segment(name), /mode 0666/);
  assert.equal(fs.readFileSync(segment(name), 'utf8'), 'open to all');
});

test('a FIFO planted under the name: served from memory, one warning, no stall', async (t) => {
  const name = fresh();
  const made = spawnSync('mkfifo', ['-m', '0600', segment(name)]);
  if (made.status !== 0) return t.skip('mkfifo is not available');
  const s = await site(t, { name });
  await servesWithFallback(s, segment(name), /not a regular file.*a FIFO|a FIFO/);
  assert.ok(fs.lstatSync(segment(name)).isFIFO());
});

test('a symbolic link planted under the name: served from memory, one warning, its target untouched', async (t) => {
  const name = fresh();
  const target = path.join(dir, `${name}-target`);
  fs.writeFileSync(target, 'the target', { mode: 0o600 });
  fs.symlinkSync(target, segment(name));
  const s = await site(t, { name });
  await servesWithFallback(s, segment(name), /symbolic link/);
  assert.equal(fs.readFileSync(target, 'utf8'), 'the target');
});

test('a folder without room for maxBytes: served from memory, one warning naming the sizes', async (t) => {
  const { bavail, bsize } = fs.statfsSync(dir);
  const maxBytes = Number(bavail) * Number(bsize) + 2 ** 30;
  const name = fresh();
  const s = await site(t, { name, maxBytes });
  assert.equal((await s.get('/p/1')).status, 200);
  assert.equal((await s.get('/p/1')).status, 200);
  assert.equal(s.renders(), 1);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(s.warnings.length, 1);
  assert.match(s.warnings[0].message, /MiB free in .*, the segment reserves at least maxBytes \(\d+\.\d MiB\)/);
  assert.match(s.cache.stats().store, /^memory \(fallback: no room/);
  assert.equal(fs.existsSync(segment(name)), false, 'nothing left behind');
});

test('a folder that cannot hold the segment: served from memory, one warning saying why', async (t) => {
  const name = fresh();
  const s = await site(t, { name, dir: path.join(dir, 'missing') });
  assert.equal((await s.get('/p/1')).status, 200);
  assert.equal((await s.get('/p/1')).status, 200);
  assert.equal(s.renders(), 1);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(s.warnings.length, 1);
  assert.match(s.warnings[0].message, /No such file or directory/);
  assert.match(s.cache.stats().store, /^memory \(fallback: cannot open: No such file or directory\)$/);
});

test('making the store creates no file; the first request opens the segment', async (t) => {
  const name = fresh();
  const before = fs.readdirSync(dir);
  const s = await site(t, { name });
  assert.deepEqual(fs.readdirSync(dir), before, 'sharedMemoryStore() and responseCache() create nothing');
  assert.equal(s.cache.stats().store, 'shared-memory (opens at first use)');
  assert.equal((await s.get('/p/1')).status, 200);
  assert.ok(fs.existsSync(segment(name)));
  assert.equal(s.cache.stats().store, 'shared-memory');
  assert.equal(s.warnings.length, 0);
});

test('the default folder: $XDG_RUNTIME_DIR or $RUNTIME_DIRECTORY when only this user can write it, else /dev/shm', (t) => {
  const own = segmentDir(`${PREFIX}-own`);
  const open = segmentDir(`${PREFIX}-open`);
  t.after(() => {
    fs.rmSync(own, { recursive: true, force: true });
    fs.rmSync(open, { recursive: true, force: true });
  });
  fs.chmodSync(open, 0o777);
  const shm = '/dev/shm';
  assert.equal(defaultDir({ XDG_RUNTIME_DIR: own }), own);
  assert.equal(defaultDir({ RUNTIME_DIRECTORY: `${own}:${open}` }), own);
  assert.equal(defaultDir({ XDG_RUNTIME_DIR: open, RUNTIME_DIRECTORY: own }), own);
  assert.equal(defaultDir({ XDG_RUNTIME_DIR: open }), shm, 'a folder others may write is no private folder');
  assert.equal(defaultDir({ XDG_RUNTIME_DIR: 'relative' }), shm);
  assert.equal(defaultDir({ XDG_RUNTIME_DIR: path.join(own, 'missing') }), shm);
  assert.equal(defaultDir({}), shm);
  if (process.getuid() === 0) {
    const theirs = segmentDir(`${PREFIX}-theirs`);
    t.after(() => fs.rmSync(theirs, { recursive: true, force: true }));
    fs.chownSync(theirs, 65534, 65534);
    assert.equal(defaultDir({ XDG_RUNTIME_DIR: theirs }), shm, "another user's folder");
  }
  const saved = process.env.XDG_RUNTIME_DIR;
  process.env.XDG_RUNTIME_DIR = own;
  try {
    assert.equal(sharedMemoryStore({ name: fresh() }).file.startsWith(`${own}/ssr-native-cache-`), true);
  } finally {
    if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
    else process.env.XDG_RUNTIME_DIR = saved;
  }
  assert.ok(TMPFS);
});
