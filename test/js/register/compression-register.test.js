'use strict';
// ssr-native/register swaps the `compression` package: an unmodified app that requires (or
// imports) 'compression' gets ssr-native/compression and answers with it, and
// SSR_NATIVE_REGISTER without 'compression' leaves the original in place.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..', '..', '..');
const OURS = path.join(ROOT, 'lib', 'express', 'compression.js');

// An app that knows nothing of ssr-native: Express 5.3 with compression() on a 75 KB page;
// prints which file 'compression' resolved to and the answer's headers.
const APP = `
const http = require('http');
const express = require('express53');
const compression = require('compression');
const app = express();
app.use(compression());
app.get('/', (req, res) => res.type('html').send('<p>hello</p>'.repeat(6000)));
const server = app.listen(0, '127.0.0.1', () => {
  http.get({ port: server.address().port, headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } }, (res) => {
    res.resume();
    res.on('end', () => {
      console.log(JSON.stringify({ file: require.resolve('compression'), ours: typeof compression.sharedCache === 'function',
        encoding: res.headers['content-encoding'], length: res.headers['content-length'] || null }));
      server.close();
    });
  });
});`;

function run(env, flag = '-r') {
  const out = execFileSync(
    process.execPath,
    [flag, path.join(ROOT, 'lib', 'register', flag === '-r' ? 'index.js' : 'index.mjs'), '-e', APP],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      encoding: 'utf8',
    },
  );
  return JSON.parse(out.trim().split('\n').pop());
}

test('node -r ssr-native/register: require("compression") gets ours, and it answers', () => {
  const result = run({ SSR_NATIVE_REGISTER: '' });
  assert.equal(result.ours, true);
  assert.equal(result.encoding, 'br');
  assert.notEqual(result.length, null, 'a whole body goes out with its Content-Length');
});

test('SSR_NATIVE_REGISTER without compression leaves the package alone', () => {
  const result = run({ SSR_NATIVE_REGISTER: 'etag,static' });
  assert.equal(result.ours, false);
  assert.match(result.file, /node_modules[\\/]compression[\\/]index\.js$/);
  assert.equal(result.encoding, 'br');
  assert.equal(result.length, null, 'compression 1.8.2 sends chunked');
});

test('register state names the part', () => {
  const out = execFileSync(
    process.execPath,
    [
      '-r',
      path.join(ROOT, 'lib', 'register', 'index.js'),
      '-e',
      "require('compression'); const s = require(process.argv[1]); console.log(JSON.stringify([...s.active.compression]))",
      path.join(ROOT, 'lib', 'register', 'index.js'),
    ],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, SSR_NATIVE_REGISTER: '' } },
  );
  const swapped = JSON.parse(out);
  assert.equal(swapped.length, 1);
  assert.notEqual(swapped[0], OURS);
});
