'use strict';
// ssr-native/register with real, unmodified apps (test/fixtures/register-app.js): Express 5.3,
// 5.2 and 4.x, body-parser 2.4, type-is 2.1 and Koa 3, each started in a child process plain,
// under `node -r ssr-native/register` and under `node --import ssr-native/register`. The answers
// must be the same except the documented ETag values (CRC-32 ones, checked against the body), no
// content-type copy may stay loaded from node_modules, and Express 5's static mounts must be
// ours. An unknown SSR_NATIVE_REGISTER part stops the start, naming the valid ones.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');
const { etag } = require('../../../lib/etag');
const { request: rawRequest } = require('../helpers/http');

const root = path.join(__dirname, '..', '..', '..');
const app = path.join(root, 'test', 'fixtures', 'register-app.js');
const MODES = {
  plain: [],
  require: ['-r', 'ssr-native/register'],
  import: ['--import', 'ssr-native/register'],
  'no-addon': ['-r', path.join(root, 'test', 'fixtures', 'no-addon.js'), '-r', 'ssr-native/register'],
};

function start(framework, mode, env = {}) {
  const child = spawn(process.execPath, [...MODES[mode], app], {
    cwd: root,
    env: { ...process.env, FRAMEWORK: framework, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /READY (\d+)/.exec(out);
      if (match) resolve({ child, port: Number(match[1]), output: () => out.replace(/READY \d+\n/, '') + err });
    });
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('exit', (code) => reject(new Error(`${framework} (${mode}) exited with ${code}: ${err}`)));
  });
}

// node:http, not fetch: fetch adds Cache-Control: no-cache to conditional requests.
async function request(port, [method, urlPath, headers = {}, body]) {
  const res = await rawRequest(`http://127.0.0.1:${port}${urlPath}`, { method, headers, body });
  const out = { status: res.status, headers: {}, body: res.body };
  for (const [name, value] of Object.entries(res.headers))
    if (name !== 'date' && name !== 'keep-alive' && name !== 'connection') out.headers[name] = value;
  return out;
}

const json = { 'content-type': 'application/json' };
const EXPRESS_REQUESTS = [
  ['GET', '/html'],
  ['GET', '/page'],
  ['GET', '/json'],
  ['GET', '/typed'],
  ['GET', '/custom'],
  ['GET', '/quoted'],
  ['GET', '/accepts', { accept: 'text/html;q=0.5, application/json, */*;q=0.1', 'accept-language': 'en-GB,fr;q=0.8' }],
  ['GET', '/accepts', { accept: 'text/plain; charset="a,b", text/*;level=1' }],
  ['GET', '/format', { accept: 'application/json' }],
  ['GET', '/format', { accept: 'image/png' }],
  ['POST', '/json', json, '{"a":1}'],
  ['POST', '/json', { 'content-type': 'Application/JSON; Charset="UTF-8"' }, '{"a":2}'],
  ['POST', '/json', { 'content-type': 'application/json; charset=latin1' }, '{"a":3}'],
  ['POST', '/json', { 'content-type': 'application/json; charset' }, '{"a":4}'],
  ['POST', '/json', { 'content-type': 'application/json; charset=utf-8; charset=koi8-r' }, '{"a":5}'],
  ['POST', '/text', { 'content-type': 'text/plain; charset="iso-8859-1"' }, 'caf\u00e9'],
  ['POST', '/text', { 'content-type': 'text/plain; charset=bogus' }, 'x'],
  ['POST', '/form', { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }, 'a=1&b=2'],
  ['POST', '/is', { 'content-type': 'application/json; charset=utf-8' }, '{}'],
  ['POST', '/is', { 'content-type': 'text/html; bad' }, '{}'],
  ['POST', '/bp24', json, '{"b":1}'],
  ['POST', '/bp24', { 'content-type': 'text/plain; charset=utf-8' }, 'plain'],
  ['POST', '/bp24', { 'content-type': 'application/json; charset=utf-16' }, '{}'],
  ['POST', '/typeis', { 'content-type': 'text/html; charset=utf-8' }, 'x'],
  ['POST', '/typeis', { 'content-type': 'Application/Vnd.Api+JSON' }, '{}'],
  ['GET', '/strong/page'],
  ['GET', '/own/page'],
  ['GET', '/none/page'],
  ['GET', '/static/'],
  ['GET', '/static/style.css'],
  ['GET', '/static/data.json', { range: 'bytes=10-99' }],
  ['HEAD', '/static/style.css'],
  ['GET', '/static/missing.txt'],
  ['GET', '/static/../register-app.js'],
  ['GET', '/assets/notes.txt'],
  ['GET', '/assets/app.js'],
];
const KOA_REQUESTS = [
  ['POST', '/', { 'content-type': 'application/json; charset=UTF-8' }, '{}'],
  ['POST', '/', { 'content-type': 'text/plain; charset="iso-8859-1"' }, 'x'],
  ['POST', '/', { 'content-type': 'text/plain; charset' }, 'x'],
  ['POST', '/', { 'content-type': 'image/png', accept: 'application/json;q=0.9, text/html;q=0.1' }, 'x'],
  ['GET', '/', { 'accept-language': 'de, en;q=0.5' }],
  ['GET', '/typed'],
];

// Each request in three rounds (the caches admit on a second sighting and answer the third),
// then each answer's ETag sent back as If-None-Match: fresh in both runs alike.
async function answers(framework, mode, requests) {
  const server = await start(framework, mode);
  try {
    const results = [];
    for (let round = 0; round < 3; round++) {
      for (const req of requests) results.push({ req, res: await request(server.port, req) });
    }
    for (const { req, res } of results.slice(0, requests.length)) {
      if (!res.headers.etag || req[0] !== 'GET') continue;
      const conditional = [req[0], req[1], { ...req[2], 'if-none-match': res.headers.etag }];
      results.push({ req: conditional, res: await request(server.port, conditional), revalidation: true });
    }
    const state = JSON.parse((await request(server.port, ['GET', '/__state'])).body);
    return { results, state, output: server.output() };
  } finally {
    server.child.kill();
  }
}

// The ETag ssr-native gives a res.send body: W/"<length hex>-<crc32>" (strong without W/).
function expectedEtag(body, weak) {
  return etag(body, { weak });
}

function assertSameAnswers(framework, plain, registered, { swapsSend, swapsStatic }) {
  assert.equal(registered.results.length, plain.results.length);
  for (let i = 0; i < plain.results.length; i++) {
    const { req, res: a, revalidation } = plain.results[i];
    const b = registered.results[i].res;
    const what = `${framework}: ${req[0]} ${req[1]} ${JSON.stringify(req[2] || {})}${revalidation ? ' (revalidation)' : ''}`;
    assert.equal(b.status, a.status, what);
    assert.deepStrictEqual(b.body, a.body, what);
    const expected = { ...a.headers };
    const actual = { ...b.headers };
    const isStatic = req[1].startsWith('/static/') || req[1].startsWith('/assets/');
    if (a.headers.etag !== undefined && !revalidation) {
      if (isStatic ? swapsStatic : swapsSend && !req[1].startsWith('/own/')) {
        // The documented difference: a CRC-32 of the body instead of SHA-1 / size+mtime.
        // A range or a HEAD carries the full body's tag.
        const full =
          b.status === 206 || req[0] === 'HEAD'
            ? registered.results.find((r) => r.req[1] === req[1] && r.req[0] === 'GET' && r.res.status === 200)
            : undefined;
        if (b.status === 200 && req[0] === 'GET')
          assert.equal(b.headers.etag, expectedEtag(b.body, !req[1].startsWith('/strong/')), what);
        if (full) assert.equal(b.headers.etag, full.res.headers.etag, what);
        assert.notEqual(b.headers.etag, a.headers.etag, what);
        delete expected.etag;
        delete actual.etag;
      }
    }
    if (revalidation && (isStatic ? swapsStatic : swapsSend)) {
      // A 304 repeats the validator (each run's own) and otherwise matches.
      delete expected.etag;
      delete actual.etag;
    }
    assert.deepStrictEqual(actual, expected, what);
  }
  if (swapsSend)
    assert.ok(
      plain.results.some((r) => r.revalidation && r.res.status === 304),
      `${framework}: revalidations were exercised`,
    );
}

for (const framework of ['express53', 'express52', 'express4']) {
  test(`${framework}: same answers under -r and --import ssr-native/register, content-type and ETag swapped`, async () => {
    const plain = await answers(framework, 'plain', EXPRESS_REQUESTS);
    assert.equal(plain.state.registered, false);
    assert.ok(plain.state.contentTypeFromNodeModules.length > 0, 'the plain app loads content-type from node_modules');
    assert.ok(
      plain.results.some((r) => r.res.status === 415),
      'parse errors were exercised',
    );
    for (const mode of ['require', 'import']) {
      const registered = await answers(framework, mode, EXPRESS_REQUESTS);
      assert.equal(registered.output, '', `${framework} (${mode}): register prints nothing`);
      assert.equal(registered.state.registered, true);
      assert.deepStrictEqual(
        registered.state.contentTypeFromNodeModules,
        [],
        `${framework} (${mode}): no content-type copy left`,
      );
      assert.ok(registered.state.active['content-type'].length > 0);
      assert.ok(registered.state.active.etag.length === 1, `${framework} (${mode}): express's etag swapped`);
      // serve-static 2.x (Express 5) is swapped; 1.x (Express 4) is left alone.
      const swapsStatic = framework !== 'express4';
      assert.equal(registered.state.active.static.length, swapsStatic ? 1 : 0, `${framework} (${mode}) static`);
      assert.equal(registered.state.staticA, swapsStatic ? 'middleware' : plain.state.staticA);
      assert.equal(
        registered.state.sharedCache,
        swapsStatic,
        `${framework} (${mode}): both mounts share one FileCache`,
      );
      assertSameAnswers(`${framework} (${mode})`, plain, registered, { swapsSend: true, swapsStatic });
    }
  });
}

test('Koa 3 (+ type-is 2.1, accepts): same answers under -r and --import, no content-type copy left', async () => {
  const plain = await answers('koa', 'plain', KOA_REQUESTS);
  assert.ok(plain.state.contentTypeFromNodeModules.length >= 2, 'Koa loads content-type 1.x and (via type-is 2.1) 2.x');
  for (const mode of ['require', 'import']) {
    const registered = await answers('koa', mode, KOA_REQUESTS);
    assert.equal(registered.output, '');
    assert.deepStrictEqual(registered.state.contentTypeFromNodeModules, [], `koa (${mode})`);
    assertSameAnswers(`koa (${mode})`, plain, registered, { swapsSend: false, swapsStatic: false });
  }
});

test('SSR_NATIVE_REGISTER selects the parts; none leaves everything alone', async () => {
  const only = await start('express53', 'require', { SSR_NATIVE_REGISTER: 'static, content-type' });
  try {
    const state = JSON.parse((await request(only.port, ['GET', '/__state'])).body);
    assert.deepStrictEqual(Object.keys(state.active).sort(), ['content-type', 'static']);
    const page = await request(only.port, ['GET', '/page']);
    assert.match(page.headers.etag, /^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/, 'the etag part is off: SHA-1 ETag');
  } finally {
    only.child.kill();
  }
  const none = await start('express53', 'import', { SSR_NATIVE_REGISTER: 'none' });
  try {
    const state = JSON.parse((await request(none.port, ['GET', '/__state'])).body);
    assert.deepStrictEqual(state.active, {});
    assert.ok(state.contentTypeFromNodeModules.length > 0);
    assert.equal(state.staticA, 'serveStatic');
  } finally {
    none.child.kill();
  }
});

test('an unknown SSR_NATIVE_REGISTER part stops the start with an error naming the valid ones', () => {
  for (const mode of ['require', 'import']) {
    for (const value of ['bogus', 'static, statc', 'none,etags']) {
      const result = spawnSync(process.execPath, [...MODES[mode], '-e', 'console.log("STARTED")'], {
        cwd: root,
        env: { ...process.env, SSR_NATIVE_REGISTER: value },
        encoding: 'utf8',
      });
      const what = `${mode} with SSR_NATIVE_REGISTER=${value}`;
      assert.notEqual(result.status, 0, what);
      assert.doesNotMatch(result.stdout, /STARTED/, what);
      assert.match(result.stderr, /RangeError: SSR_NATIVE_REGISTER names an? unknown part/, what);
      assert.match(result.stderr, /use a comma list of content-type, etag, static, compression, or none/, what);
      const unknown = value
        .split(',')
        .map((v) => v.trim())
        .filter((v) => !['none', 'static'].includes(v));
      for (const name of unknown) assert.ok(result.stderr.includes(JSON.stringify(name)), `${what}: names ${name}`);
    }
  }
  // Known names in any case and spacing still start.
  const ok = spawnSync(process.execPath, [...MODES.require, '-e', 'console.log("STARTED")'], {
    cwd: root,
    env: { ...process.env, SSR_NATIVE_REGISTER: ' Static , ETAG ' },
    encoding: 'utf8',
  });
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /STARTED/);
});

test(
  'without a loadable addon, register swaps content-type only and the app still answers',
  {
    skip: process.versions.bun
      ? "the unbuilt-addon simulation hooks Node's module loader, which Bun does not route require() through"
      : false,
  },
  async () => {
    const plain = await answers('express53', 'plain', EXPRESS_REQUESTS);
    const registered = await answers('express53', 'no-addon', EXPRESS_REQUESTS);
    assert.equal(registered.output, '');
    assert.deepStrictEqual(registered.state.active.etag, []);
    assert.deepStrictEqual(registered.state.active.static, []);
    assert.deepStrictEqual(registered.state.contentTypeFromNodeModules, []);
    assertSameAnswers('express53 (no addon)', plain, registered, { swapsSend: false, swapsStatic: false });
  },
);

test(
  '--import: an ESM app importing content-type and serve-static itself gets ours',
  {
    skip: process.versions.bun
      ? 'Bun has no module.register/registerHooks ESM resolve hooks; CommonJS requires are still swapped there'
      : false,
  },
  () => {
    const script = [
      "import ct from 'content-type';",
      "import serveStatic from 'serve-static';",
      "import express from 'express53';",
      "const app = express(); app.get('/', (req, res) => res.send('hi'));",
      "const etagOfHi = await new Promise((done) => { const server = app.listen(0, '127.0.0.1', async () => {",
      "  const res = await fetch(`http://127.0.0.1:${server.address().port}/`); server.close(); done(res.headers.get('etag')); }); });",
      "import register from 'ssr-native/register';",
      'await new Promise((r) => setTimeout(r, 50));',
      'console.log(JSON.stringify({ ours: typeof ct.cacheStats, name: serveStatic.name, esmHooks: register.esmHooks, etagOfHi,',
      '  active: Object.fromEntries(Object.entries(register.active).map(([k, v]) => [k, [...v]])) }));',
    ].join('\n');
    const result = spawnSync(
      process.execPath,
      ['--import', 'ssr-native/register', '--input-type=module', '-e', script],
      { cwd: root, encoding: 'utf8' },
    );
    assert.equal(result.status, 0, result.stderr);
    const out = JSON.parse(result.stdout);
    assert.equal(out.ours, 'function');
    assert.equal(out.name, 'registeredServeStatic');
    assert.equal(out.esmHooks, true);
    assert.ok(out.active['content-type'].includes(path.join(root, 'node_modules', 'content-type', 'index.js')));
    // Express imported from ESM: its CommonJS tree still gets the swaps (ETag, content-type 2.x).
    assert.equal(out.etagOfHi, etag(Buffer.from('hi')));
    assert.equal(out.active.etag.length, 1);
    assert.equal(out.active.static.length, 1);
  },
);

test('register is idempotent: a second copy loaded returns the first state and wraps nothing twice', () => {
  const Module = require('node:module');
  const file = require.resolve('../../../lib/register/index.js');
  const first = require(file);
  const resolver = Module._resolveFilename;
  delete require.cache[file];
  const second = require(file); // a fresh evaluation of the module, as a second copy would be
  assert.equal(second, first);
  assert.equal(Module._resolveFilename, resolver);
  assert.equal(Module[Symbol.for('ssr-native.register')], first);
  // And it works: the exact request for content-type 1.x is ours, a path into the package is not.
  assert.equal(require('content-type'), require('../../../lib/content-type/index.js'));
  assert.notEqual(require('content-type/index.js'), require('../../../lib/content-type/index.js'));
  const v2 = require.resolve('content-type', { paths: [path.join(root, 'node_modules', 'express53')] });
  assert.equal(v2, first.replacements['content-type@2']);
});
