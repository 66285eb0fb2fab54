'use strict';
// serveStatic with a root that is not there (a wrong browserDistFolder): one process warning per
// root at creation, naming it, and otherwise serve-static 2.2.1's behaviour, checked beside the
// real peer on an Express 5 app: no throw, the request falls through to Express's 404.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const express = require('express');
const peer = require('serve-static');
const { serveStatic } = require('../../../lib/index.js');
const { listen, request } = require('../helpers/http');

const CODE = 'SSR_NATIVE_STATIC_ROOT_MISSING';

// The warnings of CODE emitted while `fn` runs (and the tick after, when they are delivered).
async function warningsDuring(fn) {
  const warnings = [];
  const onWarning = (w) => {
    if (w.code === CODE) warnings.push(w);
  };
  process.on('warning', onWarning);
  try {
    await fn();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', onWarning);
  }
  return warnings;
}

async function statusOf(middleware, url) {
  const app = express();
  app.use(middleware);
  const server = await listen(app);
  try {
    return (await request(server.url + url)).status;
  } finally {
    await server.close();
  }
}

test('a root that does not exist: one warning naming it, then the peer behaviour (404 through next)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-root-'));
  try {
    const root = path.join(dir, 'dist', 'app', 'browser');
    let statuses;
    const warnings = await warningsDuring(async () => {
      const ours = serveStatic(root);
      serveStatic(root, { maxAge: 1000 }); // the same root again: no second warning
      statuses = [await statusOf(ours, '/main.js'), await statusOf(peer(root), '/main.js')];
    });
    assert.deepEqual(statuses, [404, 404]);
    assert.equal(warnings.length, 1);
    assert.ok(warnings[0].message.includes(`the root ${root} does not exist`), warnings[0].message);
    assert.match(warnings[0].message, /browserDistFolder/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a root that is a file: one warning; a folder: none', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-root-'));
  try {
    const file = path.join(dir, 'index.html');
    fs.writeFileSync(file, '<p>hi</p>');
    const warnings = await warningsDuring(async () => {
      assert.equal(await statusOf(serveStatic(file), '/'), await statusOf(peer(file), '/'));
      assert.equal(await statusOf(serveStatic(dir), '/index.html'), 200);
    });
    assert.equal(warnings.length, 1);
    assert.ok(warnings[0].message.includes(`the root ${file} is not a folder`), warnings[0].message);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
