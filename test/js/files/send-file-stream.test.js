'use strict';
// lib/files/file-stream.js: a streamed file body is exactly the length announced, whatever
// happens to the file between the fstat and the last byte.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { openFileForStream, fileRangeStream, sendFileStream } = require('../../../lib/files/file-stream');
const { makeTree, listenOn } = require('../helpers/static-tree');

function pattern(size, seed) {
  const out = Buffer.allocUnsafe(size);
  for (let i = 0; i < size; i++) out[i] = (seed + i * 13) & 0xff;
  return out;
}

const open = (p) =>
  new Promise((resolve, reject) =>
    openFileForStream(p, (err, fd, stat) => (err ? reject(err) : resolve({ fd, stat }))),
  );

// A server whose handler is set per test: (req, res) => ...
async function withServer(fn) {
  let handler = (req, res) => res.end();
  const server = await listenOn((req, res) => handler(req, res));
  server.server.keepAliveTimeout = 10000;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = () =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ hang: true }), 3000);
      const req = http.get({ host: '127.0.0.1', port: server.port, path: '/', agent }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) });
        });
        res.on('aborted', () => {
          clearTimeout(timer);
          resolve({ aborted: true, received: Buffer.concat(chunks).length });
        });
      });
      req.on('error', (err) => {
        clearTimeout(timer);
        resolve({ error: err });
      });
    });
  try {
    await fn((h) => (handler = h), get);
  } finally {
    agent.destroy();
    await server.close();
  }
}

test('a file that shrinks mid-stream ends the connection at once; grown or replaced files send the announced bytes', async () => {
  const size = 1 << 20;
  const original = pattern(size, 1);
  const tree = makeTree({ 'f.bin': original });
  const file = path.join(tree.root, 'f.bin');
  try {
    await withServer(async (setHandler, get) => {
      // Shrinks after the fstat: the headers say 1 MiB, only 100 KB exist.
      let done;
      setHandler(async (req, res) => {
        const { fd, stat } = await open(file);
        fs.truncateSync(file, 100 * 1024);
        res.setHeader('Content-Length', stat.size);
        sendFileStream(fd, stat, undefined, res, (err) => (done = err));
      });
      const shrunk = await get();
      assert.equal(shrunk.hang, undefined, 'the client must not wait for bytes that will not come');
      assert.ok(shrunk.aborted || shrunk.error, JSON.stringify(shrunk));
      assert.equal(done && done.code, 'ERR_FILE_SHRANK');

      // Grows after the fstat: exactly the stat'ed length, the original bytes.
      fs.writeFileSync(file, original);
      setHandler(async (req, res) => {
        const { fd, stat } = await open(file);
        fs.appendFileSync(file, pattern(50000, 9));
        res.setHeader('Content-Length', stat.size);
        sendFileStream(fd, stat, undefined, res);
      });
      const grown = await get();
      assert.equal(grown.status, 200);
      assert.ok(grown.body.equals(original));
      // the connection's framing is intact: the next response on it parses
      assert.equal((await get()).status, 200);

      // Replaced by rename after the fstat: the old version, whole.
      fs.writeFileSync(file, original);
      setHandler(async (req, res) => {
        const { fd, stat } = await open(file);
        fs.writeFileSync(file + '.new', pattern(300000, 5));
        fs.renameSync(file + '.new', file);
        res.setHeader('Content-Length', stat.size);
        sendFileStream(fd, stat, undefined, res);
      });
      const replaced = await get();
      assert.ok(replaced.body.equals(original));

      // A range: bytes start..end of the stat'ed version.
      setHandler(async (req, res) => {
        const { fd, stat } = await open(file);
        res.statusCode = 206;
        res.setHeader('Content-Length', 1000);
        sendFileStream(fd, stat, { start: 5000, end: 5999 }, res);
      });
      const range = await get();
      assert.equal(range.status, 206);
      assert.ok(range.body.equals(pattern(300000, 5).subarray(5000, 6000)));

      // A range beyond the end of a file that shrank: cut off, not a hang.
      setHandler(async (req, res) => {
        const { fd, stat } = await open(file);
        fs.truncateSync(file, 10);
        res.statusCode = 206;
        res.setHeader('Content-Length', 1000);
        sendFileStream(fd, stat, { start: 5000, end: 5999 }, res);
      });
      const cut = await get();
      assert.equal(cut.hang, undefined);
      assert.ok(cut.aborted || cut.error);
    });
  } finally {
    tree.remove();
  }
});

test('fileRangeStream: exact bytes, ERR_FILE_SHRANK when the file ends first, argument checks', async () => {
  const tree = makeTree({ 'f.bin': pattern(200000, 3) });
  const file = path.join(tree.root, 'f.bin');
  try {
    const read = (stream) =>
      new Promise((resolve) => {
        const chunks = [];
        stream.on('data', (c) => chunks.push(c));
        stream.on('end', () => resolve({ body: Buffer.concat(chunks) }));
        stream.on('error', (error) => resolve({ error, got: Buffer.concat(chunks).length }));
      });
    let { fd } = await open(file);
    const whole = await read(fileRangeStream(fd, { start: 0, end: 199999 }));
    assert.ok(whole.body.equals(pattern(200000, 3)));
    ({ fd } = await open(file));
    const empty = await read(fileRangeStream(fd, { start: 10, end: 9 }));
    assert.equal(empty.body.length, 0);
    ({ fd } = await open(file));
    fs.truncateSync(file, 70000);
    const short = await read(fileRangeStream(fd, { start: 0, end: 199999 }));
    assert.equal(short.error.code, 'ERR_FILE_SHRANK');
    assert.ok(short.got <= 70000);
    assert.throws(() => fileRangeStream(fd, { start: -1, end: 3 }), RangeError);
    assert.throws(() => fileRangeStream(fd, { start: 0 }), RangeError);
    assert.throws(() => fileRangeStream(fd, { start: 5, end: 2 }), RangeError);
    await new Promise((r) => setTimeout(r, 20));
    // every descriptor handed over was closed (fstat of a closed fd fails)
    assert.throws(() => fs.fstatSync(fd), { code: 'EBADF' });
  } finally {
    tree.remove();
  }
});

test('fileRangeStream({ res }) as a body piped by someone else (Koa): a short file destroys res', async () => {
  const tree = makeTree({ 'f.bin': pattern(500000, 7) });
  const file = path.join(tree.root, 'f.bin');
  try {
    await withServer(async (setHandler, get) => {
      setHandler(async (req, res) => {
        const { fd, stat } = await open(file);
        fs.truncateSync(file, 1000);
        res.setHeader('Content-Length', stat.size);
        const body = fileRangeStream(fd, { start: 0, end: stat.size - 1, res });
        body.on('error', () => {}); // what Koa does: report it, leave the response alone
        body.pipe(res);
      });
      const r = await get();
      assert.equal(r.hang, undefined, 'destroyed, not left waiting');
      assert.ok(r.aborted || r.error);
    });
  } finally {
    tree.remove();
  }
});
