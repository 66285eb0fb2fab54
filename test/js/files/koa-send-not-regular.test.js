'use strict';
// A file the cache does not hold as a regular file (here a character device, /dev/null, behind
// a symlink): FileSender answers it as koa-send 5.0.1 does (its headers, its stream), with the
// user's setHeaders before koa-send's Content-Length, Last-Modified and Cache-Control. Compared
// with koa-send over the same tree, on setHeaders that set nothing, set what koa-send then keeps,
// and record what they were given.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const Koa = require('koa');
const koaSend = require('koa-send');
const { send } = require('../../../lib/koa');
const { FileSender } = require('../../../lib/koa/send');
const { makeTree, rawRequest, listenOn } = require('../helpers/static-tree');

const SKIP = !fs.existsSync('/dev/null') || process.platform === 'win32';

function appOf(sendFn, opts) {
  const koa = new Koa();
  koa.silent = true;
  koa.use(async (ctx) => {
    await sendFn(ctx, ctx.path, opts);
  });
  return koa.callback();
}

async function fetchWith(sendFn, opts, rawPath, headers) {
  const server = await listenOn(appOf(sendFn, opts));
  try {
    return await rawRequest(server.port, rawPath, { headers });
  } finally {
    await server.close();
  }
}

// what a response holds but its date
function shape(r) {
  const headers = [];
  for (let i = 0; i < r.rawHeaders.length; i += 2) {
    if (r.rawHeaders[i].toLowerCase() !== 'date') headers.push([r.rawHeaders[i], r.rawHeaders[i + 1]]);
  }
  return { status: r.status, headers, body: r.body.toString('hex') };
}

let tree;
test.before(() => {
  tree = makeTree({ 'a.txt': 'a' });
  fs.symlinkSync('/dev/null', path.join(tree.root, 'null.txt'));
});
test.after(() => tree?.remove());

const SET_HEADERS = {
  none: () => undefined,
  'sets Cache-Control and Last-Modified': () => (res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Last-Modified', 'Mon, 01 Jan 2001 00:00:00 GMT');
  },
  'sets Content-Length and Content-Type': () => (res) => {
    res.setHeader('Content-Length', '7');
    res.setHeader('Content-Type', 'text/x-mine');
  },
  // what it is given (the size, the date) and what the response holds then
  records: () => (res, filePath, stats) => {
    res.setHeader('X-Seen', `${path.basename(filePath)} ${stats.size} ${stats.mtime.getTime() > 0}`);
    res.setHeader('X-Headers', Object.keys(res.getHeaders()).join(',') || '-');
  },
};

test('a file the cache does not hold: koa-send headers, setHeaders first', { skip: SKIP }, async () => {
  const reached = [];
  const original = FileSender.prototype.sendAsKoaSend;
  FileSender.prototype.sendAsKoaSend = function (...args) {
    reached.push(args[1]);
    return original.apply(this, args);
  };
  try {
    for (const [label, make] of Object.entries(SET_HEADERS)) {
      for (const extra of [{}, { acceptRanges: true }, { etag: false }]) {
        const theirsOpts = { root: tree.root, maxage: 5000, setHeaders: make() };
        const oursOpts = { ...theirsOpts, setHeaders: make(), ...extra };
        for (const headers of [{}, { range: 'bytes=0-0' }]) {
          const [mine, theirs] = await Promise.all([
            fetchWith(send, oursOpts, '/null.txt', headers),
            fetchWith(koaSend, theirsOpts, '/null.txt', headers),
          ]);
          assert.deepEqual(shape(mine), shape(theirs), `${label} ${JSON.stringify(extra)} ${JSON.stringify(headers)}`);
        }
      }
    }
  } finally {
    FileSender.prototype.sendAsKoaSend = original;
  }
  assert.ok(reached.length > 0 && reached.every((p) => p.endsWith('null.txt')), 'the not-regular path was taken');
});
