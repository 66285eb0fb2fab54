'use strict';
// ssr-native/register with real Express 4, Express 5 (+ body-parser) and Koa over HTTP: each
// server answers a set of requests with and without `-r ssr-native/register`, and the answers
// must be identical, while the register state shows which content-type copies were replaced.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..', '..');
const server = path.join(root, 'test', 'fixtures', 'content-type-server.js');
const register = path.join(root, 'lib', 'register.js');

function start(framework, withRegister) {
  const args = withRegister ? ['-r', register, server] : [server];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, FRAMEWORK: framework, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /READY (\d+)/.exec(out);
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.on('exit', (code) => reject(new Error(`${framework} server exited with ${code}`)));
  });
}

async function request(port, method, urlPath, contentType, body) {
  const headers = {};
  if (contentType !== undefined) headers['content-type'] = contentType;
  const res = await fetch(`http://127.0.0.1:${port}${urlPath}`, { method, headers, body });
  return { status: res.status, contentType: res.headers.get('content-type'), body: await res.text() };
}

const EXPRESS_REQUESTS = [
  ['GET', '/html'],
  ['GET', '/json'],
  ['GET', '/typed'],
  ['GET', '/custom'],
  ['GET', '/quoted'],
  ['POST', '/json', 'application/json', '{"a":1}'],
  ['POST', '/json', 'Application/JSON; Charset="UTF-8"', '{"a":2}'],
  ['POST', '/json', 'application/json; charset=latin1', '{"a":3}'],
  ['POST', '/json', 'application/json; charset', '{"a":4}'],
  ['POST', '/json', 'application/json; charset=utf-8; charset=koi8-r', '{"a":5}'],
  ['POST', '/text', 'text/plain; charset=utf-8', 'hello'],
  ['POST', '/text', 'text/plain; charset="iso-8859-1"', 'caf\u00e9'],
  ['POST', '/text', 'text/plain; charset=bogus', 'x'],
  ['POST', '/form', 'application/x-www-form-urlencoded; charset=utf-8', 'a=1&b=2'],
  ['POST', '/is', 'application/json; charset=utf-8', '{}'],
  ['POST', '/is', 'text/html; bad', '{}'],
];

const KOA_REQUESTS = [
  ['POST', '/', 'application/json; charset=UTF-8', '{}'],
  ['POST', '/', 'text/plain; charset="iso-8859-1"', 'x'],
  ['POST', '/', 'text/plain; charset', 'x'],
  ['POST', '/', 'image/png', 'x'],
  ['GET', '/'],
];

async function answers(framework, withRegister, requests) {
  const { child, port } = await start(framework, withRegister);
  try {
    const results = [];
    // Three rounds: ours caches a header on its second sighting and serves the third from cache.
    for (let round = 0; round < 3; round++) {
      for (const [method, urlPath, type, body] of requests) {
        results.push(await request(port, method, urlPath, type, body));
      }
    }
    const state = JSON.parse((await request(port, 'GET', '/__register')).body);
    return { results, state };
  } finally {
    child.kill();
  }
}

const contentTypeV1 = path.join(root, 'node_modules', 'content-type', 'index.js');

test('Express 4 + body-parser 1.x: content-type replaced, identical HTTP answers', async () => {
  const plain = await answers('express4', false, EXPRESS_REQUESTS);
  const registered = await answers('express4', true, EXPRESS_REQUESTS);
  assert.deepStrictEqual(registered.results, plain.results);
  assert.deepStrictEqual(plain.state.redirected, []);
  assert.deepStrictEqual(registered.state.redirected, [contentTypeV1]);
  assert.ok(registered.state.hits > 20, `cache hits: ${registered.state.hits}`);
  assert.equal(plain.state.hits, 0);
  // Sanity: the requests did exercise parse errors and charsets.
  assert.ok(plain.results.some((r) => r.status === 415));
  // setCharset's parse + format round trip: Charset="ISO-8859-1" becomes charset=utf-8, the
  // other parameters are kept, sorted and re-quoted.
  assert.ok(plain.results.some((r) => r.contentType === 'text/plain; charset=utf-8; format=flowed'));
  assert.ok(plain.results.some((r) => r.contentType === 'text/plain; a="b \\" c"; charset=utf-8'));
});

test('Express 5.2 + body-parser 2.2 (content-type 1.x): replaced, identical HTTP answers', async () => {
  const plain = await answers('express52', false, EXPRESS_REQUESTS);
  const registered = await answers('express52', true, EXPRESS_REQUESTS);
  assert.deepStrictEqual(registered.results, plain.results);
  assert.deepStrictEqual(registered.state.redirected, [contentTypeV1]);
  assert.ok(registered.state.hits > 20, `cache hits: ${registered.state.hits}`);
  assert.ok(plain.results.some((r) => r.status === 415));
});

test('Express 5.3 + body-parser 2.3+ (content-type 2.x): left alone, identical HTTP answers', async () => {
  const plain = await answers('express5', false, EXPRESS_REQUESTS);
  const registered = await answers('express5', true, EXPRESS_REQUESTS);
  assert.deepStrictEqual(registered.results, plain.results);
  // Express 5.3 and body-parser 2.x depend on content-type 2.x, whose API differs: not replaced.
  for (const file of registered.state.redirected) assert.equal(file, contentTypeV1);
});

test('Koa: content-type replaced, identical HTTP answers', async () => {
  const plain = await answers('koa', false, KOA_REQUESTS);
  const registered = await answers('koa', true, KOA_REQUESTS);
  assert.deepStrictEqual(registered.results, plain.results);
  assert.deepStrictEqual(registered.state.redirected, [contentTypeV1]);
  assert.ok(registered.state.hits > 0);
});

test('register is idempotent and only redirects the exact request for a 1.x copy', () => {
  const first = require('../../lib/register.js');
  const Module = require('node:module');
  const again = Module[Symbol.for('ssr-native.register')];
  assert.equal(first, again);
  assert.equal(require('content-type'), require('../../lib/content-type/index.js'));
  assert.notEqual(require('content-type/index.js'), require('../../lib/content-type/index.js'));
  const v2 = require.resolve('content-type', { paths: [path.join(root, 'node_modules', 'express')] });
  assert.match(v2, /express[\\/]node_modules[\\/]content-type/);
  assert.equal(typeof require(v2).parse, 'function');
  assert.ok(first.redirected.has(contentTypeV1));
});
